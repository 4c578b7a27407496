import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { type AppConfig, ConfigError, loadConfig } from './config.js';

/**
 * Starts the shop from the environment and shuts it down cleanly on SIGTERM / SIGINT. With
 * WEB_CONCURRENCY above 1 this process becomes the cluster's primary (cluster.ts) and every worker
 * it forks runs this same file as one shop.
 */
let config: AppConfig;
try {
  config = loadConfig();
} catch (error) {
  // A configuration mistake is the operator's to fix: say what it is, one line per setting,
  // without a stack trace.
  const problems = error instanceof ConfigError ? error.problems : [error instanceof Error ? error.message : String(error)];
  for (const problem of problems) console.error(`Duka cannot start: ${problem}`);
  process.exit(1);
}

// The shop's modules load only once the configuration is accepted: a refused start answers in a
// fraction of the time, without loading the database driver, Fastify and every route.
const { createLogger, logsWritten, startShop } = await import('./shop.js');

if (config.webConcurrency > 1 && cluster.isPrimary) {
  const { runPrimary } = await import('./cluster.js');
  await runPrimary(config, createLogger(config));
} else {
  const base = createLogger(config);
  await serve(config, cluster.isWorker && cluster.worker ? base.child({ worker: cluster.worker.id }) : base);
}

async function serve(config: AppConfig, log: Logger): Promise<void> {
  try {
    const shop = await startShop(config, { logger: log });
    log.info({ url: shop.url, database: shop.database.kind, dataDir: config.dataDir }, `Duka is open at ${config.publicUrl}`);

    let closing = false;
    const shutdown = (signal: string) => {
      // A second signal means "now": whatever still hangs is abandoned.
      if (closing) {
        log.warn({ signal }, 'second signal: exiting at once');
        exit(log, 1);
        return;
      }
      closing = true;
      log.info({ signal }, 'shutting down: finishing in-flight requests');
      // Whatever hangs (a Daraja call, a stuck database connection, the mail worker), the
      // process ends within SHUTDOWN_DRAIN_MS plus SHUTDOWN_GRACE_MS.
      setTimeout(() => {
        log.error(`shutdown took ${config.shutdownGraceMs} ms longer than SHUTDOWN_DRAIN_MS; exiting`);
        exit(log, 1);
      }, config.shutdownGraceMs + config.shutdownDrainMs);
      shop
        .close()
        .then(() => {
          log.info('stopped');
          exit(log, 0);
        })
        .catch((error: unknown) => {
          log.error({ err: error }, 'error while shutting down');
          exit(log, 1);
        });
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
    // A worker whose primary is gone (killed outright) must not serve on alone, unsupervised.
    if (cluster.isWorker) process.on('disconnect', () => shutdown('primary exited'));
  } catch (error) {
    log.fatal({ err: error }, 'the shop could not start');
    exit(log, 1);
  }
}

/** Exits once the waiting log lines are written, or after a second without them if nobody reads them. */
function exit(_log: Logger, code: number): void {
  void logsWritten(1000).then(() => process.exit(code));
}

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { runPrimary } from './cluster.js';
import { type AppConfig, ConfigError, loadConfig } from './config.js';
import { createLogger, startShop } from './shop.js';

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

if (config.webConcurrency > 1 && cluster.isPrimary) {
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
      if (closing) return;
      closing = true;
      log.info({ signal }, 'shutting down: finishing in-flight requests');
      const force = setTimeout(() => {
        log.error('shutdown took 15 s longer than SHUTDOWN_DRAIN_MS; exiting');
        process.exit(1);
      }, 15_000 + config.shutdownDrainMs);
      force.unref();
      shop
        .close()
        .then(() => {
          log.info('stopped');
          process.exit(0);
        })
        .catch((error: unknown) => {
          log.error({ err: error }, 'error while shutting down');
          process.exit(1);
        });
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
    // A worker whose primary is gone (killed outright) must not serve on alone, unsupervised.
    if (cluster.isWorker) process.on('disconnect', () => shutdown('primary exited'));
  } catch (error) {
    log.fatal({ err: error }, 'the shop could not start');
    process.exit(1);
  }
}

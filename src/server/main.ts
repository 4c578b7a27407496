import { loadConfig } from './config.js';
import { createLogger, startShop } from './shop.js';

/** Starts the shop from the environment and shuts it down cleanly on SIGTERM / SIGINT. */
const config = loadConfig();
const log = createLogger(config);

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
} catch (error) {
  log.fatal({ err: error }, 'the shop could not start');
  process.exit(1);
}

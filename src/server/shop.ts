import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import type { AppConfig } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { seedShop } from './db/seed.js';
import { type Mailer, outboxMailer } from './mail/mailer.js';
import { type MpesaRuntime, startMpesa } from './mpesa/runtime.js';

export interface RunningShop {
  app: FastifyInstance;
  database: Database;
  mpesa: MpesaRuntime;
  /** The address it listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Stops taking connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export function createLogger(config: AppConfig): Logger {
  return pino({
    level: config.logLevel,
    redact: ['req.headers.cookie', 'req.headers["x-xsrf-token"]', 'req.headers.authorization', 'res.headers["set-cookie"]'],
  });
}

function loggingMailer(inner: Mailer, log: Logger): Mailer {
  return {
    async send(message) {
      const where = await inner.send(message);
      log.info({ subject: message.subject, file: where }, 'mail written to the outbox');
      return where;
    },
  };
}

/**
 * Opens the database (PGlite under DATA_DIR, or PostgreSQL at DATABASE_URL), applies the
 * migrations, seeds a new shop, and starts serving. main.ts and the tests both start the shop here.
 */
export async function startShop(config: AppConfig, options: { database?: Database; logger?: Logger } = {}): Promise<RunningShop> {
  const log = options.logger ?? createLogger(config);
  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      pgliteDir: path.join(config.dataDir, 'pglite'),
      poolSize: config.databasePoolSize,
      onPoolError: (error) => log.warn({ err: error }, 'database connection lost; the pool will reconnect'),
    }));
  let app: FastifyInstance | undefined;
  let mpesa: MpesaRuntime | undefined;
  try {
    await database.withStartupLock(async () => {
      await database.migrate();
      await seedShop(database.db, config, log);
    });
    await fs.mkdir(path.join(config.dataDir, 'uploads'), { recursive: true });
    const mailer = loggingMailer(outboxMailer(path.join(config.dataDir, 'outbox'), config.mailFrom), log);
    mpesa = await startMpesa(config.mpesa, config.publicUrl, database.db, log);
    app = await buildApp({ config, database, mailer, logger: log, payments: mpesa });
    const address = await app.listen({ port: config.port, host: config.host });
    const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
    mpesa.listening(url);
    mpesa.startReconciler();
    const running = app;
    const payments = mpesa;
    return {
      app: running,
      database,
      mpesa: payments,
      url,
      async close() {
        await running.close();
        await payments.close();
        await database.close();
      },
    };
  } catch (error) {
    await app?.close().catch(() => {});
    await mpesa?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tty from 'node:tty';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import pino, { type DestinationStream, type Logger } from 'pino';
import { buildApp } from './app.js';
import { CatalogueCache } from './cache/catalogue-cache.js';
import { type CatalogueVersion, catalogueVersionFor } from './cache/catalogue-feed.js';
import type { AppConfig } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { seedShop } from './db/seed.js';
import type { CatalogueChanges } from './domain/catalogue-changes.js';
import { importLegacyUploads } from './domain/images.js';
import { openExceptionCounts } from './domain/payments/ledger-views.js';
import { ensureSettings } from './domain/settings.js';
import { stopListening } from './http/stop-listening.js';
import { type LoggedRequest, redactedUrl } from './lib/secret-params.js';
import { outboxTransport, smtpTransport } from './mail/mailer.js';
import { createNotifications } from './mail/notifications.js';
import { MailWorker, mailQueueDepth } from './mail/queue.js';
import { watchShop } from './metrics.js';
import { lipaNaMpesaOf } from './payments/lipa-na-mpesa.js';
import { type MpesaRuntime, startMpesa } from './payments/runtime.js';
import { connectRedis } from './redis.js';

export interface RunningShop {
  app: FastifyInstance;
  database: Database;
  mpesa: MpesaRuntime;
  mail: MailWorker;
  /** The catalogue's version, as every catalogue answer is checked against. */
  catalogueVersion: CatalogueVersion;
  /** Where catalogue writes made outside a request (a job, a script) report what they changed. */
  catalogueChanges: CatalogueChanges;
  /** The address it listens on, e.g. http://127.0.0.1:3000; empty when started without a socket. */
  url: string;
  /**
   * Answers 503 on readiness for SHUTDOWN_DRAIN_MS while still serving, then stops taking
   * connections, lets in-flight requests finish, and closes the database.
   */
  close(): Promise<void>;
}

/**
 * What Fastify logs of a request ("incoming request"), as its own serializer does, with the URL
 * redacted by route: each path parameter the matched route names secret (its `secretParams`, and
 * any `:token`) reads [redacted], so logs never show an M-Pesa callback secret or a reset token.
 */
function serializeRequest(
  request: LoggedRequest & {
    method?: string;
    host?: string;
    ip?: string;
    socket?: { remotePort?: number } | null;
  },
) {
  return {
    method: request.method,
    url: redactedUrl(request),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * A CheckoutRequestID ends with the payer's phone number (ws_CO_<time>708374149, as Daraja makes
 * them): logs keep its first and last three digits, like the masked numbers shown to shoppers.
 */
function censor(value: unknown, path: string[]): unknown {
  if (path.at(-1) === 'checkoutRequestId' && typeof value === 'string') return value.replace(/(\d{3})\d{3}(\d{3})$/, '$1***$2');
  return '[Redacted]';
}

/**
 * How much log output may wait for a reader. Past it lines are dropped: a stdout pipe nobody
 * reads (a stalled `npm start | less`, a stopped log shipper) must never hold the shop up, nor
 * grow its memory.
 */
export const LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Standard output for the logs. A pipe or a terminal is written without blocking: a line that
 * cannot be written yet waits in memory, up to LOG_BUFFER_BYTES, and past that lines are dropped.
 * (A blocking write to a full pipe would stop the event loop, and with it SIGTERM; an async file
 * write to it would hold a thread that exiting waits for.) A file is written as it always was.
 */
class StdoutLog implements DestinationStream {
  private readonly socket: net.Socket | undefined;
  private readonly file: DestinationStream | undefined;
  dropped = 0;

  constructor() {
    const stat = fs.fstatSync(1);
    if (tty.isatty(1)) this.socket = new tty.WriteStream(1);
    else if (stat.isFIFO() || stat.isSocket()) this.socket = new net.Socket({ fd: 1, readable: false, writable: true });
    else this.file = pino.destination({ dest: 1, sync: true });
    this.socket?.on('error', () => {});
  }

  write(line: string): void {
    if (this.file) {
      this.file.write(line);
      return;
    }
    if (!this.socket || this.socket.destroyed) return;
    if (this.socket.writableLength + line.length > LOG_BUFFER_BYTES) {
      this.dropped += 1;
      return;
    }
    this.socket.write(line);
  }

  /** Resolves once the waiting lines are written, or after `ms` if nobody reads them. */
  drained(ms: number): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      socket.once('drain', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

let stdoutLog: StdoutLog | undefined;

/** Waits at most `ms` for the log lines still in memory to be written (before exiting). */
export function logsWritten(ms: number): Promise<void> {
  return stdoutLog?.drained(ms) ?? Promise.resolve();
}

/** JSON lines to stdout, or to `destination` (the tests read what a shop logs). */
export function createLogger(config: AppConfig, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    // Fastify takes these over its own: request logs never show a reset token or the callback secret.
    serializers: { req: serializeRequest },
    redact: {
      paths: [
        'req.headers.cookie',
        'req.headers["x-xsrf-token"]',
        'req.headers.authorization',
        'res.headers["set-cookie"]',
        'checkoutRequestId',
        '*.checkoutRequestId',
      ],
      censor,
    },
  };
  // Asynchronous: a write to a full pipe waits in the buffer instead of blocking the event loop
  // (which would leave the shop deaf to SIGTERM). The buffer is bounded by LOG_BUFFER_BYTES.
  if (destination) return pino(options, destination);
  stdoutLog ??= new StdoutLog();
  return pino(options, stdoutLog);
}

export interface StartOptions {
  database?: Database;
  logger?: Logger;
  /**
   * false: everything but the socket. Requests reach the app only through `app.inject`, and the
   * M-Pesa runtime has no address to give for callbacks, so it registers no C2B URLs. For tests of
   * routes that need no network.
   */
  listen?: boolean;
}

/**
 * Opens the database (PGlite under DATA_DIR, or PostgreSQL at DATABASE_URL), applies the
 * migrations, seeds a new shop, and starts serving. main.ts and the tests both start the shop here.
 */
export async function startShop(config: AppConfig, options: StartOptions = {}): Promise<RunningShop> {
  const listen = options.listen ?? true;
  const log = options.logger ?? createLogger(config);
  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      pgliteDir: path.join(config.dataDir, 'pglite'),
      pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
      poolSize: config.databasePoolSize,
      onPoolError: (error) => log.warn({ err: error }, 'database connection lost; the pool will reconnect'),
    }));
  let app: FastifyInstance | undefined;
  let mpesa: MpesaRuntime | undefined;
  let mailWorker: MailWorker | undefined;
  let redis: Redis | undefined;
  const unwatch = watchShop({
    mailQueueDepth: () => mailQueueDepth(database.db),
    openPaymentExceptions: () => openExceptionCounts(database.db),
    dbPool: () => database.poolStats(),
  });
  try {
    if (config.redisUrl) redis = await connectRedis(config.redisUrl, log);
    await database.withStartupLock(async () => {
      await database.migrate();
      await seedShop(database.db, config, log);
      await ensureSettings(database.db);
    });
    // Outside the start-up lock: converting many old files must not hold up other instances, and
    // the import is safe to run concurrently.
    await importLegacyUploads(database.db, path.join(config.dataDir, 'uploads'), log);
    const outbox = path.join(config.dataDir, 'outbox');
    const transport = config.smtpUrl ? smtpTransport(config.smtpUrl, config.mailFrom) : outboxTransport(outbox, config.mailFrom);
    if (!config.smtpUrl) log.info({ outbox }, 'no SMTP_URL: mail is written to the outbox folder, one .eml file per message');
    mailWorker = new MailWorker(database.db, transport, config.mail, log);
    const worker = mailWorker;
    const notify = createNotifications(config.publicUrl, lipaNaMpesaOf(config.mpesa), () => worker.nudge());
    mpesa = await startMpesa(config.mpesa, config.publicUrl, database.db, notify, log);
    const onCacheError = (error: unknown, what: string) => log.error({ err: error }, `catalogue cache: ${what} failed`);
    const catalogueVersion = catalogueVersionFor(database, redis, config.redisKeyPrefix, onCacheError);
    const cache = new CatalogueCache({
      version: catalogueVersion,
      onError: onCacheError,
      computeSlots: database.catalogueSlots,
    });
    app = await buildApp({ config, database, notify, logger: log, payments: mpesa, cache, redis });
    // A deep accept queue: at a promotion's peak a thousand phones may connect at once, and
    // Node's default of 511 resets the rest (seen in test/reliability/concurrency.test.ts).
    let url = '';
    if (listen) {
      const address = await app.listen({ port: config.port, host: config.host, backlog: 4096 });
      url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
      await mpesa.listening(url);
    } else {
      await app.ready();
    }
    mpesa.startReconciler();
    worker.start();
    const running = app;
    const payments = mpesa;
    const sharedState = redis;
    let closed: Promise<void> | undefined;
    const close = async () => {
      running.beginShutdown();
      if (config.shutdownDrainMs > 0 && listen) {
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
        // Behind nginx: refuse new connections (nginx sends those to the other instance) and let
        // the ones just opened bring their request, before anything is closed under them.
        await stopListening(running.server, 2_000);
      }
      await running.close();
      await payments.close();
      await worker.stop();
      unwatch();
      // Redis may be down: then there is nothing to say goodbye to, just drop the connection.
      await sharedState?.quit().catch(() => sharedState.disconnect());
      await database.close();
    };
    return {
      app: running,
      database,
      mpesa: payments,
      mail: worker,
      catalogueVersion,
      catalogueChanges: cache,
      url,
      // Once only: a second call (a second signal, a test's stop) waits for the first.
      close() {
        closed ??= close();
        return closed;
      },
    };
  } catch (error) {
    await app?.close().catch(() => {});
    await mpesa?.close().catch(() => {});
    await mailWorker?.stop().catch(() => {});
    redis?.disconnect();
    unwatch();
    await database.close().catch(() => {});
    throw error;
  }
}

import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { catalogueAnswers } from './cache/catalogue-answers.js';
import type { CatalogueCache } from './cache/catalogue-cache.js';
import { SettingsCache } from './cache/settings-cache.js';
import { type AppConfig, trustProxyOption } from './config.js';
import type { Database } from './db/client.js';
import { createPasswords } from './domain/passwords.js';
import type { Notifications } from './mail/notifications.js';
import { demoImagesDir } from './paths.js';
import openapi from './plugins/packages/openapi.js';
import rateLimiting from './plugins/packages/rate-limit.js';
import securityHeaders from './plugins/packages/security-headers.js';
import errors, { clientErrorHandler, frameworkErrors, sendNotFound } from './plugins/shop/errors.js';
import metrics from './plugins/shop/metrics.js';
import sessions from './plugins/shop/sessions.js';
import webApp from './plugins/shop/web.js';
import xsrf from './plugins/shop/xsrf.js';
import adminDashboardRoutes from './routes/api/admin/dashboard.js';
import adminExportRoutes from './routes/api/admin/exports.js';
import adminMailRoutes from './routes/api/admin/mail.js';
import adminPaymentRoutes from './routes/api/admin/payments.js';
import adminProductRoutes from './routes/api/admin/products.js';
import adminSettingsRoutes from './routes/api/admin/settings.js';
import healthRoutes from './routes/api/health.js';
import darajaHookRoutes, { type DarajaHookOptions } from './routes/api/hooks/daraja.js';
import orderRoutes, { orderPaymentRoutes } from './routes/api/orders.js';
import productRoutes from './routes/api/products.js';
import settingsRoutes from './routes/api/settings.js';
import uploadRoutes from './routes/api/uploads.js';
import userRoutes from './routes/api/users.js';
import { imageCache } from './routes/image-cache.js';
import imageRoutes from './routes/images.js';
import uploadedImageRoutes from './routes/uploads.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Readiness (GET /api/health) answers 503 from now on; close() does this too. */
    beginShutdown(): void;
  }
}

export interface AppDeps {
  config: AppConfig;
  database: Database;
  notify: Notifications;
  logger: FastifyBaseLogger;
  payments: DarajaHookOptions;
  /** Cached catalogue answers; the domain's catalogue writes report to it what they changed. */
  cache: CatalogueCache;
  /** Shared fast state (rate-limit counters) when the shop has Redis. */
  redis?: Redis | undefined;
}

/** A request id nginx (or another proxy) sent that is safe to put in logs and headers. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The proxy's X-Request-Id when it is a sane token, so its log and ours match; a new UUID otherwise. */
export function requestIdFor(headers: Record<string, string | string[] | undefined>): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** JSON bodies stay small; images go through multipart uploads with their own limit. */
const JSON_BODY_LIMIT = 256 * 1024;

/**
 * Builds the whole shop as one Fastify instance: packages' plugins (plugins/packages/) and the
 * shop's own cross-cutting ones (plugins/shop/), then one routes plugin per resource. main.ts and
 * the tests both call it.
 */
export async function buildApp({ config, database, notify, logger, payments, cache, redis }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    genReqId: (request) => requestIdFor(request.headers),
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: trustProxyOption(config.trustProxy),
    // Let in-flight requests finish on shutdown, but do not wait for idle keep-alive sockets.
    forceCloseConnections: 'idle',
    // A request that reaches a closing instance (nginx sent it on a kept-alive connection) is
    // served, with `Connection: close`, rather than refused with a 503 that nginx would pass on.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Requests Fastify refuses before routing (a broken %-encoding, an over-long id or URL) still
    // answer in the shop's error shape.
    frameworkErrors,
    clientErrorHandler,
    // Fastify gives a plugin 10 s to start. Loading the first-screen renderer (React and every
    // screen) took longer than that on a 2-core machine under load, and the shop did not start at
    // all; a slow start is better than none, and a plugin that hangs still fails here, by name.
    pluginTimeout: 60_000,
  }).withTypeProvider<ZodTypeProvider>();
  // Bodies are JSON, or form data where a route accepts it; plain text is refused with 415.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Every answer carries its request id, so a shopper's report can be matched to the log.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // During shutdown, answers to in-flight requests close their keep-alive connection, so the
  // server can finish as soon as the last of them is sent.
  let closing = false;
  app.decorate('beginShutdown', () => {
    closing = true;
  });
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  await app.register(errors);
  await app.register(metrics, { token: config.metricsToken });
  await app.register(securityHeaders, { secureCookies: config.secureCookies });
  await app.register(cookie);
  await app.register(xsrf, { secureCookies: config.secureCookies, publicUrl: config.publicUrl });
  await app.register(sessions, { db: database.db, config });
  await app.register(rateLimiting, { db: database.db, redis, redisKeyPrefix: config.redisKeyPrefix });
  await app.register(openapi);

  const db = database.db;
  // Demo images and uploads share one bounded cache of encoded images.
  const images = imageCache();
  await app.register(imageRoutes, { demoImagesDir, images });
  await app.register(uploadedImageRoutes, { db, images });
  await app.register(healthRoutes, { database, isClosing: () => closing });
  const answers = catalogueAnswers(database.catalogueDb, cache);
  await app.register(productRoutes, { db, changes: cache, answers });
  await app.register(adminProductRoutes, { db });
  await app.register(userRoutes, { db, changes: cache, config, notify, passwords: createPasswords(config.passwordCost) });
  await app.register(orderRoutes, { db, changes: cache, notify });
  await app.register(adminMailRoutes, { db });
  const settings = new SettingsCache(cache, database.catalogueDb);
  await app.register(settingsRoutes, { settings });
  await app.register(adminSettingsRoutes, { db, changes: cache, settings });
  await app.register(orderPaymentRoutes, { deps: payments.deps, promptsPerUser: config.mpesa.promptsPerUser });
  await app.register(darajaHookRoutes, { ...payments, callbackAllowedIps: config.mpesa.callbackAllowedIps });
  await app.register(adminPaymentRoutes, { db, notify, payments: payments.deps });
  await app.register(adminDashboardRoutes, { db, settings });
  await app.register(adminExportRoutes, { db });
  await app.register(uploadRoutes, { db });
  await app.register(webApp, { webDir: config.webDir, apiNotFound: sendNotFound, answers });

  return app;
}

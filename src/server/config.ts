import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { type Environment, environment, nodeEnv } from './config/environment.js';
import { mpesaSettings } from './config/mpesa.js';
import { productionProblems } from './config/production.js';
import type { Env } from './config/variables.js';
import { webDistDir } from './paths.js';

/**
 * Everything the server can be told, read once from the environment by one zod schema. Every
 * variable has a default so that `npm start` with no configuration runs the whole shop on the
 * embedded database, and every refusal names the variable to fix. docs/configuration.md lists
 * them; keep the two in step. The schema's parts are in config/: each variable's kind of value
 * (variables.ts), the variables themselves (environment.ts), TRUST_PROXY (trust-proxy.ts), the
 * M-Pesa settings (mpesa.ts) and the checks of a production start (production.ts).
 */

export { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from './config/environment.js';
export { SIMULATOR_INITIATOR_NAME, SIMULATOR_INITIATOR_PASSWORD } from './config/mpesa.js';
export { productionProblems } from './config/production.js';
export { trustProxyOption } from './config/trust-proxy.js';

/** WEB_CONCURRENCY as a number of processes; more than one needs PostgreSQL (DATABASE_URL). */
function processCount(env: Environment, ctx: z.RefinementCtx): number {
  // "auto" on the embedded database means the one process it allows.
  if (env.WEB_CONCURRENCY === 'auto') return env.DATABASE_URL ? os.availableParallelism() : 1;
  const workers = env.WEB_CONCURRENCY;
  if (workers > 1 && !env.DATABASE_URL) {
    ctx.addIssue({
      code: 'custom',
      message:
        `WEB_CONCURRENCY=${workers} needs DATABASE_URL: the embedded PGlite database can be opened by one process only. ` +
        'Set DATABASE_URL to a PostgreSQL database, or WEB_CONCURRENCY=1.',
    });
  }
  return workers;
}

/** The environment turned into the shop's settings, with the rules that tie variables together. */
const configSchema = environment.transform((env, ctx) => {
  const nodeEnv = env.NODE_ENV;
  const databaseUrl = env.DATABASE_URL;
  const workers = processCount(env, ctx);
  return {
    nodeEnv,
    port: env.PORT,
    /** Processes serving the port (cluster mode when above 1; needs PostgreSQL). */
    webConcurrency: workers,
    host: env.HOST ?? '0.0.0.0',
    /** Where the embedded database and the mail outbox live (uploads are in the database; an old uploads/ folder is imported at start-up). */
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    /** The built web app to serve (`vite build` output). */
    webDir: env.WEB_DIR ? path.resolve(env.WEB_DIR) : webDistDir,
    /** postgres://… to run on PostgreSQL; unset runs on the embedded PGlite under dataDir. */
    databaseUrl,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    /** The embedded database's page cache (PostgreSQL's shared_buffers), in MB. */
    pgliteSharedBuffersMb: env.PGLITE_SHARED_BUFFERS_MB,
    /** redis://… shared by every instance for rate-limit counters and the catalogue cache's version; unset keeps them in the database. */
    redisUrl: env.REDIS_URL,
    /** Prefix of every Redis key, so several shops (or test runs) can share one Redis. */
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'duka:',
    /** The shop's address as shoppers reach it; used in links sent by mail. */
    publicUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    adminEmail: (env.ADMIN_EMAIL ?? 'admin@example.com').trim().toLowerCase(),
    adminPassword: env.ADMIN_PASSWORD,
    /** Seed the demo catalogue into an empty database. */
    seedDemo: env.SEED_DEMO ?? true,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    /** When set, GET /metrics requires `Authorization: Bearer <token>`; unset, it is open (keep it internal). */
    metricsToken: env.METRICS_TOKEN,
    /** On shutdown, readiness answers 503 this long before the server stops, so a load balancer moves away first. */
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    /** After the drain, how long in-flight work may take before the process exits anyway. */
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    /** Whose X-Forwarded-* to believe: no one (false), the listed proxies, or (outside production) anyone (true). */
    trustProxy: env.TRUST_PROXY,
    /** Cookies carry the Secure flag (on by default in production). */
    secureCookies: env.SECURE_COOKIES ?? nodeEnv === 'production',
    sessionDays: env.SESSION_DAYS,
    /** The Argon2 cost of new password hashes; only tests lower it, to sign up and in quickly. */
    passwordCost: { memoryKib: env.ARGON2_MEMORY_KIB, timeCost: env.ARGON2_TIME_COST },
    mailFrom: env.MAIL_FROM ?? 'Duka <no-reply@duka.local>',
    /** smtp://user:pass@host:587 or smtps://…; unset writes every mail to DATA_DIR/outbox. */
    smtpUrl: env.SMTP_URL,
    mail: { pollIntervalMs: env.MAIL_POLL_INTERVAL_MS, retryBaseMs: env.MAIL_RETRY_BASE_MS, maxAttempts: env.MAIL_MAX_ATTEMPTS },
    mpesa: mpesaSettings(env, ctx),
    rateLimits: {
      login: { max: env.RATE_LIMIT_LOGIN_MAX, windowMs: env.RATE_LIMIT_LOGIN_WINDOW_MS },
      register: { max: env.RATE_LIMIT_REGISTER_MAX, windowMs: env.RATE_LIMIT_REGISTER_WINDOW_MS },
      forgotPassword: { max: env.RATE_LIMIT_FORGOT_PASSWORD_MAX, windowMs: env.RATE_LIMIT_FORGOT_PASSWORD_WINDOW_MS },
      resetPassword: { max: env.RATE_LIMIT_RESET_PASSWORD_MAX, windowMs: env.RATE_LIMIT_RESET_PASSWORD_WINDOW_MS },
    },
  };
});

export type AppConfig = z.output<typeof configSchema>;
export type MpesaConfig = AppConfig['mpesa'];
export type MpesaEnv = MpesaConfig['env'];
export type RateLimitRule = MpesaConfig['promptsPerUser'];

/** A configuration the shop refuses; `problems` has one line per setting to fix. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * The shop's settings from the environment. Refuses (ConfigError, one line per variable to fix) a
 * production start that would take a demo default, and any variable that does not parse.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  if (nodeEnv.parse(env.NODE_ENV) === 'production') {
    const problems = productionProblems(env);
    if (problems.length > 0) throw new ConfigError(problems);
  }
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError([...new Set(parsed.error.issues.map((issue) => issue.message))]);
  return parsed.data;
}

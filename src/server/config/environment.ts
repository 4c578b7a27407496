import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_PASSWORD_COST } from '../domain/passwords.js';
import { trustProxySetting } from './trust-proxy.js';
import { baseUrl, flag, oneOf, portNumber, text, urlLike, wholeNumber } from './variables.js';

/** The embedded database's page cache: PostgreSQL's own default, which PGlite keeps. */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 128;

/** MPESA_CALLBACK_ALLOWED_IPS: addresses separated by commas or spaces; unset means any. */
const ipList = text().transform((raw, ctx) => {
  const list = raw?.split(/[\s,]+/).filter(Boolean) ?? [];
  for (const ip of list) {
    if (!isIP(ip)) ctx.addIssue({ code: 'custom', message: `MPESA_CALLBACK_ALLOWED_IPS must list IP addresses, got "${ip}"` });
  }
  return list.length > 0 ? list : undefined;
});

/** WEB_CONCURRENCY: a whole number of processes, or "auto" for one per CPU core. */
const webConcurrency = z.union(
  [
    z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.literal('auto')),
    wholeNumber('WEB_CONCURRENCY', 1, 1),
  ],
  { error: 'WEB_CONCURRENCY must be a whole number of at least 1, or auto' },
);

export const nodeEnv = z.enum(['development', 'production', 'test']).catch('development');

/** The environment, variable by variable: what each may hold and its default. */
export const environment = z.object({
  NODE_ENV: nodeEnv,
  PORT: portNumber('PORT', 3000),
  WEB_CONCURRENCY: webConcurrency,
  HOST: text(),
  DATA_DIR: text(),
  WEB_DIR: text(),
  DATABASE_URL: urlLike('DATABASE_URL', /^postgres(ql)?:\/\//, 'start with postgres:// or postgresql://'),
  DATABASE_POOL_SIZE: wholeNumber('DATABASE_POOL_SIZE', 10),
  PGLITE_SHARED_BUFFERS_MB: wholeNumber('PGLITE_SHARED_BUFFERS_MB', DEFAULT_PGLITE_SHARED_BUFFERS_MB, 1),
  REDIS_URL: urlLike('REDIS_URL', /^rediss?:\/\/[^\s]+/, 'look like redis://host:6379 or rediss://user:pass@host:6380/0'),
  REDIS_KEY_PREFIX: text(),
  PUBLIC_URL: baseUrl(),
  ADMIN_EMAIL: text(),
  ADMIN_PASSWORD: text(),
  SEED_DEMO: flag('SEED_DEMO'),
  LOG_LEVEL: text(),
  METRICS_TOKEN: text(),
  SHUTDOWN_DRAIN_MS: wholeNumber('SHUTDOWN_DRAIN_MS', 0),
  SHUTDOWN_GRACE_MS: wholeNumber('SHUTDOWN_GRACE_MS', 15_000),
  TRUST_PROXY: trustProxySetting,
  SECURE_COOKIES: flag('SECURE_COOKIES'),
  SESSION_DAYS: wholeNumber('SESSION_DAYS', 30),
  // Argon2's own minimums; production refuses less than the defaults (productionProblems).
  ARGON2_MEMORY_KIB: wholeNumber('ARGON2_MEMORY_KIB', DEFAULT_PASSWORD_COST.memoryKib, 8),
  ARGON2_TIME_COST: wholeNumber('ARGON2_TIME_COST', DEFAULT_PASSWORD_COST.timeCost, 1),
  MAIL_FROM: text(),
  SMTP_URL: urlLike('SMTP_URL', /^smtps?:\/\/[^/\s]+/, 'look like smtp://user:pass@host:587 or smtps://user:pass@host:465'),
  MAIL_POLL_INTERVAL_MS: wholeNumber('MAIL_POLL_INTERVAL_MS', 5_000),
  MAIL_RETRY_BASE_MS: wholeNumber('MAIL_RETRY_BASE_MS', 30_000),
  MAIL_MAX_ATTEMPTS: wholeNumber('MAIL_MAX_ATTEMPTS', 8),
  RATE_LIMIT_LOGIN_MAX: wholeNumber('RATE_LIMIT_LOGIN_MAX', 10),
  RATE_LIMIT_LOGIN_WINDOW_MS: wholeNumber('RATE_LIMIT_LOGIN_WINDOW_MS', 15 * 60_000),
  RATE_LIMIT_REGISTER_MAX: wholeNumber('RATE_LIMIT_REGISTER_MAX', 10),
  RATE_LIMIT_REGISTER_WINDOW_MS: wholeNumber('RATE_LIMIT_REGISTER_WINDOW_MS', 60 * 60_000),
  RATE_LIMIT_FORGOT_PASSWORD_MAX: wholeNumber('RATE_LIMIT_FORGOT_PASSWORD_MAX', 5),
  RATE_LIMIT_FORGOT_PASSWORD_WINDOW_MS: wholeNumber('RATE_LIMIT_FORGOT_PASSWORD_WINDOW_MS', 60 * 60_000),
  RATE_LIMIT_RESET_PASSWORD_MAX: wholeNumber('RATE_LIMIT_RESET_PASSWORD_MAX', 10),
  RATE_LIMIT_RESET_PASSWORD_WINDOW_MS: wholeNumber('RATE_LIMIT_RESET_PASSWORD_WINDOW_MS', 60 * 60_000),
  RATE_LIMIT_STKPUSH_MAX: wholeNumber('RATE_LIMIT_STKPUSH_MAX', 5),
  RATE_LIMIT_STKPUSH_WINDOW_MS: wholeNumber('RATE_LIMIT_STKPUSH_WINDOW_MS', 10 * 60_000),

  MPESA_ENV: oneOf('MPESA_ENV', ['simulator', 'sandbox', 'production'], 'simulator'),
  MPESA_BASE_URL: text(),
  MPESA_CONSUMER_KEY: text(),
  MPESA_CONSUMER_SECRET: text(),
  MPESA_SHORTCODE: text(),
  MPESA_PASSKEY: text(),
  MPESA_TRANSACTION_TYPE: oneOf('MPESA_TRANSACTION_TYPE', ['paybill', 'till'], 'paybill'),
  MPESA_TILL_NUMBER: text(),
  MPESA_CALLBACK_BASE_URL: baseUrl(),
  MPESA_CALLBACK_SECRET: text(),
  MPESA_RECONCILE_AFTER_MS: wholeNumber('MPESA_RECONCILE_AFTER_MS', 30_000),
  MPESA_RECONCILE_INTERVAL_MS: wholeNumber('MPESA_RECONCILE_INTERVAL_MS', 15_000),
  MPESA_GIVE_UP_AFTER_MS: wholeNumber('MPESA_GIVE_UP_AFTER_MS', 10 * 60_000),
  MPESA_PROMPT_COOLDOWN_MS: wholeNumber('MPESA_PROMPT_COOLDOWN_MS', 60_000),
  MPESA_SIMULATOR_DELAY_MS: wholeNumber('MPESA_SIMULATOR_DELAY_MS', 3000),
  MPESA_SIMULATOR_URL: baseUrl(),
  MPESA_SIMULATOR_PORT: wholeNumber('MPESA_SIMULATOR_PORT', 4010),
  MPESA_HTTP_TIMEOUT_MS: wholeNumber('MPESA_HTTP_TIMEOUT_MS', 10_000, 1),
  MPESA_RECEIPT_WAIT_MS: wholeNumber('MPESA_RECEIPT_WAIT_MS', 2 * 60_000),
  MPESA_CONFIRM_CALLBACKS: flag('MPESA_CONFIRM_CALLBACKS'),
  MPESA_CALLBACK_ALLOWED_IPS: ipList,
  MPESA_C2B_REGISTER: flag('MPESA_C2B_REGISTER'),
  MPESA_C2B_VERSION: oneOf('MPESA_C2B_VERSION', ['v1', 'v2'], 'v2'),
  MPESA_INITIATOR_NAME: text(),
  MPESA_INITIATOR_PASSWORD: text(),
  MPESA_CERT_PATH: text(),
  MPESA_REVERSAL_IDENTIFIER_TYPE: text(),
  MPESA_RESULT_WAIT_MS: wholeNumber('MPESA_RESULT_WAIT_MS', 10 * 60_000),
  MPESA_REVERSAL_MAX_ATTEMPTS: wholeNumber('MPESA_REVERSAL_MAX_ATTEMPTS', 3, 1),
  MPESA_RECEIPT_LOOKUP_AFTER_MS: wholeNumber('MPESA_RECEIPT_LOOKUP_AFTER_MS', 5 * 60_000),
  MPESA_RECEIPT_LOOKUP_MAX_ATTEMPTS: wholeNumber('MPESA_RECEIPT_LOOKUP_MAX_ATTEMPTS', 4, 1),
  // Read by the production checks (productionProblems); here so that a typo in them is named too.
  ALLOW_SIMULATOR_IN_PRODUCTION: flag('ALLOW_SIMULATOR_IN_PRODUCTION'),
  METRICS_PUBLIC: flag('METRICS_PUBLIC'),
});

export type Environment = z.output<typeof environment>;

import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { webDistDir } from './paths.js';

/**
 * Everything the server can be told, read once from the environment. Every variable has a
 * default so that `npm start` with no configuration runs the whole shop on the embedded database.
 * The README lists them; keep the two in step.
 */
export interface RateLimitRule {
  max: number;
  windowMs: number;
}

export type MpesaEnv = 'simulator' | 'sandbox' | 'production';

export interface MpesaConfig {
  env: MpesaEnv;
  /** Daraja's base URL; in simulator mode the shop starts the simulator and uses its address. */
  baseUrl: string | undefined;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  transactionType: 'paybill' | 'till';
  tillNumber: string | undefined;
  /** Base of the CallBackURL Daraja posts to (PUBLIC_URL unless set); the secret path is appended. */
  callbackBaseUrl: string | undefined;
  /** The secret path token of the callback; generated once and kept in the database when unset. */
  callbackSecret: string | undefined;
  /** A prompt with no answer after this long is confirmed with an STK query. */
  reconcileAfterMs: number;
  reconcileIntervalMs: number;
  /** A prompt still unresolved after this long is given up as timed out. */
  giveUpAfterMs: number;
  /** How long a shopper waits before another prompt for the same order. */
  promptCooldownMs: number;
  promptsPerUser: RateLimitRule;
  /** Simulator only: delay before it answers a prompt. */
  simulatorDelayMs: number;
  /**
   * Simulator only: the address of a Daraja simulator already running, used instead of starting
   * one. Cluster mode's primary starts one and gives its workers this, so that every worker's
   * reconciler can query a prompt another worker sent.
   */
  simulatorUrl: string | undefined;
  /**
   * How long the "payment received" mail of a payment known only from the status query waits for
   * the callback that brings its receipt, before it goes without it.
   */
  receiptWaitMs: number;
  /** How long one Daraja HTTP call may take before its answer counts as lost. */
  httpTimeoutMs: number;
  /**
   * Re-check every success callback with an STK query before crediting it, so that a forged
   * callback through a leaked URL pays nothing.
   */
  confirmCallbacks: boolean;
  /** When set, callbacks from other addresses are kept but never acted on. */
  callbackAllowedIps: string[] | undefined;
}

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  /** Processes serving the port (cluster mode when above 1; needs PostgreSQL). */
  webConcurrency: number;
  host: string;
  /** Where the embedded database and the mail outbox live (uploads are in the database; an old uploads/ folder is imported at start-up). */
  dataDir: string;
  /** The built web app to serve (`vite build` output). */
  webDir: string;
  /** postgres://… to run on PostgreSQL; unset runs on the embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** redis://… shared by every instance for rate-limit counters and the catalogue cache's version; unset keeps them in the database. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several shops (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  /** The shop's address as shoppers reach it; used in links sent by mail. */
  publicUrl: string;
  adminEmail: string;
  adminPassword: string | undefined;
  /** Seed the demo catalogue into an empty database. */
  seedDemo: boolean;
  logLevel: string;
  /** When set, GET /metrics requires `Authorization: Bearer <token>`; unset, it is open (keep it internal). */
  metricsToken: string | undefined;
  /** On shutdown, readiness answers 503 this long before the server stops, so a load balancer moves away first. */
  shutdownDrainMs: number;
  /** After the drain, how long in-flight work may take before the process exits anyway. */
  shutdownGraceMs: number;
  /** Trust X-Forwarded-* from a reverse proxy (true, or the proxies' addresses). */
  trustProxy: boolean | string;
  /** Cookies carry the Secure flag (on by default in production). */
  secureCookies: boolean;
  sessionDays: number;
  mailFrom: string;
  /** smtp://user:pass@host:587 or smtps://…; unset writes every mail to DATA_DIR/outbox. */
  smtpUrl: string | undefined;
  mail: { pollIntervalMs: number; retryBaseMs: number; maxAttempts: number };
  mpesa: MpesaConfig;
  rateLimits: {
    login: RateLimitRule;
    register: RateLimitRule;
    forgotPassword: RateLimitRule;
    resetPassword: RateLimitRule;
  };
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}

/** true, false, or the addresses/subnets of the proxies to trust ("127.0.0.1,10.0.0.0/8"). */
function trustProxySetting(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw;
}

function rule(env: Env, name: string, max: number, windowMs: number): RateLimitRule {
  return { max: integer(env, `${name}_MAX`, max), windowMs: integer(env, `${name}_WINDOW_MS`, windowMs) };
}

/** Daraja's public sandbox shortcode and passkey (DARAJA.md §5); the simulator uses them too. */
const SANDBOX_SHORTCODE = '174379';
const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const DARAJA_URLS = { sandbox: 'https://sandbox.safaricom.co.ke', production: 'https://api.safaricom.co.ke' } as const;

function loadMpesaConfig(env: Env): MpesaConfig {
  const mode = (env.MPESA_ENV || 'simulator') as MpesaEnv;
  if (!['simulator', 'sandbox', 'production'].includes(mode)) {
    throw new Error(`MPESA_ENV must be simulator, sandbox or production, got "${env.MPESA_ENV}"`);
  }
  const transactionType = (env.MPESA_TRANSACTION_TYPE || 'paybill') as 'paybill' | 'till';
  if (!['paybill', 'till'].includes(transactionType)) throw new Error('MPESA_TRANSACTION_TYPE must be paybill or till');
  const simulator = mode === 'simulator';
  const config: MpesaConfig = {
    env: mode,
    baseUrl: simulator ? undefined : env.MPESA_BASE_URL || DARAJA_URLS[mode],
    consumerKey: env.MPESA_CONSUMER_KEY || (simulator ? 'duka-simulator-key' : ''),
    consumerSecret: env.MPESA_CONSUMER_SECRET || (simulator ? 'duka-simulator-secret' : ''),
    shortcode: env.MPESA_SHORTCODE || (mode === 'production' ? '' : SANDBOX_SHORTCODE),
    passkey: env.MPESA_PASSKEY || (mode === 'production' ? '' : SANDBOX_PASSKEY),
    transactionType,
    tillNumber: env.MPESA_TILL_NUMBER || undefined,
    callbackBaseUrl: env.MPESA_CALLBACK_BASE_URL?.replace(/\/+$/, '') || undefined,
    callbackSecret: env.MPESA_CALLBACK_SECRET || undefined,
    reconcileAfterMs: integer(env, 'MPESA_RECONCILE_AFTER_MS', 30_000),
    reconcileIntervalMs: integer(env, 'MPESA_RECONCILE_INTERVAL_MS', 15_000),
    giveUpAfterMs: integer(env, 'MPESA_GIVE_UP_AFTER_MS', 10 * 60_000),
    promptCooldownMs: integer(env, 'MPESA_PROMPT_COOLDOWN_MS', 60_000),
    promptsPerUser: rule(env, 'RATE_LIMIT_STKPUSH', 5, 10 * 60_000),
    simulatorDelayMs: integer(env, 'MPESA_SIMULATOR_DELAY_MS', 3000),
    simulatorUrl: simulator ? env.MPESA_SIMULATOR_URL?.replace(/\/+$/, '') || undefined : undefined,
    httpTimeoutMs: integer(env, 'MPESA_HTTP_TIMEOUT_MS', 10_000),
    receiptWaitMs: integer(env, 'MPESA_RECEIPT_WAIT_MS', 2 * 60_000),
    confirmCallbacks: flag(env, 'MPESA_CONFIRM_CALLBACKS', true),
    callbackAllowedIps: allowedIps(env.MPESA_CALLBACK_ALLOWED_IPS),
  };
  if (config.httpTimeoutMs < 1) throw new Error('MPESA_HTTP_TIMEOUT_MS must be at least 1');
  if (mode === 'production') {
    const base = config.callbackBaseUrl ?? env.PUBLIC_URL ?? '';
    if (!publicHttps(base)) {
      throw new Error(
        'MPESA_ENV=production needs an https callback: set MPESA_CALLBACK_BASE_URL (or PUBLIC_URL) to a public https:// address, not localhost',
      );
    }
  }
  if (!simulator) {
    const missing = (['consumerKey', 'consumerSecret', 'shortcode', 'passkey'] as const).filter((k) => !config[k]);
    if (missing.length > 0) {
      throw new Error(
        `MPESA_ENV=${mode} needs ${missing.map((k) => `MPESA_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`).join(', ')}`,
      );
    }
    if (transactionType === 'till' && !config.tillNumber) throw new Error('MPESA_TRANSACTION_TYPE=till needs MPESA_TILL_NUMBER');
  }
  return config;
}

/** MPESA_CALLBACK_ALLOWED_IPS: addresses separated by commas or spaces; unset means any. */
function allowedIps(raw: string | undefined): string[] | undefined {
  const list = raw?.split(/[\s,]+/).filter(Boolean) ?? [];
  for (const ip of list) {
    if (!isIP(ip)) throw new Error(`MPESA_CALLBACK_ALLOWED_IPS must list IP addresses, got "${ip}"`);
  }
  return list.length > 0 ? list : undefined;
}

function smtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^smtps?:\/\/[^/\s]+/.test(raw))
    throw new Error('SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465');
  return raw;
}

function redisUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^rediss?:\/\/[^\s]+/.test(raw))
    throw new Error('REDIS_URL must look like redis://host:6379 or rediss://user:pass@host:6380/0');
  return raw;
}

/** WEB_CONCURRENCY: a whole number of processes, or "auto" for one per CPU core. */
function webConcurrency(env: Env, databaseUrl: string | undefined): number {
  const raw = env.WEB_CONCURRENCY?.trim().toLowerCase();
  // "auto" on the embedded database means the one process it allows.
  if (raw === 'auto') return databaseUrl ? os.availableParallelism() : 1;
  const count = integer(env, 'WEB_CONCURRENCY', 1);
  if (count < 1) throw new Error('WEB_CONCURRENCY must be at least 1');
  if (count > 1 && !databaseUrl) {
    throw new Error(
      `WEB_CONCURRENCY=${env.WEB_CONCURRENCY} needs DATABASE_URL: the embedded PGlite database can be opened by one process only. ` +
        'Set DATABASE_URL to a PostgreSQL database, or WEB_CONCURRENCY=1.',
    );
  }
  return count;
}

/** The address names this machine only: `localhost`, `*.localhost`. */
function namesLocalhost(address: string): boolean {
  try {
    const host = new URL(address).hostname.toLowerCase().replace(/\.$/, '');
    return host === 'localhost' || host.endsWith('.localhost');
  } catch {
    return true;
  }
}

function publicHttps(address: string): boolean {
  return /^https:\/\/[^/\s]/i.test(address) && !namesLocalhost(address);
}

/**
 * A production start never takes a demo default (see the README's checklist for a real shop):
 * each problem is one line naming the setting to fix. An empty list means it may start.
 */
export function productionProblems(env: Env): string[] {
  const problems: string[] = [];
  const mpesaEnv = env.MPESA_ENV || undefined;
  if (mpesaEnv === undefined) {
    problems.push(
      'NODE_ENV=production needs MPESA_ENV set to production (or sandbox): unset, it is the simulator, which marks orders paid without payment',
    );
  } else if (mpesaEnv === 'simulator' && flag(env, 'ALLOW_SIMULATOR_IN_PRODUCTION', false) !== true) {
    problems.push(
      'MPESA_ENV=simulator marks orders paid without payment: with NODE_ENV=production it also needs ALLOW_SIMULATOR_IN_PRODUCTION=true (staging only)',
    );
  }
  if (env.SEED_DEMO === undefined || env.SEED_DEMO === '') {
    problems.push(
      'NODE_ENV=production needs SEED_DEMO set explicitly (false for a real shop): the demo seeds shoppers with a published password',
    );
  }
  const publicUrl = env.PUBLIC_URL || '';
  if (!publicHttps(publicUrl)) {
    problems.push(
      `NODE_ENV=production needs PUBLIC_URL to be the shop's public https:// address, not localhost; got "${publicUrl || '(unset)'}"`,
    );
  }
  const callbackBase = env.MPESA_CALLBACK_BASE_URL || '';
  if (callbackBase && !publicHttps(callbackBase)) {
    problems.push(
      `NODE_ENV=production needs MPESA_CALLBACK_BASE_URL to be a public https:// address, not localhost; got "${callbackBase}"`,
    );
  }
  if (!env.METRICS_TOKEN && flag(env, 'METRICS_PUBLIC', false) !== true) {
    problems.push(
      'NODE_ENV=production needs METRICS_TOKEN (or METRICS_PUBLIC=true when the proxy keeps /metrics internal): open metrics tell registered emails from unknown ones',
    );
  }
  return problems;
}

/** A configuration the shop refuses; `problems` has one line per setting to fix. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV === 'production' || env.NODE_ENV === 'test' ? env.NODE_ENV : 'development';
  const port = integer(env, 'PORT', 3000);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  }
  if (nodeEnv === 'production') {
    const problems = productionProblems(env);
    if (problems.length > 0) throw new ConfigError(problems);
  }
  return {
    nodeEnv,
    port,
    webConcurrency: webConcurrency(env, databaseUrl),
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    webDir: env.WEB_DIR ? path.resolve(env.WEB_DIR) : webDistDir,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10),
    redisUrl: redisUrl(env.REDIS_URL),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'duka:',
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    adminEmail: (env.ADMIN_EMAIL || 'admin@example.com').trim().toLowerCase(),
    adminPassword: env.ADMIN_PASSWORD || undefined,
    seedDemo: flag(env, 'SEED_DEMO', true),
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    metricsToken: env.METRICS_TOKEN || undefined,
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 0),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 15_000),
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    secureCookies: flag(env, 'SECURE_COOKIES', nodeEnv === 'production'),
    sessionDays: integer(env, 'SESSION_DAYS', 30),
    mailFrom: env.MAIL_FROM || 'Duka <no-reply@duka.local>',
    smtpUrl: smtpUrl(env.SMTP_URL),
    mail: {
      pollIntervalMs: integer(env, 'MAIL_POLL_INTERVAL_MS', 5_000),
      retryBaseMs: integer(env, 'MAIL_RETRY_BASE_MS', 30_000),
      maxAttempts: integer(env, 'MAIL_MAX_ATTEMPTS', 8),
    },
    mpesa: loadMpesaConfig(env),
    rateLimits: {
      login: rule(env, 'RATE_LIMIT_LOGIN', 10, 15 * 60_000),
      register: rule(env, 'RATE_LIMIT_REGISTER', 10, 60 * 60_000),
      forgotPassword: rule(env, 'RATE_LIMIT_FORGOT_PASSWORD', 5, 60 * 60_000),
      resetPassword: rule(env, 'RATE_LIMIT_RESET_PASSWORD', 10, 60 * 60_000),
    },
  };
}

import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_PASSWORD_COST } from './domain/passwords.js';
import { webDistDir } from './paths.js';

/** The embedded database's page cache: PostgreSQL's own default, which PGlite keeps. */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 128;

/**
 * Everything the server can be told, read once from the environment by one zod schema. Every
 * variable has a default so that `npm start` with no configuration runs the whole shop on the
 * embedded database, and every refusal names the variable to fix. docs/configuration.md lists
 * them; keep the two in step.
 */

type Env = Record<string, string | undefined>;

/** An empty or blank variable counts as unset, as a shell's `VAR=` means. */
const blank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** Text that may be unset. */
const text = () => z.preprocess(blank, z.string().optional());

function wholeNumber(name: string, fallback: number, min = 0) {
  const error = min === 0 ? `${name} must be a whole number` : `${name} must be a whole number of at least ${min}`;
  return z.preprocess(blank, z.coerce.number({ error }).int({ error }).min(min, { error }).default(fallback));
}

function portNumber(name: string, fallback: number) {
  const error = `${name} must be a port number (0 to 65535)`;
  return z.preprocess(blank, z.coerce.number({ error }).int({ error }).min(0, { error }).max(65535, { error }).default(fallback));
}

/** true/false, also as 1/0, yes/no, on/off in any case; unset stays undefined for a default that depends on others. */
function flag(name: string) {
  return z.preprocess(
    blank,
    z
      .stringbool({
        truthy: ['1', 'true', 'yes', 'on'],
        falsy: ['0', 'false', 'no', 'off'],
        case: 'insensitive',
        error: (issue) => `${name} must be true or false, got "${String(issue.input)}"`,
      })
      .optional(),
  );
}

function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T, fallback: T[number]) {
  const error = (issue: { input?: unknown }) =>
    `${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}, got "${String(issue.input)}"`;
  return z.preprocess(blank, z.enum(values, { error }).default(fallback));
}

function urlLike(name: string, pattern: RegExp, example: string) {
  return z.preprocess(
    blank,
    z
      .string()
      .regex(pattern, { error: `${name} must ${example}` })
      .optional(),
  );
}

/** A base URL without its trailing slashes (they would double in the paths appended to it). */
const baseUrl = () => text().transform((url) => url?.replace(/\/+$/, '') || undefined);

/** MPESA_CALLBACK_ALLOWED_IPS: addresses separated by commas or spaces; unset means any. */
const ipList = text().transform((raw, ctx) => {
  const list = raw?.split(/[\s,]+/).filter(Boolean) ?? [];
  for (const ip of list) {
    if (!isIP(ip)) ctx.addIssue({ code: 'custom', message: `MPESA_CALLBACK_ALLOWED_IPS must list IP addresses, got "${ip}"` });
  }
  return list.length > 0 ? list : undefined;
});

/** TRUST_PROXY values that believe every peer's X-Forwarded-For: any client could choose its address. */
const TRUSTS_EVERYONE = new Set(['true', '*', 'all']);
/** Ranges @fastify/proxy-addr knows by name (loopback: 127.0.0.1/8 and ::1; uniquelocal: the private networks). */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_FORM =
  "TRUST_PROXY must be false, or the reverse proxies' addresses or CIDR ranges separated by commas (e.g. 127.0.0.1 or 10.0.0.0/8, fd00::/8)";

/** Fastify's trustProxy for the setting: a hop count becomes "the nearest N peers are proxies". */
export function trustProxyOption(
  setting: boolean | string[] | { hops: number },
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'object' && !Array.isArray(setting)) return (_address, hop) => hop < setting.hops;
  return setting;
}

/** Whether TRUST_PROXY, as written, believes every peer: refused in production (productionProblems). */
function trustsEveryone(raw: string | undefined): boolean {
  const entries =
    raw
      ?.toLowerCase()
      .split(/[\s,]+/)
      .filter(Boolean) ?? [];
  // A /0 range is every address too, written another way.
  return entries.some((entry) => TRUSTS_EVERYONE.has(entry) || /\/0+$/.test(entry));
}

/** One proxy entry: an address, an address/prefix CIDR range, or a range name. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: whose X-Forwarded-For (and -Proto, -Host) the shop believes. Unset or false: no
 * one's, the socket's peer is the client. Otherwise the reverse proxies' addresses or CIDR ranges,
 * separated by commas or spaces, which Fastify's `trustProxy` takes as a list: a header from any
 * other peer is ignored, so a client that reaches the shop directly cannot choose its address.
 * true (or * or all) believes every peer, allowed outside production only. A whole number is a
 * hop count: the nearest N peers are taken for proxies whatever their address. Only for a shop
 * that no client can reach but through those proxies (a firewall in front): a client that reaches
 * it directly could choose its address. Fastify (5.12.1 on) no longer takes a number itself, so
 * app.ts gives it a trust function (trustProxyOption).
 */
const trustProxySetting = text().transform((raw, ctx): boolean | string[] | { hops: number } => {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === 'false' || value === '0') return false;
  if (TRUSTS_EVERYONE.has(value)) return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) ctx.addIssue({ code: 'custom', message: `TRUST_PROXY=${value}: a hop count is at most 10 proxies` });
    return { hops };
  }
  const entries = value.split(/[\s,]+/).filter(Boolean);
  const wrong = entries.find((entry) => !isProxyEntry(entry));
  if (wrong !== undefined) {
    ctx.addIssue({ code: 'custom', message: `${TRUST_PROXY_FORM}, got "${wrong}"` });
    return false;
  }
  return entries;
});

/** WEB_CONCURRENCY: a whole number of processes, or "auto" for one per CPU core. */
const webConcurrency = z.union(
  [
    z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.literal('auto')),
    wholeNumber('WEB_CONCURRENCY', 1, 1),
  ],
  { error: 'WEB_CONCURRENCY must be a whole number of at least 1, or auto' },
);

const nodeEnv = z.enum(['development', 'production', 'test']).catch('development');

/** Daraja's public sandbox shortcode and passkey (docs/payments.md); the simulator uses them too. */
const SANDBOX_SHORTCODE = '174379';
const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const DARAJA_URLS = { sandbox: 'https://sandbox.safaricom.co.ke', production: 'https://api.safaricom.co.ke' } as const;

/** The environment, variable by variable: what each may hold and its default. */
const environment = z.object({
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

type Environment = z.output<typeof environment>;

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
 * Addresses Safaricom's callbacks never reach: this machine's, and a private network's. (The shop
 * itself may run in production on 127.0.0.1 behind a local nginx, as its staging tests do.)
 */
const UNREACHABLE_RANGES = new Set(['loopback', 'unspecified', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

function reachableBySafaricom(address: string): boolean {
  if (!publicHttps(address)) return false;
  // The URL parser has already written 127.1 or 0x7f000001 as 127.0.0.1; an IPv6 host keeps its brackets.
  const host = new URL(address).hostname.replace(/^\[|\]$/g, '');
  return !ipaddr.isValid(host) || !UNREACHABLE_RANGES.has(ipaddr.process(host).range());
}

/** The simulator's test initiator (Daraja's sandbox values), so that a demo shop can refund. */
export const SIMULATOR_INITIATOR_NAME = 'testapi';
export const SIMULATOR_INITIATOR_PASSWORD = 'Safaricom999!*!';

function mpesaSettings(env: Environment, ctx: z.RefinementCtx) {
  const mode = env.MPESA_ENV;
  const simulator = mode === 'simulator';
  const live = mode === 'production';
  const mpesa = {
    env: mode,
    /** Daraja's base URL; in simulator mode the shop starts the simulator and uses its address. */
    baseUrl: simulator ? undefined : (env.MPESA_BASE_URL ?? DARAJA_URLS[mode]),
    consumerKey: env.MPESA_CONSUMER_KEY ?? (simulator ? 'duka-simulator-key' : ''),
    consumerSecret: env.MPESA_CONSUMER_SECRET ?? (simulator ? 'duka-simulator-secret' : ''),
    shortcode: env.MPESA_SHORTCODE ?? (live ? '' : SANDBOX_SHORTCODE),
    passkey: env.MPESA_PASSKEY ?? (live ? '' : SANDBOX_PASSKEY),
    transactionType: env.MPESA_TRANSACTION_TYPE,
    tillNumber: env.MPESA_TILL_NUMBER,
    /** Base of the CallBackURL Daraja posts to (PUBLIC_URL unless set); the secret path is appended. */
    callbackBaseUrl: env.MPESA_CALLBACK_BASE_URL,
    /** The secret path token of the callback; generated once and kept in the database when unset. */
    callbackSecret: env.MPESA_CALLBACK_SECRET,
    /** A prompt with no answer after this long is confirmed with an STK query. */
    reconcileAfterMs: env.MPESA_RECONCILE_AFTER_MS,
    reconcileIntervalMs: env.MPESA_RECONCILE_INTERVAL_MS,
    /** A prompt still unresolved after this long is given up as timed out. */
    giveUpAfterMs: env.MPESA_GIVE_UP_AFTER_MS,
    /** How long a shopper waits before another prompt for the same order. */
    promptCooldownMs: env.MPESA_PROMPT_COOLDOWN_MS,
    promptsPerUser: { max: env.RATE_LIMIT_STKPUSH_MAX, windowMs: env.RATE_LIMIT_STKPUSH_WINDOW_MS },
    /** Simulator only: delay before it answers a prompt. */
    simulatorDelayMs: env.MPESA_SIMULATOR_DELAY_MS,
    /**
     * Simulator only: the address of a Daraja simulator already running, used instead of starting
     * one. Cluster mode's primary starts one and gives its workers this, so that every worker's
     * reconciler can query a prompt another worker sent.
     */
    simulatorUrl: simulator ? env.MPESA_SIMULATOR_URL : undefined,
    /**
     * Simulator only: the port the demo's simulator listens on (127.0.0.1), so that its CLI can pay
     * by Paybill (`npm run simulator -- pay …`); any free port when this one is taken.
     */
    simulatorPort: env.MPESA_SIMULATOR_PORT,
    /**
     * How long the "payment received" mail of a payment known only from the status query waits for
     * the callback that brings its receipt, before it goes without it.
     */
    receiptWaitMs: env.MPESA_RECEIPT_WAIT_MS,
    /** How long one Daraja HTTP call may take before its answer counts as lost. */
    httpTimeoutMs: env.MPESA_HTTP_TIMEOUT_MS,
    /**
     * Re-check every success callback with an STK query before crediting it, so that a forged
     * callback through a leaked URL pays nothing.
     */
    confirmCallbacks: env.MPESA_CONFIRM_CALLBACKS ?? true,
    /** When set, callbacks from other addresses are kept but never acted on. */
    callbackAllowedIps: env.MPESA_CALLBACK_ALLOWED_IPS,
    /**
     * Register the C2B confirmation and validation URLs at start (Paybill/Till payments made
     * without the prompt). On by default with the simulator, so the demo's Paybill path works.
     */
    c2bRegister: env.MPESA_C2B_REGISTER ?? simulator,
    /** The C2B API version of the Daraja app's product: v2 (payer masked) or v1 (payer hashed). */
    c2bVersion: env.MPESA_C2B_VERSION,
    /**
     * The API operator ("initiator") of the M-Pesa org portal that Reversal and Transaction Status
     * run as, and its plain password (encrypted per call into the SecurityCredential). Unset, the
     * shop cannot refund or look up receipts. The simulator's test initiator by default there.
     */
    initiatorName: env.MPESA_INITIATOR_NAME ?? (simulator ? SIMULATOR_INITIATOR_NAME : undefined),
    initiatorPassword: env.MPESA_INITIATOR_PASSWORD ?? (simulator ? SIMULATOR_INITIATOR_PASSWORD : undefined),
    /**
     * Safaricom's certificate (PEM or DER) for the SecurityCredential. Required against Safaricom;
     * with the simulator, unset means the simulator's own key, fetched from it.
     */
    certPath: env.MPESA_CERT_PATH ? path.resolve(env.MPESA_CERT_PATH) : undefined,
    /** Reversal's RecieverIdentifierType: "11" as documented; some integrations report "4". */
    reversalIdentifierType: env.MPESA_REVERSAL_IDENTIFIER_TYPE ?? '11',
    /** How long a Reversal or Transaction Status request waits for its Result before it is sent again. */
    resultWaitMs: env.MPESA_RESULT_WAIT_MS,
    /** Reversal requests per refund (the first included) before it is listed as unanswered. */
    reversalMaxAttempts: env.MPESA_REVERSAL_MAX_ATTEMPTS,
    /** A query-settled payment still without its receipt after this long is looked up by Transaction Status. */
    receiptLookupAfterMs: env.MPESA_RECEIPT_LOOKUP_AFTER_MS,
    /** Transaction Status lookups per payment before it is left for the admin. */
    receiptLookupMaxAttempts: env.MPESA_RECEIPT_LOOKUP_MAX_ATTEMPTS,
  };
  if (Boolean(mpesa.initiatorName) !== Boolean(mpesa.initiatorPassword)) {
    ctx.addIssue({
      code: 'custom',
      message: 'MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD go together: set both (refunds and receipt lookups) or neither',
    });
  }
  if (!simulator && mpesa.initiatorName && !mpesa.certPath) {
    ctx.addIssue({
      code: 'custom',
      message: `MPESA_INITIATOR_NAME is set, so MPESA_ENV=${mode} needs MPESA_CERT_PATH: the path of Safaricom's ${mode} certificate (from the Daraja portal), which encrypts the initiator password`,
    });
  }
  if (live && !reachableBySafaricom(mpesa.callbackBaseUrl ?? env.PUBLIC_URL ?? '')) {
    ctx.addIssue({
      code: 'custom',
      message:
        'MPESA_ENV=production needs an https callback: set MPESA_CALLBACK_BASE_URL (or PUBLIC_URL) to a public https:// address, not localhost or a private network’s',
    });
  }
  if (!simulator) {
    const credentials = {
      MPESA_CONSUMER_KEY: mpesa.consumerKey,
      MPESA_CONSUMER_SECRET: mpesa.consumerSecret,
      MPESA_SHORTCODE: mpesa.shortcode,
      MPESA_PASSKEY: mpesa.passkey,
    };
    const missing = Object.entries(credentials)
      .filter(([, value]) => !value)
      .map(([name]) => name);
    if (missing.length > 0) ctx.addIssue({ code: 'custom', message: `MPESA_ENV=${mode} needs ${missing.join(', ')}` });
    if (mpesa.transactionType === 'till' && !mpesa.tillNumber) {
      ctx.addIssue({ code: 'custom', message: 'MPESA_TRANSACTION_TYPE=till needs MPESA_TILL_NUMBER' });
    }
  }
  return mpesa;
}

/** The environment turned into the shop's settings, with the rules that tie variables together. */
const configSchema = environment.transform((env, ctx) => {
  const nodeEnv = env.NODE_ENV;
  const databaseUrl = env.DATABASE_URL;
  let workers: number;
  if (env.WEB_CONCURRENCY === 'auto') {
    // "auto" on the embedded database means the one process it allows.
    workers = databaseUrl ? os.availableParallelism() : 1;
  } else {
    workers = env.WEB_CONCURRENCY;
    if (workers > 1 && !databaseUrl) {
      ctx.addIssue({
        code: 'custom',
        message:
          `WEB_CONCURRENCY=${workers} needs DATABASE_URL: the embedded PGlite database can be opened by one process only. ` +
          'Set DATABASE_URL to a PostgreSQL database, or WEB_CONCURRENCY=1.',
      });
    }
  }
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

/** A flag for the production checks, which run before (and instead of) the full parse. */
function flagSet(env: Env, name: string): boolean {
  return flag(name).safeParse(env[name]).data === true;
}

/**
 * A production start never takes a demo default (see docs/deploying.md, Checklist for a real shop):
 * each problem is one line naming the setting to fix. An empty list means it may start.
 */
export function productionProblems(env: Env): string[] {
  const problems: string[] = [];
  const mpesaEnv = env.MPESA_ENV || undefined;
  if (mpesaEnv === undefined) {
    problems.push(
      'NODE_ENV=production needs MPESA_ENV set to production (or sandbox): unset, it is the simulator, which marks orders paid without payment',
    );
  } else if (mpesaEnv === 'simulator' && !flagSet(env, 'ALLOW_SIMULATOR_IN_PRODUCTION')) {
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
  if (!env.METRICS_TOKEN && !flagSet(env, 'METRICS_PUBLIC')) {
    problems.push(
      'NODE_ENV=production needs METRICS_TOKEN (or METRICS_PUBLIC=true when the proxy keeps /metrics internal): open metrics tell registered emails from unknown ones',
    );
  }
  if (trustsEveryone(env.TRUST_PROXY)) {
    problems.push(
      `NODE_ENV=production refuses TRUST_PROXY=${env.TRUST_PROXY?.trim()}: it believes X-Forwarded-For from anyone, so any client could choose its address, pass MPESA_CALLBACK_ALLOWED_IPS and dodge rate limits. Set TRUST_PROXY to the reverse proxies' addresses or CIDR ranges (e.g. 127.0.0.1 for nginx on this machine, or the load balancer's subnet)`,
    );
  }
  for (const [name, least] of [
    ['ARGON2_MEMORY_KIB', DEFAULT_PASSWORD_COST.memoryKib],
    ['ARGON2_TIME_COST', DEFAULT_PASSWORD_COST.timeCost],
  ] as const) {
    const value = Number(env[name]?.trim() || least);
    if (!(value >= least)) {
      problems.push(
        `NODE_ENV=production needs ${name} of at least ${least} (the default), got "${env[name]}": a lower cost makes stolen password hashes quick to guess`,
      );
    }
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

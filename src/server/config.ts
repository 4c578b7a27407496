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

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Where the embedded database, uploads and the mail outbox live. */
  dataDir: string;
  /** The built web app to serve (`vite build` output). */
  webDir: string;
  /** postgres://… to run on PostgreSQL; unset runs on the embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** The shop's address as shoppers reach it; used in links sent by mail. */
  publicUrl: string;
  adminEmail: string;
  adminPassword: string | undefined;
  /** Seed the demo catalogue into an empty database. */
  seedDemo: boolean;
  logLevel: string;
  /** Trust X-Forwarded-* from a reverse proxy (true, or the proxies' addresses). */
  trustProxy: boolean | string;
  /** Cookies carry the Secure flag (on by default in production). */
  secureCookies: boolean;
  sessionDays: number;
  mailFrom: string;
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

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV === 'production' || env.NODE_ENV === 'test' ? env.NODE_ENV : 'development';
  const port = integer(env, 'PORT', 3000);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  }
  return {
    nodeEnv,
    port,
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    webDir: env.WEB_DIR ? path.resolve(env.WEB_DIR) : webDistDir,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    adminEmail: (env.ADMIN_EMAIL || 'admin@example.com').trim().toLowerCase(),
    adminPassword: env.ADMIN_PASSWORD || undefined,
    seedDemo: flag(env, 'SEED_DEMO', true),
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    secureCookies: flag(env, 'SECURE_COOKIES', nodeEnv === 'production'),
    sessionDays: integer(env, 'SESSION_DAYS', 30),
    mailFrom: env.MAIL_FROM || 'Duka <no-reply@duka.local>',
    rateLimits: {
      login: rule(env, 'RATE_LIMIT_LOGIN', 10, 15 * 60_000),
      register: rule(env, 'RATE_LIMIT_REGISTER', 10, 60 * 60_000),
      forgotPassword: rule(env, 'RATE_LIMIT_FORGOT_PASSWORD', 5, 60 * 60_000),
      resetPassword: rule(env, 'RATE_LIMIT_RESET_PASSWORD', 10, 60 * 60_000),
    },
  };
}

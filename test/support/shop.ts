import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { type AppConfig, loadConfig } from '../../src/server/config.js';
import { openDatabase } from '../../src/server/db/client.js';
import { createLogger, type RunningShop, startShop } from '../../src/server/shop.js';
import { ApiClient } from './client.js';
import { injectFetch } from './inject-fetch.js';
import { PGLITE_EMPTY_ENV, PGLITE_TEMPLATE_ENV } from './pglite-env.js';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-secret-123';

export interface TestShop extends RunningShop {
  config: AppConfig;
  /** A fresh client with its own cookie jar, like a new browser. */
  client(): ApiClient;
  /** A client signed in as the seeded admin. */
  admin(): Promise<ApiClient>;
  /** A client signed up as a new shopper with a unique email. */
  shopper(name?: string): Promise<ApiClient>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL when TEST_DATABASE_URL is set: every test file gets a database of its own, created
 * here and dropped afterwards. Otherwise an in-memory PGlite.
 */
export async function freshPostgresUrl(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `duka_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

let shopperCount = 0;

export interface TestShopOptions {
  /** Receives the shop's JSON log lines (set LOG_LEVEL in env, or nothing is written). */
  logStream?: DestinationStream;
}

/**
 * A new DATA_DIR for a shop the test starts itself (a process, the ops CLI, a shop on disk). On
 * PGlite its database folder is a copy of the initialised, empty cluster: the shop still runs
 * every migration and its seed, and is spared only initdb. On PostgreSQL it is an empty folder.
 */
export async function shopDataDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  // Set by the global setup on PGlite runs only.
  const empty = process.env[PGLITE_EMPTY_ENV];
  if (empty) {
    // PGlite keeps its cluster in DATA_DIR/pglite (startShop, the ops CLI); the dump is a tar of
    // that folder, taken while it was open: without its lock file, which would read as "in use".
    const pgdata = path.join(dir, 'pglite');
    await fs.mkdir(pgdata);
    await promisify(execFile)('tar', ['-xf', empty, '--exclude=postmaster.pid', '-C', pgdata]);
  }
  return dir;
}

/**
 * The PGlite page cache of the test shops and of the ops tools the tests run on their databases.
 * A test database holds a few hundred rows, and PGlite writes its whole page cache's memory at every
 * start: 16 MB instead of 128 spares each of a run's hundreds of starts about 0.2 CPU-seconds.
 */
export const TEST_PGLITE_SHARED_BUFFERS_MB = 16;

/** The environment every test shop starts with, before a test's own variables. */
export function testShopEnv(dataDir: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests sign in far more often than a person; the rate-limit tests set their own low limits.
    RATE_LIMIT_LOGIN_MAX: '100000',
    RATE_LIMIT_REGISTER_MAX: '100000',
    RATE_LIMIT_FORGOT_PASSWORD_MAX: '100000',
    RATE_LIMIT_RESET_PASSWORD_MAX: '100000',
    // Tests hash and check hundreds of passwords; Argon2's least cost keeps each a millisecond.
    ARGON2_MEMORY_KIB: '8',
    ARGON2_TIME_COST: '1',
    PGLITE_SHARED_BUFFERS_MB: String(TEST_PGLITE_SHARED_BUFFERS_MB),
  };
}

/** Variables that change what the seed writes: a shop given one starts from an empty database. */
const SEED_VARIABLES = ['SEED_DEMO', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'ARGON2_MEMORY_KIB', 'ARGON2_TIME_COST'];

/**
 * Each dump, read once per worker: a worker runs many test files and starts a shop or more in
 * each, and reading the seeded dump (42 MB, its WAL segment included) into a new Blob cost each
 * start about 0.12 s of CPU. A Blob cannot be changed, and PGlite only reads it.
 */
const templateBlobs = new Map<string, Promise<Blob>>();

/**
 * The seeded template's dump when the test's variables leave the seed as it was; otherwise the
 * empty cluster's, which the shop migrates and seeds itself.
 */
async function pgliteTemplate(env: Record<string, string>): Promise<Blob | undefined> {
  const seedChanged = SEED_VARIABLES.some((name) => name in env);
  return pgliteDump(process.env[seedChanged ? PGLITE_EMPTY_ENV : PGLITE_TEMPLATE_ENV]);
}

/**
 * The initialised, empty cluster, for an in-memory PGlite a test migrates (and seeds, if it wants)
 * itself: PGlite loads it instead of running initdb, about two seconds of CPU. Undefined on a
 * PostgreSQL run, where there is none.
 */
export function emptyPgliteCluster(): Promise<Blob | undefined> {
  return pgliteDump(process.env[PGLITE_EMPTY_ENV]);
}

function pgliteDump(file: string | undefined): Promise<Blob | undefined> {
  if (!file) return Promise.resolve(undefined);
  let template = templateBlobs.get(file);
  if (!template) {
    template = fs.readFile(file).then((bytes) => new Blob([bytes]));
    templateBlobs.set(file, template);
  }
  return template;
}

/** A whole shop on a socket: for tests that need real HTTP (callbacks from the simulator, browsers, raw sockets, nginx). */
export async function startTestShop(env: Record<string, string> = {}, options: TestShopOptions = {}): Promise<TestShop> {
  return testShop(env, options, true);
}

/**
 * The same shop without a socket: its clients reach the routes through `app.inject`, which spares
 * each request the TCP round trip and HTTP parsing. For route-level tests that need no network:
 * the M-Pesa runtime gets no address, so no payment callback can reach it.
 */
export async function buildTestApp(env: Record<string, string> = {}, options: TestShopOptions = {}): Promise<TestShop> {
  return testShop(env, options, false);
}

async function testShop(env: Record<string, string>, options: TestShopOptions, listen: boolean): Promise<TestShop> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-test-'));
  const postgres = process.env.TEST_DATABASE_URL ? await freshPostgresUrl(process.env.TEST_DATABASE_URL) : undefined;
  const config = loadConfig({
    ...testShopEnv(dataDir),
    ...(postgres && { DATABASE_URL: postgres.url }),
    ...env,
  });
  // Every file has its own database: its own PGlite, loaded from a copy of the template.
  const template = config.databaseUrl ? undefined : await pgliteTemplate(env);
  const database = await openDatabase({
    url: config.databaseUrl,
    poolSize: 5,
    pgliteTemplate: template,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
  });
  const shop = await startShop(config, { database, logger: createLogger(config, options.logStream), listen });

  const client = listen ? () => new ApiClient(shop.url) : () => new ApiClient('http://shop.test', injectFetch(shop.app));
  return {
    ...shop,
    config,
    client,
    async admin() {
      const c = client();
      await c.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      return c;
    },
    async shopper(name = 'Test Shopper') {
      const c = client();
      shopperCount += 1;
      const email = `shopper-${process.pid}-${shopperCount}-${randomBytes(3).toString('hex')}@example.com`;
      await c.signUp(name, email, 'shopper-pass-1');
      return c;
    },
    async stop() {
      await shop.close();
      await postgres?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

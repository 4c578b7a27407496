import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from '../config.js';
import { countDbQuery } from '../metrics.js';
import { migrationsDir } from '../paths.js';
import * as schema from './schema.js';

/** Drizzle over either driver: the rest of the server never knows which one it has. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** The handle a transaction callback receives; it offers the same queries as Db. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either: a query that works inside or outside a transaction takes this. */
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  /**
   * One connection of its own, outside the pool, for tiny reads every request needs (the
   * catalogue's version): they never wait behind the pool's queue, and take no connection a
   * search or an order needs. PGlite: the same one connection as `db`.
   */
  sideDb: Db;
  /**
   * Where the catalogue's cache misses are read (searches, listing pages, product answers): on
   * PostgreSQL a pool of its own, `catalogueSlots` connections (half the main pool's size), whose
   * statements give up after CATALOGUE_STATEMENT_TIMEOUT_MS, so however many uncached searches
   * arrive, orders, sign-ins and payments never wait for a connection behind them.
   * PGlite: the same one connection as `db`.
   */
  catalogueDb: Db;
  catalogueSlots: number;
  kind: 'pglite' | 'postgres';
  /** Applies pending migrations; run it inside withStartupLock so instances starting together take turns. */
  migrate(): Promise<void>;
  /** Runs fn while holding a database-wide lock, so only one instance does it at a time. */
  withStartupLock<T>(fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /** Connections for GET /metrics: pg's pool figures; PGlite is one connection, never waited for. */
  poolStats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball, for openDatabase's pgliteTemplate. */
  dumpDataDir?: () => Promise<Blob>;
}

/**
 * Settings every connection of the shop runs with.
 * - Typo tolerance: how alike a search word must be to a word of a product's name or category.
 *   "samsng" is 0.57 alike to "samsung"; PostgreSQL's default of 0.6 would miss it.
 * - random_page_cost for SSDs (the default of 4 assumes spinning disks): with it the planner
 *   answers a keyword search from the trigram and full-text indexes (about 70 ms at 100k products)
 *   instead of scanning the whole table (about 350 ms).
 * - No parallel workers per query: the shop runs many small queries at once, and at 100k products
 *   a parallel plan only took cores from the other requests.
 */
const SETTINGS: Record<string, string> = {
  'pg_trgm.word_similarity_threshold': '0.5',
  random_page_cost: '1.1',
  max_parallel_workers_per_gather: '0',
};
const SESSION_SETTINGS = Object.entries(SETTINGS)
  .map(([name, value]) => `SET ${name} = ${value};`)
  .join(' ');
/** The same settings, given to PostgreSQL at connect time so every pooled connection has them. */
const CONNECTION_OPTIONS = Object.entries(SETTINGS)
  .map(([name, value]) => `-c ${name}=${value}`)
  .join(' ');
/**
 * A catalogue read that takes longer than this is abandoned (the request answers 500, the next one
 * tries again): a pathological search must not hold a connection for long.
 */
export const CATALOGUE_STATEMENT_TIMEOUT_MS = 5_000;
/** Arbitrary, fixed key of the advisory lock taken around migrations and seeding. */
const STARTUP_LOCK_KEY = 724_193_001;

export interface OpenDatabaseOptions {
  /** postgres://… for PostgreSQL; otherwise PGlite. */
  url?: string | undefined;
  /** PGlite's directory; undefined keeps it in memory (tests). */
  pgliteDir?: string | undefined;
  /** A PGlite data directory dumped by dumpDataDir to start from, instead of an empty database (tests). */
  pgliteTemplate?: Blob | undefined;
  /** PGlite's page cache in MB (PostgreSQL's shared_buffers); PostgreSQL's 128 when unset. */
  pgliteSharedBuffersMb?: number | undefined;
  poolSize?: number;
  onPoolError?: (error: Error) => void;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options);
}

/**
 * PGlite's start parameters with the page cache (PostgreSQL's shared_buffers) of
 * PGLITE_SHARED_BUFFERS_MB: memory PGlite's WebAssembly takes and writes at every start, whatever
 * the database's size, about 0.2 CPU-seconds for the default 128 MB on a laptop's core. The shop
 * and the ops tools (export, import) open PGlite with them.
 */
export function pgliteStartParams(sharedBuffersMb = DEFAULT_PGLITE_SHARED_BUFFERS_MB): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`];
}

async function openPglite({
  pgliteDir: dir,
  pgliteTemplate: template,
  pgliteSharedBuffersMb,
}: OpenDatabaseOptions): Promise<Database> {
  if (dir) await fs.mkdir(path.dirname(dir), { recursive: true });
  const client = await PGlite.create(dir ?? 'memory://', {
    extensions: { pg_trgm },
    ...(template && { loadDataDir: template }),
    startParams: pgliteStartParams(pgliteSharedBuffersMb),
  });
  // PGlite is one connection, so a session setting holds for every query.
  await client.exec(`CREATE EXTENSION IF NOT EXISTS pg_trgm; ${SESSION_SETTINGS}`);
  countPgliteStatements(client);
  const db = drizzlePglite(client, { schema });
  return {
    db: db as unknown as Db,
    sideDb: db as unknown as Db,
    catalogueDb: db as unknown as Db,
    // One statement at a time for everything: one miss at a time keeps orders from queueing behind many.
    catalogueSlots: 1,
    kind: 'pglite',
    migrate: () => migratePglite(db, { migrationsFolder: migrationsDir }),
    // One process owns a PGlite directory, and PGlite runs one statement at a time.
    withStartupLock: (fn) => fn(),
    ping: async () => {
      await client.query('SELECT 1');
    },
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    // Once only, like pool.end() below: a shop closing after its database was closed must not fail.
    close: once(() => client.close()),
    dumpDataDir: () => client.dumpDataDir('none'),
  };
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    options: CONNECTION_OPTIONS,
  });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', (error) => options.onPoolError?.(error));
  // The pool listens for errors only on idle clients. A client checked out (in a transaction, or
  // mid-query) whose connection the server ends — pg_terminate_backend, a database restart — emits
  // 'error' with no listener, which crashed the process ("Connection terminated unexpectedly",
  // found by test/reliability/faults.test.ts). The query in progress fails on its own (the request
  // answers 500) and the pool discards the broken client on release, so this listener only has to exist.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    countClientStatements(client);
  });
  const db = drizzlePg(pool, { schema });
  const side = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000, options: CONNECTION_OPTIONS });
  side.on('error', (error) => options.onPoolError?.(error));
  side.on('connect', (client) => {
    client.on('error', () => {});
  });
  const sideDb = drizzlePg(side, { schema });
  const catalogueSlots = Math.max(1, Math.floor((options.poolSize ?? 10) / 2));
  const cataloguePool = new pg.Pool({
    connectionString: url,
    max: catalogueSlots,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    options: `${CONNECTION_OPTIONS} -c statement_timeout=${CATALOGUE_STATEMENT_TIMEOUT_MS}`,
  });
  cataloguePool.on('error', (error) => options.onPoolError?.(error));
  cataloguePool.on('connect', (client) => {
    client.on('error', () => {});
    countClientStatements(client);
  });
  const catalogueDb = drizzlePg(cataloguePool, { schema });

  // drizzle's transaction over a pool (drizzle-orm 0.45 node-postgres/session.js) sends BEGIN
  // before its try/finally, so when BEGIN fails — the connection was just terminated — the client
  // is never released. A few such failures used up the whole pool for good: every later request
  // waited connectionTimeoutMillis and failed, and /api/health stayed 503 after the database was
  // back (found by test/reliability/faults.test.ts). Here the client is taken and always released
  // by us, and drizzle runs the transaction on that one client; the pool drops it if it is broken.
  const onClient = new WeakMap<pg.PoolClient, NodePgDatabase<typeof schema>>();
  const transaction: typeof db.transaction = async (fn, config) => {
    const client = await pool.connect();
    try {
      let single = onClient.get(client);
      if (!single) {
        single = drizzlePg(client, { schema });
        onClient.set(client, single);
      }
      return await single.transaction(fn, config);
    } finally {
      client.release();
    }
  };
  db.transaction = transaction;

  async function withStartupLock<T>(fn: () => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  return {
    db: db as unknown as Db,
    sideDb: sideDb as unknown as Db,
    catalogueDb: catalogueDb as unknown as Db,
    catalogueSlots,
    kind: 'postgres',
    migrate: () => migratePg(db, { migrationsFolder: migrationsDir }),
    withStartupLock,
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: once(async () => {
      await Promise.all([pool.end(), side.end(), cataloguePool.end()]);
    }),
  };
}

/**
 * Counts every statement a pooled connection sends (duka_db_queries_total). Every query goes
 * through a client's query(): pool.query checks one out and calls it, and so do transactions
 * (BEGIN, the statements, COMMIT or ROLLBACK).
 */
function countClientStatements(client: pg.PoolClient): void {
  const query = client.query;
  // query() has many overloads; the wrapper passes its arguments through unchanged.
  client.query = function countedQuery(this: pg.PoolClient, ...args: unknown[]) {
    countDbQuery();
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof client.query;
}

/**
 * The same for PGlite: query() and exec(), and inside transaction() the BEGIN, each statement on
 * the transaction handle, and the COMMIT or ROLLBACK that PGlite sends itself.
 */
type PgliteTransaction = Parameters<Parameters<PGlite['transaction']>[0]>[0];
function countPgliteStatements(client: PGlite): void {
  const { query, exec, transaction } = client;
  client.query = ((...args: Parameters<PGlite['query']>) => {
    countDbQuery();
    return query.apply(client, args);
  }) as PGlite['query'];
  client.exec = (...args) => {
    countDbQuery();
    return exec.apply(client, args);
  };
  client.transaction = <T>(fn: (tx: PgliteTransaction) => Promise<T>): Promise<T> => {
    countDbQuery(); // BEGIN
    return transaction
      .call(client, (tx: PgliteTransaction) => {
        const txQuery = tx.query;
        const txExec = tx.exec;
        tx.query = ((...args: Parameters<PgliteTransaction['query']>) => {
          countDbQuery();
          return txQuery.apply(tx, args);
        }) as PgliteTransaction['query'];
        tx.exec = (...args) => {
          countDbQuery();
          return txExec.apply(tx, args);
        };
        return fn(tx);
      })
      .finally(countDbQuery) as Promise<T>; // the COMMIT, or the one ROLLBACK (after an error or tx.rollback())
  };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}

/** Runs raw SQL and returns its rows; both drivers answer `{ rows }`. */
export async function queryRows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as { rows: T[] };
  return result.rows;
}

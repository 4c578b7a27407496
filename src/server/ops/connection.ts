import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { pgliteStartParams } from '../db/client.js';
import { OpsError } from './errors.js';

/**
 * One plain connection to the shop's database, below drizzle: the transfer reads the system catalogue,
 * runs cursors and bulk inserts with array rows, none of which the ORM helps with.
 */
export interface RawConnection {
  kind: 'pglite' | 'postgres';
  /** Rows as objects keyed by column name. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Rows as arrays, in the select list's order. */
  arrays(text: string, params?: unknown[]): Promise<unknown[][]>;
  close(): Promise<void>;
}

export interface Target {
  /** postgres://…; otherwise the PGlite directory below. */
  databaseUrl: string | undefined;
  /** DATA_DIR: the shop's PGlite lives in DATA_DIR/pglite, uploads in DATA_DIR/uploads. */
  dataDir: string;
  /** PGLITE_SHARED_BUFFERS_MB, the PGlite page cache while a tool has the database open. */
  pgliteSharedBuffersMb?: number | undefined;
}

export function pgliteDir(target: Target): string {
  return path.join(target.dataDir, 'pglite');
}

/**
 * PGlite is one process: a second one opening the same directory corrupts it. PGlite writes
 * postmaster.pid while a directory is open and removes it on a clean close, so its presence means
 * a shop is running on it, or the last one was killed.
 */
export function assertPgliteNotInUse(target: Target): void {
  const dir = pgliteDir(target);
  if (fs.existsSync(path.join(dir, 'postmaster.pid'))) {
    throw new OpsError(
      `The embedded database in ${dir} is in use: stop the shop first (PGlite allows one process at a time). ` +
        'If no shop is running, the last one was not stopped cleanly: start it once and stop it with Ctrl-C, then try again.',
    );
  }
}

/** The text form of values must not depend on the server's settings: both ends agree on these. */
const SESSION = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET IntervalStyle = 'postgres'; SET bytea_output = 'hex'";

export async function connect(target: Target): Promise<RawConnection> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    try {
      await client.connect();
    } catch (error) {
      throw new OpsError(`Cannot connect to ${redactUrl(target.databaseUrl)}: ${(error as Error).message}`);
    }
    await client.query(SESSION);
    return {
      kind: 'postgres',
      query: async <T>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as T[],
      arrays: async (text, params = []) => (await client.query({ text, values: params, rowMode: 'array' })).rows as unknown[][],
      close: () => client.end(),
    };
  }
  const dir = pgliteDir(target);
  assertPgliteNotInUse(target);
  const db = await PGlite.create(dir, { extensions: { pg_trgm }, startParams: pgliteStartParams(target.pgliteSharedBuffersMb) });
  await db.exec(SESSION);
  return {
    kind: 'pglite',
    query: async <T>(text: string, params: unknown[] = []) => (await db.query<T>(text, params)).rows,
    arrays: async (text, params = []) => (await db.query<unknown[]>(text, params, { rowMode: 'array' })).rows,
    close: () => db.close(),
  };
}

/** postgres://user:secret@host/db → postgres://user:***@host/db, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import tar from 'tar-stream';
import type { Database } from '../../src/server/db/client.js';
import { PGLITE_EMPTY_ENV, PGLITE_TEMPLATE_ENV } from './pglite-env.js';

/**
 * Half of vitest's global setup (global-setup.ts): one PGlite database migrated and seeded as
 * startTestShop's shop would be, dumped to a file. Each test file's shop starts from its own copy
 * of it: a fresh in-memory PGlite runs initdb, the migrations and the seed, seconds per file;
 * loading the dump skips all three.
 *
 * The same cluster is dumped first as initdb left it, before any migration: shops that must
 * migrate and seed for themselves (the real entry point, other seed settings) start from a copy of
 * that, and skip only initdb, about two seconds of CPU each.
 */
export default async function makePgliteTemplate(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const [{ loadConfig }, { openDatabase, queryRows }, { seedShop }, { createLogger }, { testShopEnv }] = await Promise.all([
    import('../../src/server/config.js'),
    import('../../src/server/db/client.js'),
    import('../../src/server/db/seed.js'),
    import('../../src/server/shop.js'),
    import('./shop.js'),
  ]);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-pglite-template-'));
  const config = loadConfig(testShopEnv(dir));
  const database = await openDatabase({});
  const dump = async (name: string) => {
    const file = path.join(dir, name);
    await fs.writeFile(file, await compactDump(database, queryRows));
    return file;
  };
  try {
    process.env[PGLITE_EMPTY_ENV] = await dump('empty.tar');
    await database.migrate();
    await seedShop(database.db, config, createLogger(config));
    // Forks started after this inherit the variables.
    process.env[PGLITE_TEMPLATE_ENV] = await dump('template.tar');
  } finally {
    await database.close();
  }
  return async () => {
    delete process.env[PGLITE_TEMPLATE_ENV];
    delete process.env[PGLITE_EMPTY_ENV];
    await fs.rm(dir, { recursive: true, force: true });
  };
}

/** WAL is written and read in pages of this size (PostgreSQL's XLOG_BLCKSZ). */
const WAL_PAGE = 8192;

/**
 * A dump of the database's cluster without what no test shop reads, since nearly every shop loads
 * one and that load is most of a shop's start (unpacked by JavaScript into PGlite's in-memory file
 * system):
 * - WAL files other than the checkpoint's own, and that one's unwritten tail of zero pages, but for
 *   one: PostgreSQL stops reading WAL at a zero page, and writes on past the end as the file grows;
 * - template0 and template1, which only CREATE DATABASE reads, and a shop never creates one.
 * The seeded one goes from 42 MB to 10, and a shop's start from about 0.7 s of CPU to 0.4.
 */
async function compactDump(
  database: Database,
  queryRows: typeof import('../../src/server/db/client.js').queryRows,
): Promise<Buffer> {
  // A checkpoint into a fresh WAL file: the only one the cluster needs to start, since everything
  // before the checkpoint is in the data files.
  await database.db.execute(sql`CHECKPOINT`);
  await database.db.execute(sql`SELECT pg_switch_wal()`);
  await database.db.execute(sql`CHECKPOINT`);
  const [checkpoint] = await queryRows<{ walFile: string }>(
    database.db,
    sql`SELECT pg_walfile_name(redo_lsn) AS "walFile" FROM pg_control_checkpoint()`,
  );
  if (!checkpoint) throw new Error('pg_control_checkpoint() returned no row');
  const dump = await database.dumpDataDir?.();
  if (!dump) throw new Error('PGlite gave no dump of its data directory');

  const extract = tar.extract();
  const pack = tar.pack();
  const packed = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  })();
  extract.end(Buffer.from(await dump.arrayBuffer()));
  for await (const entry of extract) {
    const parts: Buffer[] = [];
    for await (const part of entry) parts.push(part as Buffer);
    const name = entry.header.name.replace(/^\/+/, '');
    let data = Buffer.concat(parts);
    // Database OIDs 1 and 4 are template1 and template0; the shop's is 5, postgres.
    if (/^base\/[14](\/|$)/.test(name)) continue;
    if (/^pg_wal\/[0-9A-F]{24}$/.test(name)) {
      if (path.basename(name) !== checkpoint.walFile) continue;
      data = data.subarray(0, (lastWrittenPage(data) + 2) * WAL_PAGE);
    }
    await new Promise<void>((resolve, reject) =>
      pack.entry({ ...entry.header, size: data.length }, data, (error) => (error ? reject(error) : resolve())),
    );
  }
  pack.finalize();
  return packed;
}

/** The index of the last WAL page holding anything but zeros. */
function lastWrittenPage(wal: Buffer): number {
  for (let page = wal.length / WAL_PAGE - 1; page >= 0; page--) {
    if (wal.subarray(page * WAL_PAGE, (page + 1) * WAL_PAGE).some((byte) => byte !== 0)) return page;
  }
  throw new Error('the WAL file holds nothing');
}

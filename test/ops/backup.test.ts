import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Target } from '../../src/server/ops/connection.js';
import { freshPostgresUrl, shopDataDir, TEST_PGLITE_SHARED_BUFFERS_MB } from '../support/shop.js';
import { buildShop, counts, type OpsShop, snapshot, startShopOn, tempDir, verifyThroughApi } from './support.js';

/**
 * The backups docs/deploying.md documents, restored into an empty place and checked: every table field
 * by field, then a shop started on the restore finds every order, user, product, review, payment
 * and image. PGlite: the stopped shop's DATA_DIR copied. PostgreSQL: pg_dump -Fc and pg_restore.
 */

const run = promisify(execFile);
const SIZE = { shoppers: 20, ordersPerShopper: 10 };
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function dir(): Promise<string> {
  const created = await tempDir();
  cleanups.push(() => fs.rm(created, { recursive: true, force: true }));
  return created;
}

/** Starts a shop on the restored database and checks it holds all of the original. */
async function checkRestore(target: Target, built: Awaited<ReturnType<typeof buildShop>>, before: Record<string, unknown[]>) {
  const after = await snapshot(target);
  expect(counts(after)).toEqual(counts(before));
  for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
  const restored = await startShopOn(target);
  try {
    await verifyThroughApi(restored, built, before);
  } finally {
    await restored.close();
  }
}

describe('backups', () => {
  it('PGlite: a copy of the stopped shop’s DATA_DIR restores the whole shop', async () => {
    const source: Target = {
      databaseUrl: undefined,
      dataDir: await shopDataDir('duka-ops-'),
      pgliteSharedBuffersMb: TEST_PGLITE_SHARED_BUFFERS_MB,
    };
    cleanups.push(() => fs.rm(source.dataDir, { recursive: true, force: true }));
    let shop: OpsShop | undefined = await startShopOn(source);
    try {
      const built = await buildShop(shop, SIZE);
      await shop.close();
      shop = undefined;
      const before = await snapshot(source);
      expect(before['public.orders']?.length).toBe(SIZE.shoppers * SIZE.ordersPerShopper);

      // The backup: the whole folder, as `cp -a data backup` does; the restore: copied back to an empty place.
      const backup = path.join(await dir(), 'backup');
      await fs.cp(source.dataDir, backup, { recursive: true, preserveTimestamps: true });
      const target: Target = {
        databaseUrl: undefined,
        dataDir: path.join(await dir(), 'restored'),
        pgliteSharedBuffersMb: TEST_PGLITE_SHARED_BUFFERS_MB,
      };
      await fs.cp(backup, target.dataDir, { recursive: true, preserveTimestamps: true });
      await checkRestore(target, built, before);
    } finally {
      await shop?.close();
    }
  }, 480_000);

  describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
    const base = process.env.TEST_DATABASE_URL ?? '';
    it('PostgreSQL: pg_dump -Fc restored with pg_restore into an empty database', async () => {
      const sourceDb = await freshPostgresUrl(base);
      cleanups.push(sourceDb.drop);
      const source: Target = { databaseUrl: sourceDb.url, dataDir: await dir() };
      let shop: OpsShop | undefined = await startShopOn(source);
      try {
        const built = await buildShop(shop, SIZE);
        await shop.close();
        shop = undefined;
        const before = await snapshot(source);

        const backupDir = await dir();
        const dump = path.join(backupDir, 'duka.dump');
        await run('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${sourceDb.url}`]);
        // Uploaded images are in the database, so in the dump. A shop that ran an earlier version
        // may still have its old upload files, which docs/deploying.md says to copy alongside.
        const uploads = path.join(source.dataDir, 'uploads');
        const legacy = await fs.readdir(uploads).catch(() => []);
        if (legacy.length > 0) await fs.cp(uploads, path.join(backupDir, 'uploads'), { recursive: true });

        const targetDb = await freshPostgresUrl(base);
        cleanups.push(targetDb.drop);
        const target: Target = { databaseUrl: targetDb.url, dataDir: await dir() };
        await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${targetDb.url}`, dump]);
        if (legacy.length > 0)
          await fs.cp(path.join(backupDir, 'uploads'), path.join(target.dataDir, 'uploads'), { recursive: true });
        await checkRestore(target, built, before);
      } finally {
        await shop?.close();
      }
    }, 480_000);
  });
});

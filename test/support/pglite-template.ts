import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGLITE_EMPTY_ENV, PGLITE_TEMPLATE_ENV } from './pglite-env.js';

/**
 * Half of vitest's global setup (global-setup.ts): one PGlite database migrated and seeded as
 * startTestShop's shop would be, dumped to a file. Each test file's shop starts from its own copy
 * of it: a fresh in-memory PGlite runs initdb, the migrations and the seed, seconds per file;
 * loading the dump skips all three.
 *
 * The same cluster is dumped first as initdb left it, before any migration: shops that must
 * migrate and seed for themselves (the real entry point, other seed settings) start from a copy of
 * that, and skip only initdb, about five seconds of CPU each.
 */
export default async function makePgliteTemplate(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const [{ loadConfig }, { openDatabase }, { seedShop }, { createLogger }, { testShopEnv }] = await Promise.all([
    import('../../src/server/config.js'),
    import('../../src/server/db/client.js'),
    import('../../src/server/db/seed.js'),
    import('../../src/server/shop.js'),
    import('./shop.js'),
  ]);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-pglite-template-'));
  const config = loadConfig(testShopEnv(dir));
  const database = await openDatabase({});
  try {
    const empty = await database.dumpDataDir?.();
    if (!empty) throw new Error('PGlite gave no dump of its data directory');
    const emptyFile = path.join(dir, 'empty.tar');
    await fs.writeFile(emptyFile, Buffer.from(await empty.arrayBuffer()));
    process.env[PGLITE_EMPTY_ENV] = emptyFile;
    await database.migrate();
    await seedShop(database.db, config, createLogger(config));
    const dump = await database.dumpDataDir?.();
    if (!dump) throw new Error('PGlite gave no dump of its data directory');
    const file = path.join(dir, 'template.tar');
    await fs.writeFile(file, Buffer.from(await dump.arrayBuffer()));
    // Forks started after this inherit the variable.
    process.env[PGLITE_TEMPLATE_ENV] = file;
  } finally {
    await database.close();
  }
  return async () => {
    delete process.env[PGLITE_TEMPLATE_ENV];
    delete process.env[PGLITE_EMPTY_ENV];
    await fs.rm(dir, { recursive: true, force: true });
  };
}

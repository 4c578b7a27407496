import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Target } from '../../src/server/ops/connection.js';
import { OpsError } from '../../src/server/ops/errors.js';
import { exportShop, importShop } from '../../src/server/ops/transfer.js';
import { projectRoot } from '../../src/server/paths.js';
import { ApiClient } from '../support/client.js';
import { tsxProcess } from '../support/node-process.js';
import { freshPostgresUrl, shopDataDir, TEST_PGLITE_SHARED_BUFFERS_MB } from '../support/shop.js';
import { type BuiltShop, buildShop, counts, type OpsShop, snapshot, startShopOn, verifyThroughApi } from './support.js';

/**
 * Moving a shop off the embedded PGlite: db:export of a shop with hundreds of orders, M-Pesa
 * payments, reviews and uploaded images, db:import into an empty database, then every table
 * compared field by field and a shop started on the copy. PGlite → PostgreSQL is the main path.
 */

const run = promisify(execFile);
const SIZE = { shoppers: 30, ordersPerShopper: 10 };

let source: Target;
let shop: OpsShop | undefined;
let built: BuiltShop;
let before: Record<string, unknown[]>;
let exportFile: string;
/** A shopper's cookies from before the move: her session must still hold afterwards. */
let session: Map<string, string>;
const cleanups: (() => Promise<void>)[] = [];
const LEGACY_FILE = '0123456789abcdef01234567.jpg';
const LEGACY_CONTENT = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2, 3, 0xff, 0xd9]);

beforeAll(async () => {
  const dataDir = await shopDataDir('duka-ops-');
  cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  source = { databaseUrl: undefined, dataDir, pgliteSharedBuffersMb: TEST_PGLITE_SHARED_BUFFERS_MB };
  shop = await startShopOn(source);
  built = await buildShop(shop, SIZE);
  session = new Map(built.shoppers[1]?.client.cookies);
  exportFile = path.join(dataDir, '..', `${path.basename(dataDir)}-export.jsonl.gz`);
  cleanups.push(() => fs.rm(exportFile, { force: true }));
}, 480_000);

afterAll(async () => {
  await shop?.close();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function emptyTarget(kind: 'pglite' | 'postgres'): Promise<Target> {
  const dataDir = await shopDataDir('duka-ops-');
  cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  if (kind === 'pglite') return { databaseUrl: undefined, dataDir, pgliteSharedBuffersMb: TEST_PGLITE_SHARED_BUFFERS_MB };
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const postgres = await freshPostgresUrl(base);
  cleanups.push(postgres.drop);
  return { databaseUrl: postgres.url, dataDir };
}

/** Imports the export into an empty target and checks the copy, table by table and through the API. */
async function importAndCheck(kind: 'pglite' | 'postgres') {
  const target = await emptyTarget(kind);
  const started = Date.now();
  const summary = await importShop(target, exportFile);
  const seconds = (Date.now() - started) / 1000;
  console.info(`import into ${kind}: ${Object.values(summary.rows).reduce((a, b) => a + b)} rows in ${seconds.toFixed(1)} s`);

  const after = await snapshot(target);
  expect(counts(after)).toEqual(counts(before));
  for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
  expect(await fs.readFile(path.join(target.dataDir, 'uploads', LEGACY_FILE))).toEqual(LEGACY_CONTENT);

  const copy = await startShopOn(target);
  try {
    await verifyThroughApi(copy, built, before);
    // The session made before the move still signs her in.
    const client = new ApiClient(copy.url);
    for (const [name, value] of session) client.cookies.set(name, value);
    const profile = await client.get<{ email: string }>('/api/users/profile');
    expect(profile.status).toBe(200);
    expect(profile.body.email).toBe(built.shoppers[1]?.email);
  } finally {
    await copy.close();
  }
  return target;
}

describe('db:export and db:import', () => {
  it('will not export the embedded database while the shop runs on it', async () => {
    await expect(exportShop(source, exportFile)).rejects.toThrow(/in use: stop the shop first/);
    await expect(fs.access(exportFile)).rejects.toThrow();
  });

  it('exports every table, uploaded images included, of a stopped shop to one file', async () => {
    await shop?.close();
    shop = undefined;
    before = await snapshot(source);
    expect(before['public.orders']?.length).toBe(SIZE.shoppers * SIZE.ordersPerShopper);
    // Products sold in variants, and order lines of a variant, are among them.
    expect(before['public.product_variants']?.length).toBe(12);
    expect((before['public.order_items'] as { variant_id: string | null }[]).some((line) => line.variant_id !== null)).toBe(true);
    expect(before['public.payment_attempts']?.length).toBe(SIZE.shoppers);
    // The M-Pesa callback secret is among the rows that must move.
    expect(before['public.shop_meta']?.some((r) => (r as { key: string }).key === 'mpesa_callback_secret')).toBe(true);

    // A file an earlier version left in DATA_DIR/uploads (the shop imports such files at start).
    await fs.mkdir(path.join(source.dataDir, 'uploads'), { recursive: true });
    await fs.writeFile(path.join(source.dataDir, 'uploads', LEGACY_FILE), LEGACY_CONTENT);

    const started = Date.now();
    const summary = await exportShop(source, exportFile);
    const rows = Object.values(summary.rows).reduce((a, b) => a + b);
    console.info(`export: ${rows} rows, ${summary.files} files, ${summary.bytes} bytes in ${(Date.now() - started) / 1000} s`);
    // Every table but catalog_stats and search_words, which the database derives from products and
    // an import recounts (importAndCheck finds them equal).
    const { 'public.catalog_stats': derived, 'public.search_words': words, ...copied } = counts(before);
    expect(derived).toBe(1);
    expect(words).toBeGreaterThan(0);
    expect(summary.rows).toEqual(copied);
    // Uploaded images are rows of the images table; files left in DATA_DIR/uploads by earlier
    // versions of the shop travel in the file as well.
    expect(summary.files).toBe(1);
    const imageRows = (before['public.images'] ?? []) as { path: string }[];
    for (const image of built.images)
      expect(
        imageRows.some((r) => r.path === image.path),
        image.path,
      ).toBe(true);
    expect(summary.migration).toMatch(/^\d{4}_/);
  });

  describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
    it('moves the shop from PGlite to PostgreSQL with nothing lost', async () => {
      await importAndCheck('postgres');
    }, 120_000);
  });

  it('copies the shop into another PGlite with nothing lost, then refuses to load it twice', async () => {
    const target = await importAndCheck('pglite');
    const loaded = await snapshot(target);
    const again = importShop(target, exportFile);
    await expect(again).rejects.toBeInstanceOf(OpsError);
    await expect(importShop(target, exportFile)).rejects.toThrow(/already holds shop data: .*users \(\d+ rows\).*--replace/);
    expect(await snapshot(target)).toEqual(loaded);
    // The tools open PGlite with the page cache the target names (PGLITE_SHARED_BUFFERS_MB), as the shop does.
    const conn = await connect(target);
    try {
      expect(await conn.query('SHOW shared_buffers')).toEqual([{ shared_buffers: `${TEST_PGLITE_SHARED_BUFFERS_MB}MB` }]);
    } finally {
      await conn.close();
    }
  }, 120_000);

  it('loads all or nothing: a file cut short leaves the target as it was', async () => {
    const target = await emptyTarget(process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
    const whole = await fs.readFile(exportFile);
    const cut = `${exportFile}.cut`;
    cleanups.push(() => fs.rm(cut, { force: true }));
    // Past the tables, inside the images: every row was inserted before the failure.
    await fs.writeFile(cut, whole.subarray(0, Math.floor(whole.length * 0.95)));
    await expect(importShop(target, cut)).rejects.toThrow(/damaged or cut short/);
    const { 'public.catalog_stats': stats, ...after } = await snapshot(target);
    for (const [table, rows] of Object.entries(after)) expect(rows, table).toEqual([]);
    // The one row its migration makes, still counting no products.
    expect(stats).toEqual([{ id: 1, product_count: 0 }]);
    await expect(fs.readdir(path.join(target.dataDir, 'uploads'))).rejects.toThrow();
  });

  describe('a line that is not what its kind should be', () => {
    type Line = Record<string, unknown>;
    interface Damage {
      /** The key that marks the kind of line to damage; the file's last such line is changed. */
      kind: string;
      change: (line: Line) => unknown;
      /** What the error says after "line <number>". */
      error: string;
    }
    /** Every kind of line, each damaged once by a wrong type and once by a missing field, and lines of no kind. */
    const damages: Record<string, Damage> = {
      'the header missing its tables': {
        kind: 'format',
        change: ({ tables: _, ...rest }) => rest,
        error: '(the header): tables: missing',
      },
      'the header with a number for its migration hash': {
        kind: 'format',
        change: (line) => ({ ...line, migration: { ...(line.migration as Line), hash: 42 } }),
        error: '(the header): migration.hash: Invalid input: expected string, received number',
      },
      'a table line with text for its columns': {
        kind: 'table',
        change: (line) => ({ ...line, columns: 'id, name' }),
        error: '(a table line): columns: Invalid input: expected array, received string',
      },
      "a table line missing a column's type": {
        kind: 'table',
        change: (line) => {
          const [first, ...others] = line.columns as Line[];
          return { ...line, columns: [{ name: first?.name }, ...others] };
        },
        error: '(a table line): columns[0].type: missing',
      },
      'a table line with a field the export never writes': {
        kind: 'table',
        change: (line) => ({ ...line, rows: 3 }),
        error: '(a table line): Unrecognized key: "rows"',
      },
      "a table's end with text for its count": {
        kind: 'tableEnd',
        change: (line) => ({ ...line, rows: String(line.rows) }),
        error: `(a table's end line): rows: Invalid input: expected number, received string`,
      },
      "a table's end missing its count": {
        kind: 'tableEnd',
        change: ({ rows: _, ...rest }) => rest,
        error: `(a table's end line): rows: missing`,
      },
      'a sequence line with text for isCalled': {
        kind: 'sequence',
        change: (line) => ({ ...line, isCalled: 'true' }),
        error: '(a sequence line): isCalled: Invalid input: expected boolean, received string',
      },
      'a sequence line missing its value': {
        kind: 'sequence',
        change: ({ lastValue: _, ...rest }) => rest,
        error: '(a sequence line): lastValue: missing',
      },
      'a file line with a number for its content': {
        kind: 'file',
        change: (line) => ({ ...line, data: 5 }),
        error: '(a file line): data: Invalid input: expected string, received number',
      },
      'a file line missing its checksum': {
        kind: 'file',
        change: ({ sha256: _, ...rest }) => rest,
        error: '(a file line): sha256: missing',
      },
      'the end line with text for its file count': {
        kind: 'end',
        change: (line) => ({ ...line, files: '1' }),
        error: '(the end line): files: Invalid input: expected number, received string',
      },
      'the end line missing its row counts': {
        kind: 'end',
        change: ({ rows: _, ...rest }) => rest,
        error: '(the end line): rows: missing',
      },
      'a line of no known kind': {
        kind: 'sequence',
        change: ({ sequence, ...rest }) => ({ name: sequence, ...rest }),
        error: 'is a line of unknown kind',
      },
      'a line that is neither an object nor a row': {
        kind: 'file',
        change: (line) => line.file,
        error: 'is a line of unknown kind',
      },
    };

    let target: Target;
    let loaded: Record<string, unknown[]>;
    let lines: string[];
    let damaged: string;

    beforeAll(async () => {
      lines = gunzipSync(await fs.readFile(exportFile))
        .toString('utf8')
        .split('\n');
      // The sequence an export made before migration 0007 carries (the shop has no other), so the
      // file has a line of every kind; the import passes over it.
      const files = lines.findIndex((line) => line.startsWith('{"file":'));
      lines.splice(files, 0, JSON.stringify({ sequence: 'public.catalog_version', lastValue: '41', isCalled: true }));
      const whole = `${exportFile}.whole`;
      damaged = `${exportFile}.damaged`;
      cleanups.push(() => fs.rm(whole, { force: true }));
      cleanups.push(() => fs.rm(damaged, { force: true }));
      await fs.writeFile(whole, gzipSync(lines.join('\n')));
      target = await emptyTarget(process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
      await importShop(target, whole);
      loaded = await snapshot(target);
    }, 120_000);

    it.each(Object.entries(damages))('%s is refused by line, and the shop in the target stays whole', async (_, damage) => {
      // The last line of its kind: whatever comes before it has gone into the transaction by then.
      const index = lines.findLastIndex((line) => line.startsWith('{') && damage.kind in JSON.parse(line));
      expect(index).toBeGreaterThanOrEqual(0);
      const changed = lines.with(index, JSON.stringify(damage.change(JSON.parse(lines[index] ?? ''))));
      await fs.writeFile(damaged, gzipSync(changed.join('\n')));

      const failed = importShop(target, damaged, { replace: true });
      await expect(failed).rejects.toBeInstanceOf(OpsError);
      await expect(failed).rejects.toThrow(`${damaged} is damaged: line ${index + 1} ${damage.error}`);
      expect(await snapshot(target)).toEqual(loaded);
      expect(await fs.readdir(path.join(target.dataDir, 'uploads'))).toEqual([LEGACY_FILE]);
      expect((await fs.readdir(target.dataDir)).filter((name) => name.startsWith('.import-'))).toEqual([]);
    });
  });

  it('runs as npm scripts: exit 2 and a plain message for a target with data, --replace to overwrite it', async () => {
    const target = await emptyTarget('pglite');
    await importShop(target, exportFile);
    const env = {
      ...process.env,
      DATA_DIR: target.dataDir,
      DATABASE_URL: '',
      PGLITE_SHARED_BUFFERS_MB: String(TEST_PGLITE_SHARED_BUFFERS_MB),
    };
    const cli = path.join(projectRoot, 'src/server/ops/cli.ts');
    const refused = await run(process.execPath, tsxProcess(cli, 'import', exportFile), { env, cwd: projectRoot }).then(
      () => undefined,
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stderr).toMatch(/^error: The target database already holds shop data/m);
    expect(refused?.stderr).not.toMatch(/\n\s+at /);

    const replaced = await run(process.execPath, tsxProcess(cli, 'import', exportFile, '--replace'), {
      env,
      cwd: projectRoot,
    });
    expect(replaced.stdout).toMatch(/imported \d+ rows in \d+ tables and \d+ files/);
    const after = await snapshot(target);
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
  }, 120_000);
});

import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { catalogueVersionFor } from '../cache/catalogue-feed.js';
import { type AppConfig, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { redactUrl, type Target } from './connection.js';
import { OpsError } from './errors.js';
import { exportShop, importShop, type TransferSummary } from './transfer.js';

/**
 * `npm run db:export -- [file]` and `npm run db:import -- <file> [--replace]`. Both read the same
 * environment as the server (DATABASE_URL, or DATA_DIR for the embedded PGlite), so the shop's own
 * settings name the source or the target. A problem the operator can fix exits with 2 and one
 * line saying what to do; anything else exits with 1 and its stack.
 */

const USAGE = `usage:
  npm run db:export -- [file]              write the shop named by DATABASE_URL or DATA_DIR to file
                                           (default duka-export-<date>.jsonl.gz)
  npm run db:import -- <file> [--replace]  load an export into the (empty) database named by
                                           DATABASE_URL or DATA_DIR; --replace deletes its data first`;

function describe(target: Target): string {
  return target.databaseUrl ? `PostgreSQL ${redactUrl(target.databaseUrl)}` : `the embedded database in ${target.dataDir}`;
}

function report(verb: string, summary: TransferSummary): string {
  const total = Object.values(summary.rows).reduce((a, b) => a + b, 0);
  const tables = Object.entries(summary.rows)
    .map(([name, count]) => `  ${name.replace(/^public\./, '')}: ${count}`)
    .join('\n');
  return `${verb} ${total} rows in ${Object.keys(summary.rows).length} tables and ${summary.files} files (migration ${summary.migration}, ${(summary.bytes / 1024).toFixed(0)} KiB):\n${tables}`;
}

function defaultFileName(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `duka-export-${stamp}.jsonl.gz`;
}

/**
 * An import replaces the whole catalogue behind the back of any shop serving the same PostgreSQL:
 * their cached catalogue answers must go, as after any other catalogue write. (PGlite cannot be
 * imported into while a shop runs on it, and a shop starting on it begins with an empty cache.)
 */
async function announceCatalogueReplaced(config: AppConfig): Promise<void> {
  if (!config.databaseUrl) return;
  const database = await openDatabase({ url: config.databaseUrl, poolSize: 1 });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  try {
    const failed = (error: unknown) => {
      throw error;
    };
    await catalogueVersionFor(database, redis, config.redisKeyPrefix, failed).record({
      products: [],
      listing: true,
      everything: true,
    });
  } finally {
    redis?.disconnect();
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { replace: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  const [command, file, ...extra] = positionals;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  const target: Target = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
  };
  const started = Date.now();
  if (command === 'export' && extra.length === 0 && !values.replace) {
    const out = file ?? defaultFileName();
    console.error(`exporting ${describe(target)} to ${out} …`);
    const summary = await exportShop(target, out);
    console.log(report('exported', summary));
    console.error(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  }
  if (command === 'import' && file !== undefined && extra.length === 0) {
    console.error(`importing ${file} into ${describe(target)} …`);
    const summary = await importShop(target, file, { replace: values.replace });
    await announceCatalogueReplaced(config);
    console.log(report('imported', summary));
    console.error(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof OpsError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`error: ${(error as Error).message}`);
      process.exit(2);
    }
    console.error(error);
    process.exit(1);
  },
);

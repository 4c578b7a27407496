import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { connect, pgliteDir, quoteIdent, type RawConnection, type Target } from './connection.js';
import {
  lastAppliedMigration,
  latestKnownMigration,
  listSequences,
  listTables,
  type MigrationMark,
  type TableInfo,
} from './database-contents.js';
import { OpsError } from './errors.js';
import {
  BATCH_CHARS,
  BATCH_ROWS,
  DATA_FOLDERS,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportHeader,
  type FileLine,
  type FooterLine,
  rowChars,
  type SequenceLine,
  type TableEndLine,
  type TableLine,
  type TransferSummary,
} from './transfer-format.js';

function expectCurrentMigration(mark: MigrationMark | undefined, where: string): MigrationMark {
  if (!mark) throw new OpsError(`${where} holds no shop: its database was never migrated (start the shop on it once)`);
  const latest = latestKnownMigration();
  if (mark.tag !== latest) {
    throw new OpsError(
      mark.tag === undefined
        ? `${where} was migrated by a newer version of Duka than this one; run this command with that version`
        : `${where} is at migration ${mark.tag}, but this version of Duka is at ${latest}: start the shop once with this version ` +
            '(it migrates on start), stop it, and run the command again',
    );
  }
  return mark;
}

/** Every file under DATA_DIR's data folders, as paths relative to DATA_DIR. */
async function dataFiles(dataDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(dataDir, relative), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  for (const folder of DATA_FOLDERS) await walk(folder);
  return found;
}

/**
 * Writes the whole shop at `source` to `file`. The rows are read in one repeatable-read, read-only
 * transaction, so the file is one consistent moment of the shop even if PostgreSQL is serving
 * orders meanwhile; they stream through a cursor, so memory stays flat however big the shop.
 */
export async function exportShop(source: Target, file: string): Promise<TransferSummary> {
  if (!source.databaseUrl && !existsSync(path.join(pgliteDir(source), 'PG_VERSION'))) {
    throw new OpsError(`There is no embedded database in ${pgliteDir(source)}: set DATA_DIR (or DATABASE_URL) to the shop's`);
  }
  const conn = await connect(source);
  const partial = `${file}.partial`;
  const rows: Record<string, number> = {};
  let files = 0;
  try {
    const migration = expectCurrentMigration(await lastAppliedMigration(conn), 'The source');
    await conn.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const tables = await listTables(conn);
    const sequences = await listSequences(conn);
    const header: ExportHeader = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      createdAt: new Date().toISOString(),
      source: conn.kind,
      migration,
      tables: tables.map((t) => t.name),
    };

    async function* lines(): AsyncGenerator<string> {
      yield `${JSON.stringify(header)}\n`;
      for (const table of tables) {
        yield `${JSON.stringify({ table: table.name, columns: table.columns } satisfies TableLine)}\n`;
        let count = 0;
        for await (const batch of readTable(conn, table)) {
          count += batch.length;
          yield batch.map((row) => `${JSON.stringify(row)}\n`).join('');
        }
        rows[table.name] = count;
        yield `${JSON.stringify({ tableEnd: table.name, rows: count } satisfies TableEndLine)}\n`;
      }
      for (const sequence of sequences) {
        const [state] = await conn.query<{ last_value: string; is_called: boolean }>(
          `SELECT last_value::text AS last_value, is_called FROM ${sequence.sql}`,
        );
        if (state) {
          const line: SequenceLine = { sequence: sequence.name, lastValue: state.last_value, isCalled: state.is_called };
          yield `${JSON.stringify(line)}\n`;
        }
      }
      for (const relative of await dataFiles(source.dataDir)) {
        const content = await fs.readFile(path.join(source.dataDir, relative));
        const line: FileLine = {
          file: relative,
          sha256: createHash('sha256').update(content).digest('hex'),
          data: content.toString('base64'),
        };
        files += 1;
        yield `${JSON.stringify(line)}\n`;
      }
      yield `${JSON.stringify({ end: true, rows, files } satisfies FooterLine)}\n`;
    }

    await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await pipeline(Readable.from(lines()), createGzip(), createWriteStream(partial));
    await conn.query('COMMIT');
    // Under its final name only once complete: a failed export never leaves a file that looks whole.
    await fs.rename(partial, file);
    const { size } = await fs.stat(file);
    return { file, rows, files, bytes: size, migration: migration.tag };
  } catch (error) {
    await fs.rm(partial, { force: true });
    throw error;
  } finally {
    await conn.close();
  }
}

/** The table's rows in primary-key order, each as the text form of its stored columns. */
async function* readTable(conn: RawConnection, table: TableInfo): AsyncGenerator<unknown[][]> {
  const select = table.columns.map((c) => `${quoteIdent(c.name)}::text`).join(', ');
  const order = table.primaryKey.length > 0 ? ` ORDER BY ${table.primaryKey.map(quoteIdent).join(', ')}` : '';
  await conn.query(`DECLARE duka_export NO SCROLL CURSOR FOR SELECT ${select} FROM ${table.sql}${order}`);
  try {
    // Rows of images are far larger than rows of orders: the batch shrinks so that it stays
    // around BATCH_CHARS whatever the table, starting small until a batch shows the row size.
    let size = 20;
    for (;;) {
      const batch = await conn.arrays(`FETCH FORWARD ${size} FROM duka_export`);
      if (batch.length > 0) yield batch;
      if (batch.length < size) return;
      const chars = batch.reduce<number>((sum, row) => sum + rowChars(row), 0);
      size = Math.max(1, Math.min(BATCH_ROWS, Math.floor(BATCH_CHARS / Math.max(1, chars / batch.length))));
    }
  } finally {
    await conn.query('CLOSE duka_export');
  }
}

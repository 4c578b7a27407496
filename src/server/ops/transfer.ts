import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { z } from 'zod';
import { openDatabase } from '../db/client.js';
import {
  BOOKKEEPING_SEQUENCES,
  lastAppliedMigration,
  latestKnownMigration,
  listSequences,
  listTables,
  type MigrationMark,
  type TableInfo,
} from './catalogue.js';
import { assertPgliteNotInUse, connect, pgliteDir, quoteIdent, type RawConnection, type Target } from './connection.js';
import { OpsError } from './errors.js';

/**
 * A whole shop in one file: gzip'd JSON lines. The first line is the header; each table follows
 * as a `{table, columns}` line, its rows as arrays of text values (PostgreSQL's own text form of
 * every type, so numeric, timestamptz to the microsecond, jsonb and bytea survive exactly), and a
 * `{tableEnd, rows}` line; then the sequences, the uploaded files, and a footer with the counts,
 * without which the file counts as cut short.
 */
export const EXPORT_FORMAT = 'duka-export';
export const EXPORT_VERSION = 1;

/*
 * The shape of each kind of line. An import reads a file from anywhere, so every line but a row is
 * checked against its schema before it is used; strict objects, because the file is written only
 * by exportShop, and a field it never writes means the line is not what it seems.
 */
const migrationMark = z.strictObject({ createdAt: z.string(), hash: z.string(), tag: z.string().optional() });

const exportHeader = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  createdAt: z.string(),
  source: z.enum(['pglite', 'postgres']),
  migration: migrationMark,
  tables: z.array(z.string()),
});
export type ExportHeader = z.infer<typeof exportHeader>;

const tableLine = z.strictObject({
  table: z.string(),
  columns: z.array(z.strictObject({ name: z.string(), type: z.string() })),
});
type TableLine = z.infer<typeof tableLine>;

const tableEndLine = z.strictObject({ tableEnd: z.string(), rows: z.int().nonnegative() });
type TableEndLine = z.infer<typeof tableEndLine>;

const sequenceLine = z.strictObject({
  sequence: z.string(),
  /** A bigint in its text form. */
  lastValue: z.string().regex(/^-?\d+$/),
  isCalled: z.boolean(),
});
type SequenceLine = z.infer<typeof sequenceLine>;

const fileLine = z.strictObject({
  /** Path under DATA_DIR, with forward slashes: uploads/<name>. */
  file: z.string(),
  sha256: z.hash('sha256'),
  // Not z.base64(): a regex over megabytes of image would slow the import, and the checksum
  // already refuses content that is not what was exported.
  data: z.string(),
});
type FileLine = z.infer<typeof fileLine>;

const footerLine = z.strictObject({
  end: z.literal(true),
  rows: z.record(z.string(), z.int().nonnegative()),
  files: z.int().nonnegative(),
});
type FooterLine = z.infer<typeof footerLine>;

export interface TransferSummary {
  file: string;
  rows: Record<string, number>;
  files: number;
  bytes: number;
  migration: string | undefined;
}

/** Rows fetched from the cursor, and inserted, at a time. */
const BATCH_ROWS = 500;
/** A batch is also flushed past this many characters, so rows with large values stay within memory. */
const BATCH_CHARS = 8 * 1024 * 1024;
/** Folders of DATA_DIR whose files belong to the shop's data (uploaded images, until they move into the database). */
const DATA_FOLDERS = ['uploads'];

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

function rowChars(row: unknown[]): number {
  return row.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 4), 0);
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

export interface ImportOptions {
  /** Delete whatever shop data the target holds before loading, instead of refusing. */
  replace?: boolean;
}

/** A line of the file as JSON.parse made it, and where it stands, for messages. */
interface NumberedLine {
  number: number;
  value: unknown;
}

/** Reads the export line by line; a gzip or JSON error becomes a message about the file. */
async function* readLines(file: string): AsyncGenerator<NumberedLine> {
  const input = createReadStream(file);
  const gunzip = createGunzip();
  const reader = readline.createInterface({ input: input.pipe(gunzip), crlfDelay: Number.POSITIVE_INFINITY });
  input.on('error', (error) => gunzip.destroy(error));
  let number = 0;
  try {
    for await (const line of reader) {
      number += 1;
      if (line === '') continue;
      try {
        yield { number, value: JSON.parse(line) };
      } catch {
        throw new OpsError(`${file} is damaged: line ${number} is not JSON`);
      }
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new OpsError(`${file} does not exist`);
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code === 'Z_STREAM_ERROR') {
      throw new OpsError(`${file} is damaged or cut short (${(error as Error).message}); nothing was imported`);
    }
    throw error;
  } finally {
    reader.close();
    input.destroy();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Zod's own words, but for a field the line lacks, which it would call "received undefined". */
const lineErrors: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'missing' : undefined;

/** A line checked against the schema of its kind, or an error that says which line and what is wrong with it. */
function checkLine<T>(file: string, line: NumberedLine, kind: string, schema: z.ZodType<T>): T {
  const checked = schema.safeParse(line.value, { error: lineErrors });
  if (checked.success) return checked.data;
  const problems = checked.error.issues.map((issue) =>
    issue.path.length > 0 ? `${z.core.toDotPath(issue.path)}: ${issue.message}` : issue.message,
  );
  return damaged(file, line, `(${kind}): ${problems.join('; ')}`);
}

function damaged(file: string, line: NumberedLine, what: string): never {
  throw new OpsError(`${file} is damaged: line ${line.number} ${what}`);
}

/** A file line may only write inside DATA_DIR's data folders. */
function safeDataPath(relative: string): string {
  const normal = path.posix.normalize(relative);
  const [folder] = normal.split('/');
  if (normal !== relative || normal.startsWith('/') || normal.includes('..') || !DATA_FOLDERS.includes(folder ?? '')) {
    throw new OpsError(`The export names a file outside the data folders (${JSON.stringify(relative)}); refusing it`);
  }
  return normal;
}

/**
 * Loads an export into `target`: migrates it with the shop's own migrations, refuses a target that
 * already holds shop data unless `replace`, then inserts every row in one transaction — all or
 * nothing. Uploaded files are staged and moved into DATA_DIR only after the commit.
 */
export async function importShop(target: Target, file: string, options: ImportOptions = {}): Promise<TransferSummary> {
  const lines = readLines(file);
  try {
    return await loadExport(target, file, lines, options);
  } finally {
    await lines.return(undefined);
  }
}

async function loadExport(
  target: Target,
  file: string,
  lines: AsyncGenerator<NumberedLine>,
  options: ImportOptions,
): Promise<TransferSummary> {
  const first = await lines.next();
  const header = first.value?.value;
  if (first.done || !isRecord(header) || header.format !== EXPORT_FORMAT) {
    throw new OpsError(`${file} is not a Duka export (made by npm run db:export)`);
  }
  if (header.version !== EXPORT_VERSION) {
    throw new OpsError(
      `${file} is in export format ${String(header.version)}; this version of Duka reads format ${EXPORT_VERSION}`,
    );
  }
  const exported = checkLine(file, first.value, 'the header', exportHeader);

  if (!target.databaseUrl) assertPgliteNotInUse(target);
  const database = await openDatabase({
    url: target.databaseUrl,
    pgliteDir: pgliteDir(target),
    poolSize: 2,
    pgliteSharedBuffersMb: target.pgliteSharedBuffersMb,
  });
  try {
    await database.withStartupLock(() => database.migrate());
  } finally {
    await database.close();
  }

  const conn = await connect(target);
  const staging = path.join(target.dataDir, `.import-${randomBytes(6).toString('hex')}`);
  const staged: string[] = [];
  let open = false;
  try {
    const mark = await lastAppliedMigration(conn);
    if (mark?.hash !== exported.migration.hash || mark.createdAt !== exported.migration.createdAt) {
      throw new OpsError(
        `${file} was exported at migration ${exported.migration.tag ?? exported.migration.createdAt}, but this version of Duka ` +
          `migrates to ${mark?.tag ?? 'nothing'}: import it with the version of Duka that exported it`,
      );
    }
    const tables = new Map((await listTables(conn)).map((t) => [t.name, t]));
    const missing = exported.tables.filter((name) => !tables.has(name));
    if (missing.length > 0) throw new OpsError(`The target has no table ${missing.join(', ')}; is it the same version of Duka?`);

    const occupied: string[] = [];
    for (const table of tables.values()) {
      const [row] = await conn.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table.sql}`);
      if (row && row.n !== '0') occupied.push(`${table.name} (${row.n} rows)`);
    }
    if (occupied.length > 0 && !options.replace) {
      throw new OpsError(
        `The target database already holds shop data: ${occupied.join(', ')}. ` +
          'Import into an empty database, or pass --replace to delete that data first.',
      );
    }

    await conn.query('BEGIN');
    open = true;
    if (occupied.length > 0) {
      await conn.query(`TRUNCATE ${[...tables.values()].map((t) => t.sql).join(', ')} RESTART IDENTITY CASCADE`);
    }

    const rows: Record<string, number> = {};
    let files = 0;
    let current: { table: TableInfo; insert: string; count: number } | undefined;
    let batch: unknown[] = [];
    let batchChars = 0;
    let footer: FooterLine | undefined;

    const flush = async () => {
      if (!current || batch.length === 0) return;
      await conn.query(current.insert, [JSON.stringify(batch)]);
      current.count += batch.length;
      batch = [];
      batchChars = 0;
    };

    for await (const line of lines) {
      const { value } = line;
      if (footer) damaged(file, line, 'follows the end line');
      // Rows are nearly every line: checked for their length alone, as PostgreSQL's casts check their values.
      if (Array.isArray(value)) {
        if (!current) damaged(file, line, 'is a row outside any table');
        if (value.length !== current.table.columns.length) {
          damaged(
            file,
            line,
            `is a row of ${current.table.name} with ${value.length} values, not ${current.table.columns.length}`,
          );
        }
        batch.push(value);
        batchChars += rowChars(value);
        if (batch.length >= BATCH_ROWS || batchChars >= BATCH_CHARS) await flush();
      } else if (isRecord(value) && 'table' in value) {
        current = { ...tableLoader(tables, checkLine(file, line, 'a table line', tableLine)), count: 0 };
      } else if (isRecord(value) && 'tableEnd' in value) {
        const end = checkLine(file, line, "a table's end line", tableEndLine);
        if (current?.table.name !== end.tableEnd) damaged(file, line, `ends ${end.tableEnd} out of place`);
        await flush();
        if (current.count !== end.rows) {
          damaged(file, line, `ends ${end.tableEnd}, which should have ${end.rows} rows; it has ${current.count}`);
        }
        rows[end.tableEnd] = current.count;
        current = undefined;
      } else if (isRecord(value) && 'sequence' in value) {
        const sequence = checkLine(file, line, 'a sequence line', sequenceLine);
        // Exports made before it was left out may still carry it.
        if (BOOKKEEPING_SEQUENCES.includes(sequence.sequence)) continue;
        await conn.query('SELECT setval($1::regclass, $2::bigint, $3::boolean)', [
          sequence.sequence
            .split('.')
            .map((part) => quoteIdent(part))
            .join('.'),
          sequence.lastValue,
          sequence.isCalled,
        ]);
      } else if (isRecord(value) && 'file' in value) {
        const entry = checkLine(file, line, 'a file line', fileLine);
        const relative = safeDataPath(entry.file);
        const content = Buffer.from(entry.data, 'base64');
        if (createHash('sha256').update(content).digest('hex') !== entry.sha256) {
          damaged(file, line, `holds content of ${relative} that does not match its checksum`);
        }
        await fs.mkdir(path.dirname(path.join(staging, relative)), { recursive: true });
        await fs.writeFile(path.join(staging, relative), content);
        staged.push(relative);
        files += 1;
      } else if (isRecord(value) && 'end' in value) {
        footer = checkLine(file, line, 'the end line', footerLine);
      } else {
        damaged(file, line, 'is a line of unknown kind');
      }
    }
    if (!footer || current) throw new OpsError(`${file} is cut short (it has no end line); nothing was imported`);
    for (const name of exported.tables) {
      if (rows[name] !== footer.rows[name]) throw new OpsError(`${file} is damaged: the table ${name} is missing or incomplete`);
    }
    if (files !== footer.files) throw new OpsError(`${file} is damaged: it should hold ${footer.files} files, it has ${files}`);

    await conn.query('COMMIT');
    open = false;
    for (const relative of staged) {
      const destination = path.join(target.dataDir, relative);
      await fs.mkdir(path.dirname(destination), { recursive: true });
      await fs.rename(path.join(staging, relative), destination);
    }
    const { size } = await fs.stat(file);
    return { file, rows, files, bytes: size, migration: exported.migration.tag };
  } catch (error) {
    if (open) await conn.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await conn.close();
  }
}

/** The INSERT for one table's batches: every value arrives as text and is cast to the target column's type. */
function tableLoader(tables: Map<string, TableInfo>, line: TableLine): { table: TableInfo; insert: string } {
  const target = tables.get(line.table);
  if (!target) throw new OpsError(`The target has no table ${line.table}`);
  const targetColumns = new Map(target.columns.map((c) => [c.name, c]));
  for (const column of line.columns) {
    const match = targetColumns.get(column.name);
    if (match?.type !== column.type) {
      throw new OpsError(
        `The column ${line.table}.${column.name} (${column.type}) differs in the target; is it the same version of Duka?`,
      );
    }
  }
  const names = line.columns.map((c) => quoteIdent(c.name)).join(', ');
  const values = line.columns.map((c, i) => `(r->>${i})::${c.type}`).join(', ');
  const overriding = target.identityAlways ? ' OVERRIDING SYSTEM VALUE' : '';
  return {
    // The file's column order, which need not be the target's.
    table: { ...target, columns: line.columns },
    insert: `INSERT INTO ${target.sql} (${names})${overriding} SELECT ${values} FROM json_array_elements($1::json) AS r`,
  };
}

import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { openDatabase } from '../db/client.js';
import { assertPgliteNotInUse, connect, pgliteDir, quoteIdent, type RawConnection, type Target } from './connection.js';
import { BOOKKEEPING_SEQUENCES, lastAppliedMigration, listTables, type TableInfo } from './database-contents.js';
import { OpsError } from './errors.js';
import { checkLine, damaged, isRecord, type NumberedLine, readLines } from './import-lines.js';
import {
  BATCH_CHARS,
  BATCH_ROWS,
  DATA_FOLDERS,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportHeader,
  exportHeader,
  type FileLine,
  type FooterLine,
  fileLine,
  footerLine,
  rowChars,
  type SequenceLine,
  sequenceLine,
  type TableEndLine,
  type TableLine,
  type TransferSummary,
  tableEndLine,
  tableLine,
} from './transfer-format.js';

export interface ImportOptions {
  /** Delete whatever shop data the target holds before loading, instead of refusing. */
  replace?: boolean;
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
  const exported = await readHeader(file, lines);
  await migrateTarget(target);

  const conn = await connect(target);
  const staging = path.join(target.dataDir, `.import-${randomBytes(6).toString('hex')}`);
  let open = false;
  try {
    const { tables, occupied } = await targetTables(conn, file, exported, options);

    await conn.query('BEGIN');
    open = true;
    if (occupied.length > 0) {
      await conn.query(`TRUNCATE ${[...tables.values()].map((t) => t.sql).join(', ')} RESTART IDENTITY CASCADE`);
    }
    const loaded = await loadLines(conn, file, lines, tables, staging);
    checkComplete(file, exported, loaded);

    await conn.query('COMMIT');
    open = false;
    for (const relative of loaded.staged) {
      const destination = path.join(target.dataDir, relative);
      await fs.mkdir(path.dirname(destination), { recursive: true });
      await fs.rename(path.join(staging, relative), destination);
    }
    const { size } = await fs.stat(file);
    return { file, rows: loaded.rows, files: loaded.files, bytes: size, migration: exported.migration.tag };
  } catch (error) {
    if (open) await conn.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await conn.close();
  }
}

/** The export's first line, which must say it is an export of this format. */
async function readHeader(file: string, lines: AsyncGenerator<NumberedLine>): Promise<ExportHeader> {
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
  return checkLine(file, first.value, 'the header', exportHeader);
}

/** Brings the target's database to this version's migrations, as the shop does when it starts. */
async function migrateTarget(target: Target): Promise<void> {
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
}

/**
 * The target's tables, once it is known to be at the export's migration and to have each table
 * the export holds; `occupied` names those that hold rows, refused unless `replace`.
 */
async function targetTables(
  conn: RawConnection,
  file: string,
  exported: ExportHeader,
  options: ImportOptions,
): Promise<{ tables: Map<string, TableInfo>; occupied: string[] }> {
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
  return { tables, occupied };
}

/** What the lines after the header loaded: rows per table, the files staged, and the end line. */
interface Loaded {
  rows: Record<string, number>;
  files: number;
  /** Paths relative to DATA_DIR, written under the staging folder until the commit. */
  staged: string[];
  footer: FooterLine | undefined;
}

/**
 * The rows of the table being loaded, inserted in batches of at most BATCH_ROWS rows and about
 * BATCH_CHARS characters: a table line starts a table, its rows follow, its end line checks that
 * all of them were inserted.
 */
class TableRows {
  current: { table: TableInfo; insert: string; count: number } | undefined;
  private batch: unknown[] = [];
  private batchChars = 0;

  constructor(
    private readonly conn: RawConnection,
    private readonly file: string,
  ) {}

  start(loader: { table: TableInfo; insert: string }): void {
    this.current = { ...loader, count: 0 };
  }

  /** One row of the current table, inserted with its batch. */
  async add(line: NumberedLine, row: unknown[]): Promise<void> {
    const { current } = this;
    if (!current) damaged(this.file, line, 'is a row outside any table');
    if (row.length !== current.table.columns.length) {
      damaged(
        this.file,
        line,
        `is a row of ${current.table.name} with ${row.length} values, not ${current.table.columns.length}`,
      );
    }
    this.batch.push(row);
    this.batchChars += rowChars(row);
    if (this.batch.length >= BATCH_ROWS || this.batchChars >= BATCH_CHARS) await this.flush();
  }

  /** Ends the current table; its count of rows, once it is the one the end line gives. */
  async end(line: NumberedLine, end: TableEndLine): Promise<number> {
    if (this.current?.table.name !== end.tableEnd) damaged(this.file, line, `ends ${end.tableEnd} out of place`);
    await this.flush();
    const { count } = this.current;
    if (count !== end.rows) {
      damaged(this.file, line, `ends ${end.tableEnd}, which should have ${end.rows} rows; it has ${count}`);
    }
    this.current = undefined;
    return count;
  }

  private async flush(): Promise<void> {
    if (!this.current || this.batch.length === 0) return;
    await this.conn.query(this.current.insert, [JSON.stringify(this.batch)]);
    this.current.count += this.batch.length;
    this.batch = [];
    this.batchChars = 0;
  }
}

/** Loads every line after the header, in the transaction `conn` has open; uploaded files go to `staging`. */
async function loadLines(
  conn: RawConnection,
  file: string,
  lines: AsyncGenerator<NumberedLine>,
  tables: Map<string, TableInfo>,
  staging: string,
): Promise<Loaded & { footer: FooterLine }> {
  const loaded: Loaded = { rows: {}, files: 0, staged: [], footer: undefined };
  const rows = new TableRows(conn, file);
  for await (const line of lines) {
    const { value } = line;
    if (loaded.footer) damaged(file, line, 'follows the end line');
    // Rows are nearly every line: checked for their length alone, as PostgreSQL's casts check their values.
    if (Array.isArray(value)) {
      await rows.add(line, value);
    } else if (isRecord(value) && 'table' in value) {
      rows.start(tableLoader(tables, checkLine(file, line, 'a table line', tableLine)));
    } else if (isRecord(value) && 'tableEnd' in value) {
      const end = checkLine(file, line, "a table's end line", tableEndLine);
      loaded.rows[end.tableEnd] = await rows.end(line, end);
    } else if (isRecord(value) && 'sequence' in value) {
      await loadSequence(conn, checkLine(file, line, 'a sequence line', sequenceLine));
    } else if (isRecord(value) && 'file' in value) {
      loaded.staged.push(await stageFile(file, line, checkLine(file, line, 'a file line', fileLine), staging));
      loaded.files += 1;
    } else if (isRecord(value) && 'end' in value) {
      loaded.footer = checkLine(file, line, 'the end line', footerLine);
    } else {
      damaged(file, line, 'is a line of unknown kind');
    }
  }
  if (!loaded.footer || rows.current) throw new OpsError(`${file} is cut short (it has no end line); nothing was imported`);
  return { ...loaded, footer: loaded.footer };
}

/** Sets a sequence where the export found it. */
async function loadSequence(conn: RawConnection, sequence: SequenceLine): Promise<void> {
  // Exports made before it was left out may still carry it.
  if (BOOKKEEPING_SEQUENCES.includes(sequence.sequence)) return;
  await conn.query('SELECT setval($1::regclass, $2::bigint, $3::boolean)', [
    sequence.sequence
      .split('.')
      .map((part) => quoteIdent(part))
      .join('.'),
    sequence.lastValue,
    sequence.isCalled,
  ]);
}

/** Writes an uploaded file under `staging`, once its content matches its checksum; its path relative to DATA_DIR. */
async function stageFile(file: string, line: NumberedLine, entry: FileLine, staging: string): Promise<string> {
  const relative = safeDataPath(entry.file);
  const content = Buffer.from(entry.data, 'base64');
  if (createHash('sha256').update(content).digest('hex') !== entry.sha256) {
    damaged(file, line, `holds content of ${relative} that does not match its checksum`);
  }
  await fs.mkdir(path.dirname(path.join(staging, relative)), { recursive: true });
  await fs.writeFile(path.join(staging, relative), content);
  return relative;
}

/** Whether every table and file the end line counts was loaded. */
function checkComplete(file: string, exported: ExportHeader, loaded: Loaded & { footer: FooterLine }): void {
  const { footer } = loaded;
  for (const name of exported.tables) {
    if (loaded.rows[name] !== footer.rows[name])
      throw new OpsError(`${file} is damaged: the table ${name} is missing or incomplete`);
  }
  if (loaded.files !== footer.files) {
    throw new OpsError(`${file} is damaged: it should hold ${footer.files} files, it has ${loaded.files}`);
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

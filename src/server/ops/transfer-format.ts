import { z } from 'zod';

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

export const exportHeader = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  createdAt: z.string(),
  source: z.enum(['pglite', 'postgres']),
  migration: migrationMark,
  tables: z.array(z.string()),
});
export type ExportHeader = z.infer<typeof exportHeader>;

export const tableLine = z.strictObject({
  table: z.string(),
  columns: z.array(z.strictObject({ name: z.string(), type: z.string() })),
});
export type TableLine = z.infer<typeof tableLine>;

export const tableEndLine = z.strictObject({ tableEnd: z.string(), rows: z.int().nonnegative() });
export type TableEndLine = z.infer<typeof tableEndLine>;

export const sequenceLine = z.strictObject({
  sequence: z.string(),
  /** A bigint in its text form. */
  lastValue: z.string().regex(/^-?\d+$/),
  isCalled: z.boolean(),
});
export type SequenceLine = z.infer<typeof sequenceLine>;

export const fileLine = z.strictObject({
  /** Path under DATA_DIR, with forward slashes: uploads/<name>. */
  file: z.string(),
  sha256: z.hash('sha256'),
  // Not z.base64(): a regex over megabytes of image would slow the import, and the checksum
  // already refuses content that is not what was exported.
  data: z.string(),
});
export type FileLine = z.infer<typeof fileLine>;

export const footerLine = z.strictObject({
  end: z.literal(true),
  rows: z.record(z.string(), z.int().nonnegative()),
  files: z.int().nonnegative(),
});
export type FooterLine = z.infer<typeof footerLine>;

export interface TransferSummary {
  file: string;
  rows: Record<string, number>;
  files: number;
  bytes: number;
  migration: string | undefined;
}

/** Rows fetched from the cursor, and inserted, at a time. */
export const BATCH_ROWS = 500;
/** A batch is also flushed past this many characters, so rows with large values stay within memory. */
export const BATCH_CHARS = 8 * 1024 * 1024;
/** Folders of DATA_DIR whose files belong to the shop's data (uploaded images, until they move into the database). */
export const DATA_FOLDERS = ['uploads'];

/** A row's size in characters, near enough to keep a batch within memory. */
export function rowChars(row: unknown[]): number {
  return row.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 4), 0);
}

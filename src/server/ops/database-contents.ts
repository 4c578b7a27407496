import fs from 'node:fs';
import path from 'node:path';
import { migrationsDir } from '../paths.js';
import { quoteIdent, type RawConnection } from './connection.js';
import { OpsError } from './errors.js';

/**
 * What the shop's database holds, read from PostgreSQL's own system catalogue (pg_catalog) rather than from a list in
 * the code, so a table a later migration adds is transferred without anyone touching this file.
 */

export interface Column {
  name: string;
  /** As format_type prints it (`numeric(3,2)`, `timestamp with time zone`): what a text value is cast back to. */
  type: string;
}

export interface TableInfo {
  /** schema.table, each part as stored (unquoted). */
  name: string;
  /** schema.table quoted for SQL. */
  sql: string;
  /** The columns a row is written with: generated columns are left out (the target computes them). */
  columns: Column[];
  /** Primary key columns, in key order; empty when the table has none. */
  primaryKey: string[];
  /** An identity column GENERATED ALWAYS needs OVERRIDING SYSTEM VALUE to take the row's own value. */
  identityAlways: boolean;
}

export interface SequenceInfo {
  name: string;
  sql: string;
}

export interface MigrationMark {
  /** drizzle's created_at: the journal entry's `when`. */
  createdAt: string;
  hash: string;
  /** The migration's file name, e.g. 0003_mail_queue; undefined when this code does not know it. */
  tag: string | undefined;
}

/** Schemas that are not the shop's data: PostgreSQL's own, and drizzle's migrations bookkeeping. */
const SKIPPED_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'drizzle')
  AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'`;

/**
 * Tables whose rows the database derives itself: catalog_stats (made by its migration) and
 * search_words are kept exact by triggers on products, so an import recounts them as the products
 * go in. Copying them too would clash with the rows the triggers write. The catalogue's change feed is the running
 * shops' cache bookkeeping, not shop data: the import itself appends to it.
 */
const DERIVED_TABLES = `(n.nspname, c.relname) NOT IN (('public', 'catalog_stats'), ('public', 'search_words'), ('public', 'catalog_changes'), ('public', 'catalog_change_head'))`;

/**
 * Sequences that are no data of the shop: catalog_version was the catalogue cache's version (before
 * migration 0007), which only ever moved forward. Exports made then carry it; set back by an
 * import, it would bring back a version under which running shops cached answers from before.
 */
export const BOOKKEEPING_SEQUENCES: readonly string[] = ['public.catalog_version'];

/** Not part of an extension (pg_trgm and friends own their objects). */
const NOT_EXTENSION_MEMBER = `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')`;

/** Every table of the shop, ordered so that a table comes after the tables its foreign keys point at. */
export async function listTables(conn: RawConnection): Promise<TableInfo[]> {
  const tables = await conn.query<{ oid: string; schema: string; name: string }>(
    `SELECT c.oid::int8::text AS oid, n.nspname AS schema, c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND ${SKIPPED_SCHEMAS} AND ${NOT_EXTENSION_MEMBER}
        AND ${DERIVED_TABLES}
      ORDER BY n.nspname, c.relname`,
  );
  const columns = await conn.query<{ oid: string; name: string; type: string; generated: boolean; identity: string }>(
    `SELECT a.attrelid::int8::text AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attgenerated <> '' AS generated, a.attidentity::text AS identity
       FROM pg_attribute a
      WHERE a.attnum > 0 AND NOT a.attisdropped AND a.attrelid IN (SELECT json_array_elements_text($1::json)::int8::oid)
      ORDER BY a.attrelid, a.attnum`,
    [JSON.stringify(tables.map((t) => t.oid))],
  );
  const keys = await conn.query<{ oid: string; name: string }>(
    `SELECT i.indrelid::int8::text AS oid, a.attname AS name
       FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::int2[])
      WHERE i.indisprimary AND i.indrelid IN (SELECT json_array_elements_text($1::json)::int8::oid)
      ORDER BY i.indrelid, array_position(i.indkey::int2[], a.attnum)`,
    [JSON.stringify(tables.map((t) => t.oid))],
  );
  const foreignKeys = await conn.query<{ child: string; parent: string }>(
    `SELECT DISTINCT conrelid::int8::text AS child, confrelid::int8::text AS parent
       FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid`,
  );

  const byOid = new Map<string, TableInfo>();
  for (const t of tables) {
    const own = columns.filter((c) => c.oid === t.oid);
    byOid.set(t.oid, {
      name: `${t.schema}.${t.name}`,
      sql: `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`,
      columns: own.filter((c) => !c.generated).map((c) => ({ name: c.name, type: c.type })),
      primaryKey: keys.filter((k) => k.oid === t.oid).map((k) => k.name),
      identityAlways: own.some((c) => c.identity === 'a'),
    });
  }

  // Depth-first topological order over the foreign keys: parents before children.
  const ordered: TableInfo[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (oid: string, trail: string[]) => {
    const table = byOid.get(oid);
    if (!table || state.get(oid) === 'done') return;
    if (state.get(oid) === 'visiting') {
      throw new OpsError(`The foreign keys of ${[...trail, table.name].join(' → ')} form a cycle; no load order satisfies them`);
    }
    state.set(oid, 'visiting');
    for (const fk of foreignKeys) if (fk.child === oid) visit(fk.parent, [...trail, table.name]);
    state.set(oid, 'done');
    ordered.push(table);
  };
  for (const t of tables) visit(t.oid, []);
  return ordered;
}

export async function listSequences(conn: RawConnection): Promise<SequenceInfo[]> {
  const rows = await conn.query<{ schema: string; name: string }>(
    `SELECT n.nspname AS schema, c.relname AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'S' AND ${SKIPPED_SCHEMAS} AND ${NOT_EXTENSION_MEMBER}
      ORDER BY n.nspname, c.relname`,
  );
  return rows
    .map((r) => ({ name: `${r.schema}.${r.name}`, sql: `${quoteIdent(r.schema)}.${quoteIdent(r.name)}` }))
    .filter((sequence) => !BOOKKEEPING_SEQUENCES.includes(sequence.name));
}

interface JournalEntry {
  when: number;
  tag: string;
}

function journal(): JournalEntry[] {
  const file = path.join(migrationsDir, 'meta', '_journal.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: JournalEntry[] }).entries;
}

/** The newest migration this code ships, as drizzle records it once applied. */
export function latestKnownMigration(): string | undefined {
  return journal().at(-1)?.tag;
}

/** The last migration drizzle applied to this database; undefined when it was never migrated. */
export async function lastAppliedMigration(conn: RawConnection): Promise<MigrationMark | undefined> {
  const [exists] = await conn.query<{ present: boolean }>(
    `SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`,
  );
  if (!exists?.present) return undefined;
  const [row] = await conn.query<{ hash: string; created_at: string }>(
    'SELECT hash, created_at::text AS created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1',
  );
  if (!row) return undefined;
  const tag = journal().find((entry) => String(entry.when) === row.created_at)?.tag;
  return { createdAt: row.created_at, hash: row.hash, tag };
}

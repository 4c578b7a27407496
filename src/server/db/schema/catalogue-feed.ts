import { sql } from 'drizzle-orm';
import { bigint, check, pgTable, smallint, text, uuid } from 'drizzle-orm/pg-core';

/**
 * What catalogue writes changed, in commit order, when several instances share PostgreSQL without
 * Redis (src/server/cache/catalogue-feed.ts). A write appends one row after its own transaction
 * commits, numbering it from catalog_change_head in the same statement, so the numbers have no
 * gaps and an instance that has read up to n knows it has seen every change up to n. Only the
 * latest few thousand rows are kept; an instance further behind forgets its whole cache.
 */
export const catalogueChanges = pgTable('catalog_changes', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  /** Product ids, 'listing', 'everything' and 'settings', comma separated. */
  change: text('change').notNull(),
});

/** The last number given to a change, and a token that changes when the feed starts again. */
export const catalogueChangeHead = pgTable(
  'catalog_change_head',
  {
    id: smallint('id').primaryKey().default(1),
    seq: bigint('seq', { mode: 'number' }).notNull().default(0),
    epoch: uuid('epoch').notNull().defaultRandom(),
  },
  (t) => [check('catalog_change_head_single_row', sql`${t.id} = 1`)],
);

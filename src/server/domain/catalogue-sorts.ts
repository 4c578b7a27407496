import { type AnyColumn, and, gte, lte, type SQL, sql } from 'drizzle-orm';
import type { ProductSort } from '../../shared/constants.js';
import { toCents } from '../../shared/money.js';
import { products } from '../db/schema.js';
import { categoryKey, type ListedRow, published } from './catalogue.js';

/** What a storefront list shows (its filters) and in which order (its sort, as an index reads it). */

/** What a page of a list shows, and how many the whole list has. */
export interface ListedPage {
  rows: ListedRow[];
  count: number;
  countCapped: boolean;
}

/** What narrows a storefront list besides its keyword, and its order. */
export interface ListFilters {
  /** A category name, matched without regard to case; '' for every category. */
  category?: string;
  /** Absent: newest first, or best match first for a keyword. */
  sort?: ProductSort;
  /** Price bounds in Ksh, both inclusive. */
  minPrice?: number;
  maxPrice?: number;
}

export interface ListQuery extends ListFilters {
  page: number;
  keyword: string;
}

type Direction = 'asc' | 'desc';
type OrderKey = [AnyColumn, Direction];

/**
 * The order of each sort, as its index (db/schema/catalogue.ts) lists the rows. Every order ends
 * in created_at and id, so it is total and a page is a well-defined slice. Read backwards (`reversed`) it is the
 * same index walked from its other end: a far page of any sort is read from the nearer end.
 * price_desc is price_asc reversed, so one index serves both; equal prices therefore come newest
 * first going up and oldest first going down.
 */
export const NEWEST: OrderKey[] = [
  [products.createdAt, 'desc'],
  [products.id, 'desc'],
];
const CHEAPEST: OrderKey[] = [[products.priceCents, 'asc'], ...NEWEST];
const BEST_RATED: OrderKey[] = [[products.rating, 'desc'], [products.numReviews, 'desc'], ...NEWEST];

export function sortOrder(sort: ProductSort | undefined): { keys: OrderKey[]; reversed: boolean } {
  switch (sort) {
    case 'price_asc':
      return { keys: CHEAPEST, reversed: false };
    case 'price_desc':
      return { keys: CHEAPEST, reversed: true };
    case 'rating':
      return { keys: BEST_RATED, reversed: false };
    default:
      return { keys: NEWEST, reversed: false };
  }
}

/**
 * ORDER BY terms for these keys, as the index has them (NULLS LAST) or walked backwards. `named`
 * writes a column: as the table's by default, or as a subquery's column of the same name.
 */
export function orderTerms(
  keys: readonly OrderKey[],
  reversed: boolean,
  named: (column: AnyColumn) => SQL = (c) => sql`${c}`,
): SQL[] {
  return keys.map(([column, direction]) => {
    const descending = (direction === 'desc') !== reversed;
    return sql`${named(column)} ${sql.raw(descending ? 'DESC' : 'ASC')} NULLS ${sql.raw(reversed ? 'FIRST' : 'LAST')}`;
  });
}

/** What a storefront list may show: published products passing the filters. */
export function shownWhere(filters: ListFilters): { where: SQL; filtered: boolean } {
  const conditions: SQL[] = [published];
  if (filters.category) conditions.push(sql`${categoryKey} = lower(${filters.category})`);
  if (filters.minPrice !== undefined) conditions.push(gte(products.priceCents, toCents(filters.minPrice)));
  if (filters.maxPrice !== undefined) conditions.push(lte(products.priceCents, toCents(filters.maxPrice)));
  return { where: and(...conditions) ?? published, filtered: conditions.length > 1 };
}

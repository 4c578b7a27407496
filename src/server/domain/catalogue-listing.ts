import { type SQL, sql } from 'drizzle-orm';
import { PRODUCTS_PAGE_SIZE } from '../../shared/constants.js';
import type { ProductPage } from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { catalogueStats, products } from '../db/schema.js';
import { listedColumns, toProductJson } from './catalogue.js';
import { type KeywordSpelling, searchPage, spellKeyword } from './catalogue-search.js';
import { type ListedPage, type ListFilters, type ListQuery, orderTerms, shownWhere, sortOrder } from './catalogue-sorts.js';

/**
 * One page of products. Work per page stays small at any catalogue size: a page of a list walks
 * the index of its sort (and category), from the nearer end, and the unfiltered total comes from
 * a counter kept by triggers (catalog_stats) rather than counting the table; a search ranks at
 * most its best candidates (see searchCandidates in catalogue-search.ts) and counts them in the
 * same pass.
 */
export async function listProducts(db: Db, options: ListQuery, spelling?: KeywordSpelling): Promise<ProductPage> {
  const offset = (options.page - 1) * PRODUCTS_PAGE_SIZE;
  const spelt = options.keyword ? (spelling ?? (await spellKeyword(db, options.keyword))) : undefined;
  const { rows, count, countCapped } = spelt
    ? await searchPage(db, options.keyword, spelt, options, offset)
    : await orderedPage(db, options, offset);
  return {
    products: rows.map(toProductJson),
    page: options.page,
    pages: Math.max(1, Math.ceil(count / PRODUCTS_PAGE_SIZE)),
    count,
    countCapped,
    pageSize: PRODUCTS_PAGE_SIZE,
    // What the shopper is shown instead of the keyword as typed.
    ...(spelt && !spelt.literal && count > 0 && { closeTo: spelt.near }),
  };
}

/**
 * The page at `offset` of the list in its sort. The far half of the list is read from its other
 * end, by the same index walked backwards: the last page (8,334 at 100,000 products) then walks 12
 * entries, not 100,000. The count comes first (one row kept by triggers, or a count through the
 * filter's index) to know which end is nearer.
 */
async function orderedPage(db: Db, filters: ListFilters, offset: number): Promise<ListedPage> {
  const { where, filtered } = shownWhere(filters);
  const count = filtered ? await countWhere(db, where) : await publishedCount(db);
  if (offset >= count) return { rows: [], count, countCapped: false };
  const end = Math.min(offset + PRODUCTS_PAGE_SIZE, count);
  const { keys, reversed } = sortOrder(filters.sort);
  if (offset <= count - end) {
    const rows = await db
      .select(listedColumns)
      .from(products)
      .where(where)
      .orderBy(...orderTerms(keys, reversed))
      .limit(PRODUCTS_PAGE_SIZE)
      .offset(offset);
    return { rows, count, countCapped: false };
  }
  const fromOtherEnd = await db
    .select(listedColumns)
    .from(products)
    .where(where)
    .orderBy(...orderTerms(keys, !reversed))
    .limit(end - offset)
    .offset(count - end);
  return { rows: fromOtherEnd.reverse(), count, countCapped: false };
}

async function publishedCount(db: Db): Promise<number> {
  const [stats] = await db.select({ count: catalogueStats.productCount }).from(catalogueStats);
  return stats?.count ?? 0;
}

async function countWhere(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(products).where(where);
  return row?.n ?? 0;
}

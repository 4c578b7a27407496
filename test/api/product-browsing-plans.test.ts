import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { listProducts } from '../../src/server/domain/catalogue-listing.js';
import type { ListQuery } from '../../src/server/domain/catalogue-sorts.js';
import { PRODUCT_SORTS, PRODUCTS_PAGE_SIZE } from '../../src/shared/constants.js';
import { explainStatement, recordingDb } from '../../tools/bench/explain.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * The storefront's sorts and category filter at 100,000 products: every page, near or far, is read
 * off an index in its order (no Sort of the matches, no sequential scan), as docs/catalogue-cache.md
 * promises for the plain listing.
 */

const DATABASE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const PRODUCTS = 100_000;
const CATEGORIES = 40;

let shop: TestShop;

beforeAll(async () => {
  shop = await buildTestApp();
  const { db } = shop.database;
  // Loaded as a bulk load is: the products first, then the migrations' own indexes built over them
  // from their own definitions. Kept up row by row instead (the GIN ones above all), they cost the
  // load about a third more CPU. The plans read the same indexes either way.
  const indexes = await queryRows<{ indexname: string; indexdef: string }>(
    db,
    sql`SELECT indexname, indexdef FROM pg_indexes
         WHERE tablename = 'products' AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
  );
  for (const { indexname } of indexes) await db.execute(sql`DROP INDEX ${sql.identifier(indexname)}`);
  await db.execute(sql`
    INSERT INTO products (name, image, category, description, price_cents, count_in_stock, rating, num_reviews, created_at, updated_at)
    SELECT 'Bulk item ' || g, '/images/hiking-backpack-40l.webp', 'Bulk ' || (g % ${CATEGORIES}), '',
           (g * 7919) % 5000000, g % 50, (g % 11) / 2.0 % 5, g % 13,
           timestamptz '2025-01-01' + g * interval '1 minute', now()
      FROM generate_series(1, ${PRODUCTS}) g`);
  for (const { indexdef } of indexes) await db.execute(sql.raw(indexdef));
  await db.execute(sql`ANALYZE products`);
}, 600_000);
afterAll(() => shop?.stop());

/**
 * A plan without its subplans: each product's review list is read by a subplan per row on the page
 * (sorted by date, on PGlite with a small Sort), which is not the listing's order.
 */
function withoutSubplans(plan: string[]): string[] {
  const kept: string[] = [];
  let subplanIndent: number | undefined;
  for (const line of plan) {
    const indent = line.length - line.trimStart().length;
    if (subplanIndent !== undefined && indent > subplanIndent) continue;
    subplanIndent = /^\s*SubPlan\b/.test(line) ? indent : undefined;
    if (subplanIndent === undefined) kept.push(line);
  }
  return kept;
}

/** The plans of the statements listProducts sends for this query. */
async function plansOf(query: ListQuery): Promise<string[][]> {
  const { db, recorded } = recordingDb(shop.database);
  await listProducts(db, query);
  const plans: string[][] = [];
  for (const statement of [...recorded]) plans.push(await explainStatement(shop.database, statement));
  return plans;
}

describe(`browsing plans at ${PRODUCTS.toLocaleString('en')} products (${DATABASE})`, () => {
  const count = PRODUCTS / CATEGORIES;
  const lastPage = Math.ceil(count / PRODUCTS_PAGE_SIZE);
  const cases: [string, ListQuery][] = [];
  for (const sort of PRODUCT_SORTS) {
    cases.push([`${sort}, page 2`, { page: 2, keyword: '', sort }]);
    cases.push([`${sort}, last page`, { page: Math.ceil(PRODUCTS / PRODUCTS_PAGE_SIZE), keyword: '', sort }]);
    cases.push([`${sort}, a category, page 2`, { page: 2, keyword: '', sort, category: 'bulk 7' }]);
    cases.push([`${sort}, a category, last page`, { page: lastPage, keyword: '', sort, category: 'Bulk 7' }]);
  }
  cases.push(['price_asc within a range', { page: 3, keyword: '', sort: 'price_asc', minPrice: 1000, maxPrice: 20000 }]);
  cases.push([
    'price_desc, a category, within a range',
    { page: 2, keyword: '', sort: 'price_desc', category: 'Bulk 3', minPrice: 500, maxPrice: 40000 },
  ]);

  it.each(cases)('%s: read off an index, no Sort, no sequential scan', async (_name, query) => {
    const plans = await plansOf(query);
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) {
      const text = plan.join('\n');
      const listing = withoutSubplans(plan);
      expect(listing.length).toBeGreaterThan(0);
      expect(
        listing.filter((line) => /\bSort\b/.test(line) && !/Sort Key|Sort Method/.test(line)),
        text,
      ).toEqual([]);
      expect(
        plan.filter((line) => /Seq Scan on products/.test(line)),
        text,
      ).toEqual([]);
    }
  });

  it('a filtered page is its slice of the whole filtered order, the far ones read from the other end', async () => {
    const { db } = recordingDb(shop.database);
    const filters = { keyword: '', sort: 'price_desc' as const, category: 'Bulk 9', minPrice: 0, maxPrice: 30000 };
    const first = await listProducts(db, { page: 1, ...filters });
    const seen: number[] = [];
    for (let page = 1; page <= first.pages; page++) {
      seen.push(...(await listProducts(db, { page, ...filters })).products.map((p) => p.price));
    }
    expect(seen).toHaveLength(first.count);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(seen.every((price) => price <= 30000)).toBe(true);
  });
});

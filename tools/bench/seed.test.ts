import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, queryRows } from '../../src/server/db/client.js';
import { listProducts } from '../../src/server/domain/catalogue-listing.js';
import { emptyPgliteCluster, freshPostgresUrl } from '../../test/support/shop.js';
import { CATEGORIES, seedCatalogue } from './seed.js';

const COUNT = 2_000;

/** The bench catalogue, on PGlite, or on a fresh PostgreSQL database when TEST_DATABASE_URL is set. */
describe(`bench catalogue (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let drop: (() => Promise<void>) | undefined;
  let seconds = 0;

  beforeAll(async () => {
    const postgres = process.env.TEST_DATABASE_URL ? await freshPostgresUrl(process.env.TEST_DATABASE_URL) : undefined;
    drop = postgres?.drop;
    database = await openDatabase({ url: postgres?.url, poolSize: 2, pgliteTemplate: await emptyPgliteCluster() });
    await database.migrate();
    ({ seconds } = await seedCatalogue(database.db, COUNT));
    // The machine is shared: allow for a slow start on a busy one.
  }, 180_000);

  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('seeds the number of products asked, each well formed, with all the indexes back', async () => {
    expect(seconds).toBeGreaterThan(0);
    const [stats] = await queryRows<{ n: number; names: number; categories: number; bad: number; min_price: number }>(
      database.db,
      sql`SELECT count(*)::int AS n, count(DISTINCT name)::int AS names, count(DISTINCT category)::int AS categories,
                 count(*) FILTER (WHERE description = '' OR price_cents <= 0 OR count_in_stock < 0
                                  OR rating < 0 OR rating > 5 OR (num_reviews = 0) <> (rating = 0))::int AS bad,
                 min(price_cents)::int AS min_price
          FROM products`,
    );
    expect(stats).toMatchObject({ n: COUNT, categories: CATEGORIES.length, bad: 0 });
    // Names vary: far more distinct names than categories × brands.
    expect(stats?.names).toBeGreaterThan(COUNT / 2);
    // Shelf prices in whole shillings ending in 0 or 50.
    const [odd] = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM products WHERE price_cents % 5000 <> 0`,
    );
    expect(odd?.n).toBe(0);
    // The migrations' indexes were dropped for the load and built again.
    const indexes = await queryRows<{ indexname: string }>(
      database.db,
      sql`SELECT indexname FROM pg_indexes WHERE tablename = 'products' ORDER BY indexname`,
    );
    expect(indexes.map((i) => i.indexname)).toEqual(
      expect.arrayContaining([
        'products_latest_idx',
        'products_pkey',
        'products_rating_idx',
        'products_search_text_trgm_idx',
        'products_search_vector_idx',
      ]),
    );
    // The word list of close spellings was filled by its trigger, in the load's one statement.
    const [samsung] = await queryRows<{ products: number }>(
      database.db,
      sql`SELECT products FROM search_words WHERE word = 'samsung'`,
    );
    const [holding] = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM products WHERE product_search_words(name, category) @> ARRAY['samsung']`,
    );
    expect(samsung?.products).toBeGreaterThan(0);
    expect(samsung?.products).toBe(holding?.n);
  });

  it('makes keyword search meaningful: a brand finds its products, a typo finds them too', async () => {
    const exact = await listProducts(database.db, { page: 1, keyword: 'samsung' });
    expect(exact.count).toBeGreaterThan(0);
    expect(exact.count).toBeLessThan(COUNT / 5);
    for (const product of exact.products) expect(product.name).toMatch(/^Samsung /);

    const typo = await listProducts(database.db, { page: 1, keyword: 'samsng' });
    expect(typo.count).toBeGreaterThan(0);
    expect(typo.products[0]?.name).toMatch(/^Samsung /);

    const type = await listProducts(database.db, { page: 1, keyword: 'maize flour' });
    expect(type.count).toBeGreaterThan(0);
    for (const product of type.products) {
      expect(product.category).toBe('Groceries');
      expect(product.name).toContain('Maize Flour');
    }

    const nothing = await listProducts(database.db, { page: 1, keyword: 'zzqxv' });
    expect(nothing.count).toBe(0);
  });

  it('lists newest first across the whole catalogue', async () => {
    const first = await listProducts(database.db, { page: 1, keyword: '' });
    expect(first.count).toBe(COUNT);
    const times = first.products.map((p) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

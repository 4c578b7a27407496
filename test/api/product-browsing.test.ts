import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTS_PAGE_SIZE } from '../../src/shared/constants.js';
import type { CategoryCount, Product, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * Browsing the storefront by category, sort and price range (GET /api/products with category,
 * sort, minPrice, maxPrice; GET /api/products/categories), combined with the keyword and the
 * pages, and never stale after an admin's edit.
 */

const DATABASE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
/** A word no seeded product has, so these tests' products are all a search for it finds. */
const TAG = `zq${randomBytes(3).toString('hex')}`;
const KETTLES = `Kettles ${TAG}`;
const MUGS = `Mugs ${TAG}`;
/** More than a page, so the second page exists (and is read from the list's other end). */
const KETTLE_PRICES = [700, 300, 1300, 100, 900, 500, 1100, 1500, 200, 1400, 600, 1000, 800, 400];
const MUG_PRICES = [250, 50, 650];

let shop: TestShop;
let admin: ApiClient;
let guest: ApiClient;
let kettles: Product[];
let mugs: Product[];

/** Every page of a list, concatenated. */
async function allPages(client: ApiClient, query: string): Promise<{ products: Product[]; first: ProductPage }> {
  const first = await client.get<ProductPage>(`/api/products?${query}`);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const products = [...first.body.products];
  for (let page = 2; page <= first.body.pages; page++) {
    const res = await client.get<ProductPage>(`/api/products?${query}&pageNumber=${page}`);
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(page);
    products.push(...res.body.products);
  }
  return { products, first: first.body };
}

const prices = (list: Product[]) => list.map((p) => p.price);
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
const q = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  guest = shop.client();
  kettles = [];
  for (const [i, price] of KETTLE_PRICES.entries()) {
    kettles.push(await createProduct(admin, { name: `Kettle ${TAG} ${i}`, category: KETTLES, price }));
  }
  mugs = [];
  for (const [i, price] of MUG_PRICES.entries()) {
    mugs.push(await createProduct(admin, { name: `Mug ${TAG} ${i}`, category: MUGS, price }));
  }
  // Two reviews give two kettles a rating, for the rating sort.
  const [shopperA, shopperB] = [await shop.shopper('Rater A'), await shop.shopper('Rater B')];
  for (const [client, id, rating] of [
    [shopperA, kettles[3]?._id, 5],
    [shopperB, kettles[3]?._id, 4],
    [shopperA, kettles[7]?._id, 3],
  ] as const) {
    expect((await client.post(`/api/products/${id}/reviews`, { rating, comment: 'Boils fast' })).status).toBe(201);
  }
}, 120_000);
afterAll(() => shop?.stop());

describe(`browsing by category, sort and price (${DATABASE})`, () => {
  it('a category lists exactly its products, newest first, a page at a time, whatever the case of its name', async () => {
    const { products, first } = await allPages(guest, q({ category: KETTLES }));
    expect(first.count).toBe(KETTLE_PRICES.length);
    expect(first.pages).toBe(Math.ceil(KETTLE_PRICES.length / PRODUCTS_PAGE_SIZE));
    expect(first.products).toHaveLength(PRODUCTS_PAGE_SIZE);
    expect(products.map((p) => p._id)).toEqual([...kettles].reverse().map((p) => p._id));
    expect(new Set(products.map((p) => p.category))).toEqual(new Set([KETTLES]));

    const lower = await allPages(guest, q({ category: KETTLES.toUpperCase() }));
    expect(lower.products.map((p) => p._id)).toEqual(products.map((p) => p._id));
    // sort=newest is the listing's own order.
    const newest = await allPages(guest, q({ category: KETTLES, sort: 'newest' }));
    expect(newest.products.map((p) => p._id)).toEqual(products.map((p) => p._id));

    const none = await guest.get<ProductPage>(`/api/products?${q({ category: `Nothing ${TAG}` })}`);
    expect(none.body).toMatchObject({ products: [], count: 0, page: 1, pages: 1 });
  });

  it('sorts by price both ways and by rating, across pages, with nothing lost or repeated', async () => {
    const cheap = await allPages(guest, q({ category: KETTLES, sort: 'price_asc' }));
    expect(prices(cheap.products)).toEqual(ascending(KETTLE_PRICES));
    const dear = await allPages(guest, q({ category: KETTLES, sort: 'price_desc' }));
    expect(prices(dear.products)).toEqual(ascending(KETTLE_PRICES).reverse());

    const rated = await allPages(guest, q({ category: KETTLES, sort: 'rating' }));
    expect(rated.products.slice(0, 2).map((p) => [p._id, p.rating])).toEqual([
      [kettles[3]?._id, 4.5],
      [kettles[7]?._id, 3],
    ]);
    expect(new Set(rated.products.map((p) => p._id)).size).toBe(KETTLE_PRICES.length);

    // The whole catalogue by price: every page a slice of one order, the far ones read from the other end.
    const whole = await allPages(guest, q({ sort: 'price_asc' }));
    expect(whole.products).toHaveLength(whole.first.count);
    expect(prices(whole.products)).toEqual(ascending(prices(whole.products)));
    expect(new Set(whole.products.map((p) => p._id)).size).toBe(whole.first.count);
    const wholeDesc = await allPages(guest, q({ sort: 'price_desc' }));
    expect(wholeDesc.products.map((p) => p._id)).toEqual([...whole.products].reverse().map((p) => p._id));
    const wholeRated = await allPages(guest, q({ sort: 'rating' }));
    const ratings = wholeRated.products.map((p) => p.rating);
    expect(ratings).toEqual([...ratings].sort((a, b) => b - a));
  });

  it('keeps prices within minPrice and maxPrice, bounds included, given in Ksh', async () => {
    const between = await allPages(guest, q({ category: KETTLES, minPrice: 300, maxPrice: 700, sort: 'price_asc' }));
    expect(prices(between.products)).toEqual([300, 400, 500, 600, 700]);
    expect(between.first.count).toBe(5);
    const from = await allPages(guest, q({ category: KETTLES, minPrice: 1250.5 }));
    expect(ascending(prices(from.products))).toEqual([1300, 1400, 1500]);
    const upTo = await allPages(guest, q({ category: MUGS, maxPrice: 250 }));
    expect(ascending(prices(upTo.products))).toEqual([50, 250]);
    // Without a category, across the whole catalogue.
    const cheapest = await allPages(guest, q({ maxPrice: 99 }));
    expect(cheapest.products.every((p) => p.price <= 99)).toBe(true);
    expect(cheapest.products.map((p) => p._id)).toContain(mugs[1]?._id);
    // Empty bounds are no bounds, as a form sends them.
    const blank = await guest.get<ProductPage>(`/api/products?${q({ category: MUGS, minPrice: '', maxPrice: '', sort: '' })}`);
    expect(blank.body.count).toBe(MUG_PRICES.length);
  });

  it('combines with the keyword search and its pages', async () => {
    const found = await allPages(guest, q({ keyword: TAG }));
    expect(found.first.count).toBe(KETTLE_PRICES.length + MUG_PRICES.length);

    const kettlesFound = await allPages(guest, q({ keyword: TAG, category: KETTLES, sort: 'price_asc' }));
    expect(kettlesFound.first.count).toBe(KETTLE_PRICES.length);
    expect(kettlesFound.first.pages).toBe(2);
    expect(prices(kettlesFound.products)).toEqual(ascending(KETTLE_PRICES));

    const page2 = await guest.get<ProductPage>(`/api/products?${q({ keyword: TAG, sort: 'price_desc', pageNumber: 2 })}`);
    const everyPrice = ascending([...KETTLE_PRICES, ...MUG_PRICES]).reverse();
    expect(prices(page2.body.products)).toEqual(everyPrice.slice(PRODUCTS_PAGE_SIZE));

    const ranged = await allPages(guest, q({ keyword: 'mug', category: MUGS, minPrice: 100, sort: 'price_desc' }));
    expect(prices(ranged.products)).toEqual([650, 250]);
    const newest = await allPages(guest, q({ keyword: TAG, category: MUGS, sort: 'newest' }));
    expect(newest.products.map((p) => p._id)).toEqual([...mugs].reverse().map((p) => p._id));
  });

  it('refuses bad values with a 400 saying what is wrong', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ sort: 'cheapest' }, 'sort must be one of newest, price_asc, price_desc, rating'],
      [{ sort: 'PRICE_ASC' }, 'sort must be one of'],
      [{ minPrice: '-1' }, 'minPrice cannot be negative'],
      [{ maxPrice: '-0.5' }, 'maxPrice cannot be negative'],
      [{ minPrice: 'abc' }, 'minPrice must be a number'],
      [{ maxPrice: '1e3' }, 'maxPrice must be a number'],
      [{ minPrice: '500', maxPrice: '100' }, 'minPrice cannot be more than maxPrice'],
      [{ category: 'x'.repeat(101) }, 'category must be at most 100 characters'],
    ];
    for (const [params, msg] of cases) {
      expectClientError(await guest.get(`/api/products?${q(params)}`), 400, msg);
    }
    // The bounds may be equal.
    const exact = await guest.get<ProductPage>(`/api/products?${q({ category: MUGS, minPrice: 650, maxPrice: 650 })}`);
    expect(prices(exact.body.products)).toEqual([650]);
  });

  it('lists every category with its count, by name; drafts are not counted; not taken for a product id', async () => {
    const draft = await admin.post<Product>('/api/products');
    expect(draft.status).toBe(201);
    const res = await guest.get<CategoryCount[]>('/api/products/categories');
    expect(res.status).toBe(200);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await guest.request('GET', '/api/products/categories', { headers: { 'if-none-match': etag ?? '' } })).status).toBe(
      304,
    );
    const categories = res.body;
    expect(categories).toContainEqual({ name: KETTLES, count: KETTLE_PRICES.length });
    expect(categories).toContainEqual({ name: MUGS, count: MUG_PRICES.length });
    expect(categories.map((c) => c.name)).not.toContain('Sample category');
    const names = categories.map((c) => c.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const listed = await guest.get<ProductPage>('/api/products');
    expect(categories.reduce((sum, c) => sum + c.count, 0)).toBe(listed.body.count);
    for (const category of categories.slice(0, 5)) {
      const page = await guest.get<ProductPage>(`/api/products?${q({ category: category.name })}`);
      expect(page.body.count, category.name).toBe(category.count);
    }
    // The product route still answers for ids only.
    expect((await guest.get('/api/products/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expectClientError(await guest.get('/api/products/categoriez'), 400, 'Not a valid id');
  });

  it('an admin’s change of category or price shows in the filtered lists and the counts on the next request', async () => {
    const moved = kettles[0];
    if (!moved) throw new Error('no kettle');
    const kettleCount = () => guest.get<ProductPage>(`/api/products?${q({ category: KETTLES })}`);
    const mugList = () => allPages(guest, q({ category: MUGS, sort: 'price_asc' }));
    const counts = async () => {
      const list = (await guest.get<CategoryCount[]>('/api/products/categories')).body;
      return [list.find((c) => c.name === KETTLES)?.count, list.find((c) => c.name === MUGS)?.count];
    };
    // Warm every answer, then change the product.
    expect((await kettleCount()).body.count).toBe(KETTLE_PRICES.length);
    expect(prices((await mugList()).products)).toEqual([50, 250, 650]);
    expect(await counts()).toEqual([KETTLE_PRICES.length, MUG_PRICES.length]);

    expect((await admin.put(`/api/products/${moved._id}`, { category: MUGS })).status).toBe(200);
    expect((await kettleCount()).body.count).toBe(KETTLE_PRICES.length - 1);
    expect(prices((await mugList()).products)).toEqual([50, 250, 650, 700]);
    expect(await counts()).toEqual([KETTLE_PRICES.length - 1, MUG_PRICES.length + 1]);

    const inRange = () => allPages(guest, q({ category: MUGS, minPrice: 600, maxPrice: 1000 }));
    expect(ascending(prices((await inRange()).products))).toEqual([650, 700]);
    expect((await admin.put(`/api/products/${moved._id}`, { price: 10 })).status).toBe(200);
    expect(ascending(prices((await inRange()).products))).toEqual([650]);
    expect(prices((await mugList()).products)).toEqual([10, 50, 250, 650]);

    // Back as it was, for the other tests.
    expect((await admin.put(`/api/products/${moved._id}`, { category: KETTLES, price: 700 })).status).toBe(200);
    expect(await counts()).toEqual([KETTLE_PRICES.length, MUG_PRICES.length]);
  });
});

// Two instances need a database they can share: PostgreSQL.
describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
  describe('two instances sharing PostgreSQL', () => {
    let second: TestShop;
    beforeAll(async () => {
      second = await buildTestApp({ DATABASE_URL: shop.config.databaseUrl ?? '' });
    });
    afterAll(() => second?.stop());

    it('a category or price edit through one is seen in the other’s filtered lists and counts at once', async () => {
      const elsewhere = second.client();
      const product = mugs[2];
      if (!product) throw new Error('no mug');
      const mugIds = async () => (await allPages(elsewhere, q({ category: MUGS, maxPrice: 1000 }))).products.map((p) => p._id);
      const mugCount = async () =>
        (await elsewhere.get<CategoryCount[]>('/api/products/categories')).body.find((c) => c.name === MUGS)?.count;
      for (let round = 0; round < 3; round++) {
        expect(await mugIds()).toContain(product._id);
        expect(await mugCount()).toBe(MUG_PRICES.length);
        expect((await admin.put(`/api/products/${product._id}`, { category: KETTLES })).status).toBe(200);
        expect(await mugIds()).not.toContain(product._id);
        expect(await mugCount()).toBe(MUG_PRICES.length - 1);
        expect((await admin.put(`/api/products/${product._id}`, { category: MUGS, price: 5000 })).status).toBe(200);
        expect(await mugIds()).not.toContain(product._id);
        expect(await mugCount()).toBe(MUG_PRICES.length);
        expect((await admin.put(`/api/products/${product._id}`, { price: 650 })).status).toBe(200);
      }
    });
  });
});

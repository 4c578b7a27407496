import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import type { AdminProduct, AdminProductPage, Product, ProductDetail, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder, search } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * A created product is a draft until the admin gives it a real name, price and image: the
 * storefront never shows, searches, counts or sells it, and only admins can read it.
 */
let shop: TestShop;
let admin: ApiClient;
let shopper: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  shopper = await shop.shopper();
});
afterAll(() => shop?.stop());

async function listing(client: ApiClient = shop.client()): Promise<ProductPage> {
  const res = await client.get<ProductPage>('/api/products');
  expect(res.status).toBe(200);
  return res.body;
}

async function top(): Promise<Product[]> {
  const res = await shop.client().get<Product[]>('/api/products/top');
  expect(res.status).toBe(200);
  return res.body;
}

async function createDraft(): Promise<AdminProduct> {
  const res = await admin.post<AdminProduct>('/api/products');
  expect(res.status).toBe(201);
  return res.body;
}

/** Sets stock and a top rating straight in the database, then reports the change as a write would. */
async function makeSellableAndTopRated(id: string): Promise<void> {
  await queryRows(shop.database.db, sql`UPDATE products SET count_in_stock = 50, rating = 5, num_reviews = 999 WHERE id = ${id}`);
  await shop.catalogueChanges.committed({ products: [id], listing: true });
}

describe('a created product is a draft', () => {
  it('answers the product, marked as a draft, to the admin', async () => {
    const draft = await createDraft();
    expect(draft).toMatchObject({ name: 'Sample name', price: 0, isDraft: true, reviews: [] });
    const read = await admin.get<ProductDetail & { isDraft: boolean }>(`/api/products/${draft._id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ _id: draft._id, isDraft: true });
    expect(read.headers.get('cache-control')).toBe('no-store');
  });

  it('is not in the listing, its count, search or the top products, even at the top of every order', async () => {
    const before = await listing();
    const topBefore = await top();
    const draft = await createDraft();
    await makeSellableAndTopRated(draft._id);
    const after = await listing();
    expect(after.count).toBe(before.count);
    expect(after.pages).toBe(before.pages);
    expect(after.products.map((p) => p._id)).toEqual(before.products.map((p) => p._id));
    expect((await search(shop.client(), 'sample name')).products.map((p) => p._id)).not.toContain(draft._id);
    expect((await search(shop.client(), 'Sample')).count).toBe((await search(shop.client(), 'Sample')).products.length);
    expect((await top()).map((p) => p._id)).toEqual(topBefore.map((p) => p._id));
    // Every page of the listing, to the end.
    for (let page = 1; page <= after.pages; page++) {
      const res = await shop.client().get<ProductPage>(`/api/products?pageNumber=${page}`);
      expect(res.body.products.map((p) => p._id)).not.toContain(draft._id);
    }
  });

  it('answers 404 to guests and shoppers, and cannot be reviewed or ordered', async () => {
    const draft = await createDraft();
    await makeSellableAndTopRated(draft._id);
    expectClientError(await shop.client().get(`/api/products/${draft._id}`), 404, 'Product not found');
    expectClientError(await shopper.get(`/api/products/${draft._id}`), 404, 'Product not found');
    expectClientError(
      await shopper.post(`/api/products/${draft._id}/reviews`, { rating: 5, comment: 'Great' }),
      404,
      'Product not found',
    );
    expectClientError(await placeOrder(shopper, [{ _id: draft._id, qty: 1 }]), 400, 'no longer available');
    // Nothing was taken or written.
    const [row] = await queryRows<{ stock: number; reviews: number }>(
      shop.database.db,
      sql`SELECT count_in_stock AS stock, (SELECT count(*)::int FROM reviews WHERE product_id = ${draft._id}) AS reviews
            FROM products WHERE id = ${draft._id}`,
    );
    expect(row).toEqual({ stock: 50, reviews: 0 });
    // A draft beside a published product fails the whole order.
    const published = await createProduct(admin, { countInStock: 3 });
    expectClientError(
      await placeOrder(shopper, [
        { _id: published._id, qty: 1 },
        { _id: draft._id, qty: 1 },
      ]),
      400,
    );
    expect((await shop.client().get<Product>(`/api/products/${published._id}`)).body.countInStock).toBe(3);
  });

  it('is listed, marked, in the admin product list, for admins only', async () => {
    const draft = await createDraft();
    const page = await admin.get<AdminProductPage>('/api/admin/products');
    expect(page.status).toBe(200);
    expect(page.body.products[0]).toMatchObject({ _id: draft._id, isDraft: true });
    const found = await admin.get<AdminProductPage>('/api/admin/products?keyword=sample%20name');
    expect(found.body.products.map((p) => p._id)).toContain(draft._id);
    expect(found.body.products.every((p) => p.isDraft)).toBe(true);
    expectClientError(await shopper.get('/api/admin/products'), 403);
    expectClientError(await shop.client().get('/api/admin/products'), 401);
    expectClientError(await admin.get('/api/admin/products?pageNumber=0'), 400);
  });
});

describe('publishing a draft', () => {
  it('takes a real name, price and image; sample values keep it a draft', async () => {
    const draft = await createDraft();
    const named = await admin.put<AdminProduct>(`/api/products/${draft._id}`, { name: 'Jiko Koa', countInStock: 4 });
    expect(named.body.isDraft).toBe(true);
    const priced = await admin.put<AdminProduct>(`/api/products/${draft._id}`, { price: 2500 });
    expect(priced.body.isDraft).toBe(true);
    const sampleImage = await admin.put<AdminProduct>(`/api/products/${draft._id}`, { image: '/images/sample.webp' });
    expect(sampleImage.body.isDraft).toBe(true);
    const free = await admin.put<AdminProduct>(`/api/products/${draft._id}`, {
      image: '/images/hiking-backpack-40l.webp',
      price: 0,
    });
    expect(free.body.isDraft).toBe(true);
    expectClientError(await shop.client().get(`/api/products/${draft._id}`), 404);

    // Cached public answers from before the publish: they must not outlive it.
    const before = await listing();
    expect((await search(shop.client(), 'jiko koa')).products.map((p) => p._id)).not.toContain(draft._id);

    const published = await admin.put<AdminProduct>(`/api/products/${draft._id}`, { price: 2500 });
    expect(published.body).toMatchObject({ isDraft: false, name: 'Jiko Koa', price: 2500 });
    const after = await listing();
    expect(after.count).toBe(before.count + 1);
    expect(after.products[0]?._id).toBe(draft._id);
    expect((await search(shop.client(), 'jiko koa')).products.map((p) => p._id)).toContain(draft._id);
    expect((await shop.client().get<Product>(`/api/products/${draft._id}`)).status).toBe(200);
    const order = await placeOrder(shopper, [{ _id: draft._id, qty: 1 }]);
    expect(order.status).toBe(201);

    // A published product never goes back, even given the sample name again.
    const renamed = await admin.put<AdminProduct>(`/api/products/${draft._id}`, { name: 'Sample name' });
    expect(renamed.body.isDraft).toBe(false);
  });

  it('counts deletes of published products only', async () => {
    const before = (await listing()).count;
    const draft = await createDraft();
    expect((await admin.delete(`/api/products/${draft._id}`)).status).toBe(200);
    expect((await listing()).count).toBe(before);
    const published = await createProduct(admin);
    expect((await listing()).count).toBe(before + 1);
    expect((await admin.delete(`/api/products/${published._id}`)).status).toBe(200);
    expect((await listing()).count).toBe(before);
    const [stats] = await queryRows<{ counted: number; real: number }>(
      shop.database.db,
      sql`SELECT (SELECT product_count FROM catalog_stats) AS counted, (SELECT count(*)::int FROM products WHERE NOT is_draft) AS real`,
    );
    expect(stats?.counted).toBe(stats?.real);
  });
});

describe('GET /api/products to a signed-in admin (a client whose only product list it is)', () => {
  type Listed = Product & { isDraft?: boolean };
  const page = async (client: ApiClient, query = '') => {
    const res = await client.get<{ products: Listed[]; count: number; pages: number }>(`/api/products${query}`);
    expect(res.status).toBe(200);
    return res;
  };

  it('puts the drafts, marked and newest first, on top of its first page, for that admin alone', async () => {
    const older = await createDraft();
    const newer = await createDraft();
    const publicPage = await listing();

    const answer = await page(admin, '?pageNumber=1&keyword=');
    const drafts = answer.body.products.filter((p) => p.isDraft);
    expect(drafts.map((p) => p._id).slice(0, 2)).toEqual([newer._id, older._id]);
    // The drafts come first, then the storefront's page as everyone gets it; the count is the storefront's.
    expect(answer.body.products.slice(0, drafts.length).every((p) => p.isDraft === true)).toBe(true);
    expect(answer.body.products.slice(drafts.length)).toEqual(publicPage.products);
    expect(answer.body.count).toBe(publicPage.count);
    // It follows the session: no browser or shared cache keeps it, and no validator is offered.
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('etag')).toBeNull();

    // Guests and shoppers get the public answer, still cacheable, and never a draft.
    for (const client of [shop.client(), shopper]) {
      const other = await page(client, '?pageNumber=1&keyword=');
      expect(other.body.products.map((p) => p._id)).not.toContain(newer._id);
      expect(other.body.products.some((p) => 'isDraft' in p)).toBe(false);
      expect(other.headers.get('cache-control')).toBe('no-cache');
      expect(other.headers.get('etag')).toMatch(/^"/);
    }
  });

  it("gives a shopper who forges the admin's hint cookie the public answer", async () => {
    const draft = await createDraft();
    expect(admin.cookies.get('duka_admin')).toBe('1');
    expect(shopper.cookies.has('duka_admin')).toBe(false);
    shopper.cookies.set('duka_admin', '1');
    try {
      const answer = await page(shopper, '?pageNumber=1');
      expect(answer.body.products.map((p) => p._id)).not.toContain(draft._id);
      expect(answer.headers.get('cache-control')).toBe('no-cache');
    } finally {
      shopper.cookies.delete('duka_admin');
    }
  });

  it('keeps the drafts off a later page, a search, a category and a price range', async () => {
    const draft = await createDraft();
    await Promise.all(
      Array.from({ length: 13 }, (_, i) => createProduct(admin, { name: `Drafts paging ${i}`, category: 'Paging' })),
    );
    for (const query of ['?pageNumber=2', '?keyword=sample', '?category=Paging', '?minPrice=1']) {
      const answer = await page(admin, query);
      expect(
        answer.body.products.map((p) => p._id),
        query,
      ).not.toContain(draft._id);
      expect(answer.headers.get('etag'), query).toMatch(/^"/);
    }
  });

  it('lists a published draft like any product, unmarked', async () => {
    const draft = await createDraft();
    const published = await admin.put<AdminProduct>(`/api/products/${draft._id}`, {
      name: 'Sufuria Published',
      price: 900,
      image: '/images/hiking-backpack-40l.webp',
    });
    expect(published.body.isDraft).toBe(false);
    const answer = await page(admin);
    const listed = answer.body.products.filter((p) => p._id === draft._id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('isDraft');
  });
});

import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product, ProductDetail, ProductPage } from '../../src/shared/schemas/products.js';
import { startChildShop } from '../security/web-helpers.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';

const DATABASE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What a shopper sees of one product right now: detail, its search hit, and the newest-first page. */
async function seenEverywhere(client: ApiClient, product: Product) {
  const detail = await client.get<ProductDetail>(`/api/products/${product._id}`);
  const found = await client.get<ProductPage>(`/api/products?keyword=${encodeURIComponent(product.name)}`);
  const latest = await client.get<ProductPage>('/api/products');
  const hit = found.body.products.find((p) => p._id === product._id);
  const listed = latest.body.products.find((p) => p._id === product._id);
  return {
    detail: { price: detail.body.price, stock: detail.body.countInStock, reviews: detail.body.numReviews },
    search: hit && { price: hit.price, stock: hit.countInStock, reviews: hit.reviews },
    latest: listed && { price: listed.price, stock: listed.countInStock, reviews: listed.reviews },
    count: latest.body.count,
  };
}

describe(`catalogue answers are cached but never stale (${DATABASE})`, () => {
  let shop: TestShop;
  let admin: ApiClient;

  beforeAll(async () => {
    shop = await startTestShop();
    admin = await shop.admin();
  });
  afterAll(() => shop?.stop());

  it('answers with an ETag and no-cache, and a 304 while the answer is unchanged', async () => {
    const client = shop.client();
    for (const path of ['/api/products', '/api/products/top', '/api/products?keyword=samsung']) {
      const first = await client.get(path);
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-cache');
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await client.request('GET', path, { headers: { 'if-none-match': etag ?? '' } });
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
    }
  });

  it('a price or stock edit shows in the detail, the search and the listing on the very next request', async () => {
    const product = await createProduct(admin, { name: `Cache probe ${randomBytes(3).toString('hex')}` });
    const client = shop.client();
    const etag = (await client.get(`/api/products/${product._id}`)).headers.get('etag') ?? '';
    for (let round = 1; round <= 15; round += 1) {
      const price = 1000 + round;
      expect((await admin.put(`/api/products/${product._id}`, { price, countInStock: round })).status).toBe(200);
      const seen = await seenEverywhere(client, product);
      expect(seen.detail).toMatchObject({ price, stock: round });
      expect(seen.search).toEqual({ price, stock: round, reviews: [] });
      expect(seen.latest).toEqual({ price, stock: round, reviews: [] });
    }
    // The browser's copy is out of date now: it gets the new answer, not a 304.
    const revalidated = await client.request<Product>('GET', `/api/products/${product._id}`, {
      headers: { 'if-none-match': etag },
    });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body.price).toBe(1015);
  });

  it('an order takes stock from the cached answers at once, and deleting it gives the stock back', async () => {
    const product = await createProduct(admin, { name: `Stock probe ${randomBytes(3).toString('hex')}`, countInStock: 5 });
    const shopper = await shop.shopper();
    expect((await seenEverywhere(shopper, product)).detail.stock).toBe(5);
    const order = await placeOrder(shopper, [{ _id: product._id, qty: 2 }]);
    expect(order.status).toBe(201);
    expect(await seenEverywhere(shopper, product)).toMatchObject({
      detail: { stock: 3 },
      search: { stock: 3 },
      latest: { stock: 3 },
    });
    expect((await admin.delete(`/api/orders/${order.body._id}`)).status).toBe(200);
    expect((await seenEverywhere(shopper, product)).detail.stock).toBe(5);
  });

  it('a review shows in the product answer, the search and the listing at once, and leaves them with its deletion', async () => {
    const product = await createProduct(admin, { name: `Review probe ${randomBytes(3).toString('hex')}` });
    const shopper = await shop.shopper('Review Prober');
    expect(await seenEverywhere(shopper, product)).toMatchObject({
      detail: { reviews: 0 },
      search: { reviews: [] },
      latest: { reviews: [] },
    });
    expect((await shopper.post(`/api/products/${product._id}/reviews`, { rating: 4, comment: 'Good' })).status).toBe(201);
    const detail = await shopper.get<ProductDetail>(`/api/products/${product._id}`);
    expect(detail.body).toMatchObject({ numReviews: 1, rating: 4 });
    expect(detail.body.reviews.map((r) => r.comment)).toEqual(['Good']);
    const listed = [{ _id: detail.body.reviews[0]!._id, name: 'Review Prober', rating: 4 }];
    expect(await seenEverywhere(shopper, product)).toMatchObject({ search: { reviews: listed }, latest: { reviews: listed } });
    expect((await shopper.delete(`/api/products/${product._id}/${listed[0]!._id}`)).status).toBe(200);
    expect(await seenEverywhere(shopper, product)).toMatchObject({
      detail: { reviews: 0 },
      search: { reviews: [] },
      latest: { reviews: [] },
    });
  });

  it('the product count follows creates and deletes exactly, also for a page past the last match', async () => {
    const client = shop.client();
    const before = (await client.get<ProductPage>('/api/products')).body.count;
    const made = await createProduct(admin, { name: `Count probe ${randomBytes(3).toString('hex')}` });
    expect((await client.get<ProductPage>('/api/products')).body.count).toBe(before + 1);
    expect((await admin.delete(`/api/products/${made._id}`)).status).toBe(200);
    const after = await client.get<ProductPage>('/api/products');
    expect(after.body.count).toBe(before);
    expect(after.body.pages).toBe(Math.ceil(before / after.body.pageSize));
    expect((await client.get(`/api/products/${made._id}`)).status).toBe(404);

    const matches = await client.get<ProductPage>('/api/products?keyword=samsung');
    expect(matches.body.count).toBeGreaterThan(0);
    const beyond = await client.get<ProductPage>('/api/products?keyword=samsung&pageNumber=50');
    expect(beyond.body.products).toEqual([]);
    expect(beyond.body).toMatchObject({ count: matches.body.count, pages: matches.body.pages });
  });
});

describe(`cached answers in the real server's log (${DATABASE})`, () => {
  it('serving, revalidating and invalidating cached answers logs no warning or error', async () => {
    const shop = await startChildShop({ LOG_LEVEL: 'info', ADMIN_PASSWORD });
    try {
      const client = shop.client();
      const admin = shop.client();
      await admin.signIn('admin@example.com', ADMIN_PASSWORD);
      const product = (await client.get<Product[]>('/api/products/top')).body[0];
      if (!product) throw new Error('no products');
      for (const path of ['/api/products', '/api/products/top', `/api/products/${product._id}`, '/api/products?keyword=tv']) {
        const first = await client.get(path);
        await client.get(path);
        await client.request('GET', path, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
      }
      expect((await admin.put(`/api/products/${product._id}`, { price: 999 })).status).toBe(200);
      expect((await client.get<Product>(`/api/products/${product._id}`)).body.price).toBe(999);
      await shop.stop();
      const problems = shop.logLines().filter((line) => /"level":(4|5|6)0/.test(line));
      expect(problems).toEqual([]);
    } finally {
      await shop.stop();
      await shop.cleanup();
    }
  }, 120_000);
});

// Several instances need a database they can share: PostgreSQL.
if (process.env.TEST_DATABASE_URL) {
  describe.each([
    ['sharing only PostgreSQL', false],
    ['sharing PostgreSQL and Redis', true],
  ])('two instances %s', (_title, withRedis) => {
    const prefix = `duka-test:${randomBytes(6).toString('hex')}:`;
    let first: TestShop;
    let second: TestShop;
    let admin: ApiClient;

    beforeAll(async () => {
      const redisEnv: Record<string, string> = withRedis ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {};
      first = await startTestShop({ ...redisEnv, RATE_LIMIT_LOGIN_MAX: '4' });
      second = await startTestShop({ ...redisEnv, RATE_LIMIT_LOGIN_MAX: '4', DATABASE_URL: first.config.databaseUrl ?? '' });
      // The one sign-in of the limit's four that the rest of this block uses.
      admin = await first.admin();
    });
    afterAll(async () => {
      await second?.stop();
      await first?.stop();
    });

    it('sign-in attempts are counted across both instances', async () => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) {
        const shop = attempt % 2 === 0 ? first : second;
        const res = await shop.client().post('/api/users/auth', { email: 'nobody@example.com', password: 'wrong-password' });
        statuses.push(res.status);
      }
      // Four allowed in all: the admin's sign-in, then three here, whichever instance took them.
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
      if (withRedis) {
        // The counters are in Redis under this shop's prefix, not in the database.
        const redis = new Redis(REDIS_URL);
        try {
          expect((await redis.keys(`${prefix}rl:*`)).length).toBeGreaterThan(0);
        } finally {
          redis.disconnect();
        }
      }
    });
    it('an edit made through one is seen through the other on the very next request', async () => {
      const product = await createProduct(admin, { name: `Shared probe ${randomBytes(3).toString('hex')}` });
      const elsewhere = second.client();
      for (let round = 1; round <= 20; round += 1) {
        // Warm the other instance's cache with the current answers, then change them here.
        await seenEverywhere(elsewhere, product);
        const price = 2000 + round;
        expect((await admin.put(`/api/products/${product._id}`, { price, countInStock: round })).status).toBe(200);
        const seen = await seenEverywhere(elsewhere, product);
        expect(seen.detail).toMatchObject({ price, stock: round });
        expect(seen.search).toEqual({ price, stock: round, reviews: [] });
        expect(seen.latest).toEqual({ price, stock: round, reviews: [] });
      }
      const top = (await elsewhere.get<Product[]>('/api/products/top')).body[0];
      if (!top) throw new Error('no top products');
      expect((await admin.put(`/api/products/${top._id}`, { price: 4321 })).status).toBe(200);
      expect((await elsewhere.get<Product[]>('/api/products/top')).body[0]).toMatchObject({ _id: top._id, price: 4321 });
    });
  });
}

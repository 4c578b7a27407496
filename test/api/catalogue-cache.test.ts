import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_STATEMENT_TIMEOUT_MS, queryRows } from '../../src/server/db/client.js';
import { updateProduct } from '../../src/server/domain/admin-catalogue.js';
import { dbQueries } from '../../src/server/metrics.js';
import { exportShop } from '../../src/server/ops/transfer.js';
import { projectRoot } from '../../src/server/paths.js';
import type { Product, ProductDetail, ProductPage } from '../../src/shared/schemas/products.js';
import { startChildShop } from '../security/web-helpers.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { typescriptProcess } from '../support/node-process.js';
import { ADMIN_PASSWORD, buildTestApp, type TestShop } from '../support/shop.js';

const run = promisify(execFile);
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
    shop = await buildTestApp();
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

  it('an order costs readers one primary-key read of what it took: pages and searches stay cached', async () => {
    const name = `Keep probe ${randomBytes(3).toString('hex')}`;
    const product = await createProduct(admin, { name, countInStock: 50 });
    const shopper = await shop.shopper();
    const paths = ['/api/products', `/api/products?keyword=${encodeURIComponent(name)}`];
    const statements = async (path: string) => {
      const before = (await dbQueries.get()).values[0]?.value ?? 0;
      const res = await shopper.get<ProductPage>(path);
      const after = (await dbQueries.get()).values[0]?.value ?? 0;
      return { count: after - before, stock: res.body.products.find((p) => p._id === product._id)?.countInStock };
    };
    for (const path of paths) await shopper.get(path);
    // Background work (mail, M-Pesa) may query too, never less: the fewest of a few tries is the read's own.
    const fewest = new Map<string, number>();
    for (let round = 1; round <= 3; round += 1) {
      expect((await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).status).toBe(201);
      for (const path of paths) {
        const { count, stock } = await statements(path);
        expect(stock).toBe(50 - round);
        fewest.set(path, Math.min(fewest.get(path) ?? Number.POSITIVE_INFINITY, count));
        // The next request is a pure hit.
        expect((await statements(path)).stock).toBe(50 - round);
      }
    }
    // The first of the two re-reads the product; the second finds it re-read already.
    expect(Object.fromEntries(fewest)).toEqual({ [paths[0] ?? '']: 1, [paths[1] ?? '']: 0 });
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

  it('refused and failed writes leave the catalogue version as it was; a committed one changes it', async () => {
    const product = await createProduct(admin, { name: `Refusal probe ${randomBytes(3).toString('hex')}`, countInStock: 2 });
    const shopper = await shop.shopper();
    expect((await shopper.post(`/api/products/${product._id}/reviews`, { rating: 5, comment: 'Mine' })).status).toBe(201);
    const signedOut = await shop.shopper();
    expect((await signedOut.post('/api/users/logout')).status).toBe(200);
    const other = await shop.shopper();
    const review = (await shopper.get<ProductDetail>(`/api/products/${product._id}`)).body.reviews[0];
    if (!review) throw new Error('the review is missing');
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const line = [{ _id: product._id, qty: 1 }];
    const versions = async () => {
      const state = await shop.catalogueVersion.current();
      return { listing: state.listing, product: state.product(product._id), other: state.product(unknownId) };
    };
    const before = await versions();

    const anonymous = shop.client();
    const attempts: [string, Promise<{ status: number }>, number][] = [
      // No cookie at all, so no XSRF token: refused before anything runs.
      ['order without a cookie', anonymous.request('POST', '/api/orders', { json: {}, xsrf: false }), 403],
      ['review without a cookie', anonymous.request('POST', `/api/products/${product._id}/reviews`, { xsrf: false }), 403],
      ['product edit without a cookie', anonymous.request('PUT', `/api/products/${product._id}`, { xsrf: false }), 403],
      // With the XSRF cookie but no session.
      ['anonymous order', placeOrder(anonymous, line), 401],
      ['anonymous review', anonymous.post(`/api/products/${product._id}/reviews`, { rating: 1, comment: 'x' }), 401],
      ['signed-out order', placeOrder(signedOut, line), 401],
      ['signed-out review', signedOut.post(`/api/products/${product._id}/reviews`, { rating: 1, comment: 'x' }), 401],
      ['shopper editing a product', shopper.put(`/api/products/${product._id}`, { price: 1 }), 403],
      ['shopper deleting a product', shopper.delete(`/api/products/${product._id}`), 403],
      // Signed in, but the write is invalid or impossible.
      ['order of more than the stock', placeOrder(shopper, [{ _id: product._id, qty: 3 }]), 400],
      ['order of an unknown product', placeOrder(shopper, [{ _id: unknownId, qty: 1 }]), 400],
      ['order with no lines', shopper.post('/api/orders', { orderItems: [] }), 400],
      ['second review', shopper.post(`/api/products/${product._id}/reviews`, { rating: 1, comment: 'again' }), 400],
      ['review out of range', other.post(`/api/products/${product._id}/reviews`, { rating: 9, comment: 'x' }), 400],
      ['review of an unknown product', other.post(`/api/products/${unknownId}/reviews`, { rating: 3, comment: 'x' }), 404],
      ["deleting someone else's review", other.delete(`/api/products/${product._id}/${review._id}`), 403],
      ['editing an unknown product', admin.put(`/api/products/${unknownId}`, { price: 5 }), 404],
      ['an invalid price', admin.put(`/api/products/${product._id}`, { price: -5 }), 400],
      ['deleting an unknown product', admin.delete(`/api/products/${unknownId}`), 404],
      ['deleting an unknown order', admin.delete(`/api/orders/${unknownId}`), 404],
    ];
    for (const [what, attempt, status] of attempts) expect([what, (await attempt).status]).toEqual([what, status]);
    expect(await versions()).toEqual(before);

    // The control: the same kind of request, committed, does change it (for that product only).
    expect((await placeOrder(shopper, line)).status).toBe(201);
    const after = await versions();
    expect(after.product).not.toBe(before.product);
    expect({ ...after, product: before.product }).toEqual(before);
    expect((await admin.put(`/api/products/${product._id}`, { price: 5 })).status).toBe(200);
    expect((await versions()).listing).not.toBe(before.listing);
  });

  it('every listing page, the far ones read from the other end, is its slice of the newest-first order', async () => {
    const client = shop.client();
    const first = (await client.get<ProductPage>('/api/products')).body;
    const rows = await queryRows<{ id: string }>(
      shop.database.db,
      sql`SELECT id FROM products ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST`,
    );
    expect(first.count).toBe(rows.length);
    expect(first.pages).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    for (let page = 1; page <= first.pages + 1; page += 1) {
      const res = await client.get<ProductPage>(`/api/products?pageNumber=${page}`);
      expect(res.body).toMatchObject({ page, pages: first.pages, count: first.count });
      seen.push(...res.body.products.map((p) => p._id));
    }
    expect(seen).toEqual(rows.map((r) => r.id));
  });

  it('catalogue reads give up after a statement timeout (PostgreSQL)', async () => {
    if (shop.database.kind !== 'postgres') return;
    const [row] = await queryRows<{ statement_timeout: string }>(shop.database.catalogueDb, sql`SHOW statement_timeout`);
    expect(row?.statement_timeout).toBe(`${CATALOGUE_STATEMENT_TIMEOUT_MS / 1000}s`);
    // Orders and the rest of the shop keep PostgreSQL's own setting.
    const [other] = await queryRows<{ statement_timeout: string }>(shop.database.db, sql`SHOW statement_timeout`);
    expect(other?.statement_timeout).not.toBe(row?.statement_timeout);
  });

  it('the embedded database has the page cache PGLITE_SHARED_BUFFERS_MB asks for (PGlite)', async () => {
    if (shop.database.kind !== 'pglite') return;
    const [row] = await queryRows<{ shared_buffers: string }>(shop.database.db, sql`SHOW shared_buffers`);
    // The test shops' 16 MB (test/support/shop.ts), not PostgreSQL's default of 128.
    expect(row?.shared_buffers).toBe('16MB');
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
describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
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
      first = await buildTestApp({ ...redisEnv, RATE_LIMIT_LOGIN_MAX: '4' });
      second = await buildTestApp({ ...redisEnv, RATE_LIMIT_LOGIN_MAX: '4', DATABASE_URL: first.config.databaseUrl ?? '' });
      // A successful sign-in, which the limit does not count.
      admin = await first.admin();
    });
    afterAll(async () => {
      await second?.stop();
      await first?.stop();
    });

    it('failed sign-ins are counted across both instances', async () => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 7; attempt += 1) {
        const shop = attempt % 2 === 0 ? first : second;
        const res = await shop.client().post('/api/users/auth', { email: 'nobody@example.com', password: 'wrong-password' });
        statuses.push(res.status);
      }
      // Four failures allowed for this account from this address, whichever instance took them.
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429]);
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

    it('an order placed through one takes stock in every answer of the other on the very next request', async () => {
      const product = await createProduct(admin, { name: `Order probe ${randomBytes(3).toString('hex')}`, countInStock: 40 });
      const shopper = await first.shopper();
      const elsewhere = second.client();
      for (let round = 1; round <= 10; round += 1) {
        await seenEverywhere(elsewhere, product);
        expect((await placeOrder(shopper, [{ _id: product._id, qty: 2 }])).status).toBe(201);
        const seen = await seenEverywhere(elsewhere, product);
        const stock = 40 - 2 * round;
        expect(seen.detail).toMatchObject({ stock });
        expect(seen.search).toMatchObject({ stock });
        expect(seen.latest).toMatchObject({ stock });
      }
    });

    it('a catalogue write made outside any request (a job, a script) is seen through the other instance at once', async () => {
      const product = await createProduct(admin, { name: `Job probe ${randomBytes(3).toString('hex')}` });
      const elsewhere = second.client();
      for (let round = 1; round <= 5; round += 1) {
        await seenEverywhere(elsewhere, product);
        const price = 3000 + round;
        await updateProduct(first.database.db, first.catalogueChanges, product._id, { price, countInStock: round });
        const seen = await seenEverywhere(elsewhere, product);
        expect(seen.detail).toMatchObject({ price, stock: round });
        expect(seen.search).toEqual({ price, stock: round, reviews: [] });
        expect(seen.latest).toEqual({ price, stock: round, reviews: [] });
      }
    });

    it('npm run db:import into the shared database is seen through both instances at once', async () => {
      const product = await createProduct(admin, { name: `Import probe ${randomBytes(3).toString('hex')}`, price: 111 });
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-import-'));
      try {
        const file = path.join(dir, 'shop.jsonl.gz');
        await exportShop({ databaseUrl: first.config.databaseUrl, dataDir: dir }, file);
        expect((await admin.put(`/api/products/${product._id}`, { price: 222 })).status).toBe(200);
        for (const shop of [first, second]) expect((await seenEverywhere(shop.client(), product)).detail.price).toBe(222);

        const env = {
          ...process.env,
          DATABASE_URL: first.config.databaseUrl ?? '',
          DATA_DIR: dir,
          REDIS_URL: withRedis ? REDIS_URL : '',
          REDIS_KEY_PREFIX: prefix,
        };
        await run(
          process.execPath,
          typescriptProcess(path.join(projectRoot, 'src/server/ops/cli.ts'), 'import', file, '--replace'),
          {
            env,
            cwd: projectRoot,
          },
        );
        for (const shop of [first, second]) {
          const seen = await seenEverywhere(shop.client(), product);
          expect(seen.detail.price).toBe(111);
          expect(seen.search?.price).toBe(111);
          expect(seen.latest?.price).toBe(111);
        }
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    }, 120_000);
  });
});

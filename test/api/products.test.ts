import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTS_PAGE_SIZE, SEARCH_RESULTS_CAP } from '../../src/shared/constants.js';
import type { Product, ProductDetail, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, search } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

let shop: TestShop;
let admin: ApiClient;
let guest: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  guest = shop.client();
});
afterAll(() => shop?.stop());

describe('product listing', () => {
  it('answers the first page of the seeded catalogue, newest first, with page and pages', async () => {
    const res = await guest.get<ProductPage>('/api/products');
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(1);
    expect(res.body.products).toHaveLength(PRODUCTS_PAGE_SIZE);
    expect(res.body.pages).toBe(Math.ceil(res.body.count / PRODUCTS_PAGE_SIZE));
    expect(res.body.count).toBeGreaterThanOrEqual(24);
    const times = res.body.products.map((p) => Date.parse(p.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const first = res.body.products[0]!;
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        '_id',
        'name',
        'image',
        'price',
        'description',
        'category',
        'countInStock',
        'rating',
        'numReviews',
        'reviews',
      ]),
    );
    expect(typeof first.price).toBe('number');
  });

  it('lists every item’s reviews (id, name, rating), as many as numReviews, in the listing, search and top', async () => {
    const first = await guest.get<ProductPage>('/api/products');
    const items: Product[] = [];
    for (let page = 1; page <= first.body.pages; page++) {
      items.push(...(await guest.get<ProductPage>(`/api/products?pageNumber=${page}`)).body.products);
    }
    items.push(...(await search(guest, 'samsung')).products, ...(await guest.get<Product[]>('/api/products/top')).body);
    expect(items.some((p) => p.numReviews > 0)).toBe(true);
    for (const item of items) {
      expect(item.reviews, item.name).toHaveLength(item.numReviews);
      for (const review of item.reviews) expect(Object.keys(review).sort()).toEqual(['_id', 'name', 'rating']);
    }
    // The same reviews as the detail's, in the same order, without their comments.
    const reviewed = items.find((p) => p.numReviews > 1) ?? items.find((p) => p.numReviews > 0)!;
    const detail = await guest.get<ProductDetail>(`/api/products/${reviewed._id}`);
    expect(reviewed.reviews).toEqual(detail.body.reviews.map(({ _id, name, rating }) => ({ _id, name, rating })));
  });

  it('pages through every product exactly once', async () => {
    const first = await guest.get<ProductPage>('/api/products?pageNumber=1');
    const seen = new Set<string>();
    for (let page = 1; page <= first.body.pages; page++) {
      const res = await guest.get<ProductPage>(`/api/products?pageNumber=${page}`);
      expect(res.body.page).toBe(page);
      for (const p of res.body.products) seen.add(p._id);
    }
    expect(seen.size).toBe(first.body.count);
  });

  it('answers an empty page past the end rather than an error', async () => {
    const res = await guest.get<ProductPage>('/api/products?pageNumber=999');
    expect(res.status).toBe(200);
    expect(res.body.products).toEqual([]);
  });

  it.each(['0', '-1', 'abc', '1.5', '99999999999'])('refuses pageNumber=%s with a 400', async (value) => {
    expectClientError(await guest.get(`/api/products?pageNumber=${value}`), 400, 'pageNumber');
  });

  it('refuses a keyword longer than 100 characters', async () => {
    expectClientError(await guest.get(`/api/products?keyword=${'a'.repeat(101)}`), 400);
  });
});

describe('keyword search', () => {
  it('matches name, category and description, case-insensitively', async () => {
    const p = await createProduct(admin, {
      name: 'Quokka Thermos Flask',
      category: 'Zanzibarware',
      description: 'Keeps chai hot for a whole xylophonic day',
    });
    for (const keyword of ['QUOKKA', 'zanzibarware', 'Xylophonic', 'thermos flask']) {
      const result = await search(guest, keyword);
      expect(
        result.products.map((x) => x._id),
        keyword,
      ).toContain(p._id);
    }
  });

  it('tolerates a small typo: "samsng" finds Samsung', async () => {
    const result = await search(guest, 'samsng');
    expect(result.products.length).toBeGreaterThan(0);
    expect(result.products[0]!.name).toMatch(/samsung/i);
  });

  it('ranks a match in the name above a match only in the description', async () => {
    const inDescription = await createProduct(admin, {
      name: 'Plain Kitchen Mixer',
      description: 'Stronger than any wombatron you have owned',
    });
    const inName = await createProduct(admin, { name: 'Wombatron Blender', description: 'A blender' });
    const result = await search(guest, 'wombatron');
    const ids = result.products.map((p) => p._id);
    expect(ids.indexOf(inName._id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(inName._id)).toBeLessThan(ids.indexOf(inDescription._id));
  });

  it('counts pages over the filtered result', async () => {
    for (let i = 0; i < PRODUCTS_PAGE_SIZE + 2; i++) await createProduct(admin, { name: `Pangolin Sandal ${i}` });
    const page1 = await search(guest, 'pangolin');
    expect(page1.count).toBe(PRODUCTS_PAGE_SIZE + 2);
    expect(page1.pages).toBe(2);
    const page2 = await search(guest, 'pangolin', 2);
    expect(page2.products).toHaveLength(2);
  });

  it('treats LIKE wildcards, quotes and regex characters as plain text', async () => {
    const percent = await createProduct(admin, { name: '100% Cotton Kikoi' });
    const all = await guest.get<ProductPage>('/api/products');
    const byPercent = await search(guest, '%');
    expect(byPercent.products.map((p) => p._id)).toContain(percent._id);
    expect(byPercent.count).toBeLessThan(all.body.count);
    const byUnderscore = await search(guest, '_');
    expect(byUnderscore.count).toBeLessThan(all.body.count);
    for (const hostile of ["'; DROP TABLE products; --", '(.*', '\\', '[a-z]+', '" OR 1=1 --', '<script>']) {
      const res = await guest.get<ProductPage>(`/api/products?keyword=${encodeURIComponent(hostile)}`);
      expect(res.status, hostile).toBe(200);
    }
    const after = await guest.get<ProductPage>('/api/products');
    expect(after.body.count).toBe(all.body.count);
  });

  it('finds nothing for a word no product has', async () => {
    const result = await search(guest, 'qqqqzzzzxxxx');
    expect(result.products).toEqual([]);
    expect(result.count).toBe(0);
  });
});

describe('a broad keyword over many products', () => {
  const NEAR_MATCHES = SEARCH_RESULTS_CAP + 200;
  let exact: Product;

  beforeAll(async () => {
    // The exact match is the oldest of them all, so only its rank can bring it to the top.
    exact = await createProduct(admin, { name: 'Charcoal Jiko', category: 'Cookers' });
    // Products whose names hold "jiko" only inside a longer word: substring and close-spelling matches.
    await shop.database.db.execute(sql`
      INSERT INTO products (user_id, name, image, category, description, price_cents, count_in_stock, created_at)
      SELECT (SELECT id FROM users WHERE email = 'admin@example.com'), 'Jikokoa Stove ' || n, '/images/sample.webp',
             'Cookers', 'A stove', 150000, 5, now() + n * interval '1 second'
      FROM generate_series(1, ${NEAR_MATCHES}) AS n`);
    await shop.catalogueChanges.committed({ products: [], listing: true });
  });

  it('ranks only the best candidates, says the count is capped, and pages over the cap', async () => {
    const first = await search(guest, 'jiko');
    expect(first.count).toBe(SEARCH_RESULTS_CAP);
    expect(first.countCapped).toBe(true);
    expect(first.page).toBe(1);
    expect(first.pages).toBe(Math.ceil(SEARCH_RESULTS_CAP / PRODUCTS_PAGE_SIZE));
    expect(first.products).toHaveLength(PRODUCTS_PAGE_SIZE);

    const last = await search(guest, 'jiko', first.pages);
    expect(last.products).toHaveLength(SEARCH_RESULTS_CAP - (first.pages - 1) * PRODUCTS_PAGE_SIZE);
    const past = await search(guest, 'jiko', first.pages + 1);
    expect(past).toMatchObject({ products: [], count: SEARCH_RESULTS_CAP, countCapped: true });
  });

  it('still finds the exact match first', async () => {
    const first = await search(guest, 'jiko');
    expect(first.products[0]?._id).toBe(exact._id);
    expect(first.products.slice(1).every((p) => p.name.startsWith('Jikokoa Stove'))).toBe(true);
  });

  it('keeps an exact count, not capped, for a keyword with fewer matches', async () => {
    const narrow = await search(guest, 'charcoal');
    expect(narrow.countCapped).toBe(false);
    expect(narrow.products.map((p) => p._id)).toContain(exact._id);
    expect(narrow.count).toBe(narrow.products.length);
  });
});

describe('top products and detail', () => {
  it('answers the 3 highest rated products, best first', async () => {
    const res = await guest.get<Product[]>('/api/products/top');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    const all: Product[] = [];
    const first = await guest.get<ProductPage>('/api/products');
    for (let page = 1; page <= first.body.pages; page++) {
      all.push(...(await guest.get<ProductPage>(`/api/products?pageNumber=${page}`)).body.products);
    }
    const bestRating = Math.max(...all.map((p) => p.rating));
    expect(res.body[0]!.rating).toBe(bestRating);
    expect(res.body[0]!.rating).toBeGreaterThanOrEqual(res.body[1]!.rating);
    expect(res.body[1]!.rating).toBeGreaterThanOrEqual(res.body[2]!.rating);
  });

  it('answers a product with its reviews and numReviews', async () => {
    const top = (await guest.get<Product[]>('/api/products/top')).body[0]!;
    const res = await guest.get<ProductDetail>(`/api/products/${top._id}`);
    expect(res.status).toBe(200);
    expect(res.body.numReviews).toBe(res.body.reviews.length);
    expect(res.body.reviews.length).toBeGreaterThan(0);
    expect(Object.keys(res.body.reviews[0]!)).toEqual(
      expect.arrayContaining(['_id', 'name', 'rating', 'comment', 'user', 'createdAt']),
    );
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expectClientError(await guest.get('/api/products/00000000-0000-4000-8000-000000000000'), 404, 'Product not found');
    expectClientError(await guest.get('/api/products/not-an-id'), 400);
    expectClientError(await guest.get(`/api/products/${'x'.repeat(150)}`), 400);
  });
});

describe('admin product management', () => {
  it('creates a sample product, which the admin then edits', async () => {
    const res = await admin.post<Product>('/api/products');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Sample name', price: 0, countInStock: 0, category: 'Sample category', reviews: [] });
    const image = await admin.get(res.body.image);
    expect(image.status).toBe(200);
  });

  it('updates from JSON and keeps prices exact to the cent', async () => {
    const p = await createProduct(admin, { price: 1299.99, countInStock: 7 });
    expect(p.price).toBe(1299.99);
    const res = await admin.put<Product>(`/api/products/${p._id}`, { price: 0.1, countInStock: 0 });
    expect(res.body).toMatchObject({ price: 0.1, countInStock: 0, name: 'Test Product' });
  });

  it('updates from multipart form data, as the edit screen sends it', async () => {
    const p = await createProduct(admin);
    const form = new FormData();
    form.set('name', 'Form Edited Kettle');
    form.set('price', '2499.50');
    form.set('countInStock', '12');
    form.set('category', 'Kitchen & Home');
    form.set('description', 'Edited through FormData');
    form.set('image', '/images/sample.webp');
    const res = await admin.request<Product>('PUT', `/api/products/${p._id}`, { body: form });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'Form Edited Kettle', price: 2499.5, countInStock: 12, category: 'Kitchen & Home' });
  });

  it('takes images of this shop or https URLs, and prices in decimals, from JSON or forms', async () => {
    const p = await createProduct(admin);
    for (const image of ['/uploads/0a1b2c.webp', '/images/sample.webp', 'https://cdn.example.co.ke/shop/kettle.webp?v=2']) {
      const res = await admin.put<Product>(`/api/products/${p._id}`, { image });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.image).toBe(image);
    }
    const res = await admin.request<Product>('PUT', `/api/products/${p._id}`, {
      body: new URLSearchParams({ price: '2499.50' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.body.price).toBe(2499.5);
    const hex = await admin.request('PUT', `/api/products/${p._id}`, {
      body: new URLSearchParams({ price: '0x10' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectClientError(hex, 400, 'Price must be a number');
  });

  it('updates from a url-encoded form', async () => {
    const p = await createProduct(admin);
    const res = await admin.request<Product>('PUT', `/api/products/${p._id}`, {
      body: new URLSearchParams({ price: '15', countInStock: '3' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ price: 15, countInStock: 3 });
  });

  it.each([
    [{ price: -1 }, 'Price cannot be negative'],
    [{ price: 'abc' }, 'Price must be a number'],
    [{ price: 10.555 }, 'at most 2 decimals'],
    [{ countInStock: 1.5 }, 'whole number'],
    [{ countInStock: -3 }, 'cannot be negative'],
    [{ name: '   ' }, 'Name is required'],
    [{ image: 'javascript:alert(1)' }, 'Image must be'],
    [{ image: '//evil.example/x.png' }, 'Image must be'],
    [{ image: '/uploads/../../etc/passwd' }, 'Image must be'],
    [{ image: '/images/..%2f..%2fsecret.webp' }, 'Image must be'],
    [{ image: '/images/%2e%2e/x.webp' }, 'Image must be'],
    [{ image: 'https://cdn.example.co.ke/a/../b.webp' }, 'Image must be'],
    [{ image: '/api/users' }, 'Image must be'],
    [{ image: '/uploads/' }, 'Image must be'],
    [{ image: 'http://cdn.example.co.ke/x.webp' }, 'Image must be'],
    [{ image: 'data:image/png;base64,AAAA' }, 'Image must be'],
    [{ price: '0x10' }, 'Price must be a number'],
    [{ price: '1e3' }, 'Price must be a number'],
    [{ price: '0b11' }, 'Price must be a number'],
    [{ price: 'Infinity' }, 'Price must be a number'],
    [{ countInStock: '0x10' }, 'must be a whole number'],
    [{ name: 'x'.repeat(201) }, 'at most 200'],
  ])('refuses %j with a clear message and changes nothing', async (patch, msg) => {
    const p = await createProduct(admin, { price: 50, countInStock: 5 });
    expectClientError(await admin.put(`/api/products/${p._id}`, patch), 400, msg);
    const after = (await guest.get<Product>(`/api/products/${p._id}`)).body;
    expect(after).toMatchObject({ name: p.name, price: 50, countInStock: 5 });
  });

  it('refuses a file smuggled into the form update', async () => {
    const p = await createProduct(admin);
    const form = new FormData();
    form.set('name', 'With a file');
    form.set(
      'image',
      new Blob([
        await sharp({ create: { width: 2, height: 2, channels: 3, background: 'red' } })
          .png()
          .toBuffer(),
      ]),
      'x.png',
    );
    const res = await admin.request('PUT', `/api/products/${p._id}`, { body: form });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('deletes a product and answers a msg', async () => {
    const p = await createProduct(admin);
    const res = await admin.delete<{ msg: string }>(`/api/products/${p._id}`);
    expect(res.status).toBe(200);
    expect(res.body.msg).toBe('Product deleted');
    expectClientError(await guest.get(`/api/products/${p._id}`), 404);
    expectClientError(await admin.delete(`/api/products/${p._id}`), 404);
  });

  it('answers 404 when updating an unknown product', async () => {
    expectClientError(await admin.put('/api/products/00000000-0000-4000-8000-000000000000', { price: 1 }), 404);
  });
});

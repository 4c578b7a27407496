import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { AdminProductPage, Product, ProductDetail, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient, ApiResponse, ErrorResponse } from '../support/client.js';
import { createProduct, expectClientError, NAIROBI_ADDRESS, search } from '../support/fixtures.js';
import { readOutbox } from '../support/outbox.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * Products sold in variants (docs/product-rules.md, Variants): the answers, the admin's edit of
 * options and variants, orders of a variant, and the order's lines as mails and exports show them.
 * Runs on PGlite, or on PostgreSQL with TEST_DATABASE_URL.
 */

let shop: TestShop;
let admin: ApiClient;
let shopper: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  shopper = await shop.shopper('Wanjiku');
});
afterAll(() => shop?.stop());

type Detail = ProductDetail & { isDraft?: boolean };
type VariantInput = {
  _id?: string;
  options: Record<string, string>;
  price: number;
  countInStock: number;
  sku?: string | null;
  image?: string | null;
};

const SIZE_COLOUR = [
  { name: 'Size', values: ['40', '41', '42'] },
  { name: 'Colour', values: ['Black', 'White'] },
];

/** The sneaker's variants, sent deliberately out of the options' order. */
function sneakerVariants(prefix: string): VariantInput[] {
  return [
    { options: { Size: '42', Colour: 'Black' }, price: 4500, countInStock: 3, sku: `${prefix}-42-BLK` },
    { options: { Colour: 'White', Size: '40' }, price: 3999.5, countInStock: 2, sku: `${prefix}-40-WHT`, image: null },
    { options: { Size: '40', Colour: 'Black' }, price: 4200, countInStock: 5, image: '/images/sample.webp' },
  ];
}

function putVariants(id: string, body: unknown, client: ApiClient = admin): Promise<ApiResponse<Detail & ErrorResponse>> {
  return client.put<Detail & ErrorResponse>(`/api/products/${id}/variants`, body);
}

async function sneaker(prefix: string, name = `Court Sneaker ${prefix}`): Promise<Detail> {
  const product = await createProduct(admin, { name, price: 1, countInStock: 1, category: 'Shoes' });
  const res = await putVariants(product._id, { options: SIZE_COLOUR, variants: sneakerVariants(prefix) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function detail(id: string, client: ApiClient = shop.client()): Promise<Detail> {
  const res = await client.get<Detail>(`/api/products/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

function variantOf(product: Detail, size: string, colour: string) {
  const variant = product.variants?.find((v) => v.options.Size === size && v.options.Colour === colour);
  if (!variant) throw new Error(`no variant ${size}/${colour}`);
  return variant;
}

function order(client: ApiClient, lines: { _id: string; qty: number; variantId?: string | null }[]) {
  return client.post<Order & ErrorResponse>('/api/orders', { orderItems: lines, shippingAddress: NAIROBI_ADDRESS });
}

async function stockOf(productId: string): Promise<{ product: number; variants: Record<string, number> }> {
  const [row] = await queryRows<{ count_in_stock: number }>(
    shop.database.db,
    sql`SELECT count_in_stock FROM products WHERE id = ${productId}`,
  );
  const variants = await queryRows<{ id: string; count_in_stock: number }>(
    shop.database.db,
    sql`SELECT id, count_in_stock FROM product_variants WHERE product_id = ${productId}`,
  );
  return { product: row?.count_in_stock ?? -1, variants: Object.fromEntries(variants.map((v) => [v.id, v.count_in_stock])) };
}

describe('answers', () => {
  it('answers a product without options exactly as before: no options or variants keys anywhere', async () => {
    const plain = await createProduct(admin, { name: 'Plain Kikoi Wrap', category: 'Plain wraps' });
    expect(Object.keys(plain)).not.toContain('options');
    const seen: Record<string, unknown>[] = [
      plain,
      await detail(plain._id),
      await detail(plain._id, admin),
      ...(await search(shop.client(), 'Plain Kikoi')).products.filter((p) => p._id === plain._id),
      ...(await admin.get<AdminProductPage>('/api/admin/products?keyword=plain kikoi')).body.products,
      ...(await shop.client().get<ProductPage>('/api/products?category=Plain wraps')).body.products,
    ];
    expect(seen.length).toBe(6);
    for (const answer of seen) {
      expect(answer).not.toHaveProperty('options');
      expect(answer).not.toHaveProperty('variants');
    }
  });

  it('carries the options and the variants, by the options’ value order, on every product answer', async () => {
    const product = await sneaker('ANS');
    expect(product.options).toEqual(SIZE_COLOUR);
    expect(product.variants?.map((v) => [v.options.Size, v.options.Colour])).toEqual([
      ['40', 'Black'],
      ['40', 'White'],
      ['42', 'Black'],
    ]);
    expect(variantOf(product, '40', 'White')).toEqual({
      _id: expect.any(String),
      options: { Size: '40', Colour: 'White' },
      price: 3999.5,
      countInStock: 2,
      sku: 'ANS-40-WHT',
      image: null,
    });
    expect(variantOf(product, '40', 'Black')).toMatchObject({ sku: null, image: '/images/sample.webp' });
    const listed = (await search(shop.client(), 'Court Sneaker ANS')).products.find((p) => p._id === product._id);
    const inCategory = (await shop.client().get<ProductPage>('/api/products?category=Shoes')).body.products.find(
      (p) => p._id === product._id,
    );
    const adminListed = (await admin.get<AdminProductPage>('/api/admin/products?keyword=sneaker ans')).body.products[0];
    for (const answer of [listed, inCategory, adminListed, await detail(product._id)]) {
      expect(answer?.options).toEqual(product.options);
      expect(answer?.variants).toEqual(product.variants);
    }
    // The top products: made the best rated straight in the database, then reported as a write would.
    await queryRows(shop.database.db, sql`UPDATE products SET rating = 5, num_reviews = 9999 WHERE id = ${product._id}`);
    await shop.catalogueChanges.committed({ products: [product._id], listing: true });
    const top = await shop.client().get<Product[]>('/api/products/top');
    expect(top.body[0]?._id).toBe(product._id);
    expect(top.body[0]?.variants).toEqual(product.variants);
  });

  it('derives the product’s price (the lowest) and stock (the total) from its variants', async () => {
    const product = await sneaker('DRV');
    expect(product.price).toBe(3999.5);
    expect(product.countInStock).toBe(10);
    const cheapFirst = await shop.client().get<ProductPage>('/api/products?category=Shoes&sort=price_asc&maxPrice=3999.5');
    expect(cheapFirst.body.products.map((p) => p._id)).toContain(product._id);
    // The edit screen sends every field: a product in variants keeps the price and stock they give it.
    const edited = await admin.put<Product>(`/api/products/${product._id}`, {
      name: 'Court Sneaker DRV renamed',
      price: 1,
      countInStock: 999,
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Court Sneaker DRV renamed', price: 3999.5, countInStock: 10 });
  });
});

describe('PUT /api/products/:id/variants', () => {
  it('is for admins only, and answers 404 for an unknown product', async () => {
    const product = await createProduct(admin, { name: 'Guarded Sandal' });
    const body = { options: [], variants: [] };
    expect((await putVariants(product._id, body, shop.client())).status).toBe(401);
    expect((await putVariants(product._id, body, shopper)).status).toBe(403);
    expectClientError(await putVariants('00000000-0000-4000-8000-000000000000', body), 404, 'Product not found');
    expectClientError(await putVariants('not-an-id', body), 400);
  });

  const option = (name: string, values: string[]) => ({ name, values });
  const v = (options: Record<string, string>, extra: Partial<VariantInput> = {}) => ({
    options,
    price: 100,
    countInStock: 1,
    ...extra,
  });
  const invalid: [string, unknown, string | RegExp][] = [
    [
      'an option named twice, in another case',
      { options: [option('Size', ['S']), option('size', ['M'])], variants: [] },
      'Option size is listed twice',
    ],
    ['four options', { options: ['A', 'B', 'C', 'D'].map((n) => option(n, ['x'])), variants: [] }, 'at most 3 options'],
    ['an empty option name', { options: [option(' ', ['S'])], variants: [v({ ' ': 'S' })] }, 'Option name is required'],
    [
      'a name of 31 characters',
      { options: [option('N'.repeat(31), ['S'])], variants: [] },
      'Option name must be at most 30 characters',
    ],
    ['an option without values', { options: [option('Size', [])], variants: [] }, 'at least one value'],
    [
      '31 values',
      {
        options: [
          option(
            'Size',
            Array.from({ length: 31 }, (_, i) => `S${i}`),
          ),
        ],
        variants: [],
      },
      'at most 30 values',
    ],
    [
      'a value of 31 characters',
      { options: [option('Size', ['x'.repeat(31)])], variants: [] },
      'Option value must be at most 30 characters',
    ],
    ['a value twice', { options: [option('Size', ['S', 'S'])], variants: [v({ Size: 'S' })] }, 'Size S is listed twice'],
    ['options without variants', { options: SIZE_COLOUR, variants: [] }, 'needs at least one variant'],
    ['variants without options', { options: [], variants: [v({})] }, 'without options has no variants'],
    ['a variant missing an option', { options: SIZE_COLOUR, variants: [v({ Size: '42' })] }, 'Variant 1 has no Colour'],
    [
      'a value not of its option',
      { options: SIZE_COLOUR, variants: [v({ Size: '43', Colour: 'Black' })] },
      '43 is not one of the values of Size',
    ],
    [
      'an unknown option',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black', Material: 'Canvas' })] },
      'Material, which is not an option',
    ],
    [
      'a combination twice',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }), v({ Colour: 'Black', Size: '42' })] },
      'Size 42 / Black is listed twice',
    ],
    [
      'a SKU twice, in another case',
      {
        options: SIZE_COLOUR,
        variants: [v({ Size: '42', Colour: 'Black' }, { sku: 'AB-1' }), v({ Size: '41', Colour: 'Black' }, { sku: 'ab-1' })],
      },
      'SKU ab-1 is listed twice',
    ],
    [
      'a negative stock',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }, { countInStock: -1 })] },
      'Count In Stock cannot be negative',
    ],
    [
      'a fractional stock',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }, { countInStock: 1.5 })] },
      'Count In Stock must be a whole number',
    ],
    [
      'a negative price',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }, { price: -5 })] },
      'Price cannot be negative',
    ],
    [
      'a price with 3 decimals',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }, { price: 1.005 })] },
      'at most 2 decimals',
    ],
    [
      'an unsafe image',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }, { image: 'javascript:alert(1)' })] },
      'Image must be',
    ],
    [
      'a malformed id',
      { options: SIZE_COLOUR, variants: [v({ Size: '42', Colour: 'Black' }, { _id: 'nope' })] },
      'Not a valid id',
    ],
    ['no lists', {}, /Options must be a list|Variants must be a list/],
  ];

  it.each(invalid)('refuses %s with a clear message, and changes nothing', async (_, body, message) => {
    const product = await sneaker(`INV${Math.random().toString(36).slice(2, 8)}`);
    const before = await detail(product._id);
    const res = await putVariants(product._id, body);
    expectClientError(res, 400, message);
    expect(await detail(product._id)).toEqual(before);
  });

  it('refuses a SKU another product uses, whatever its case, and an id of another product’s variant', async () => {
    const other = await sneaker('TS');
    const otherBefore = await detail(other._id);
    const product = await createProduct(admin, { name: 'Trail Shoe' });
    const taken = await putVariants(product._id, {
      options: SIZE_COLOUR,
      variants: [v({ Size: '42', Colour: 'Black' }, { sku: 'ts-42-blk' })],
    });
    expectClientError(taken, 400, 'SKU ts-42-blk is already used by another product');
    expect(taken.body.errors[0]?.path).toBe('variants.0.sku');
    const stolen = await putVariants(product._id, {
      options: SIZE_COLOUR,
      variants: [v({ Size: '42', Colour: 'Black' }, { _id: variantOf(other, '42', 'Black')._id })],
    });
    expectClientError(stolen, 400, 'is not a variant of this product');
    expect(await detail(product._id, admin)).not.toHaveProperty('variants');
    expect(await detail(other._id)).toEqual(otherBefore);
  });

  it('keeps the ids it is sent, gives new ones, removes what is left out, and lets SKUs move', async () => {
    const product = await sneaker('KEEP');
    const black42 = variantOf(product, '42', 'Black');
    const white40 = variantOf(product, '40', 'White');
    const res = await putVariants(product._id, {
      options: [SIZE_COLOUR[0], { name: 'Colour', values: ['White', 'Black', 'Red'] }],
      variants: [
        // The two swap SKUs; the third variant (40 / Black) is left out.
        { _id: black42._id, options: { Size: '42', Colour: 'Black' }, price: 4600, countInStock: 7, sku: 'KEEP-40-WHT' },
        { _id: white40._id, options: { Size: '40', Colour: 'White' }, price: 3800, countInStock: 1, sku: 'KEEP-42-BLK' },
        { options: { Size: '41', Colour: 'Red' }, price: 5000, countInStock: 4 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.isDraft).toBe(false);
    expect(res.body.variants?.map((x) => [x.options.Size, x.options.Colour, x.sku])).toEqual([
      ['40', 'White', 'KEEP-42-BLK'],
      ['41', 'Red', null],
      ['42', 'Black', 'KEEP-40-WHT'],
    ]);
    expect(variantOf(res.body, '42', 'Black')._id).toBe(black42._id);
    expect(variantOf(res.body, '40', 'White')._id).toBe(white40._id);
    const added = res.body.variants?.[1]?._id;
    expect(added).toMatch(/^[0-9a-f-]{36}$/);
    expect([black42._id, white40._id, variantOf(product, '40', 'Black')._id]).not.toContain(added);
    expect(res.body).toMatchObject({ price: 3800, countInStock: 12 });
    const rows = await queryRows<{ n: number }>(
      shop.database.db,
      sql`SELECT count(*)::int AS n FROM product_variants WHERE product_id = ${product._id}`,
    );
    expect(rows[0]?.n).toBe(3);
  });

  it('makes a product plain again with no options, at the price and stock it had', async () => {
    const product = await sneaker('PLAIN');
    const res = await putVariants(product._id, { options: [], variants: [] });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('options');
    expect(res.body).not.toHaveProperty('variants');
    expect(res.body).toMatchObject({ price: 3999.5, countInStock: 10 });
    const read = await detail(product._id);
    expect(read).not.toHaveProperty('variants');
    // Plain again: it is edited and sold as one thing.
    const edited = await admin.put<Product>(`/api/products/${product._id}`, { price: 50, countInStock: 3 });
    expect(edited.body).toMatchObject({ price: 50, countInStock: 3 });
    const placed = await order(shopper, [{ _id: product._id, qty: 1 }]);
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body.orderItems[0]).not.toHaveProperty('variantId');
  });

  it('moves the catalogue cache: the next read of the product shows the new variants', async () => {
    const product = await createProduct(admin, { name: 'Cached Kanga', price: 800, countInStock: 4 });
    // Read twice: the second is served from the cache.
    await detail(product._id);
    const cached = await shop.client().get(`/api/products/${product._id}`);
    const etag = cached.headers.get('etag');
    expect(etag).toBeTruthy();
    await putVariants(product._id, {
      options: [{ name: 'Colour', values: ['Red', 'Blue'] }],
      variants: [
        { options: { Colour: 'Red' }, price: 900, countInStock: 2 },
        { options: { Colour: 'Blue' }, price: 950, countInStock: 3 },
      ],
    });
    const after = await shop.client().get<Detail>(`/api/products/${product._id}`);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.body).toMatchObject({ price: 900, countInStock: 5 });
    expect(after.body.variants?.map((x) => x.options.Colour)).toEqual(['Red', 'Blue']);
    const listed = (await search(shop.client(), 'Cached Kanga')).products[0];
    expect(listed?.variants?.length).toBe(2);
  });
});

describe('orders of a variant', () => {
  it('prices the line from the variant, takes its stock and the product’s, and keeps what was sold', async () => {
    const product = await sneaker('ORD', 'Court Sneaker');
    const black42 = variantOf(product, '42', 'Black');
    const white40 = variantOf(product, '40', 'White');
    const res = await order(shopper, [
      { _id: product._id, qty: 2, variantId: black42._id },
      { _id: product._id, qty: 1, variantId: white40._id },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.orderItems).toEqual([
      {
        _id: product._id,
        name: 'Court Sneaker',
        image: product.image,
        qty: 2,
        price: 4500,
        variantId: black42._id,
        variant: 'Size 42 / Black',
        sku: 'ORD-42-BLK',
      },
      {
        _id: product._id,
        name: 'Court Sneaker',
        image: product.image,
        qty: 1,
        price: 3999.5,
        variantId: white40._id,
        variant: 'Size 40 / White',
        sku: 'ORD-40-WHT',
      },
    ]);
    expect(res.body.itemsPrice).toBe(12999.5);
    const after = await detail(product._id);
    expect(variantOf(after, '42', 'Black').countInStock).toBe(1);
    expect(variantOf(after, '40', 'White').countInStock).toBe(1);
    expect(after.countInStock).toBe(7);

    // The mail and the export show the variant after the product's name.
    await vi.waitFor(
      async () => {
        const mails = await readOutbox(shop.config.dataDir);
        expect(
          mails.some((mail) => mail.includes(res.body.orderNumber) && mail.includes('Court Sneaker (Size 42 / Black)')),
        ).toBe(true);
      },
      { timeout: 10_000, interval: 50 },
    );
    const csv = await admin.get<string>(`/api/admin/exports/orders.csv?keyword=${res.body.orderNumber}`);
    expect(csv.status).toBe(200);
    const rows = parse(csv.body, { bom: true, columns: true }) as Record<string, string>[];
    expect(rows[0]?.Items).toBe('2 × Court Sneaker (Size 42 / Black); 1 × Court Sneaker (Size 40 / White)');

    // Later edits of the product, and the variant's removal, change no order.
    await admin.put(`/api/products/${product._id}`, { name: 'Court Sneaker Mk II' });
    const edited = await putVariants(product._id, {
      options: SIZE_COLOUR,
      variants: [{ _id: white40._id, options: { Size: '40', Colour: 'White' }, price: 1, countInStock: 1, sku: 'NEW-SKU' }],
    });
    expect(edited.status).toBe(200);
    const kept = await shopper.get<Order>(`/api/orders/${res.body._id}`);
    expect(kept.body.orderItems).toEqual(res.body.orderItems);
  });

  it('refuses, taking nothing: no variant chosen, an unknown or another product’s variant, too little stock, a variant of a plain product', async () => {
    const product = await sneaker('REF', 'Refusal Sneaker');
    const other = await sneaker('REF2');
    const plain = await createProduct(admin, { name: 'Plain Slipper', countInStock: 5 });
    const black42 = variantOf(product, '42', 'Black');
    const before = [await stockOf(product._id), await stockOf(other._id), await stockOf(plain._id)];
    const fine = { _id: plain._id, qty: 1 };
    const refused: [unknown[], string | RegExp][] = [
      [[fine, { _id: product._id, qty: 1 }], 'Choose a Size and Colour for Refusal Sneaker'],
      [[fine, { _id: product._id, qty: 1, variantId: '00000000-0000-4000-8000-000000000000' }], 'no longer available'],
      [[fine, { _id: product._id, qty: 1, variantId: variantOf(other, '42', 'Black')._id }], 'no longer available'],
      [[fine, { _id: product._id, qty: 4, variantId: black42._id }], 'Only 3 of Refusal Sneaker (Size 42 / Black) left in stock'],
      [
        [fine, { _id: product._id, qty: 2, variantId: black42._id }, { _id: product._id, qty: 2, variantId: black42._id }],
        'Only 3 of Refusal Sneaker (Size 42 / Black) left in stock',
      ],
      [[fine, { _id: plain._id, qty: 1, variantId: black42._id }], 'Plain Slipper has no variants'],
    ];
    for (const [lines, message] of refused) {
      const res = await shopper.post<ErrorResponse>('/api/orders', { orderItems: lines, shippingAddress: NAIROBI_ADDRESS });
      expectClientError(res, 400, message);
    }
    expect([await stockOf(product._id), await stockOf(other._id), await stockOf(plain._id)]).toEqual(before);
    // Out of stock, by name.
    await order(shopper, [{ _id: product._id, qty: 3, variantId: black42._id }]);
    expectClientError(
      await order(shopper, [{ _id: product._id, qty: 1, variantId: black42._id }]),
      400,
      'Refusal Sneaker (Size 42 / Black) is out of stock',
    );
  });

  it('gives a deleted order’s stock back to its variant and the product', async () => {
    const product = await sneaker('DEL');
    const white40 = variantOf(product, '40', 'White');
    const before = await stockOf(product._id);
    const placed = await order(shopper, [{ _id: product._id, qty: 2, variantId: white40._id }]);
    expect(placed.status).toBe(201);
    expect((await stockOf(product._id)).variants[white40._id]).toBe(0);
    const deleted = await admin.delete(`/api/orders/${placed.body._id}`);
    expect(deleted.status).toBe(200);
    expect(await stockOf(product._id)).toEqual(before);
    expect(variantOf(await detail(product._id), '40', 'White').countInStock).toBe(2);
  });

  it('sells exactly the last units of a variant to concurrent orders, never below zero', async () => {
    const product = await sneaker('RACE');
    const black40 = variantOf(product, '40', 'Black');
    const white40 = variantOf(product, '40', 'White');
    const shoppers = await Promise.all(Array.from({ length: 6 }, (_, i) => shop.shopper(`Racer ${i}`)));
    // 48 orders for the 5 units of 40 / Black, some also taking one of the 2 of 40 / White.
    const attempts = Array.from({ length: 48 }, (_, i) => {
      const lines = [{ _id: product._id, qty: 1, variantId: black40._id }];
      if (i % 7 === 0) lines.push({ _id: product._id, qty: 1, variantId: white40._id });
      return order(shoppers[i % shoppers.length] as ApiClient, lines);
    });
    const answers = await Promise.all(attempts);
    for (const res of answers) {
      if (res.status !== 201) expectClientError(res, 400, /is out of stock|left in stock/);
    }
    const soldBlack = answers
      .filter((res) => res.status === 201)
      .flatMap((res) => res.body.orderItems)
      .filter((line) => line.variantId === black40._id)
      .reduce((sum, line) => sum + line.qty, 0);
    const soldWhite = answers
      .filter((res) => res.status === 201)
      .flatMap((res) => res.body.orderItems)
      .filter((line) => line.variantId === white40._id)
      .reduce((sum, line) => sum + line.qty, 0);
    const stock = await stockOf(product._id);
    expect(soldBlack).toBe(5);
    expect(stock.variants[black40._id]).toBe(0);
    expect(stock.variants[white40._id]).toBe(2 - soldWhite);
    expect(stock.product).toBe(Object.values(stock.variants).reduce((a, b) => a + b, 0));
    // What the database holds sold matches the answers.
    const [held] = await queryRows<{ qty: number }>(
      shop.database.db,
      sql`SELECT coalesce(sum(qty), 0)::int AS qty FROM order_items WHERE variant_id = ${black40._id}`,
    );
    expect(held?.qty).toBe(soldBlack);
  });
});

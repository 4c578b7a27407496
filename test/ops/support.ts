import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { expect, vi } from 'vitest';
import { type AppConfig, loadConfig } from '../../src/server/config.js';
import { connect, type Target } from '../../src/server/ops/connection.js';
import { createLogger, type RunningShop, startShop } from '../../src/server/shop.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { Product } from '../../src/shared/schemas/products.js';
import { mapLimit, seededRandom } from '../reliability/load-support.js';
import { ApiClient } from '../support/client.js';
import { createProduct, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testShopEnv } from '../support/shop.js';

/**
 * A shop on a database the test names — PGlite on disk under DATA_DIR, or a PostgreSQL URL — as
 * `npm start` runs it (test/support/shop.ts keeps PGlite in memory, which cannot be exported).
 */
export interface OpsShop extends RunningShop {
  config: AppConfig;
  client(): ApiClient;
  admin(): Promise<ApiClient>;
}

export async function tempDir(prefix = 'duka-ops-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function startShopOn(target: Target): Promise<OpsShop> {
  const config = loadConfig({
    // The test shops' settings (low password cost, no sign-in limits), on the target's folder.
    ...testShopEnv(target.dataDir),
    SEED_DEMO: 'false',
    DATABASE_POOL_SIZE: '5',
    RATE_LIMIT_STKPUSH_MAX: '100000',
    MPESA_ENV: 'simulator',
    MPESA_SIMULATOR_DELAY_MS: '50',
    MPESA_RECONCILE_INTERVAL_MS: '3600000',
    ...(target.databaseUrl && { DATABASE_URL: target.databaseUrl }),
  });
  const shop = await startShop(config, { logger: createLogger(config) });
  const client = () => new ApiClient(shop.url);
  return {
    ...shop,
    config,
    client,
    async admin() {
      const c = client();
      await c.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      return c;
    },
  };
}

export interface Shopper {
  email: string;
  password: string;
  client: ApiClient;
  orderIds: string[];
}

export interface BuiltShop {
  shoppers: Shopper[];
  /** Uploaded images: the path each is served at and the bytes the original shop served. */
  images: { path: string; content: Buffer }[];
  orders: number;
  paidByMpesa: number;
  delivered: number;
  reviews: number;
}

export interface ShopSize {
  shoppers: number;
  ordersPerShopper: number;
}

/** A few distinct images, so a mixed-up file would show. */
async function makeImage(format: 'png' | 'jpeg' | 'webp', seed: number): Promise<Buffer> {
  const size = 48;
  const pixels = Buffer.alloc(size * size * 3);
  const random = seededRandom(seed);
  for (let i = 0; i < pixels.length; i++) pixels[i] = random.int(0, 255);
  return sharp(pixels, { raw: { width: size, height: size, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

/**
 * Fills a shop through its API: products (some with uploaded images), shoppers, orders (some paid
 * by M-Pesa through the simulator, some marked paid and delivered by the admin), reviews, and a
 * password-reset request, so every table holds rows.
 */
export async function buildShop(shop: OpsShop, size: ShopSize): Promise<BuiltShop> {
  const random = seededRandom(20_250_907);
  const admin = await shop.admin();

  const images: BuiltShop['images'] = [];
  for (const [i, format] of (['png', 'jpeg', 'webp'] as const).entries()) {
    const content = await makeImage(format, i + 1);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(content)]), `photo-${i}.${format}`);
    const res = await admin.request<{ image: string }>('POST', '/api/uploads', { body: form });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // What the shop serves, which need not be what was sent (the shop may re-encode an upload).
    const served = await fetch(shop.url + res.body.image);
    expect(served.status).toBe(200);
    images.push({ path: res.body.image, content: Buffer.from(await served.arrayBuffer()) });
  }

  const products: Product[] = [];
  for (let i = 0; i < 12; i++) {
    products.push(
      await createProduct(admin, {
        name: `Kikapu ${i} "special" — ${['sisal', 'kitenge', 'kiondo'][i % 3]}`,
        // Prices with cents, so rounding anywhere would show.
        price: 99.5 + i * 123.25,
        countInStock: 100_000,
        category: ['Baskets', 'Fabric', 'Bags'][i % 3],
        description: `Handmade in Machakos; batch ${i}.\nLine two with emoji 🧺 and 'quotes'.`,
        image: images[i % images.length]?.path ?? '/images/sample.jpg',
      }),
    );
  }

  // Two products sold in variants (docs/product-rules.md, Variants): one with SKUs and images, one without.
  const inVariants: { id: string; variantIds: string[] }[] = [];
  for (let i = 0; i < 2; i++) {
    const product = await createProduct(admin, { name: `Kitenge shirt ${i}`, category: 'Fabric', countInStock: 0 });
    const sizes = ['S', 'M', 'L'];
    const colours = ['Indigo', 'Ochre'];
    const res = await admin.put<Product>(`/api/products/${product._id}/variants`, {
      options: [
        { name: 'Size', values: sizes },
        { name: 'Colour', values: colours },
      ],
      variants: sizes.flatMap((size, j) =>
        colours.map((colour, k) => ({
          options: { Size: size, Colour: colour },
          price: 1500.25 + j * 100 + k * 10,
          countInStock: 100_000,
          sku: i === 0 ? `KS-${size}-${colour}` : null,
          image: i === 0 ? (images[(j + k) % images.length]?.path ?? null) : null,
        })),
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    inVariants.push({ id: product._id, variantIds: (res.body.variants ?? []).map((v) => v._id) });
  }

  const shoppers = await mapLimit(
    Array.from({ length: size.shoppers }, (_, i) => i),
    4,
    async (i) => {
      const client = shop.client();
      const email = `shopper-${i}-${randomBytes(3).toString('hex')}@example.com`;
      const password = `pass-word-${i}`;
      await client.signUp(`Shopper ${i} Wanjiru`, email, password);
      return { email, password, client, orderIds: [] as string[] };
    },
  );

  const plan = shoppers.flatMap((shopper) => Array.from({ length: size.ordersPerShopper }, () => shopper));
  const orders = await mapLimit(plan, 4, async (shopper, i) => {
    const lines: { _id: string; qty: number; variantId?: string }[] = Array.from({ length: random.int(1, 3) }, (_, k) => ({
      _id: products[(random.int(0, products.length - 1) + k) % products.length]?._id ?? '',
      qty: random.int(1, 3),
    }));
    // Every fourth order also takes a variant.
    const shirt = inVariants[i % inVariants.length];
    if (i % 4 === 0 && shirt) lines.push({ _id: shirt.id, qty: 1, variantId: shirt.variantIds[i % shirt.variantIds.length] });
    const unique = [...new Map(lines.map((l) => [l._id, l])).values()];
    const res = await placeOrder(shopper.client, unique, { ...NAIROBI_ADDRESS, postalCode: String(random.int(100, 99999)) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    shopper.orderIds.push(res.body._id);
    return { shopper, order: res.body as Order };
  });

  // One order of each shopper paid by M-Pesa, each from a number of her own (the simulator takes
  // one prompt per phone at a time).
  const mpesaPaid = shoppers.map((shopper) => ({ shopper, orderId: shopper.orderIds[0] ?? '' }));
  await mapLimit(mpesaPaid, 6, async ({ shopper, orderId }, i) => {
    const order = orders.find((o) => o.order._id === orderId)?.order;
    const phone = `0712${String(100_000 + i).slice(-6)}`;
    const res = await shopper.client.post('/api/orders/stkpush', {
      orderId,
      phoneNumber: phone,
      Amount: Math.ceil(order?.totalPrice ?? 0),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // vi.waitFor rather than expect.poll, which belongs to tests: this runs in beforeAll.
    await vi.waitFor(
      async () => {
        const { body } = await shopper.client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
        if (!body.isPaid) throw new Error(`order ${orderId} was not paid by M-Pesa within 15 s`);
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  // Every fifth order is paid by the admin, and most of those delivered.
  const byMpesa = new Set(mpesaPaid.map((p) => p.orderId));
  const adminPaid = orders.filter((o, i) => i % 5 === 1 && !byMpesa.has(o.order._id));
  let delivered = 0;
  await mapLimit(adminPaid, 4, async ({ order }, i) => {
    expect((await admin.put(`/api/orders/${order._id}`)).status).toBe(200);
    if (i % 4 !== 0) {
      expect((await admin.put(`/api/orders/${order._id}/deliver`)).status).toBe(200);
      delivered += 1;
    }
  });

  let reviews = 0;
  await mapLimit(shoppers, 4, async (shopper, i) => {
    for (let k = 0; k < 3; k++) {
      const product = products[(i + k * 5) % products.length];
      const res = await shopper.client.post(`/api/products/${product?._id}/reviews`, {
        rating: 1 + ((i + k) % 5),
        comment: `Review ${i}/${k}: ${k === 0 ? 'Nzuri sana!' : 'Asante — arrived in Nakuru on time.'}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      reviews += 1;
    }
  });

  const forgot = await shop.client().post('/api/users/forgot-password', { email: shoppers[0]?.email });
  expect(forgot.status).toBe(200);

  return { shoppers, images, orders: orders.length, paidByMpesa: mpesaPaid.length, delivered, reviews };
}

/**
 * Every row of every table of the shop, each table's rows in primary-key order, read as
 * PostgreSQL's jsonb of the whole row (generated columns included, timestamps to the microsecond,
 * numerics exact, bytea as hex). Independent of the export's own reading of the system
 * catalogue (ops/database-contents.ts).
 */
export async function snapshot(target: Target): Promise<Record<string, unknown[]>> {
  const conn = await connect(target);
  try {
    const tables = await conn.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'drizzle')
          -- The catalogue cache's change feed: running shops' bookkeeping, never exported.
          AND table_name NOT IN ('catalog_changes', 'catalog_change_head')
        ORDER BY 1, 2`,
    );
    const result: Record<string, unknown[]> = {};
    for (const { schema, name } of tables) {
      const keys = await conn.query<{ column: string }>(
        `SELECT k.column_name AS column FROM information_schema.table_constraints c
           JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema
          WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = $1 AND c.table_name = $2 ORDER BY k.ordinal_position`,
        [schema, name],
      );
      const order = keys.length > 0 ? keys.map((k) => `t."${k.column}"`).join(', ') : 'to_jsonb(t)::text';
      const rows = await conn.query<{ row: string }>(
        `SELECT to_jsonb(t)::text AS row FROM "${schema}"."${name}" t ORDER BY ${order}`,
      );
      result[`${schema}.${name}`] = rows.map((r) => JSON.parse(r.row));
    }
    return result;
  } finally {
    await conn.close();
  }
}

/** The rows of each table, for messages. */
export function counts(tables: Record<string, unknown[]>): Record<string, number> {
  return Object.fromEntries(Object.entries(tables).map(([name, rows]) => [name, rows.length]));
}

type Row = Record<string, unknown>;

function rowsOf(tables: Record<string, unknown[]>, name: string): Row[] {
  const rows = tables[name];
  if (!rows) throw new Error(`no table ${name} in the snapshot`);
  return rows as Row[];
}

const sorted = (values: unknown[]) => values.map(String).sort();

/**
 * Looks for everything of the original shop through the API of a shop started on the restored or
 * imported database: every order, user, product with its reviews, M-Pesa payment and image, and
 * each shopper signing in with her own password to see her own orders.
 */
export async function verifyThroughApi(shop: OpsShop, built: BuiltShop, before: Record<string, unknown[]>): Promise<void> {
  const admin = await shop.admin();

  const orders = await admin.get<Order[]>('/api/orders');
  expect(orders.status).toBe(200);
  const orderRows = rowsOf(before, 'public.orders');
  expect(sorted(orders.body.map((o) => o._id))).toEqual(sorted(orderRows.map((r) => r.id)));
  expect(orders.body.filter((o) => o.isPaid).length).toBe(orderRows.filter((r) => r.is_paid).length);
  expect(orders.body.filter((o) => o.isDelivered).length).toBe(built.delivered);
  // The lines of a variant keep it.
  const variantLines = rowsOf(before, 'public.order_items').filter((line) => line.variant_id !== null);
  expect(variantLines.length).toBeGreaterThan(0);
  const answeredLines = orders.body.flatMap((o) => o.orderItems).filter((line) => line.variantId);
  expect(sorted(answeredLines.map((line) => `${line.variantId} ${line.variant} ${line.sku}`))).toEqual(
    sorted(variantLines.map((line) => `${line.variant_id} ${line.variant} ${line.sku}`)),
  );

  const users = await admin.get<{ _id: string }[]>('/api/users');
  expect(sorted(users.body.map((u) => u._id))).toEqual(sorted(rowsOf(before, 'public.users').map((r) => r.id)));

  let reviews = 0;
  for (const product of rowsOf(before, 'public.products')) {
    const res = await admin.get<Product>(`/api/products/${String(product.id)}`);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe(product.name);
    expect(res.body.price).toBe(Number(product.price_cents) / 100);
    // Its options and variants, as the original shop held them.
    const variants = rowsOf(before, 'public.product_variants').filter((v) => v.product_id === product.id);
    expect(res.body.options ?? null).toEqual(product.options);
    expect(sorted((res.body.variants ?? []).map((v) => v._id))).toEqual(sorted(variants.map((v) => v.id)));
    for (const variant of res.body.variants ?? []) {
      const row = variants.find((v) => v.id === variant._id);
      expect(variant).toMatchObject({ price: Number(row?.price_cents) / 100, countInStock: row?.count_in_stock, sku: row?.sku });
    }
    expect(res.body.reviews.length).toBe(product.num_reviews);
    reviews += res.body.reviews.length;
  }
  expect(reviews).toBe(built.reviews);
  // The listing's count is derived (catalog_stats, kept by triggers), not copied: it must still be right.
  const listing = await admin.get<{ count: number }>('/api/products');
  expect(listing.body.count).toBe(rowsOf(before, 'public.products').length);

  const receipts = new Map(
    rowsOf(before, 'public.payment_attempts')
      .filter((r) => r.status === 'paid')
      .map((r) => [String(r.order_id), r.mpesa_receipt]),
  );
  expect(receipts.size).toBe(built.paidByMpesa);
  for (const [orderId, receipt] of receipts) {
    const res = await admin.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
    expect(res.body.isPaid).toBe(true);
    expect(res.body.receipt).toBe(receipt);
    expect(res.body.lastAttempt?.status).toBe('paid');
  }

  await mapLimit(built.shoppers, 3, async (shopper) => {
    const client = shop.client();
    await client.signIn(shopper.email, shopper.password);
    const mine = await client.get<Order[]>('/api/orders/myorders');
    expect(sorted(mine.body.map((o) => o._id))).toEqual(sorted(shopper.orderIds));
  });

  for (const image of built.images) {
    const res = await fetch(shop.url + image.path);
    expect(res.status, image.path).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(image.content), image.path).toBe(true);
  }
}

import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PublicSettings, ShopSettings } from '../../src/shared/schemas/settings.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, getProduct, placeOrder } from '../support/fixtures.js';
import { waitForMailAbout } from '../support/outbox.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

const DATABASE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A new shop's settings (migration 0012). */
const DEFAULTS = {
  shopName: 'Duka',
  contactPhone: '',
  contactEmail: '',
  taxPercent: 15,
  shippingFee: 100,
  freeShippingThreshold: 5000,
  lowStockThreshold: 5,
  alertEmail: '',
  alertOnUnpaidOrders: false,
};

async function putSettings(admin: ApiClient, body: Record<string, unknown>): Promise<ShopSettings> {
  const res = await admin.put<ShopSettings>('/api/admin/settings', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The merchant alerts in the mail queue, oldest first. */
async function merchantMail(shop: TestShop): Promise<{ kind: string; to_address: string; subject: string }[]> {
  return queryRows(
    shop.database.db,
    sql`SELECT kind, to_address, subject FROM mail_queue WHERE kind LIKE 'merchant_%' ORDER BY created_at, id`,
  );
}

describe(`shop settings (${DATABASE})`, () => {
  let shop: TestShop;
  let admin: ApiClient;

  beforeAll(async () => {
    shop = await buildTestApp();
    admin = await shop.admin();
  });
  afterEach(async () => {
    await putSettings(admin, DEFAULTS);
  });
  afterAll(() => shop?.stop());

  it('a new shop has the defaults; GET /api/settings answers anyone the storefront share, without the alerts', async () => {
    const all = await admin.get<ShopSettings>('/api/admin/settings');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject(DEFAULTS);
    const open = await shop.client().get<PublicSettings>('/api/settings');
    expect(open.status).toBe(200);
    expect(open.body).toEqual({
      shopName: 'Duka',
      contactPhone: '',
      contactEmail: '',
      taxPercent: 15,
      shippingFee: 100,
      freeShippingThreshold: 5000,
      lowStockThreshold: 5,
    });
    await putSettings(admin, { alertEmail: 'owner@example.com', alertOnUnpaidOrders: true });
    const after = await shop.client().get<Record<string, unknown>>('/api/settings');
    expect(Object.keys(after.body)).not.toContain('alertEmail');
    expect(JSON.stringify(after.body)).not.toContain('owner@example.com');
  });

  it('only an admin reads or changes them', async () => {
    const guest = shop.client();
    const shopper = await shop.shopper();
    expectClientError(await guest.get('/api/admin/settings'), 401);
    expectClientError(await shopper.get('/api/admin/settings'), 403, 'admins only');
    expectClientError(await guest.put('/api/admin/settings', { taxPercent: 0 }), 401);
    expectClientError(await shopper.put('/api/admin/settings', { taxPercent: 0 }), 403);
    expect((await admin.get<ShopSettings>('/api/admin/settings')).body.taxPercent).toBe(15);
  });

  it.each([
    [{ shippingFee: -1 }, 'Delivery fee cannot be negative', 'shippingFee'],
    [{ freeShippingThreshold: -0.01 }, 'Free delivery threshold cannot be negative', 'freeShippingThreshold'],
    [{ shippingFee: 10.001 }, 'Delivery fee can have at most 2 decimals', 'shippingFee'],
    [{ shippingFee: 'free' }, 'Delivery fee must be a number', 'shippingFee'],
    [{ taxPercent: 100.5 }, 'Tax percent must be at most 100', 'taxPercent'],
    [{ taxPercent: -1 }, 'Tax percent cannot be negative', 'taxPercent'],
    [{ lowStockThreshold: 2.5 }, 'Low-stock threshold must be a whole number', 'lowStockThreshold'],
    [{ lowStockThreshold: -1 }, 'Low-stock threshold cannot be negative', 'lowStockThreshold'],
    [{ shopName: '   ' }, 'Shop name is required', 'shopName'],
    [{ shopName: 'x'.repeat(61) }, 'Shop name must be at most 60 characters', 'shopName'],
    [{ contactEmail: 'not-an-email' }, 'Contact email must be a valid email address', 'contactEmail'],
    [{ alertEmail: 'owner@' }, 'Alert email must be a valid email address', 'alertEmail'],
    [{ contactPhone: '0712 34' }, 'Contact phone must be a Safaricom number', 'contactPhone'],
    [{ contactPhone: '0201234567' }, 'Contact phone must be a Safaricom number', 'contactPhone'],
    [{ alertOnUnpaidOrders: 'maybe' }, 'Alert on unpaid orders must be true or false', 'alertOnUnpaidOrders'],
  ])('refuses %j with 400: %s', async (body, msg, path) => {
    const res = await admin.put<{ errors: { msg: string; path?: string }[] }>('/api/admin/settings', body);
    expectClientError(res, 400, msg);
    expect(res.body.errors.map((e) => e.path)).toContain(path);
    // Nothing changed.
    expect((await admin.get<ShopSettings>('/api/admin/settings')).body).toMatchObject(DEFAULTS);
  });

  it('keeps what is left out, writes phones as M-Pesa does and emails in lower case', async () => {
    const saved = await putSettings(admin, {
      shopName: '  Soko Bora  ',
      contactPhone: '0712 345 678',
      contactEmail: 'Hello@Soko.example',
    });
    expect(saved).toMatchObject({
      ...DEFAULTS,
      shopName: 'Soko Bora',
      contactPhone: '254712345678',
      contactEmail: 'hello@soko.example',
    });
    const again = await putSettings(admin, { taxPercent: 16.5, contactPhone: '', contactEmail: '' });
    expect(again).toMatchObject({ ...DEFAULTS, shopName: 'Soko Bora', taxPercent: 16.5 });
    expect((await shop.client().get<PublicSettings>('/api/settings')).body).toMatchObject({
      shopName: 'Soko Bora',
      taxPercent: 16.5,
    });
  });

  it('new orders are priced with the settings of the moment; an order placed before keeps its figures', async () => {
    const product = await createProduct(admin, { price: 1000, countInStock: 50 });
    const shopper = await shop.shopper();
    const before = await placeOrder(shopper, [{ _id: product._id, qty: 2 }]);
    expect(before.status).toBe(201);
    expect(before.body).toMatchObject({ itemsPrice: 2000, shippingPrice: 100, taxPrice: 300, totalPrice: 2400 });

    await putSettings(admin, { taxPercent: 16, shippingFee: 250, freeShippingThreshold: 2500 });
    const after = await placeOrder(shopper, [{ _id: product._id, qty: 2 }]);
    expect(after.body).toMatchObject({ itemsPrice: 2000, shippingPrice: 250, taxPrice: 320, totalPrice: 2570 });
    // Above the new threshold, delivery is free.
    const large = await placeOrder(shopper, [{ _id: product._id, qty: 3 }]);
    expect(large.body).toMatchObject({ itemsPrice: 3000, shippingPrice: 0, taxPrice: 480, totalPrice: 3480 });

    const kept = await shopper.get<Order>(`/api/orders/${before.body._id}`);
    expect(kept.body).toMatchObject({ itemsPrice: 2000, shippingPrice: 100, taxPrice: 300, totalPrice: 2400 });
    // And back to the defaults: the orders priced meanwhile keep theirs.
    await putSettings(admin, DEFAULTS);
    expect((await shopper.get<Order>(`/api/orders/${after.body._id}`)).body.totalPrice).toBe(2570);
    expect((await placeOrder(shopper, [{ _id: product._id, qty: 2 }])).body.totalPrice).toBe(2400);
  });

  it('the shop name is the one the mails carry', async () => {
    await putSettings(admin, { shopName: 'Soko <Bora>' });
    const product = await createProduct(admin, { price: 500, countInStock: 5 });
    const shopper = await shop.shopper();
    expect((await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).status).toBe(201);
    const mail = await waitForMailAbout(shop.config.dataDir, shopper.user?.email ?? '', /Soko <Bora> order/);
    expect(mail).toContain('Soko &lt;Bora&gt;');
    expect(mail).not.toMatch(/>Duka</);
  });
});

describe(`merchant alerts (${DATABASE})`, () => {
  let shop: TestShop;
  let admin: ApiClient;
  const alerts = `alerts-${randomBytes(3).toString('hex')}@example.com`;

  beforeAll(async () => {
    shop = await buildTestApp();
    admin = await shop.admin();
  });
  afterAll(() => shop?.stop());

  async function orderOf(stock: number, qty: number) {
    const product = await createProduct(admin, {
      name: `Alert probe ${randomBytes(3).toString('hex')}`,
      price: 700,
      countInStock: stock,
    });
    const shopper = await shop.shopper();
    const order = await placeOrder(shopper, [{ _id: product._id, qty }]);
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    return { product, order: order.body };
  }

  async function newAlerts(action: () => Promise<unknown>) {
    const before = (await merchantMail(shop)).length;
    await action();
    return (await merchantMail(shop)).slice(before);
  }

  it('a paid order sends one alert; an unpaid one none unless the merchant asks', async () => {
    await putSettings(admin, { alertEmail: alerts, alertOnUnpaidOrders: false, lowStockThreshold: 0 });
    let order: Order | undefined;
    expect(
      await newAlerts(async () => {
        order = (await orderOf(20, 1)).order;
      }),
    ).toEqual([]);
    const paid = await newAlerts(async () => {
      expect((await admin.put(`/api/orders/${order?._id}`)).status).toBe(200);
    });
    expect(paid).toEqual([
      { kind: 'merchant_new_order', to_address: alerts, subject: expect.stringMatching(/^New paid order /) },
    ]);
    const mail = await waitForMailAbout(shop.config.dataDir, alerts, new RegExp(`New paid order ${order?.orderNumber}`));
    expect(mail).toContain(`/order/${order?._id}`);

    await putSettings(admin, { alertOnUnpaidOrders: true });
    const unpaid = await newAlerts(() => orderOf(20, 1));
    expect(unpaid).toEqual([
      { kind: 'merchant_new_order', to_address: alerts, subject: expect.stringMatching(/^New order \w+ \(not paid yet\)/) },
    ]);
    await putSettings(admin, { alertOnUnpaidOrders: false });
  });

  it('an order that leaves stock at or below the threshold sends one low-stock alert', async () => {
    await putSettings(admin, { alertEmail: alerts, lowStockThreshold: 5 });
    // 7 - 1 = 6: above the threshold, no alert.
    expect(await newAlerts(() => orderOf(7, 1))).toEqual([]);
    let product: { _id: string; name: string } | undefined;
    const low = await newAlerts(async () => {
      product = (await orderOf(7, 2)).product;
    });
    expect(low).toEqual([{ kind: 'merchant_low_stock', to_address: alerts, subject: `Low stock: ${product?.name} (5 left)` }]);
    const mail = await waitForMailAbout(shop.config.dataDir, alerts, /^Low stock/);
    expect(mail).toContain(`/admin/product/${product?._id}/edit`);
    expect((await getProduct(admin, product?._id ?? '')).countInStock).toBe(5);
  });

  it('a payment exception sends one alert', async () => {
    await putSettings(admin, { alertEmail: alerts, lowStockThreshold: 0 });
    const { order } = await orderOf(20, 1);
    const amount = Math.ceil(order.totalPrice);
    const receipt = () => `AL${randomBytes(4).toString('hex').toUpperCase()}`;
    const credited = await newAlerts(async () => {
      expect((await admin.post('/api/admin/payments', { orderId: order._id, receipt: receipt(), amount })).status).toBe(201);
    });
    // Paying the order is the paid-order alert, not an exception.
    expect(credited.map((m) => m.kind)).toEqual(['merchant_new_order']);
    const twice = await newAlerts(async () => {
      expect((await admin.post('/api/admin/payments', { orderId: order._id, receipt: receipt(), amount })).status).toBe(201);
    });
    expect(twice).toEqual([
      { kind: 'merchant_payment_exception', to_address: alerts, subject: expect.stringMatching(/^Payment needs attention/) },
    ]);
    const mail = await waitForMailAbout(shop.config.dataDir, alerts, /^Payment needs attention/);
    expect(mail).toContain('Paid twice');
    expect(mail).toContain(order.orderNumber);
  });

  it('with no alert address, none of them sends anything', async () => {
    await putSettings(admin, { alertEmail: '', alertOnUnpaidOrders: true, lowStockThreshold: 5 });
    const none = await newAlerts(async () => {
      const { order } = await orderOf(3, 1);
      expect((await admin.put(`/api/orders/${order._id}`)).status).toBe(200);
      const receipt = `NA${randomBytes(4).toString('hex').toUpperCase()}`;
      expect(
        (await admin.post('/api/admin/payments', { orderId: order._id, receipt, amount: Math.ceil(order.totalPrice) })).status,
      ).toBe(201);
    });
    expect(none).toEqual([]);
    // The shopper's own mails still go.
    const [row] = await queryRows<{ n: number }>(
      shop.database.db,
      sql`SELECT count(*)::int AS n FROM mail_queue WHERE kind = 'order_paid'`,
    );
    expect(row?.n).toBeGreaterThan(0);
  });
});

// Several instances need a database they can share: PostgreSQL.
describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
  describe.each([
    ['sharing only PostgreSQL', false],
    ['sharing PostgreSQL and Redis', true],
  ])('settings across two instances %s', (_title, withRedis) => {
    const prefix = `duka-test:${randomBytes(6).toString('hex')}:`;
    let first: TestShop;
    let second: TestShop;
    let admin: ApiClient;

    beforeAll(async () => {
      const redisEnv: Record<string, string> = withRedis ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {};
      first = await buildTestApp(redisEnv);
      second = await buildTestApp({ ...redisEnv, DATABASE_URL: first.config.databaseUrl ?? '' });
      admin = await first.admin();
    }, 120_000);
    afterAll(async () => {
      await second?.stop();
      await first?.stop();
    });

    it('a change made through one is what the other answers and prices with, on the very next request', async () => {
      const product = await createProduct(admin, { price: 1000, countInStock: 100 });
      const shopper = await second.shopper();
      const elsewhere = second.client();
      for (let round = 1; round <= 5; round += 1) {
        // Warm the other instance's cache with the current settings, then change them here.
        expect((await elsewhere.get<PublicSettings>('/api/settings')).status).toBe(200);
        const fee = 100 + round * 10;
        await putSettings(admin, { shippingFee: fee, shopName: `Shop ${round}` });
        expect((await elsewhere.get<PublicSettings>('/api/settings')).body).toMatchObject({
          shippingFee: fee,
          shopName: `Shop ${round}`,
        });
        const order = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
        expect(order.body.shippingPrice).toBe(fee);
      }
    });
  });
});

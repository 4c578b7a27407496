import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { dbQueries } from '../../src/server/metrics.js';
import { DASHBOARD_CHART_DAYS, DEFAULT_LOW_STOCK_THRESHOLD } from '../../src/shared/constants.js';
import { addDays, monthStart, nairobiDay, weekStart } from '../../src/shared/dates.js';
import type { Dashboard } from '../../src/shared/schemas/dashboard.js';
import type { Order, OrderPage } from '../../src/shared/schemas/orders.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * The admin dashboard against orders whose times are set relative to now: paid today, earlier this
 * week and month, before the chart's 30 days; unpaid for more and less than a day; delivered or
 * not. Every expected figure is worked out here from those times with the shop's Nairobi calendar.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

interface Planned {
  /** Hours before now it was placed. */
  placedHoursAgo: number;
  /** Hours before now it was paid; undefined when unpaid. */
  paidHoursAgo?: number;
  delivered?: boolean;
  totalCents: number;
}

/** Paid at many distances from now, so today, the week, the month and the chart each keep a different set. */
const PLANNED: Planned[] = [
  { placedHoursAgo: 0.2, paidHoursAgo: 0.1, totalCents: 123_450 },
  { placedHoursAgo: 30, paidHoursAgo: 2, delivered: true, totalCents: 50_000 },
  { placedHoursAgo: 26, paidHoursAgo: 25, totalCents: 70_010 },
  ...[2, 3, 4, 5, 6, 8, 12, 17, 22, 27, 29, 31, 33, 45, 60].map((days, i) => ({
    placedHoursAgo: days * 24 + 3,
    paidHoursAgo: days * 24 + 1,
    delivered: i % 3 === 0,
    totalCents: 10_000 * (i + 1) + 99,
  })),
  // Unpaid: two for more than a day, one for less.
  { placedHoursAgo: 25, totalCents: 11_500 },
  { placedHoursAgo: 72, totalCents: 22_500 },
  { placedHoursAgo: 23, totalCents: 33_500 },
];

let shop: TestShop;
let admin: ApiClient;
let shopperId: string;
let apiPaid: Order;
let apiUnpaid: Order;
let orderCount = 0;

async function insertOrders(planned: Planned[], now: number): Promise<void> {
  for (const order of planned) {
    orderCount += 1;
    const placed = new Date(now - order.placedHoursAgo * HOUR).toISOString();
    const paid = order.paidHoursAgo === undefined ? null : new Date(now - order.paidHoursAgo * HOUR).toISOString();
    await shop.database.db.execute(sql`
      INSERT INTO orders (number, user_id, county, phone_number, postal_code, sub_county, ward,
                          items_cents, shipping_cents, tax_cents, total_cents,
                          is_paid, paid_at, is_delivered, delivered_at, created_at, updated_at)
      VALUES (${`DASH${String(orderCount).padStart(4, '0')}`}, ${shopperId}, 'Nairobi', '0712345678', '00100', 'Westlands', 'Parklands',
              ${order.totalCents}, 0, 0, ${order.totalCents},
              ${paid !== null}, ${paid}::timestamptz, ${order.delivered ?? false},
              ${order.delivered ? paid : null}::timestamptz, ${placed}::timestamptz, ${placed}::timestamptz)`);
  }
}

beforeAll(async () => {
  // The reconciler stays asleep, so the statements counted below are the dashboard's own.
  shop = await buildTestApp({ MPESA_RECONCILE_INTERVAL_MS: String(HOUR) });
  await shop.mail.stop();
  admin = await shop.admin();
  const shopper = await shop.shopper('Dashboard Shopper');
  shopperId = shopper.user?._id ?? '';
  const db = shop.database.db;

  // Stock: everything plentiful, then three products at 0, the threshold and one above, and a draft at 0.
  await db.execute(sql`UPDATE products SET count_in_stock = 50`);
  const empty = await createProduct(admin, { name: 'Kiondo Basket', countInStock: 0 });
  const atThreshold = await createProduct(admin, { name: 'Jiko Stove', countInStock: DEFAULT_LOW_STOCK_THRESHOLD });
  await createProduct(admin, { name: 'Sufuria Set', countInStock: DEFAULT_LOW_STOCK_THRESHOLD + 1 });
  expect((await admin.post('/api/products')).status).toBe(201); // a draft, stock 0: not on sale, not low stock
  expect(empty.countInStock + atThreshold.countInStock).toBe(DEFAULT_LOW_STOCK_THRESHOLD);

  // Two orders through the API: one paid now (today), one unpaid and new.
  const plenty = await createProduct(admin, { name: 'Maasai Shuka', price: 1500, countInStock: 40 });
  apiPaid = (await placeOrder(shopper, [{ _id: plenty._id, qty: 2 }])).body;
  apiUnpaid = (await placeOrder(shopper, [{ _id: plenty._id, qty: 1 }])).body;
  const paid = await admin.put<Order>(`/api/orders/${apiPaid._id}`);
  expect(paid.status).toBe(200);
  apiPaid = paid.body;

  await insertOrders(PLANNED, Date.now());

  // Payments: two open exceptions (one not credited, one credited but flagged), one resolved.
  await db.execute(sql`
    INSERT INTO mpesa_payments (receipt, amount_cents, phone, source, order_id, status, exception, note)
    VALUES ('DASHEXC001', 100000, '254712345678', 'c2b', NULL, 'exception', 'unmatched', NULL),
           ('DASHEXC002', 150000, '254712345678', 'c2b', ${apiPaid._id}, 'credited', 'overpaid', NULL),
           ('DASHEXC003', 100000, '254712345678', 'c2b', NULL, 'resolved', 'unmatched', 'Refunded by hand')`);
});
afterAll(() => shop?.stop());

/** What the database holds, read back as the rule: paid orders with their paid time and total. */
async function paidOrders(): Promise<{ paidAt: Date; cents: number }[]> {
  const rows = await queryRows<{ paid_at: string; total_cents: number }>(
    shop.database.db,
    sql`SELECT paid_at::text, total_cents FROM orders WHERE is_paid`,
  );
  return rows.map((r) => ({ paidAt: new Date(r.paid_at), cents: r.total_cents }));
}

function expectedSales(paid: { paidAt: Date; cents: number }[], first: string, last: string) {
  const kept = paid.filter((p) => nairobiDay(p.paidAt) >= first && nairobiDay(p.paidAt) <= last);
  return { total: kept.reduce((sum, p) => sum + p.cents, 0) / 100, orders: kept.length };
}

async function dashboard(client: ApiClient = admin): Promise<Dashboard> {
  const res = await client.get<Dashboard>('/api/admin/dashboard');
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return res.body;
}

describe('GET /api/admin/dashboard', () => {
  it('adds up paid orders by the Nairobi day they were paid: today, this week from Monday, this month', async () => {
    const answer = await dashboard();
    const today = answer.today;
    expect([nairobiDay(new Date()), nairobiDay(new Date(Date.now() - 60_000))]).toContain(today);
    const paid = await paidOrders();
    expect(answer.sales.today).toEqual(expectedSales(paid, today, today));
    expect(answer.sales.week).toEqual(expectedSales(paid, weekStart(today), today));
    expect(answer.sales.month).toEqual(expectedSales(paid, monthStart(today), today));
    // The API's own order, paid just now, is among today's.
    expect(nairobiDay(apiPaid.paidAt)).toBe(today);
    expect(answer.sales.today.orders).toBeGreaterThanOrEqual(2);
    expect(answer.sales.today.total).toBeGreaterThanOrEqual(apiPaid.totalPrice + 1234.5);
  });

  it('charts the last 30 days, oldest first, with zeros on days without sales and nothing from before', async () => {
    const answer = await dashboard();
    const paid = await paidOrders();
    const first = addDays(answer.today, -(DASHBOARD_CHART_DAYS - 1));
    expect(answer.dailySales.map((d) => d.day)).toEqual(
      Array.from({ length: DASHBOARD_CHART_DAYS }, (_, i) => addDays(first, i)),
    );
    for (const day of answer.dailySales) {
      expect({ total: day.total, orders: day.orders }, day.day).toEqual(expectedSales(paid, day.day, day.day));
    }
    const charted = answer.dailySales.reduce((sum, d) => sum + d.orders, 0);
    expect(charted).toBe(paid.filter((p) => nairobiDay(p.paidAt) >= first).length);
    // Orders paid 31, 33, 45 and 60 days ago are outside it.
    expect(charted).toBeLessThan(paid.length);
    expect(answer.dailySales.some((d) => d.orders === 0)).toBe(true);
  });

  it('counts orders to deliver, unpaid orders older than a day, open payment exceptions, and low stock', async () => {
    const answer = await dashboard();
    const toDeliver = PLANNED.filter((o) => o.paidHoursAgo !== undefined && !o.delivered).length + 1; // + the API's paid order
    expect(answer.toDeliver).toBe(toDeliver);
    expect(answer.unpaidOverdue.count).toBe(PLANNED.filter((o) => o.paidHoursAgo === undefined && o.placedHoursAgo > 24).length);
    expect(answer.unpaidOverdue.count).toBe(2);
    expect(Date.now() - Date.parse(answer.unpaidOverdue.placedBefore)).toBeGreaterThanOrEqual(DAY);
    expect(Date.now() - Date.parse(answer.unpaidOverdue.placedBefore)).toBeLessThan(DAY + 60_000);
    expect(answer.openExceptions).toBe(2);
    expect(answer.lowStock).toEqual({
      threshold: DEFAULT_LOW_STOCK_THRESHOLD,
      count: 2,
      products: [
        expect.objectContaining({ name: 'Kiondo Basket', countInStock: 0 }),
        expect.objectContaining({ name: 'Jiko Stove', countInStock: DEFAULT_LOW_STOCK_THRESHOLD }),
      ],
    });
  });

  it("counts low stock at the shop's own threshold once the merchant sets one", async () => {
    const raised = DEFAULT_LOW_STOCK_THRESHOLD + 1;
    expect((await admin.put('/api/admin/settings', { lowStockThreshold: raised })).status).toBe(200);
    try {
      const answer = await dashboard();
      expect(answer.lowStock.threshold).toBe(raised);
      expect(answer.lowStock.products.map((p) => p.name)).toContain('Sufuria Set');
      expect(answer.lowStock.count).toBe(3);
    } finally {
      await admin.put('/api/admin/settings', { lowStockThreshold: DEFAULT_LOW_STOCK_THRESHOLD });
    }
  });

  it('links to lists that show exactly the orders it counts', async () => {
    const answer = await dashboard();
    const toDeliver = await admin.get<OrderPage>('/api/orders?isPaid=true&isDelivered=false&pageNumber=1');
    expect(toDeliver.status).toBe(200);
    expect(toDeliver.body.orders).toHaveLength(answer.toDeliver);
    const overdue = await admin.get<OrderPage>(
      `/api/orders?isPaid=false&to=${encodeURIComponent(answer.unpaidOverdue.placedBefore)}&pageNumber=1`,
    );
    expect(overdue.status).toBe(200);
    expect(overdue.body.orders).toHaveLength(answer.unpaidOverdue.count);
    expect(overdue.body.orders.map((o) => o._id)).not.toContain(apiUnpaid._id);
    const exceptions = await admin.get<{ payments: unknown[] }>('/api/admin/payments?status=exception');
    expect(exceptions.body.payments).toHaveLength(answer.openExceptions);
  });

  it('runs the same few statements whatever the number of orders', async () => {
    // The fewest of three tries: the shop's background work (a mail check, a session's first
    // request) can only add statements.
    const statements = async () => {
      let fewest = Number.POSITIVE_INFINITY;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const before = (await dbQueries.get()).values[0]?.value ?? 0;
        await dashboard();
        fewest = Math.min(fewest, ((await dbQueries.get()).values[0]?.value ?? 0) - before);
      }
      return fewest;
    };
    // Warm first: its three queries run side by side, and the pool's first connections to them
    // send their own setup statements.
    for (let i = 0; i < 3; i += 1) await dashboard();
    const few = await statements();
    // A thousand more orders, paid on every day of the chart.
    await shop.database.db.execute(sql`
      INSERT INTO orders (number, user_id, county, phone_number, postal_code, sub_county, ward,
                          items_cents, shipping_cents, tax_cents, total_cents, is_paid, paid_at, created_at, updated_at)
      SELECT 'BULK' || lpad(g::text, 5, '0'), ${shopperId}, 'Nairobi', '0712345678', '00100', 'Westlands', 'Parklands',
             1000, 0, 0, 1000, true, now() - (g % 30) * interval '1 day', now() - (g % 30) * interval '1 day', now()
        FROM generate_series(1, 1000) g`);
    const many = await statements();
    expect(many).toBe(few);
    // The session's own look-up, then the dashboard's three queries.
    expect(few).toBe(4);
  });

  it('is for admins only: 401 for a guest, 403 for a shopper, in the usual error shape', async () => {
    expectClientError(await shop.client().get('/api/admin/dashboard'), 401);
    expectClientError(await (await shop.shopper()).get('/api/admin/dashboard'), 403);
  });
});

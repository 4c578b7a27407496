import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, nairobiDay } from '../../src/shared/dates.js';
import type { Dashboard } from '../../src/shared/schemas/dashboard.js';
import type { Order, OrderPage } from '../../src/shared/schemas/orders.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * Every day the admin filters or counts by is a Nairobi day, the day the lists show. The one order
 * here is placed at 01:30 in Nairobi and paid at 01:40: stored in UTC, that is 22:30 on the day
 * before, so a UTC day would put it there. Its day is three days ago, inside the dashboard's chart
 * whatever the time of the run.
 */
const MINUTE = 60 * 1000;

let shop: TestShop;
let admin: ApiClient;
let order: Order;
/** The Nairobi day the order is placed on, and the day before it. */
let day: string;
let dayBefore: string;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  const shopper = await shop.shopper('Early Shopper');
  const product = await createProduct(admin, { name: 'Kikoi', price: 800, countInStock: 5 });
  const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
  expect(placed.status).toBe(201);
  expect((await admin.put(`/api/orders/${placed.body._id}`)).status).toBe(200);

  day = addDays(nairobiDay(new Date()), -3);
  dayBefore = addDays(day, -1);
  // The API places and pays orders now: the times are set in the database instead.
  const placedAt = new Date(`${day}T01:30:00+03:00`);
  const paidAt = new Date(placedAt.getTime() + 10 * MINUTE);
  await shop.database.db.execute(sql`
    UPDATE orders SET created_at = ${placedAt.toISOString()}::timestamptz, updated_at = ${paidAt.toISOString()}::timestamptz,
                      paid_at = ${paidAt.toISOString()}::timestamptz
     WHERE id = ${placed.body._id}`);
  const read = await admin.get<Order>(`/api/orders/${placed.body._id}`);
  expect(read.status).toBe(200);
  order = read.body;
  // Stored on the UTC day before, shown on its Nairobi day.
  expect(order.createdAt.slice(0, 10)).toBe(dayBefore);
  expect(nairobiDay(order.createdAt)).toBe(day);
  expect(nairobiDay(order.paidAt)).toBe(day);
});
afterAll(() => shop?.stop());

/** The ids of the orders the admin list keeps for a query. */
async function listed(query: string): Promise<string[]> {
  const res = await admin.get<OrderPage>(`/api/orders?${query}&pageNumber=1`);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return res.body.orders.map((o) => o._id);
}

/** The ids of the orders the CSV export keeps for a query. */
async function exported(query: string): Promise<string[]> {
  const res = await admin.get<string>(`/api/admin/exports/orders.csv?${query}`);
  expect(res.status).toBe(200);
  const rows = parse(res.body, { bom: true, columns: true }) as Record<string, string>[];
  return rows.map((row) => row['Order id'] ?? '');
}

describe('an order placed at 01:30 in Nairobi', () => {
  it('is in the admin order list filtered on its Nairobi day, and not on the day before', async () => {
    expect(await listed(`from=${day}&to=${day}`)).toEqual([order._id]);
    expect(await listed(`from=${day}`)).toEqual([order._id]);
    expect(await listed(`to=${day}`)).toEqual([order._id]);
    expect(await listed(`from=${dayBefore}&to=${dayBefore}`)).toEqual([]);
    expect(await listed(`to=${dayBefore}`)).toEqual([]);
  });

  it('is in the CSV export filtered on its Nairobi day, placed at 01:30 EAT, and not on the day before', async () => {
    const res = await admin.get<string>(`/api/admin/exports/orders.csv?from=${day}&to=${day}`);
    expect(res.status).toBe(200);
    const rows = parse(res.body, { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row['Order id'])).toEqual([order._id]);
    expect(rows[0]?.['Placed (EAT)']).toBe(`${day} 01:30:00`);
    expect(await exported(`from=${dayBefore}&to=${dayBefore}`)).toEqual([]);
    expect(await exported(`to=${dayBefore}`)).toEqual([]);
  });

  it('counts on its Nairobi day on the dashboard, and not on the day before', async () => {
    const res = await admin.get<Dashboard>('/api/admin/dashboard');
    expect(res.status).toBe(200);
    const sales = (d: string) => res.body.dailySales.find((s) => s.day === d);
    expect(sales(day)).toEqual({ day, total: order.totalPrice, orders: 1 });
    expect(sales(dayBefore)).toEqual({ day: dayBefore, total: 0, orders: 0 });
  });
});

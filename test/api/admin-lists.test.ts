import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { listOrdersPage } from '../../src/server/domain/orders.js';
import { ADMIN_LIST_PAGE_SIZE } from '../../src/shared/constants.js';
import type { Order, OrderPage } from '../../src/shared/schemas/orders.js';
import type { PublicUser, UserPage } from '../../src/shared/schemas/users.js';
import { explainStatement, recordingDb } from '../../tools/bench/explain.js';
import type { ApiClient } from '../support/client.js';
import { expectClientError } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * The admin order and user lists at a realistic size: 10,000 orders of 100 shoppers, written in
 * bulk with SQL (not through the API, which would take minutes). Order g (1…10,000) is placed at
 * 2026-01-01 + 10 g minutes by shopper g % 100 + 1, ships to phone 07 followed by g in 8 digits,
 * is paid when g % 3 = 0 and delivered when g % 6 = 0. Every expected answer below is worked
 * out from that rule, not read back from the database.
 */
const ORDERS = 10_000;
const SHOPPERS = 100;
const START = Date.parse('2026-01-01T00:00:00Z');
const createdAt = (g: number) => START + g * 10 * 60_000;
const isPaid = (g: number) => g % 3 === 0;
const isDelivered = (g: number) => g % 6 === 0;
const shopperOf = (g: number) => (g % SHOPPERS) + 1;
const all = Array.from({ length: ORDERS }, (_, i) => i + 1);
/** Newest first, as the lists answer. */
const newestFirst = (gs: number[]) => [...gs].sort((a, b) => b - a);

let shop: TestShop;
let admin: ApiClient;
/** Order g's id. */
const idOf = new Map<number, string>();
const gOf = new Map<string, number>();

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  const db = shop.database.db;
  const before = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM orders`);
  expect(before[0]?.n).toBe(0);
  await db.execute(sql`
    INSERT INTO users (name, email, password_hash, created_at)
    SELECT 'Bulk Shopper ' || lpad(s::text, 3, '0'), 'bulk' || lpad(s::text, 3, '0') || '@Example.com'::text, 'not-a-hash',
           timestamptz '2025-06-01' + s * interval '1 minute'
      FROM generate_series(1, ${SHOPPERS}) s`);
  await db.execute(sql`UPDATE users SET email = lower(email) WHERE email LIKE 'bulk%'`);
  await db.execute(sql`
    INSERT INTO orders (number, user_id, county, phone_number, postal_code, sub_county, ward,
                        items_cents, shipping_cents, tax_cents, total_cents,
                        is_paid, paid_at, is_delivered, delivered_at, created_at, updated_at)
    SELECT 'T' || translate(lpad(g::text, 7, '0'), '01', 'AB'), u.id, 'Nairobi', '07' || lpad(g::text, 8, '0'), '00100', 'Westlands', 'Parklands',
           100000, 0, 15000, 115000,
           g % 3 = 0, CASE WHEN g % 3 = 0 THEN t END, g % 6 = 0, CASE WHEN g % 6 = 0 THEN t END, t, t
      FROM generate_series(1, ${ORDERS}) g
      CROSS JOIN LATERAL (SELECT timestamptz '2026-01-01 00:00:00+00' + g * interval '10 minutes' AS t) at
      JOIN users u ON u.email = 'bulk' || lpad(((g % ${SHOPPERS}) + 1)::text, 3, '0') || '@example.com'`);
  const ids = await queryRows<{ id: string; phone: string }>(db, sql`SELECT id, phone_number AS phone FROM orders`);
  for (const row of ids) {
    const g = Number(row.phone.slice(2));
    idOf.set(g, row.id);
    gOf.set(row.id, g);
  }
  expect(idOf.size).toBe(ORDERS);
}, 120_000);
afterAll(() => shop?.stop());

async function orderPage(query: string): Promise<OrderPage> {
  const res = await admin.get<OrderPage>(`/api/orders?${query}`);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  expect(Array.isArray(res.body)).toBe(false);
  return res.body;
}

/** The orders of a page as their g numbers. */
const numbers = (orders: Order[]) => orders.map((o) => gOf.get(o._id));

/** The whole list of matches, page by page, checking each page's size and pages count. */
async function everyPage(query: string, expected: number[]): Promise<void> {
  const pages = Math.max(1, Math.ceil(expected.length / ADMIN_LIST_PAGE_SIZE));
  const first = await orderPage(`${query}&pageNumber=1`);
  expect(first.pages).toBe(pages);
  expect(numbers(first.orders)).toEqual(expected.slice(0, ADMIN_LIST_PAGE_SIZE));
  const last = await orderPage(`${query}&pageNumber=${pages}`);
  expect(last.page).toBe(pages);
  expect(numbers(last.orders)).toEqual(expected.slice((pages - 1) * ADMIN_LIST_PAGE_SIZE));
}

describe('GET /api/orders at 10,000 orders', () => {
  it('answers the plain array of every order, newest first, without parameters', async () => {
    const res = await admin.get<Order[]>('/api/orders');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(ORDERS);
    expect(numbers(res.body.slice(0, 3))).toEqual([ORDERS, ORDERS - 1, ORDERS - 2]);
  }, 60_000);

  it('pages with pageNumber: {orders, page, pages}, 20 a page, empty past the last', async () => {
    const first = await orderPage('pageNumber=1');
    expect(Object.keys(first).sort()).toEqual(['orders', 'page', 'pages']);
    expect(first).toMatchObject({ page: 1, pages: ORDERS / ADMIN_LIST_PAGE_SIZE });
    expect(numbers(first.orders)).toEqual(newestFirst(all).slice(0, ADMIN_LIST_PAGE_SIZE));
    expect(first.orders[0]?.user?.name).toBe(`Bulk Shopper ${String(shopperOf(ORDERS)).padStart(3, '0')}`);
    const middle = await orderPage('pageNumber=137');
    expect(numbers(middle.orders)).toEqual(newestFirst(all).slice(136 * 20, 137 * 20));
    expect((await orderPage('pageNumber=501')).orders).toEqual([]);
  });

  it.each([
    ['isPaid=true', (g: number) => isPaid(g)],
    ['isPaid=false', (g: number) => !isPaid(g)],
    ['isDelivered=true', (g: number) => isDelivered(g)],
    ['isPaid=true&isDelivered=false', (g: number) => isPaid(g) && !isDelivered(g)],
    ['isPaid=false&isDelivered=false', (g: number) => !isPaid(g) && !isDelivered(g)],
  ])('filters %s', async (query, keep) => {
    await everyPage(query, newestFirst(all.filter(keep)));
  });

  it('filters by a date range of whole Nairobi days, both ends included', async () => {
    // A Nairobi day (UTC+3) runs from 21:00 UTC on the day before.
    const inRange = (g: number) =>
      createdAt(g) >= Date.parse('2026-01-10T00:00:00+03:00') && createdAt(g) < Date.parse('2026-01-13T00:00:00+03:00');
    const expected = newestFirst(all.filter(inRange));
    expect(expected).toHaveLength(432);
    await everyPage('from=2026-01-10&to=2026-01-12', expected);
    // Only an end, an instant, and with another filter.
    await everyPage('to=2026-01-01', newestFirst(all.filter((g) => createdAt(g) < Date.parse('2026-01-02T00:00:00+03:00'))));
    await everyPage(
      'from=2026-03-01T12:00:00Z&isPaid=true',
      newestFirst(all.filter((g) => createdAt(g) >= Date.parse('2026-03-01T12:00:00Z') && isPaid(g))),
    );
  });

  it('searches by order number (as read out), order id (whole or its first characters), shopper name or email, and phone in either spelling', async () => {
    // Order 4321's number is 'T' and 0004321 with 0 written A and 1 written B: 'TAAA432B', typed in lower case with a space.
    expect(numbers((await orderPage('keyword=taaa%20432b')).orders)).toEqual([4321]);
    const id = idOf.get(4321) ?? '';
    expect(numbers((await orderPage(`keyword=${id}`)).orders)).toEqual([4321]);
    const prefix = await orderPage(`keyword=${id.slice(0, 8).toUpperCase()}`);
    expect(numbers(prefix.orders)).toContain(4321);
    const ofShopper7 = newestFirst(all.filter((g) => shopperOf(g) === 7));
    await everyPage('keyword=bulk%20SHOPPER%20007', ofShopper7);
    await everyPage('keyword=BULK007%40example', ofShopper7);
    expect(numbers((await orderPage('keyword=0700004321')).orders)).toEqual([4321]);
    expect(numbers((await orderPage('keyword=%2B254700004321')).orders)).toEqual([4321]);
    expect(numbers((await orderPage('keyword=254%20700%20004%20321')).orders)).toEqual([4321]);
    // LIKE's wildcards are only characters: "%" matches no name.
    expect((await orderPage('keyword=%25')).orders).toEqual([]);
    // A search combines with the filters: shopper 7's paid, undelivered orders ("to deliver").
    await everyPage(
      'keyword=bulk007&isPaid=true&isDelivered=false',
      ofShopper7.filter((g) => isPaid(g) && !isDelivered(g)),
    );
  });

  it.each([
    ['colour=red', 'Unknown parameter: colour'],
    ['isPaid=maybe', 'true or false'],
    ['isDelivered=1', 'true or false'],
    ['pageNumber=0', 'pageNumber'],
    ['pageNumber=abc', 'pageNumber'],
    ['from=yesterday', 'from must be a date'],
    ['to=2026-02-30', 'to is not a real date'],
    ['from=2026-02-02&to=2026-02-01', 'from must not be after to'],
    [`keyword=${'x'.repeat(101)}`, 'at most 100'],
  ])('refuses %s with 400', async (query, msg) => {
    expectClientError(await admin.get(`/api/orders?${query}`), 400, msg);
  });

  it('reads a page off an index, never sorting the 10,000 orders: unfiltered, paid, and to deliver', async () => {
    await shop.database.db.execute(sql`ANALYZE orders`);
    const { db, recorded } = recordingDb(shop.database);
    for (const filters of [{}, { isPaid: true }, { isPaid: true, isDelivered: false }]) {
      recorded.length = 0;
      await listOrdersPage(db, { pageNumber: 2, ...filters });
      const pageQuery = recorded.find((statement) => /^select "id" from "orders"/.test(statement.sql));
      if (!pageQuery) throw new Error(`no page query among ${recorded.map((statement) => statement.sql).join('\n')}`);
      const plan = await explainStatement(shop.database, pageQuery);
      expect(
        plan.filter((line) => /\bSort\b/.test(line)),
        `${JSON.stringify(filters)}\n${plan.join('\n')}`,
      ).toEqual([]);
    }
  });

  it('is for admins only, paged or not', async () => {
    const shopper = await shop.shopper();
    expectClientError(await shopper.get('/api/orders?pageNumber=1'), 403);
    expectClientError(await shop.client().get('/api/orders?isPaid=true'), 401);
  });
});

describe('GET /api/users paged', () => {
  it('answers the plain array without parameters', async () => {
    const res = await admin.get<PublicUser[]>('/api/users');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.length).toBeGreaterThanOrEqual(SHOPPERS + 1);
  });

  it('pages, searches by name or email, and filters admins', async () => {
    const plain = (await admin.get<PublicUser[]>('/api/users')).body;
    // The plain list is oldest first (the specification's client expects it); pages are newest first.
    const newest = [...plain].reverse();
    const first = await admin.get<UserPage>('/api/users?pageNumber=1');
    expect(first.status).toBe(200);
    expect(first.body.pages).toBe(Math.ceil(plain.length / ADMIN_LIST_PAGE_SIZE));
    expect(first.body.users).toEqual(newest.slice(0, ADMIN_LIST_PAGE_SIZE));
    const second = (await admin.get<UserPage>('/api/users?pageNumber=2')).body;
    expect(second.users).toEqual(newest.slice(ADMIN_LIST_PAGE_SIZE, 2 * ADMIN_LIST_PAGE_SIZE));

    const byName = (await admin.get<UserPage>('/api/users?keyword=shopper%2004')).body;
    expect(byName.users.map((u) => u.name)).toEqual(Array.from({ length: 10 }, (_, i) => `Bulk Shopper 04${9 - i}`));
    const byEmail = (await admin.get<UserPage>('/api/users?keyword=BULK099%40')).body;
    expect(byEmail).toEqual({ users: [expect.objectContaining({ email: 'bulk099@example.com' })], page: 1, pages: 1 });
    const admins = (await admin.get<UserPage>('/api/users?isAdmin=true')).body;
    expect(admins.users.length).toBeGreaterThan(0);
    expect(admins.users.every((u) => u.isAdmin)).toBe(true);
    expect(admins.users).toEqual(newest.filter((u) => u.isAdmin).slice(0, ADMIN_LIST_PAGE_SIZE));
  });

  it.each([
    ['role=admin', 'Unknown parameter: role'],
    ['isAdmin=yes', 'isAdmin must be true or false'],
    ['pageNumber=-1', 'pageNumber'],
  ])('refuses %s with 400', async (query, msg) => {
    expectClientError(await admin.get(`/api/users?${query}`), 400, msg);
  });

  it('is for admins only', async () => {
    expectClientError(await (await shop.shopper()).get('/api/users?pageNumber=1'), 403);
  });
});

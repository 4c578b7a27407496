import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { EXPORT_BATCH_SIZE, ORDER_CSV_HEADER, PAYMENT_CSV_HEADER } from '../../src/server/domain/exports.js';
import { dbQueries } from '../../src/server/metrics.js';
import { nairobiSecond } from '../../src/shared/dates.js';
import type { Order, OrderPage } from '../../src/shared/schemas/orders.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';

/**
 * The CSV exports, parsed back and compared with the database row by row. 2,500 orders and 2,500
 * payments are written in bulk with SQL (order g is placed at 2026-03-01 + g minutes, paid when
 * g % 2 = 0, delivered when g % 4 = 0), beside a few placed through the API by shoppers whose
 * names a spreadsheet would run as formulas.
 */
const BULK = 2_500;
const HOUR = 60 * 60 * 1000;

const TRICKY_NAMES = ['=HYPERLINK("http://evil.example","Click")', '+254 Caller', '-1+2', '@SUM(A1)', 'Wanjirũ "Shiro", Kamau'];

let shop: TestShop;
let admin: ApiClient;
const trickyOrders: Order[] = [];

beforeAll(async () => {
  shop = await startTestShop({ MPESA_RECONCILE_INTERVAL_MS: String(HOUR) });
  await shop.mail.stop();
  admin = await shop.admin();
  const product = await createProduct(admin, { name: '=cmd|calc', price: 250, countInStock: 100 });
  const second = await createProduct(admin, { name: 'Kikoi, striped', price: 600, countInStock: 100 });
  for (const name of TRICKY_NAMES) {
    const shopper = await shop.shopper(name);
    const placed = await placeOrder(
      shopper,
      [
        { _id: product._id, qty: 2 },
        { _id: second._id, qty: 1 },
      ],
      { ...NAIROBI_ADDRESS, ward: name.startsWith('=') ? '=1+1' : NAIROBI_ADDRESS.ward },
    );
    expect(placed.status).toBe(201);
    trickyOrders.push(placed.body);
  }
  const db = shop.database.db;
  const [shopper] = await queryRows<{ id: string }>(db, sql`SELECT id FROM users WHERE NOT is_admin LIMIT 1`);
  await db.execute(sql`
    INSERT INTO orders (number, user_id, county, phone_number, postal_code, sub_county, ward,
                        items_cents, shipping_cents, tax_cents, total_cents,
                        is_paid, paid_at, mpesa_receipt, is_delivered, delivered_at, created_at, updated_at)
    SELECT 'X' || lpad(g::text, 7, '0'), ${shopper?.id}, 'Kiambu', '07' || lpad(g::text, 8, '0'), '00900', 'Ruiru', 'Gitothua',
           g * 100, 10000, g * 15, g * 115 + 10000,
           g % 2 = 0, CASE WHEN g % 2 = 0 THEN t + interval '5 minutes' END,
           CASE WHEN g % 2 = 0 THEN 'RCP' || lpad(g::text, 7, '0') END,
           g % 4 = 0, CASE WHEN g % 4 = 0 THEN t + interval '1 day' END, t, t
      FROM generate_series(1, ${BULK}) g
      CROSS JOIN LATERAL (SELECT timestamptz '2026-03-01 00:00:00+00' + g * interval '1 minute' + g * interval '7 microseconds' AS t) at`);
  await db.execute(sql`
    INSERT INTO mpesa_payments (receipt, amount_cents, phone, source, order_id, status, exception, note, transaction_at, created_at)
    SELECT 'PAY' || lpad(g::text, 7, '0'), g * 100 + 1, '2547' || lpad(g::text, 8, '0'),
           CASE WHEN g % 2 = 0 THEN 'c2b' ELSE 'stk_callback' END, NULL,
           CASE WHEN g % 5 = 0 THEN 'exception' WHEN g % 5 = 1 THEN 'resolved' ELSE 'credited' END,
           CASE WHEN g % 5 IN (0, 1) THEN 'unmatched' WHEN g % 7 = 0 THEN 'overpaid' END,
           CASE WHEN g % 5 = 1 THEN E'Refunded\nby hand' WHEN g = 3 THEN '=2+5' END,
           timestamptz '2026-04-01 00:00:00+00' + g * interval '1 minute',
           timestamptz '2026-04-01 00:00:00+00' + g * interval '1 minute' + interval '3 seconds'
      FROM generate_series(1, ${BULK}) g`);
}, 120_000);
afterAll(() => shop?.stop());

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  rows: Record<string, string>[];
}

async function download(path: string, client: ApiClient = admin): Promise<Download> {
  const res = await fetch(shop.url + path, {
    headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const rows = res.status === 200 ? (parse(bytes, { bom: true, columns: true }) as Record<string, string>[]) : [];
  return { status: res.status, headers: res.headers, bytes, rows };
}

/** What a cell holds once a spreadsheet shows it as text: the guard's apostrophe is not part of it. */
const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
const money = (cents: number) => (cents / 100).toFixed(2);

interface OrderRow {
  id: string;
  number: string;
  created_at: string;
  name: string | null;
  email: string | null;
  phone_number: string;
  county: string;
  sub_county: string;
  ward: string;
  postal_code: string;
  items: string | null;
  items_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  is_paid: boolean;
  paid_at: string | null;
  mpesa_receipt: string | null;
  is_delivered: boolean;
  delivered_at: string | null;
}

/** The orders as the database has them, newest first, with the export's columns worked out here. */
async function ordersInDatabase(where = sql`true`): Promise<Record<string, string>[]> {
  const rows = await queryRows<OrderRow>(
    shop.database.db,
    sql`SELECT o.id, o.number, o.created_at::text, u.name, u.email, o.phone_number, o.county, o.sub_county, o.ward,
               o.postal_code, o.items_cents, o.shipping_cents, o.tax_cents, o.total_cents, o.is_paid, o.paid_at::text,
               o.mpesa_receipt, o.is_delivered, o.delivered_at::text,
               (SELECT string_agg(i.qty || ' × ' || i.name, '; ' ORDER BY i.position) FROM order_items i WHERE i.order_id = o.id) AS items
          FROM orders o LEFT JOIN users u ON u.id = o.user_id
         WHERE ${where}
         ORDER BY o.created_at DESC, o.id DESC`,
  );
  const values = rows.map((r) => [
    r.number,
    r.id,
    nairobiSecond(new Date(r.created_at)),
    r.name ?? '',
    r.email ?? '',
    r.phone_number,
    r.county,
    r.sub_county,
    r.ward,
    r.postal_code,
    r.items ?? '',
    money(r.items_cents),
    money(r.shipping_cents),
    money(r.tax_cents),
    money(r.total_cents),
    r.is_paid ? 'Yes' : 'No',
    r.paid_at ? nairobiSecond(new Date(r.paid_at)) : '',
    r.mpesa_receipt ?? '',
    r.is_delivered ? 'Yes' : 'No',
    r.delivered_at ? nairobiSecond(new Date(r.delivered_at)) : '',
  ]);
  return values.map((cells) => Object.fromEntries(ORDER_CSV_HEADER.map((name, i) => [name, cells[i] ?? ''])));
}

const shownAsText = (rows: Record<string, string>[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, unguard(v)])));

describe('GET /api/admin/exports/orders.csv', () => {
  it('answers a UTF-8 CSV with a byte-order mark, CRLF line ends and a header, as an attachment', async () => {
    const res = await download('/api/admin/exports/orders.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Sent as it is produced: no length known in advance.
    expect(res.headers.get('content-length')).toBeNull();
    expect([...res.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = res.bytes.toString('utf8');
    expect(text.slice(1, text.indexOf('\r\n'))).toBe(ORDER_CSV_HEADER.join(','));
    expect(text.endsWith('\r\n')).toBe(true);
    // No line break but CRLF outside quoted cells: every record is one line here.
    expect(text.split('\r\n').length - 1).toBe(BULK + TRICKY_NAMES.length + 1);
    expect(text).toContain('Wanjirũ');
  });

  it('has a row per order, every cell as the database holds it, newest first', async () => {
    const res = await download('/api/admin/exports/orders.csv');
    expect(res.rows).toHaveLength(BULK + TRICKY_NAMES.length);
    expect(shownAsText(res.rows)).toEqual(await ordersInDatabase());
  });

  it('keeps a spreadsheet from running a cell as a formula, and quotes commas and quotes', async () => {
    const res = await download('/api/admin/exports/orders.csv');
    const byNumber = new Map(res.rows.map((row) => [row['Order number'], row]));
    const customers = trickyOrders.map((o) => byNumber.get(o.orderNumber)?.Customer);
    expect(customers).toEqual([
      `'=HYPERLINK("http://evil.example","Click")`,
      "'+254 Caller",
      "'-1+2",
      "'@SUM(A1)",
      'Wanjirũ "Shiro", Kamau',
    ]);
    expect(byNumber.get(trickyOrders[0]?.orderNumber)?.Ward).toBe("'=1+1");
    // A cell that merely contains = is left alone; the items start with a digit.
    expect(byNumber.get(trickyOrders[0]?.orderNumber)?.Items).toBe('2 × =cmd|calc; 1 × Kikoi, striped');
    const raw = res.bytes.toString('utf8');
    expect(raw).toContain(`"'=HYPERLINK(""http://evil.example"",""Click"")"`);
    expect(raw).toContain('"Wanjirũ ""Shiro"", Kamau"');
    for (const line of raw.slice(1).split('\r\n')) expect(line).not.toMatch(/(^|,)[=+\-@]/);
  });

  it('applies the order list’s filters: payment, delivery, dates and search', async () => {
    const paidUndelivered = await download('/api/admin/exports/orders.csv?isPaid=true&isDelivered=false');
    expect(paidUndelivered.rows).toHaveLength(BULK / 4);
    expect(shownAsText(paidUndelivered.rows)).toEqual(await ordersInDatabase(sql`o.is_paid AND NOT o.is_delivered`));

    const days = await download('/api/admin/exports/orders.csv?from=2026-03-02&to=2026-03-02&isPaid=false');
    // 2 March in Nairobi runs from 21:00 UTC on 1 March: orders g = 1260 … 2699; the unpaid ones are the odd g.
    const expected = await ordersInDatabase(
      sql`o.created_at >= '2026-03-02T00:00:00+03:00' AND o.created_at < '2026-03-03T00:00:00+03:00' AND NOT o.is_paid`,
    );
    expect(expected.length).toBeGreaterThan(500);
    expect(shownAsText(days.rows)).toEqual(expected);

    // A search: the same orders as the list shows for it.
    const listed = await admin.get<OrderPage>('/api/orders?keyword=Caller&pageNumber=1');
    const searched = await download('/api/admin/exports/orders.csv?keyword=Caller');
    expect(searched.rows.map((r) => r['Order id'])).toEqual(listed.body.orders.map((o) => o._id));
    expect(searched.rows).toHaveLength(1);
  });

  it('refuses bad filters with 400 and non-admins with 401 and 403, in the usual error shape', async () => {
    expectClientError(await admin.get('/api/admin/exports/orders.csv?isPaid=maybe'), 400, 'Use true or false');
    expectClientError(
      await admin.get('/api/admin/exports/orders.csv?from=2026-03-05&to=2026-03-01'),
      400,
      'from must not be after to',
    );
    expectClientError(await admin.get('/api/admin/exports/orders.csv?pageNumber=2'), 400, 'Unknown parameter: pageNumber');
    expectClientError(await shop.client().get('/api/admin/exports/orders.csv'), 401);
    expectClientError(await (await shop.shopper()).get('/api/admin/exports/orders.csv'), 403);
  });

  it('reads the orders a batch at a time: statements grow with the batches, not the rows', async () => {
    // The fewest of three tries: the shop's background work (a mail check) can only add statements.
    const statements = async (path: string) => {
      let fewest = Number.POSITIVE_INFINITY;
      let rows = 0;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const before = (await dbQueries.get()).values[0]?.value ?? 0;
        const res = await download(path);
        expect(res.status).toBe(200);
        fewest = Math.min(fewest, ((await dbQueries.get()).values[0]?.value ?? 0) - before);
        rows = res.rows.length;
      }
      return { count: fewest, rows };
    };
    const none = await statements('/api/admin/exports/orders.csv?keyword=nobody-at-all');
    expect(none.rows).toBe(0);
    const all = await statements('/api/admin/exports/orders.csv');
    expect(all.rows).toBe(BULK + TRICKY_NAMES.length);
    const batches = Math.ceil(all.rows / EXPORT_BATCH_SIZE);
    expect(batches).toBeGreaterThanOrEqual(3);
    // Each batch: its orders, then their lines; the empty export read one (empty) batch. One read of
    // everything would cost fewer, a read per order thousands more.
    expect(all.count - none.count).toBe(2 * batches - 1);
  });
});

interface PaymentRow {
  id: string;
  receipt: string | null;
  amount_cents: number;
  phone: string | null;
  source: string;
  status: string;
  exception: string | null;
  number: string | null;
  order_id: string | null;
  transaction_at: string | null;
  created_at: string;
  note: string | null;
}

async function paymentsInDatabase(where = sql`true`): Promise<Record<string, string>[]> {
  const rows = await queryRows<PaymentRow>(
    shop.database.db,
    sql`SELECT p.id, p.receipt, p.amount_cents, p.phone, p.source, p.status, p.exception, o.number, p.order_id,
               p.transaction_at::text, p.created_at::text, p.note
          FROM mpesa_payments p LEFT JOIN orders o ON o.id = p.order_id
         WHERE ${where}
         ORDER BY p.created_at DESC, p.id DESC`,
  );
  return rows.map((r) => {
    const cells = [
      r.receipt ?? '',
      money(r.amount_cents),
      r.phone ?? '',
      r.source,
      r.status,
      r.exception ?? '',
      r.number ?? '',
      r.order_id ?? '',
      nairobiSecond(new Date(r.transaction_at ?? r.created_at)),
      nairobiSecond(new Date(r.created_at)),
      r.note ?? '',
    ];
    return Object.fromEntries(PAYMENT_CSV_HEADER.map((name, i) => [name, cells[i] ?? '']));
  });
}

describe('GET /api/admin/exports/payments.csv', () => {
  it('has a row per ledger payment as the database holds it, notes with line breaks kept whole', async () => {
    const res = await download('/api/admin/exports/payments.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect([...res.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(res.rows).toHaveLength(BULK);
    expect(shownAsText(res.rows)).toEqual(await paymentsInDatabase());
    expect(res.rows.find((r) => r.Receipt === 'PAY0000001')?.Note).toBe('Refunded\nby hand');
    expect(res.bytes.toString('utf8')).toContain('"Refunded\nby hand"');
    expect(res.rows.find((r) => r.Receipt === 'PAY0000003')?.Note).toBe("'=2+5");
  });

  it('applies the payments list’s views: open exceptions and unmatched, as the list counts them', async () => {
    const exceptions = await download('/api/admin/exports/payments.csv?status=exception');
    const open = await paymentsInDatabase(sql`p.exception IS NOT NULL AND p.status IN ('exception', 'credited')`);
    expect(open.length).toBeGreaterThan(500);
    expect(shownAsText(exceptions.rows)).toEqual(open);
    const list = await admin.get<{ pages: number }>('/api/admin/payments?status=exception');
    expect(list.body.pages).toBe(Math.ceil(open.length / 20));

    const unmatched = await download('/api/admin/exports/payments.csv?status=unmatched');
    expect(shownAsText(unmatched.rows)).toEqual(
      await paymentsInDatabase(sql`p.exception = 'unmatched' AND p.status = 'exception'`),
    );
    expect(unmatched.rows).toHaveLength(BULK / 5);

    expectClientError(
      await admin.get('/api/admin/exports/payments.csv?status=lost'),
      400,
      'status must be all, exception, unmatched or unconfirmed',
    );
    expectClientError(await shop.client().get('/api/admin/exports/payments.csv'), 401);
  });
});

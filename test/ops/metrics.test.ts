import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { dbQueries } from '../../src/server/metrics.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { metricValue, parseMetrics, type Sample, scrape } from '../support/metrics.js';
import { freePort } from '../support/ports.js';
import { startTestShop, type TestShop } from '../support/shop.js';

/**
 * GET /metrics after known traffic: every figure must move by what the traffic caused. Mail goes
 * to an SMTP port nobody listens on, so what the shop queues stays queued and can be counted.
 */

const TOKEN = `metrics-${Math.random().toString(36).slice(2)}`;
const SIMULATOR_DELAY_MS = 200;

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await startTestShop({
    METRICS_TOKEN: TOKEN,
    SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
    MAIL_RETRY_BASE_MS: '3600000',
    MPESA_SIMULATOR_DELAY_MS: String(SIMULATOR_DELAY_MS),
    MPESA_RECONCILE_INTERVAL_MS: '3600000',
    RATE_LIMIT_STKPUSH_MAX: '1000',
  });
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

const metrics = () => scrape(shop.url, TOKEN);

async function mailRows(): Promise<Record<string, number>> {
  const rows = await queryRows<{ status: string; n: number }>(
    shop.database.db,
    sql`SELECT status, count(*)::int AS n FROM mail_queue GROUP BY status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Waits until the mail worker has tried every message once (none is mid-send). */
async function mailSettled(): Promise<void> {
  await expect.poll(async () => (await mailRows()).sending ?? 0, { timeout: 10_000, interval: 100 }).toBe(0);
}

async function payAndSettle(shopper: ApiClient, order: Order, phoneNumber: string): Promise<PaymentStatus> {
  const res = await shopper.post('/api/orders/stkpush', { orderId: order._id, phoneNumber, Amount: Math.ceil(order.totalPrice) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  let last: PaymentStatus | undefined;
  await expect
    .poll(
      async () => {
        last = (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body;
        return last.lastAttempt?.status;
      },
      { timeout: 10_000, interval: 100 },
    )
    .not.toBe('pending');
  return last as PaymentStatus;
}

describe('GET /metrics', () => {
  it('needs the METRICS_TOKEN as a bearer token when one is set', async () => {
    const none = await fetch(`${shop.url}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ errors: [{ msg: expect.any(String) }] });
    const wrong = await fetch(`${shop.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const basic = await fetch(`${shop.url}/metrics`, { headers: { authorization: `Basic ${btoa(`x:${TOKEN}`)}` } });
    expect(basic.status).toBe(401);
    const right = await fetch(`${shop.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(right.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await right.text();
    // Default process metrics are there too.
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  });

  it('is not an API route: not in the OpenAPI document', async () => {
    const doc = await shop.client().get<{ paths: Record<string, unknown> }>('/api/docs/json');
    expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
    expect(Object.keys(doc.body.paths)).toContain('/api/health/live');
  });

  it('counts orders, M-Pesa outcomes and queued mail by what the traffic caused', async () => {
    const product = await createProduct(admin, { price: 250, countInStock: 20 });
    const shopper = await shop.shopper('Metrics Shopper');
    await mailSettled();
    const mailBefore = await mailRows();
    const before = await metrics();

    const orders: Order[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
      expect(res.status).toBe(201);
      orders.push(res.body as Order);
    }
    // One that fails (out of stock) is not an order placed.
    expect((await placeOrder(shopper, [{ _id: product._id, qty: 100 }])).status).toBe(400);

    const paid = await payAndSettle(shopper, orders[0] as Order, '0708374149');
    expect(paid.isPaid).toBe(true);
    const cancelled = await payAndSettle(shopper, orders[1] as Order, '0700000001');
    expect(cancelled.lastAttempt?.resultCode).toBe('1032');
    const timedOut = await payAndSettle(shopper, orders[2] as Order, '0700000002');
    expect(timedOut.lastAttempt?.status).toBe('timed_out');
    await mailSettled();
    const mailAfter = await mailRows();
    const after = await metrics();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);

    expect(delta('duka_orders_placed_total')).toBe(3);
    expect(delta('duka_payments_total', { outcome: 'prompt_sent' })).toBe(3);
    expect(delta('duka_payments_total', { outcome: 'paid' })).toBe(1);
    expect(delta('duka_payments_total', { outcome: 'cancelled' })).toBe(1);
    expect(delta('duka_payments_total', { outcome: 'timed_out' })).toBe(1);
    expect(delta('duka_payments_total', { outcome: 'failed' })).toBe(0);
    expect(delta('duka_payments_total', { outcome: 'prompt_rejected' })).toBe(0);

    // Three "order placed" mails and one "order paid", all queued (the SMTP server is not there).
    const queuedBefore = mailBefore.queued ?? 0;
    expect((mailAfter.queued ?? 0) - queuedBefore).toBe(4);
    expect(metricValue(after, 'duka_mail_queue_depth', { status: 'queued' })).toBe(mailAfter.queued);
    expect(delta('duka_mail_queue_depth', { status: 'queued' })).toBe(4);
    expect(metricValue(after, 'duka_mail_queue_depth', { status: 'sent' })).toBe(0);

    // Each placed order was one request to the route pattern.
    expect(delta('http_request_duration_seconds_count', { method: 'POST', route: '/api/orders', status_code: '201' })).toBe(3);
    expect(delta('http_request_duration_seconds_count', { method: 'POST', route: '/api/orders', status_code: '400' })).toBe(1);
    expect(delta('http_request_duration_seconds_count', { route: '/api/orders/stkpush', status_code: '200' })).toBe(3);
    console.log(
      `metrics: 3 orders, prompts paid/cancelled/timed out, 4 queued mails; ${after.length} samples; ` +
        `${delta('duka_db_queries_total')} SQL statements between the scrapes`,
    );
  });

  it('labels requests by route pattern, never by the raw URL; unknown paths share one label', async () => {
    const a = await createProduct(admin);
    const b = await createProduct(admin);
    const before = await metrics();
    const guest = shop.client();
    await guest.get(`/api/products/${a._id}`);
    await guest.get(`/api/products/${b._id}`);
    const stray = `no-such-page-${Math.random().toString(36).slice(2)}`;
    expect((await guest.get(`/api/${stray}`)).status).toBe(404);
    expect((await guest.get(`/api/products/${stray}/x/y`)).status).toBe(404);
    const res = await fetch(`${shop.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    const after = parseMetrics(text);

    const byPattern = { method: 'GET', route: '/api/products/:id', status_code: '200' };
    expect(
      metricValue(after, 'http_request_duration_seconds_count', byPattern) -
        metricValue(before, 'http_request_duration_seconds_count', byPattern),
    ).toBe(2);
    const unmatched = { route: 'unmatched', status_code: '404' };
    expect(
      metricValue(after, 'http_request_duration_seconds_count', unmatched) -
        metricValue(before, 'http_request_duration_seconds_count', unmatched),
    ).toBe(2);
    for (const raw of [a._id, b._id, stray]) expect(text).not.toContain(raw);
    // Buckets run from 1 ms to 5 s, and each observation fell in one.
    const buckets = after
      .filter((s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === '/api/products/:id')
      .map((s) => s.labels.le);
    expect(buckets).toEqual(expect.arrayContaining(['0.001', '0.005', '0.1', '1', '5', '+Inf']));
    const routes = new Set(after.filter((s) => s.name === 'http_request_duration_seconds_count').map((s) => s.labels.route));
    for (const route of routes) expect(route === 'unmatched' || route?.startsWith('/'), String(route)).toBe(true);
  });

  it('counts every SQL statement, BEGIN and COMMIT or ROLLBACK included', async () => {
    const count = async () => (await dbQueries.get()).values[0]?.value ?? 0;
    const db = shop.database.db;
    // Quiet the background work that queries too, so only this test's statements are counted.
    await shop.mail.stop();

    let start = await count();
    await db.execute(sql`SELECT 1`);
    expect((await count()) - start).toBe(1);

    start = await count();
    await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1`);
      await tx.execute(sql`SELECT 2`);
    });
    expect((await count()) - start).toBe(4);

    start = await count();
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await count()) - start).toBe(3);

    // And the scrape reports the same counter (plus what the scrape itself may have queried).
    const known = await count();
    const scraped = metricValue(await metrics(), 'duka_db_queries_total');
    expect(scraped - known).toBeGreaterThanOrEqual(0);
    expect(scraped - known).toBeLessThanOrEqual(3);
  });

  it('reports the database connections', async () => {
    const samples: Sample[] = await metrics();
    const state = (s: string) => metricValue(samples, 'duka_db_pool_connections', { state: s });
    if (shop.database.kind === 'pglite') {
      expect([state('total'), state('idle'), state('waiting')]).toEqual([1, 1, 0]);
    } else {
      // The test shop's pool has 5 connections at most; nothing waits when the shop is quiet.
      expect(state('total')).toBeGreaterThanOrEqual(1);
      expect(state('total')).toBeLessThanOrEqual(5);
      expect(state('idle')).toBeLessThanOrEqual(state('total'));
      expect(state('waiting')).toBe(0);
    }
  });
});

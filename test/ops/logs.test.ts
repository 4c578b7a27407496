import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_KINDS } from '../../src/server/lib/hook-secrets.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import { createProduct, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';

/**
 * The shop's JSON log at info, captured line by line: every line of a request carries its
 * request id (the proxy's X-Request-Id when sane), and no line holds a secret.
 */

type LogLine = Record<string, unknown> & { msg?: string; reqId?: string };

const raw: string[] = [];
let shop: TestShop;

beforeAll(async () => {
  shop = await startTestShop(
    { LOG_LEVEL: 'info', MPESA_SIMULATOR_DELAY_MS: '100', RATE_LIMIT_STKPUSH_MAX: '1000' },
    { logStream: { write: (line: string) => void raw.push(...line.split('\n').filter((l) => l.trim() !== '')) } },
  );
});
afterAll(() => shop?.stop());

const lines = (): LogLine[] => raw.map((line) => JSON.parse(line) as LogLine);
const ofRequest = (reqId: string) => lines().filter((l) => l.reqId === reqId);

describe('request ids in logs', () => {
  it('takes a sane X-Request-Id from the proxy, echoes it, and puts it on every line of that request', async () => {
    const shopper = await shop.shopper('Log Shopper');
    const admin = await shop.admin();
    const product = await createProduct(admin, { price: 99, countInStock: 5 });
    const reqId = `nginx-${Date.now()}.abc_DEF`;
    const res = await shopper.request<Order>('POST', '/api/orders', {
      json: { orderItems: [{ _id: product._id, qty: 1 }], shippingAddress: NAIROBI_ADDRESS },
      headers: { 'x-request-id': reqId },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(reqId);
    const mine = ofRequest(reqId);
    expect(mine.map((l) => l.msg)).toEqual(['incoming request', 'order placed', 'request completed']);
    expect(mine.find((l) => l.msg === 'order placed')).toMatchObject({ orderId: res.body._id });
  });

  it('makes its own id when the header is missing or not a sane token', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const given of [undefined, 'x'.repeat(65), 'has space', 'semi;colon', 'ünïcode', '']) {
      const res = await fetch(`${shop.url}/api/health/live`, given === undefined ? {} : { headers: { 'x-request-id': given } });
      const id = res.headers.get('x-request-id') ?? '';
      expect(id, String(given)).toMatch(uuid);
      expect(ofRequest(id).length, String(given)).toBeGreaterThanOrEqual(2);
    }
    const longest = 'a'.repeat(64);
    const res = await fetch(`${shop.url}/api/health/live`, { headers: { 'x-request-id': longest } });
    expect(res.headers.get('x-request-id')).toBe(longest);
  });

  it('the M-Pesa prompt and its callback log with their requests’ ids, and no line leaks a secret', async () => {
    const password = `Pw-${Math.random().toString(36).slice(2, 12)}`;
    const email = `logs-${Date.now()}@example.com`;
    const shopper = shop.client();
    await shopper.signUp('Leak Check', email, password);
    await shopper.signIn(email, password);
    const admin = await shop.admin();
    const product = await createProduct(admin, { price: 120, countInStock: 5 });
    const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
    const phone = '0708374149';
    const reqId = `stk-${Date.now()}`;
    const res = await shopper.request('POST', '/api/orders/stkpush', {
      json: { orderId: order._id, phoneNumber: phone, Amount: Math.ceil(order.totalPrice) },
      headers: { 'x-request-id': reqId },
    });
    expect(res.status).toBe(200);
    expect(ofRequest(reqId).map((l) => l.msg)).toContain('M-Pesa prompt sent');
    await expect
      .poll(async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.isPaid, { timeout: 10_000 })
      .toBe(true);
    // The simulator's callback is a request of its own, and the order is paid within it.
    const paidLine = lines().find((l) => l.msg === 'order paid with M-Pesa');
    expect(paidLine?.reqId).toEqual(expect.any(String));
    expect(ofRequest(paidLine?.reqId as string).map((l) => l.msg)).toEqual([
      'incoming request',
      'order paid with M-Pesa',
      'request completed',
    ]);

    // Secrets: passwords, the session and XSRF cookies, the callback secret, the whole phone number.
    await fetch(`${shop.url}/metrics`);
    const secrets: [string, string][] = [
      ['the password', password],
      ['the admin password', ADMIN_PASSWORD],
      ['the callback secret', shop.mpesa.callbackSecret()],
      ...HOOK_KINDS.map((kind): [string, string] => [`the ${kind} callbacks' secret`, shop.mpesa.hookSecret(kind)]),
      ['the whole phone number', '708374149'],
    ];
    for (const [name, value] of shopper.cookies) secrets.push([`the ${name} cookie`, value]);
    const leaks: string[] = [];
    for (const line of raw) for (const [what, secret] of secrets) if (line.includes(secret)) leaks.push(`${what}: ${line}`);
    expect(leaks).toEqual([]);
    // Every line is JSON and each request's lines carry an id.
    for (const line of lines()) if (line.req || line.res) expect(line.reqId, JSON.stringify(line)).toEqual(expect.any(String));
    console.log(`logs: ${raw.length} JSON lines searched for ${secrets.length} secrets, ${leaks.length} leaks`);
  });

  it('without METRICS_TOKEN, /metrics is open', async () => {
    const res = await fetch(`${shop.url}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('duka_db_queries_total');
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_KINDS, hookSecret } from '../../src/server/lib/hook-secrets.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { Product, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { NAIROBI_ADDRESS } from '../support/fixtures.js';
import { resetTokenFrom, waitForMailAbout } from '../support/outbox.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';
import { type ChildShop, cookieAttributes, type RecordingClient, startChildShop, WEB_DIR } from './web-helpers.js';

/**
 * Web security on the wire: cookie flags and HSTS in production and in development, the
 * payment-prompt rate limit, and no secret in any answer or log line of a production shop started
 * from its real entry point. The login / register / forgot / reset limits are in
 * test/api/security.test.ts and not repeated.
 */

/** The production shop's payment-prompt limit: this many per shopper per window. */
const STK_MAX = 2;
const STK_WINDOW_MS = 4000;
const SIMULATOR_DELAY_MS = 300;
/** Daraja's sandbox passkey (the simulator's default) and the simulator's consumer key and secret. */
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const CONSUMER_SECRET = 'duka-simulator-secret';
const BASIC_CREDENTIALS = Buffer.from(`duka-simulator-key:${CONSUMER_SECRET}`).toString('base64');
const PROD_ADMIN_PASSWORD = 'prod-admin-Pa55-word';
const METRICS_TOKEN = `metrics-${Math.random().toString(36).slice(2, 12)}`;
/** Cases that wait for M-Pesa get more than the default 30 s on a busy machine. */
const SLOW_CASE_TIMEOUT_MS = 90_000;

/** Every password given to the production shop: none may appear in its answers or log. */
const prodPasswords = [PROD_ADMIN_PASSWORD];
const prodPassword = (label: string) => {
  const password = `${label}-Pw-${Math.random().toString(36).slice(2, 10)}`;
  prodPasswords.push(password);
  return password;
};

let web: TestShop;
let prod: ChildShop;

beforeAll(async () => {
  [web, prod] = await Promise.all([
    // Development mode over plain http, as on a laptop.
    startTestShop({ WEB_DIR, NODE_ENV: 'development' }),
    // Production mode from the real entry point, with its real JSON logger at info.
    startChildShop({
      NODE_ENV: 'production',
      // A staging shop: the simulator allowed explicitly, the demo catalogue seeded on purpose.
      MPESA_ENV: 'simulator',
      ALLOW_SIMULATOR_IN_PRODUCTION: 'true',
      SEED_DEMO: 'true',
      PUBLIC_URL: 'https://shop.example.co.ke',
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: PROD_ADMIN_PASSWORD,
      METRICS_TOKEN,
      WEB_DIR,
      MPESA_SIMULATOR_DELAY_MS: String(SIMULATOR_DELAY_MS),
      RATE_LIMIT_STKPUSH_MAX: String(STK_MAX),
      RATE_LIMIT_STKPUSH_WINDOW_MS: String(STK_WINDOW_MS),
    }),
  ]);
});
afterAll(async () => {
  await web?.stop();
  await prod?.cleanup();
});

describe('cookies and HSTS', () => {
  it('in production: Secure on both cookies, the session cookie HttpOnly and SameSite=Lax, HSTS on every answer', async () => {
    const c = prod.client();
    const health = await c.get('/api/health');
    const xsrf = cookieAttributes(health.headers.getSetCookie(), 'XSRF-TOKEN');
    expect(xsrf, 'XSRF-TOKEN cookie').toBeDefined();
    expect(xsrf!.has('secure')).toBe(true);
    expect(xsrf!.get('samesite')?.toLowerCase()).toBe('lax');
    expect(xsrf!.get('path')).toBe('/');
    // The web app must read it to echo it in the header.
    expect(xsrf!.has('httponly')).toBe(false);

    const password = prodPassword('wairimu');
    const signUp = await c.post('/api/users', { name: 'Wairimu', email: 'wairimu@example.com', password });
    expect(signUp.status).toBe(201);
    const session = cookieAttributes(signUp.headers.getSetCookie(), 'duka_session');
    expect(session, 'duka_session cookie').toBeDefined();
    expect(session!.has('httponly')).toBe(true);
    expect(session!.has('secure')).toBe(true);
    expect(session!.get('samesite')?.toLowerCase()).toBe('lax');
    expect(session!.get('path')).toBe('/');
    const expires = Date.parse(session!.get('expires') ?? '');
    expect(expires - Date.now()).toBeGreaterThan(29 * 24 * 3600_000);
    expect(expires - Date.now()).toBeLessThan(31 * 24 * 3600_000);

    const signIn = await c.post('/api/users/auth', { email: 'wairimu@example.com', password });
    const again = cookieAttributes(signIn.headers.getSetCookie(), 'duka_session');
    expect(again!.has('secure') && again!.has('httponly')).toBe(true);

    // Signing out clears the cookie with the same flags, so the browser really drops it.
    const logout = await c.post('/api/users/logout');
    const cleared = cookieAttributes(logout.headers.getSetCookie(), 'duka_session');
    expect(cleared!.has('secure') && cleared!.has('httponly')).toBe(true);

    for (const res of [health, signUp, logout, await c.get('/api/products'), await c.get('/api/nope')]) {
      const hsts = res.headers.get('strict-transport-security') ?? '';
      expect(Number(/max-age=(\d+)/.exec(hsts)?.[1] ?? 0), hsts).toBeGreaterThanOrEqual(180 * 24 * 3600);
      expect(hsts).toMatch(/includeSubDomains/i);
      expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
    }
  });

  it('in development over http: no Secure flag (a laptop works), still HttpOnly and SameSite=Lax, no HSTS', async () => {
    const c = web.client();
    const health = await c.get('/api/health');
    const xsrf = cookieAttributes(health.headers.getSetCookie(), 'XSRF-TOKEN');
    expect(xsrf!.has('secure')).toBe(false);
    expect(xsrf!.get('samesite')?.toLowerCase()).toBe('lax');
    const signIn = await c.post('/api/users/auth', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(signIn.status).toBe(200);
    const session = cookieAttributes(signIn.headers.getSetCookie(), 'duka_session');
    expect(session!.has('secure')).toBe(false);
    expect(session!.has('httponly')).toBe(true);
    expect(session!.get('samesite')?.toLowerCase()).toBe('lax');
    expect(signIn.headers.get('strict-transport-security')).toBeNull();
    expect(signIn.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
  });
});

/** Numbers the simulator pays; no two prompts share one while it is still open. */
const PAYING_PHONES = ['0708374149', '0712345678', '0722334455', '0733445566', '0745566778', '0799887766'];
/** Every phone number given to the production shop: none may appear whole in its log. */
const phonesUsed = new Set<string>([NAIROBI_ADDRESS.phoneNumber]);

async function inStockProduct(client: ApiClient): Promise<Product> {
  const page = (await client.get<ProductPage>('/api/products')).body;
  return page.products.find((p) => p.countInStock >= 10)!;
}

async function newOrder(client: ApiClient, productId: string): Promise<Order> {
  const res = await client.post<Order>('/api/orders', {
    orderItems: [{ _id: productId, qty: 1 }],
    shippingAddress: NAIROBI_ADDRESS,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

function prompt(client: ApiClient, order: Order, phone: string) {
  phonesUsed.add(phone);
  return client.post<{ msg: string }>('/api/orders/stkpush', {
    orderId: order._id,
    phoneNumber: phone,
    Amount: Math.ceil(order.totalPrice),
  });
}

describe('payment prompt rate limit', () => {
  it(`answers 429 after ${STK_MAX} prompts per shopper, counts each shopper apart, and recovers after the window`, async () => {
    const first = prod.client();
    await first.signUp('Otieno', `otieno-${Date.now()}@example.com`, prodPassword('otieno'));
    const second = prod.client();
    await second.signUp('Chebet', `chebet-${Date.now()}@example.com`, prodPassword('chebet'));
    const product = await inStockProduct(first);
    const orders = await Promise.all([0, 1, 2, 3].map(() => newOrder(first, product._id)));
    const otherOrder = await newOrder(second, product._id);

    for (let i = 0; i < STK_MAX; i++) {
      const ok = await prompt(first, orders[i]!, PAYING_PHONES[i]!);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    }
    const limited = await prompt(first, orders[STK_MAX]!, PAYING_PHONES[STK_MAX]!);
    expect(limited.status, JSON.stringify(limited.body)).toBe(429);
    expect(JSON.stringify(limited.body)).toContain('Too many attempts');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(STK_WINDOW_MS / 1000));

    // Another shopper on the same network is not held back by the first one's prompts.
    const other = await prompt(second, otherOrder, PAYING_PHONES[STK_MAX + 1]!);
    expect(other.status, JSON.stringify(other.body)).toBe(200);

    // Retry-After (whole seconds, rounded up) says when the window closes; the wait is the test.
    await sleep(retryAfter * 1000 + 100);
    const recovered = await prompt(first, orders[STK_MAX]!, PAYING_PHONES[STK_MAX + 2]!);
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
    console.log(`rate limit: payment prompts ${STK_MAX} per ${STK_WINDOW_MS} ms, 1 refused with 429, recovered after the window`);
  });
});

describe('no secrets in any answer or log line', () => {
  it(
    'after sign-up, sign-in, password changes and resets, an order paid by M-Pesa, an upload and errors',
    async () => {
      const shopper: RecordingClient = prod.client();
      const email = `wanjiru-${Date.now()}@example.com`;
      const first = prodPassword('signup');
      await shopper.signUp('Wanjiru Kamau', email, first);
      await shopper.signIn(email, first);
      expect((await shopper.post('/api/users/auth', { email, password: prodPassword('wrong') })).status).toBe(401);
      // Bodies the server cannot read or refuses must not be echoed back or logged either.
      const broken = prodPassword('broken-json');
      const unreadable = await shopper.request('POST', '/api/users/auth', {
        body: `{"email":"${email}","password":"${broken}"`,
        headers: { 'content-type': 'application/json' },
      });
      expect(unreadable.status).toBe(400);
      expect(
        (await shopper.post('/api/users', { name: 'X', email: 'not-an-email', password: prodPassword('invalid') })).status,
      ).toBe(400);
      expect((await shopper.post('/api/users', { name: 'X', email: 'short@example.com', password: 'shrt' })).status).toBe(400);

      const second = prodPassword('profile');
      expect((await shopper.put('/api/users/profile', { password: second, currentPassword: first })).status).toBe(200);

      // Forgot / reset: the token travels only in the mail, and the shopper opens the link's page.
      expect((await shopper.post('/api/users/forgot-password', { email })).status).toBe(200);
      // The password change just mailed a notice to the same address: wait for the reset mail itself.
      const token = resetTokenFrom(await waitForMailAbout(prod.dataDir, email, /Reset your/, 10_000));
      const page = await fetch(`${prod.url}/reset-password/${token}`);
      expect(page.status).toBe(200);
      const third = prodPassword('reset');
      expect((await shopper.post(`/api/users/reset-password/${token}`, { password: third })).status).toBe(200);
      await shopper.signIn(email, third);

      // An order paid with M-Pesa through the simulator, which calls the secret callback URL.
      const product = await inStockProduct(shopper);
      const order = await newOrder(shopper, product._id);
      expect((await prompt(shopper, order, '0708374149')).status).toBe(200);
      await expect
        .poll(async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.isPaid, { timeout: 15_000 })
        .toBe(true);
      const wrongCallback = await shopper.request('POST', '/api/hooks/daraja/stk/not-the-secret', { json: {}, xsrf: false });
      expect(wrongCallback.status).toBe(200);

      // An upload by the admin, served back.
      const admin = prod.client();
      await admin.signIn('admin@example.com', PROD_ADMIN_PASSWORD);
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'p.png');
      const uploaded = await admin.request<{ image: string }>('POST', '/api/uploads', { body: form });
      expect(uploaded.status).toBe(201);
      expect((await fetch(prod.url + uploaded.body.image)).status).toBe(200);

      // Errors: a 404, an unknown order, a validation error, a forbidden admin call.
      expect((await shopper.get('/api/nope')).status).toBe(404);
      expect((await shopper.get('/api/orders/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await shopper.post('/api/orders', { orderItems: [], shippingAddress: {} })).status).toBe(400);
      expect((await shopper.get('/api/users')).status).toBe(403);
      expect((await admin.get('/api/users')).status).toBe(200);

      // Everything any recorded client saw in this file's production shop, then its whole log.
      const sessionTokens = new Set<string>();
      const xsrfTokens = new Set<string>();
      for (const c of [shopper, admin]) {
        sessionTokens.add(c.cookies.get('duka_session')!);
        xsrfTokens.add(c.cookies.get('XSRF-TOKEN')!);
      }
      for (const t of prod.seenCookies('duka_session')) sessionTokens.add(t);
      for (const t of prod.seenCookies('XSRF-TOKEN')) xsrfTokens.add(t);

      // A Prometheus scrape after the day: its labels are route patterns, never a secret of a URL.
      const scrape = await fetch(`${prod.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scrape.status).toBe(200);
      prod.exchanges.push({ request: 'GET /metrics', status: scrape.status, body: await scrape.text(), cookies: [] });

      expect(await prod.stop()).toBe(0);
      const callbackSecret = await prod.callbackSecret();
      const secrets: [string, string][] = [
        ...prodPasswords.map((p): [string, string] => ['a password', p]),
        ['a password hash', '$argon2'],
        ...[...sessionTokens].map((t): [string, string] => ['a session token', t]),
        ...[...xsrfTokens].map((t): [string, string] => ['an XSRF token', t]),
        ['the reset token', token],
        ['the M-Pesa passkey', PASSKEY],
        ['the Daraja consumer secret', CONSUMER_SECRET],
        ['the Daraja basic credentials', BASIC_CREDENTIALS],
        ['the M-Pesa callback secret', callbackSecret],
        ...HOOK_KINDS.map((kind): [string, string] => [`the secret of ${kind} callbacks`, hookSecret(callbackSecret, kind)]),
        ['the metrics token', METRICS_TOKEN],
      ];
      expect(sessionTokens.size).toBeGreaterThanOrEqual(4);
      expect(callbackSecret.length).toBeGreaterThanOrEqual(20);

      const leaks: string[] = [];
      for (const exchange of prod.exchanges) {
        for (const [what, secret] of secrets) {
          if (exchange.body.includes(secret)) leaks.push(`answer to ${exchange.request} holds ${what}`);
        }
        if (/"stack"\s*:|\n\s+at |node:internal|node_modules|src\/server/.test(exchange.body)) {
          leaks.push(`answer to ${exchange.request} holds a stack trace: ${exchange.body.slice(0, 200)}`);
        }
      }
      // Log lines reach the pipe asynchronously (a full pipe must never block the shop): wait for the last ones.
      await expect
        .poll(() => prod.logLines().some((l) => l.includes('"url":"/api/hooks/daraja/stk/[redacted]"')), { timeout: 10_000 })
        .toBe(true);
      const lines = prod.logLines();
      // Any 9 digits of a subscriber number (07XXXXXXXX, 2547XXXXXXXX) is the whole number.
      const subscribers = [...phonesUsed].map((p) => p.replace(/\D/g, '').slice(-9));
      let errorLines = 0;
      for (const line of lines) {
        let entry: { level?: number; msg?: string };
        try {
          entry = JSON.parse(line) as { level?: number; msg?: string };
        } catch {
          leaks.push(`a log line that is not JSON: ${line.slice(0, 200)}`);
          continue;
        }
        if ((entry.level ?? 0) >= 50) errorLines += 1;
        for (const [what, secret] of secrets)
          if (line.includes(secret)) leaks.push(`log line holds ${what}: ${line.slice(0, 300)}`);
        for (const digits of subscribers) {
          if (line.includes(digits)) leaks.push(`log line holds a whole phone number: ${line.slice(0, 300)}`);
        }
      }
      expect(leaks).toEqual([]);
      expect(errorLines, 'error lines in the log of ordinary use').toBe(0);
      // The log did record the day, with the secrets in its URLs and the phone in its ids masked.
      expect(lines.some((l) => l.includes('order paid with M-Pesa'))).toBe(true);
      expect(lines.some((l) => l.includes('"msg":"order placed"'))).toBe(true);
      expect(lines.some((l) => l.includes('"url":"/api/users/reset-password/[redacted]"'))).toBe(true);
      expect(lines.some((l) => l.includes('"url":"/reset-password/[redacted]"'))).toBe(true);
      expect(lines.some((l) => l.includes('"url":"/api/hooks/daraja/stk/[redacted]"'))).toBe(true);
      expect(lines.some((l) => /"checkoutRequestId":"ws_CO_\d+708\*\*\*149"/.test(l))).toBe(true);
      console.log(
        `secrets: ${prod.exchanges.length} answers and ${lines.length} log lines searched for ${secrets.length} secrets and ${subscribers.length} phone numbers, ${leaks.length} leaks`,
      );
    },
    SLOW_CASE_TIMEOUT_MS,
  );
});

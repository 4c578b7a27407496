import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { expectClientError } from '../support/fixtures.js';
import { DARAJA_HOOK_ROUTES, listApiRoutes, type RouteInfo, routeKey } from '../support/routes.js';
import { startTestShop, type TestShop } from '../support/shop.js';

let shop: TestShop;
let admin: ApiClient;
let routes: RouteInfo[];

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The calls Daraja makes: no browser, no token, and an answer to whatever is sent. */
const DARAJA_HOOKS = new Set(DARAJA_HOOK_ROUTES);
const SOME_UUID = '00000000-0000-4000-8000-000000000000';

/** A concrete URL for a route template, with every parameter set to `value`. */
const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);

beforeAll(async () => {
  shop = await startTestShop();
  admin = await shop.admin();
  routes = await listApiRoutes(shop.client());
});
afterAll(() => shop?.stop());

describe('XSRF', () => {
  it('refuses every unsafe /api request no browser vouches for whose header does not echo the cookie, even an admin’s', async () => {
    const unsafe = routes.filter((r) => UNSAFE.has(r.method) && !DARAJA_HOOKS.has(routeKey(r)));
    expect(unsafe.length).toBeGreaterThan(15);
    for (const route of unsafe) {
      const url = fill(route.path, SOME_UUID);
      const missing = await admin.request(route.method, url, { json: {}, xsrf: false });
      expectClientError(missing, 403, 'security token');
      const wrong = await admin.request(route.method, url, { json: {}, xsrf: false, headers: { 'x-xsrf-token': 'forged' } });
      expectClientError(wrong, 403, 'security token');
    }
  });

  it('exempts only the Daraja callbacks, which answer without a token', async () => {
    for (const path of [
      '/api/hooks/daraja/stk/whatever',
      '/api/hooks/daraja/c2b/whatever/confirm',
      '/api/hooks/daraja/c2b/whatever/validate',
      `/api/hooks/daraja/rev/whatever/${SOME_UUID}/result`,
      `/api/hooks/daraja/rev/whatever/${SOME_UUID}/timeout`,
      `/api/hooks/daraja/ts/whatever/${SOME_UUID}/result`,
      `/api/hooks/daraja/ts/whatever/${SOME_UUID}/timeout`,
    ]) {
      const res = await shop.client().request('POST', path, { json: { Body: {} }, xsrf: false });
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  it('sets a readable XSRF-TOKEN cookie and an httpOnly session cookie', async () => {
    const c = shop.client();
    const res = await c.get('/api/health');
    const xsrf = res.headers.getSetCookie().find((l) => l.startsWith('XSRF-TOKEN='))!;
    expect(xsrf).toBeDefined();
    expect(xsrf).not.toMatch(/HttpOnly/i);
    expect(xsrf).toMatch(/SameSite=Lax/i);
  });
});

/** What a browser adds to a fetch from one of the shop's own pages (Sec-Fetch-Site and Origin). */
const sameOrigin = () => ({
  origin: shop.url,
  'sec-fetch-site': 'same-origin',
  'sec-fetch-mode': 'cors',
  'sec-fetch-dest': 'empty',
});
/** What a browser adds to a form another site submits to the shop. */
const crossSiteForm = { origin: 'https://win-a-phone.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };

describe('XSRF: what the browser proves about where a request comes from', () => {
  it('lets a fresh visitor’s first unsafe request from the shop’s own pages through, with no cookie yet', async () => {
    const visitor = shop.client();
    // Catalogue answers stay cookie-free (shared caches may keep them) ...
    const browsed = await visitor.get('/api/products');
    expect(browsed.headers.get('set-cookie')).toBeNull();
    expect(visitor.cookies.size).toBe(0);
    // ... and the first sign-up needs no token: the browser says it comes from the shop itself.
    const email = `first-post-${Date.now()}@example.com`;
    const signUp = await visitor.request('POST', '/api/users', {
      json: { name: 'First Post', email, password: 'first-post-1' },
      xsrf: false,
      headers: sameOrigin(),
    });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(201);
    expect((await visitor.request('POST', '/api/users/logout', { xsrf: false, headers: sameOrigin() })).status).toBe(200);

    // A browser without Sec-Fetch-Site (older Safari) proves it with Origin alone.
    const older = shop.client();
    const signIn = await older.request('POST', '/api/users/auth', {
      json: { email, password: 'first-post-1' },
      xsrf: false,
      headers: { origin: shop.url },
    });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
  });

  it('refuses what the browser says comes from another site or origin, even with a valid token', async () => {
    const count = async () => (await admin.get<ProductPage>('/api/products')).body.count;
    const before = await count();
    const elsewhere: Record<string, string>[] = [
      { origin: 'https://win-a-phone.example', 'sec-fetch-site': 'cross-site' },
      // Another port of the same host: same site, another origin.
      { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
      // Browsers without Sec-Fetch-Site: Origin alone.
      { origin: 'https://win-a-phone.example' },
      { origin: shop.url.replace('http://', 'https://') },
      { origin: 'null' },
    ];
    for (const headers of elsewhere) {
      // The admin's client echoes the token as always: it is not enough.
      expectClientError(await admin.request('POST', '/api/products', { headers }), 403, 'another site');
      expectClientError(await admin.request('POST', '/api/users/logout', { headers }), 403, 'another site');
    }
    expect(await count()).toBe(before);
    expect((await admin.get('/api/users/profile')).status).toBe(200);
  });

  it('refuses cross-site form posts and text/plain bodies, and takes text/plain from nowhere', async () => {
    const before = (await admin.get<ProductPage>('/api/products')).body.count;
    const admins = `/api/users/${admin.user!._id}`;
    // Forms another site submits: url-encoded, multipart and text/plain, with the admin's cookies.
    const form = new FormData();
    form.set('name', 'Forged');
    for (const [body, type] of [
      ['name=Forged', 'application/x-www-form-urlencoded'],
      ['name=Forged', 'text/plain'],
    ] as const) {
      for (const [method, url] of [
        ['POST', '/api/products'],
        ['PUT', admins],
      ] as const) {
        const forged = await admin.request(method, url, {
          body,
          xsrf: false,
          headers: { ...crossSiteForm, 'content-type': type },
        });
        expectClientError(forged, 403, 'another site');
      }
    }
    expectClientError(
      await admin.request('PUT', admins, { body: form, xsrf: false, headers: crossSiteForm }),
      403,
      'another site',
    );
    // A page's script posting text/plain (no preflight needed) from another site.
    expectClientError(
      await admin.request('POST', '/api/products', {
        body: '{}',
        xsrf: false,
        headers: { origin: 'https://win-a-phone.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      }),
      403,
    );
    // No browser evidence at all (a stripped Origin, a very old browser): the token is required.
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }]) {
      expectClientError(
        await admin.request('POST', '/api/products', { body: 'name=x', xsrf: false, headers }),
        403,
        'security token',
      );
    }
    expectClientError(
      await admin.request('POST', '/api/products', { body: 'name=x', xsrf: false, headers: { 'sec-fetch-site': 'none' } }),
      403,
      'security token',
    );
    // From the shop's own origin a text/plain body is still not a body the API takes.
    expectClientError(
      await admin.request('POST', '/api/users/auth', {
        body: '{"email":"admin@example.com","password":"admin-secret-123"}',
        xsrf: false,
        headers: { ...sameOrigin(), 'content-type': 'text/plain' },
      }),
      415,
    );
    expect((await admin.get<ProductPage>('/api/products')).body.count).toBe(before);
    expect((await admin.get<{ isAdmin: boolean }>('/api/users/profile')).body.isAdmin).toBe(true);
  });

  describe('behind a public address', () => {
    let hosted: TestShop;
    beforeAll(async () => {
      hosted = await startTestShop({ PUBLIC_URL: 'https://duka.example.co.ke', SEED_DEMO: 'false' });
    });
    afterAll(() => hosted?.stop());

    it('takes PUBLIC_URL’s origin as the shop’s, whatever Host the request reached it by', async () => {
      const signIn = (origin: string) =>
        hosted.client().request('POST', '/api/users/auth', {
          json: { email: 'admin@example.com', password: 'admin-secret-123' },
          xsrf: false,
          headers: { origin },
        });
      expect((await signIn('https://duka.example.co.ke')).status).toBe(200);
      expectClientError(await signIn('http://duka.example.co.ke'), 403, 'another site');
      expectClientError(await signIn('https://duka.example.co.ke.evil.example'), 403, 'another site');
    });
  });
});

describe('malformed input on every route', () => {
  it('answers 4xx with the error shape, never 500, for malformed ids, JSON, types and sizes', async () => {
    let tried = 0;
    const failures: string[] = [];
    const check = async (
      label: string,
      route: RouteInfo,
      promise: Promise<{ status: number; body: unknown }>,
      mustBe4xx: boolean,
    ) => {
      tried += 1;
      const res = await promise;
      const shaped = Array.isArray((res.body as { errors?: unknown[] })?.errors);
      if (res.status >= 500 || (mustBe4xx && (res.status < 400 || !shaped))) {
        failures.push(`${routeKey(route)} ${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    };
    for (const route of routes) {
      // Daraja's callbacks acknowledge whatever they are sent (docs/payments.md); they must only never fail.
      const acknowledgesAll = DARAJA_HOOKS.has(routeKey(route));
      const hasParams = route.path.includes('{');
      if (hasParams) {
        for (const bad of ['not-an-id', '1', "'%20OR%201=1--", '%00', 'x'.repeat(150)]) {
          const options = route.method === 'GET' ? {} : { json: {} };
          await check(
            `param ${bad.slice(0, 20)}`,
            route,
            admin.request(route.method, fill(route.path, bad), options),
            !acknowledgesAll,
          );
        }
      }
      if (!UNSAFE.has(route.method)) continue;
      const url = fill(route.path, SOME_UUID);
      const bodies: [string, string, string][] = [
        ['broken JSON', '{"name": ', 'application/json'],
        ['JSON array', '[1,2,3]', 'application/json'],
        ['JSON string', '"hello"', 'application/json'],
        ['JSON null', 'null', 'application/json'],
        ['deep JSON', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, 'application/json'],
        [
          'wrong types',
          JSON.stringify({
            name: { $gt: '' },
            price: [1],
            email: 5,
            password: true,
            rating: {},
            orderItems: 'x',
            shippingAddress: 1,
            isAdmin: 'x',
          }),
          'application/json',
        ],
        ['text body', 'hello', 'text/plain'],
        ['xml body', '<a/>', 'application/xml'],
        ['huge body', JSON.stringify({ name: 'x'.repeat(400 * 1024) }), 'application/json'],
      ];
      for (const [label, body, type] of bodies) {
        // Routes that take no body (create sample, logout, mark paid …) may ignore it and succeed.
        await check(label, route, admin.request(route.method, url, { body, headers: { 'content-type': type } }), false);
      }
    }
    expect(failures).toEqual([]);
    expect(tried).toBeGreaterThan(150);
  });

  it('answers broken JSON with 400, a wrong content type with 415 and an oversized body with 413', async () => {
    const c = shop.client();
    expectClientError(
      await c.request('POST', '/api/users/auth', { body: '{"email":', headers: { 'content-type': 'application/json' } }),
      400,
      'not valid JSON',
    );
    expectClientError(
      await c.request('POST', '/api/users/auth', { body: 'email=x', headers: { 'content-type': 'text/plain' } }),
      415,
    );
    expectClientError(
      await c.request('POST', '/api/users/auth', {
        body: JSON.stringify({ email: 'x'.repeat(300 * 1024) }),
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'too large',
    );
    expectClientError(await c.request('POST', '/api/users/auth', {}), 400);
  });

  it('answers unknown /api paths with a 404 in the error shape', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['POST', '/api/products/x/y/z'],
      ['DELETE', '/api/users'],
      ['PATCH', '/api/products'],
    ] as const) {
      expectClientError(await admin.request(method, path, method === 'GET' ? {} : { json: {} }), 404, 'Not found');
    }
  });

  it('never puts a password hash in any user answer', async () => {
    const answers = await Promise.all([
      admin.get('/api/users'),
      admin.get('/api/users/profile'),
      admin.get(`/api/users/${admin.user!._id}`),
    ]);
    for (const res of answers) expect(JSON.stringify(res.body)).not.toMatch(/argon2|passwordHash|password_hash/);
  });
});

describe('security headers', () => {
  it('sends a script-blocking CSP, nosniff, frame and referrer policies, and a request id', async () => {
    const res = await shop.client().get('/api/products');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('documents every call of the specification at /api/docs', async () => {
    const keys = routes.map(routeKey);
    for (const expected of [
      'GET /api/products',
      'POST /api/products',
      'GET /api/products/{id}',
      'PUT /api/products/{id}',
      'DELETE /api/products/{id}',
      'GET /api/products/top',
      'POST /api/products/{id}/reviews',
      'DELETE /api/products/{id}/{reviewId}',
      'POST /api/uploads',
      'POST /api/users',
      'POST /api/users/auth',
      'GET /api/users/{id}',
      'PUT /api/users/profile',
      'GET /api/users',
      'POST /api/users/logout',
      'DELETE /api/users/{id}',
      'POST /api/users/reset-password/{token}',
      'POST /api/users/forgot-password',
      'PUT /api/users/{id}',
      'POST /api/orders',
      'GET /api/orders/myorders',
      'GET /api/orders',
      'GET /api/orders/{id}',
      'DELETE /api/orders/{id}',
      'PUT /api/orders/{id}',
      'PUT /api/orders/{id}/deliver',
    ]) {
      expect(keys).toContain(expected);
    }
    const ui = await fetch(`${shop.url}/api/docs`, { redirect: 'follow' });
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});

describe('sign-in limits and shared addresses', () => {
  let shared: TestShop;
  beforeAll(async () => {
    // The shipped sign-in limit: 10 failures per account and address, 100 per address.
    shared = await startTestShop({ RATE_LIMIT_LOGIN_MAX: '10', RATE_LIMIT_LOGIN_WINDOW_MS: String(15 * 60_000) });
  });
  afterAll(() => shared?.stop());

  it('never limits 20 shoppers signing in from one carrier address, while 11 failures on one account are', async () => {
    const shoppers = Array.from({ length: 20 }, (_, i) => ({
      email: `carrier-${i}-${Date.now()}@example.com`,
      password: `carrier-pass-${i}`,
    }));
    for (const shopper of shoppers) {
      expect((await shared.client().post('/api/users', { name: 'Carrier Shopper', ...shopper })).status).toBe(201);
    }
    // Every request comes from 127.0.0.1, as a carrier's shared address does: twice round, 40 sign-ins.
    for (let round = 0; round < 2; round++) {
      for (const shopper of shoppers) expect((await shared.client().post('/api/users/auth', shopper)).status).toBe(200);
    }
    const target = shoppers[0]!;
    const guess = () => shared.client().post('/api/users/auth', { email: target.email, password: 'a-wrong-guess' });
    for (let i = 0; i < 10; i++) expect((await guess()).status).toBe(401);
    expectClientError(await guess(), 429, 'Too many attempts. Please wait 15 minutes and try again.');
    // The others still sign in from the same address.
    for (const shopper of shoppers.slice(1)) expect((await shared.client().post('/api/users/auth', shopper)).status).toBe(200);
  });

  it('starts an account afresh after a successful sign-in', async () => {
    const c = shared.client();
    const attempt = (password: string) => c.post('/api/users/auth', { email: 'amina@example.com', password });
    for (let i = 0; i < 9; i++) expect((await attempt('not-it')).status).toBe(401);
    expect((await attempt('karibu-duka')).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await attempt('not-it')).status).toBe(401);
    expect((await attempt('karibu-duka')).status).toBe(200);
  });

  // Last in this shop: it uses up the address's ceiling.
  it('stops credential stuffing from one address across many accounts', async () => {
    const c = shared.client();
    // Failures so far from this address: 10 + 18 above; the ceiling is 100.
    const statuses: number[] = [];
    for (let i = 0; i < 73; i++) {
      statuses.push((await c.post('/api/users/auth', { email: `stuffed-${i}@example.com`, password: 'leaked-password' })).status);
    }
    expect(statuses.slice(0, 72)).toEqual(Array(72).fill(401));
    expect(statuses[72]).toBe(429);
    // Now even a right password from this address waits for the window.
    expectClientError(await c.post('/api/users/auth', { email: 'brian@example.com', password: 'karibu-duka' }), 429);
  });
});

describe('rate limits', () => {
  let limited: TestShop;
  beforeAll(async () => {
    limited = await startTestShop({
      RATE_LIMIT_LOGIN_MAX: '3',
      RATE_LIMIT_LOGIN_WINDOW_MS: '1500',
      RATE_LIMIT_REGISTER_MAX: '2',
      RATE_LIMIT_FORGOT_PASSWORD_MAX: '2',
      RATE_LIMIT_RESET_PASSWORD_MAX: '2',
    });
  });
  afterAll(() => limited?.stop());

  it('answers 429 with a msg after too many failed sign-ins on one account, even to its right password, and recovers after the window', async () => {
    const c = limited.client();
    const attempt = (password: string) => c.post('/api/users/auth', { email: 'admin@example.com', password });
    for (let i = 0; i < 3; i++) expect((await attempt('wrong-guess')).status).toBe(401);
    expectClientError(await attempt('wrong-guess'), 429, 'Too many attempts');
    // The account is held at this address whatever password comes next.
    expectClientError(await attempt('admin-secret-123'), 429, 'Too many attempts');
    // Another account from the same address is not held back.
    expect((await c.post('/api/users/auth', { email: 'wanjiku@example.com', password: 'karibu-duka' })).status).toBe(200);
    // The window is time itself: nothing to await but its end.
    await sleep(1700);
    expect((await attempt('admin-secret-123')).status).toBe(200);
  });

  it('limits registration, forgot-password and reset-password', async () => {
    const c = limited.client();
    for (let i = 0; i < 2; i++) {
      expect(
        (await c.post('/api/users', { name: 'R', email: `rl${i}-${Date.now()}@example.com`, password: 'rate-pass-1' })).status,
      ).toBe(201);
    }
    expectClientError(
      await c.post('/api/users', { name: 'R', email: `rl-x-${Date.now()}@example.com`, password: 'rate-pass-1' }),
      429,
    );
    for (let i = 0; i < 2; i++) expect((await c.post('/api/users/forgot-password', { email: 'a@example.com' })).status).toBe(200);
    expectClientError(await c.post('/api/users/forgot-password', { email: 'a@example.com' }), 429);
    const token = 'C'.repeat(43);
    for (let i = 0; i < 2; i++)
      expect((await c.post(`/api/users/reset-password/${token}`, { password: 'rate-pass-2' })).status).toBe(400);
    expectClientError(await c.post(`/api/users/reset-password/${token}`, { password: 'rate-pass-2' }), 429);
  });
});

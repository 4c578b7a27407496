import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { ProductDetail } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { listApiRoutes, routeKey } from '../support/routes.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * The authorisation matrix: every documented route, called by a guest, the owner of the
 * resource, another signed-in user and an admin, with the status each must get. The table is
 * checked against the server's route list, so a new route without an entry fails this test.
 */

type Role = 'guest' | 'owner' | 'other' | 'admin';
const ROLES: Role[] = ['guest', 'owner', 'other', 'admin'];
/**
 * Sessions that must have lost their power: a signed-out session's cookie and a deleted user's
 * old cookie count as a guest; a demoted admin's old cookie counts as any other shopper.
 */
type StaleRole = 'signedOut' | 'deletedUser' | 'demotedAdmin';
const STALE: Record<StaleRole, Role> = { signedOut: 'guest', deletedUser: 'guest', demotedAdmin: 'other' };

interface Ctx {
  shop: TestShop;
  admin: ApiClient;
  owner: ApiClient;
}
interface Call {
  path: string;
  json?: unknown;
  body?: FormData;
}
type Row = { expect: Record<Role, number>; call: (ctx: Ctx) => Promise<Call> };

const everyone = (status: number) => ({ guest: status, owner: status, other: status, admin: status });
const signedIn = (status: number) => ({ guest: 401, owner: status, other: status, admin: status });
const adminOnly = (status: number) => ({ guest: 401, owner: 403, other: 403, admin: status });

let emailCount = 0;
let receiptCount = 0;
const freshEmail = () => `matrix-${Date.now()}-${++emailCount}@example.com`;

async function ownerOrder(ctx: Ctx): Promise<Order> {
  const product = await createProduct(ctx.admin, { countInStock: 5 });
  return (await placeOrder(ctx.owner, [{ _id: product._id, qty: 1 }])).body;
}

async function freshUserId(ctx: Ctx): Promise<string> {
  return (await ctx.shop.client().signUp('Matrix Target', freshEmail(), 'matrix-pass-1'))._id;
}

const MATRIX: Record<string, Row> = {
  'GET /api/health': { expect: everyone(200), call: async () => ({ path: '/api/health' }) },
  'GET /api/health/live': { expect: everyone(200), call: async () => ({ path: '/api/health/live' }) },
  'GET /api/products': { expect: everyone(200), call: async () => ({ path: '/api/products?keyword=a' }) },
  'GET /api/products/top': { expect: everyone(200), call: async () => ({ path: '/api/products/top' }) },
  'GET /api/products/categories': { expect: everyone(200), call: async () => ({ path: '/api/products/categories' }) },
  'GET /api/products/{id}': {
    expect: everyone(200),
    call: async (ctx) => ({ path: `/api/products/${(await createProduct(ctx.admin))._id}` }),
  },
  'POST /api/products': { expect: adminOnly(201), call: async () => ({ path: '/api/products' }) },
  'PUT /api/products/{id}': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/products/${(await createProduct(ctx.admin))._id}`, json: { price: 42 } }),
  },
  'PUT /api/products/{id}/variants': {
    expect: adminOnly(200),
    call: async (ctx) => ({
      path: `/api/products/${(await createProduct(ctx.admin))._id}/variants`,
      json: {
        options: [{ name: 'Size', values: ['S', 'M'] }],
        variants: [{ options: { Size: 'M' }, price: 450, countInStock: 2 }],
      },
    }),
  },
  'DELETE /api/products/{id}': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/products/${(await createProduct(ctx.admin))._id}` }),
  },
  'POST /api/products/{id}/reviews': {
    expect: signedIn(201),
    call: async (ctx) => ({
      path: `/api/products/${(await createProduct(ctx.admin))._id}/reviews`,
      json: { rating: 4, comment: 'Matrix review' },
    }),
  },
  'DELETE /api/products/{id}/{reviewId}': {
    expect: { guest: 401, owner: 200, other: 403, admin: 200 },
    call: async (ctx) => {
      const product = await createProduct(ctx.admin);
      await ctx.owner.post(`/api/products/${product._id}/reviews`, { rating: 5, comment: 'Mine' });
      const detail = (await ctx.owner.get<ProductDetail>(`/api/products/${product._id}`)).body;
      return { path: `/api/products/${product._id}/${detail.reviews[0]!._id}` };
    },
  },
  'POST /api/users': {
    expect: everyone(201),
    call: async () => ({ path: '/api/users', json: { name: 'New', email: freshEmail(), password: 'matrix-pass-1' } }),
  },
  'POST /api/users/auth': {
    expect: everyone(200),
    call: async (ctx) => {
      const email = freshEmail();
      await ctx.shop.client().signUp('Login Target', email, 'matrix-pass-1');
      return { path: '/api/users/auth', json: { email, password: 'matrix-pass-1' } };
    },
  },
  'POST /api/users/logout': { expect: everyone(200), call: async () => ({ path: '/api/users/logout' }) },
  'POST /api/users/forgot-password': {
    expect: everyone(200),
    call: async () => ({ path: '/api/users/forgot-password', json: { email: freshEmail() } }),
  },
  // Public by design: the token is the credential. An unknown token is refused for everyone.
  'POST /api/users/reset-password/{token}': {
    expect: everyone(400),
    call: async () => ({ path: `/api/users/reset-password/${'B'.repeat(43)}`, json: { password: 'matrix-pass-2' } }),
  },
  'GET /api/users/profile': { expect: signedIn(200), call: async () => ({ path: '/api/users/profile' }) },
  'PUT /api/users/profile': {
    expect: signedIn(200),
    call: async () => ({ path: '/api/users/profile', json: { name: 'Renamed By Matrix' } }),
  },
  'GET /api/users': { expect: adminOnly(200), call: async () => ({ path: '/api/users' }) },
  'GET /api/users/{id}': {
    expect: { guest: 401, owner: 200, other: 403, admin: 200 },
    call: async (ctx) => ({ path: `/api/users/${ctx.owner.user!._id}` }),
  },
  'PUT /api/users/{id}': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/users/${await freshUserId(ctx)}`, json: { name: 'Edited By Matrix' } }),
  },
  'DELETE /api/users/{id}': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/users/${await freshUserId(ctx)}` }),
  },
  'POST /api/orders': {
    expect: signedIn(201),
    call: async (ctx) => {
      const product = await createProduct(ctx.admin, { countInStock: 5 });
      return { path: '/api/orders', json: { orderItems: [{ _id: product._id, qty: 1 }], shippingAddress: NAIROBI_ADDRESS } };
    },
  },
  'GET /api/orders/myorders': { expect: signedIn(200), call: async () => ({ path: '/api/orders/myorders' }) },
  'GET /api/orders': { expect: adminOnly(200), call: async () => ({ path: '/api/orders' }) },
  'GET /api/orders/{id}': {
    expect: { guest: 401, owner: 200, other: 404, admin: 200 },
    call: async (ctx) => ({ path: `/api/orders/${(await ownerOrder(ctx))._id}` }),
  },
  'DELETE /api/orders/{id}': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/orders/${(await ownerOrder(ctx))._id}` }),
  },
  'PUT /api/orders/{id}': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/orders/${(await ownerOrder(ctx))._id}` }),
  },
  'PUT /api/orders/{id}/deliver': {
    expect: adminOnly(200),
    call: async (ctx) => ({ path: `/api/orders/${(await ownerOrder(ctx))._id}/deliver` }),
  },
  'POST /api/orders/stkpush': {
    // Only the order's owner may prompt for it; the phone is one the simulator leaves pending.
    expect: { guest: 401, owner: 200, other: 404, admin: 404 },
    call: async (ctx) => {
      const order = await ownerOrder(ctx);
      return {
        path: '/api/orders/stkpush',
        json: { orderId: order._id, phoneNumber: '0700000006', Amount: Math.ceil(order.totalPrice) },
      };
    },
  },
  'GET /api/orders/{id}/payment': {
    expect: { guest: 401, owner: 200, other: 404, admin: 200 },
    call: async (ctx) => ({ path: `/api/orders/${(await ownerOrder(ctx))._id}/payment` }),
  },
  // A demo shop's simulated Paybill payment: the order's owner or an admin.
  'POST /api/orders/{id}/simulate-paybill': {
    expect: { guest: 401, owner: 202, other: 404, admin: 202 },
    call: async (ctx) => ({ path: `/api/orders/${(await ownerOrder(ctx))._id}/simulate-paybill`, json: {} }),
  },
  // Daraja's callback: public by design (the secret path is the credential), always acknowledged.
  'POST /api/hooks/daraja/stk/{token}': {
    expect: everyone(200),
    call: async () => ({ path: '/api/hooks/daraja/stk/not-the-secret', json: { Body: {} } }),
  },
  'POST /api/hooks/daraja/c2b/{token}/confirm': {
    expect: everyone(200),
    call: async () => ({ path: '/api/hooks/daraja/c2b/not-the-secret/confirm', json: { TransID: 'X' } }),
  },
  'POST /api/hooks/daraja/c2b/{token}/validate': {
    expect: everyone(200),
    call: async () => ({ path: '/api/hooks/daraja/c2b/not-the-secret/validate', json: { TransID: 'X' } }),
  },
  // Reversal and Transaction Status Results and queue timeouts: Daraja's calls, acknowledged.
  ...Object.fromEntries(
    ['rev', 'ts'].flatMap((kind) =>
      ['result', 'timeout'].map((end) => [
        `POST /api/hooks/daraja/${kind}/{token}/{id}/${end}`,
        {
          expect: everyone(200),
          call: async () => ({
            path: `/api/hooks/daraja/${kind}/not-the-secret/00000000-0000-4000-8000-000000000000/${end}`,
            json: { Result: {} },
          }),
        },
      ]),
    ),
  ),
  'GET /api/admin/payments': { expect: adminOnly(200), call: async () => ({ path: '/api/admin/payments?status=exception' }) },
  'GET /api/admin/payments/summary': { expect: adminOnly(200), call: async () => ({ path: '/api/admin/payments/summary' }) },
  'POST /api/admin/payments': {
    expect: adminOnly(201),
    call: async (ctx) => {
      const order = await ownerOrder(ctx);
      const receipt = `MX${String(++receiptCount).padStart(8, '0')}`;
      return { path: '/api/admin/payments', json: { orderId: order._id, receipt, amount: Math.ceil(order.totalPrice) } };
    },
  },
  // Unknown payments: refused for all, by the guard before anything else.
  'POST /api/admin/payments/{id}/assign': {
    expect: adminOnly(404),
    call: async (ctx) => ({
      path: '/api/admin/payments/00000000-0000-4000-8000-000000000000/assign',
      json: { orderId: (await ownerOrder(ctx))._id },
    }),
  },
  'POST /api/admin/payments/{id}/refund': {
    expect: adminOnly(404),
    call: async () => ({ path: '/api/admin/payments/00000000-0000-4000-8000-000000000000/refund' }),
  },
  'POST /api/admin/payments/{id}/resolve': {
    expect: adminOnly(404),
    call: async () => ({ path: '/api/admin/payments/00000000-0000-4000-8000-000000000000/resolve', json: { note: 'Matrix' } }),
  },
  'GET /api/admin/mail': { expect: adminOnly(200), call: async () => ({ path: '/api/admin/mail' }) },
  'GET /api/admin/dashboard': { expect: adminOnly(200), call: async () => ({ path: '/api/admin/dashboard' }) },
  'GET /api/admin/exports/orders.csv': {
    expect: adminOnly(200),
    call: async () => ({ path: '/api/admin/exports/orders.csv?isPaid=false' }),
  },
  'GET /api/admin/exports/payments.csv': {
    expect: adminOnly(200),
    call: async () => ({ path: '/api/admin/exports/payments.csv?status=exception' }),
  },
  'GET /api/settings': { expect: everyone(200), call: async () => ({ path: '/api/settings' }) },
  'GET /api/admin/settings': { expect: adminOnly(200), call: async () => ({ path: '/api/admin/settings' }) },
  // Sets what a new shop has, so the other rows price and mail as always.
  'PUT /api/admin/settings': {
    expect: adminOnly(200),
    call: async () => ({ path: '/api/admin/settings', json: { shippingFee: 100, taxPercent: 15 } }),
  },
  'GET /api/admin/products': { expect: adminOnly(200), call: async () => ({ path: '/api/admin/products' }) },
  'POST /api/uploads': {
    expect: adminOnly(201),
    call: async () => {
      const form = new FormData();
      const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: 'blue' } })
        .png()
        .toBuffer();
      form.set('image', new Blob([png]), 'matrix.png');
      return { path: '/api/uploads', body: form };
    },
  },
};

/**
 * Routes whose answers do not depend on the session. Every other route's answers, to every
 * caller and whatever their status, carry `Cache-Control: no-store`; the public catalogue keeps
 * its caching. A new route is private unless it is added here.
 */
const SESSIONLESS = new Set([
  'GET /api/settings',
  'GET /api/health',
  'GET /api/health/live',
  'GET /api/products',
  'GET /api/products/top',
  'GET /api/products/{id}',
  'POST /api/users/forgot-password',
  'POST /api/users/reset-password/{token}',
  'POST /api/hooks/daraja/stk/{token}',
  'POST /api/hooks/daraja/c2b/{token}/confirm',
  'POST /api/hooks/daraja/c2b/{token}/validate',
  'POST /api/hooks/daraja/rev/{token}/{id}/result',
  'POST /api/hooks/daraja/rev/{token}/{id}/timeout',
  'POST /api/hooks/daraja/ts/{token}/{id}/result',
  'POST /api/hooks/daraja/ts/{token}/{id}/timeout',
  'GET /api/products/categories',
]);
const PUBLIC_CATALOGUE = ['GET /api/products', 'GET /api/products/top', 'GET /api/products/{id}', 'GET /api/products/categories'];

let shop: TestShop;
let ownerEmail: string;
let otherEmail: string;

beforeAll(async () => {
  shop = await buildTestApp();
  ownerEmail = freshEmail();
  otherEmail = freshEmail();
  await shop.client().signUp('Owner Shopper', ownerEmail, 'owner-pass-1');
  await shop.client().signUp('Other Shopper', otherEmail, 'other-pass-1');
});
afterAll(() => shop?.stop());

/** A client holding the cookie of a session that was valid once and must no longer be. */
async function staleSession(kind: StaleRole, admin: ApiClient): Promise<ApiClient> {
  const email = freshEmail();
  const c = shop.client();
  const user = await c.signUp(`Stale ${kind}`, email, 'stale-pass-1');
  if (kind === 'signedOut') {
    const cookie = c.cookies.get('duka_session')!;
    await c.post('/api/users/logout');
    c.cookies.set('duka_session', cookie); // replays the old cookie
  } else if (kind === 'deletedUser') {
    expect((await admin.delete(`/api/users/${user._id}`)).status).toBe(200);
  } else {
    await admin.put(`/api/users/${user._id}`, { isAdmin: true });
    await admin.put(`/api/users/${user._id}`, { isAdmin: false });
  }
  return c;
}

/**
 * The sessions that set up a row's resources: an admin's, and the owner's for what she owns. A row
 * makes them once, apart from its callers' sessions, which the call may sign out or change.
 */
async function setUpSessions(): Promise<Ctx> {
  const [admin, owner] = await Promise.all([shop.admin(), sessionOf(ownerEmail, 'owner-pass-1')]);
  return { shop, admin, owner };
}

async function sessionOf(email: string, password: string): Promise<ApiClient> {
  const c = shop.client();
  await c.signIn(email, password);
  return c;
}

/** A fresh session for each caller, so a logout or profile change by one cannot reach another. */
function caller(role: Role): Promise<ApiClient> {
  if (role === 'owner') return sessionOf(ownerEmail, 'owner-pass-1');
  if (role === 'other') return sessionOf(otherEmail, 'other-pass-1');
  if (role === 'admin') return shop.admin();
  return Promise.resolve(shop.client());
}

describe('authorisation matrix', () => {
  it('has an entry for every route the server has, and no entry for a route it lacks', async () => {
    const routes = (await listApiRoutes(shop.client())).map(routeKey).sort();
    expect(routes).toEqual(Object.keys(MATRIX).sort());
  });

  for (const [key, row] of Object.entries(MATRIX)) {
    const [method = 'GET'] = key.split(' ');
    it(`${key}: ${ROLES.map((r) => `${r} ${row.expect[r]}`).join(', ')}`, async () => {
      const seen: Record<string, number> = {};
      const ctx = await setUpSessions();
      for (const role of ROLES) {
        const call = await row.call(ctx);
        const res = await (await caller(role)).request(method, call.path, {
          ...(call.json !== undefined && { json: call.json }),
          ...(call.body && { body: call.body }),
        });
        seen[role] = res.status;
        const cacheControl = res.headers.get('cache-control') ?? '';
        if (!SESSIONLESS.has(key)) expect(cacheControl, `${role} ${res.status}: Cache-Control`).toMatch(/\bno-store\b/);
        if (PUBLIC_CATALOGUE.includes(key)) expect(cacheControl, `${role}: Cache-Control`).not.toMatch(/no-store|private/);
        if (res.status >= 400) {
          expect((res.body as { errors?: unknown }).errors, `${role}: ${JSON.stringify(res.body)}`).toBeDefined();
        }
      }
      expect(seen).toEqual(row.expect);
    });

    it(`${key}: a signed-out, a deleted user's and a demoted admin's old sessions have no more power`, async () => {
      const seen: Record<string, number> = {};
      const expected: Record<string, number> = {};
      const ctx = await setUpSessions();
      for (const kind of Object.keys(STALE) as StaleRole[]) {
        const stale = await staleSession(kind, ctx.admin);
        const call = await row.call(ctx);
        const res = await stale.request(method, call.path, {
          ...(call.json !== undefined && { json: call.json }),
          ...(call.body && { body: call.body }),
        });
        seen[kind] = res.status;
        expected[kind] = row.expect[STALE[kind]];
      }
      expect(seen).toEqual(expected);
    });
  }
});

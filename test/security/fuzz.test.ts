import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { images } from '../../src/server/db/schema.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { Product } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, getProduct, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, startTestShop, type TestShop } from '../support/shop.js';
import { type Answer, changedTables, type Jar, judge, send, sendAndVanish, snapshot } from './fuzz-http.js';
import {
  DARAJA_CALLBACK,
  describeCase,
  type FuzzCase,
  type FuzzContext,
  loadRouteSpecs,
  mixedCases,
  type RouteSpec,
  refusedCases,
  toRawRequest,
  UPLOAD_ROUTE,
  type Who,
} from './fuzz-inputs.js';

/**
 * Hostile input on every /api route. The route list comes from the server's OpenAPI document, so a
 * new route is fuzzed without a change here. For each route, fast-check (fixed seed) generates:
 * - requests built to be refused — malformed and unknown ids, bodies that can never validate, wrong
 *   content types, broken JSON, cut-off multipart, oversized bodies, missing XSRF tokens, files that
 *   lie about their type, clients that vanish mid-body — sent as an admin (so they reach
 *   validation) and, for a sample, as a shopper or a guest. Each must get a 4xx with
 *   `{ errors: [{ msg }] }` within 5 s, and the database (row count and checksum of every table
 *   that holds the shop's data) must be exactly as it was;
 * - hostile but possibly valid requests (field-aware bodies with odd values, other encodings,
 *   fc.anything()), which may succeed but never answer 5xx or hang.
 * STRESS=1 sends about 500 requests per route instead of about 36; FUZZ_SEED picks another seed.
 */

const STRESS = process.env.STRESS === '1';
const SEED = Number(process.env.FUZZ_SEED ?? 42);
const REFUSED_RUNS = STRESS ? 350 : 24;
const MIXED_RUNS = STRESS ? 150 : 12;
const TIMEOUT_MS = 5000;
/** How many requests of each kind were sent, and how the hostile-but-possibly-valid ones were answered. */
const kinds = new Map<string, number>();
const mixedAnswers = new Map<string, number>();
const tally = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const PHASE_TIMEOUT_MS = STRESS ? 30 * 60_000 : 150_000;

let shop: TestShop;
let root: ApiClient;
let routes: RouteSpec[];
let ctx: FuzzContext;
let product: Product;
let order: Order;

/** Who sends: a second admin (so the seeded admin's session stays clean), a shopper, a guest. */
const identities = new Map<Who, ApiClient>();
const stats = new Map<string, { requests: number; failures: number }>();

function count(route: RouteSpec, failed: boolean) {
  const s = stats.get(route.key) ?? { requests: 0, failures: 0 };
  s.requests += 1;
  if (failed) s.failures += 1;
  stats.set(route.key, s);
}

async function newShopper(name: string): Promise<ApiClient> {
  return shop.shopper(name);
}

async function newAdmin(): Promise<ApiClient> {
  const admin = await newShopper('Fuzz Admin');
  const promoted = await root.put(`/api/users/${admin.user?._id}`, { isAdmin: true });
  expect(promoted.status).toBe(200);
  return admin;
}

async function newGuest(): Promise<ApiClient> {
  const guest = shop.client();
  await guest.get('/api/health');
  return guest;
}

/** The client of an identity; one whose session a request ended (a sign-out) is replaced by a new one. */
async function identity(who: Who): Promise<ApiClient> {
  const current = identities.get(who);
  if (current) return current;
  const fresh = who === 'admin' ? await newAdmin() : who === 'shopper' ? await newShopper('Fuzz Shopper') : await newGuest();
  identities.set(who, fresh);
  return fresh;
}

/**
 * Each request gets a copy of its identity's cookies, so a sign-up or sign-in it makes does not
 * turn the admin into someone else; a request that ended the session retires the identity.
 */
async function jarFor(who: Who): Promise<{ jar: Jar; done: () => void }> {
  const client = await identity(who);
  const jar: Jar = new Map(client.cookies);
  return {
    jar,
    done: () => {
      if (client.cookies.has('duka_session') && !jar.has('duka_session')) identities.delete(who);
    },
  };
}

/** Why the identities are not what they claim to be after a route's requests, if they are not. */
async function identitiesProblem(): Promise<string | undefined> {
  const admin = await (await identity('admin')).get<{ isAdmin?: boolean }>('/api/users/profile');
  if (admin.status !== 200 || admin.body.isAdmin !== true)
    return `the fuzz admin is no longer a signed-in admin (${admin.status})`;
  const shopper = await (await identity('shopper')).get<{ isAdmin?: boolean }>('/api/users/profile');
  if (shopper.status !== 200 || shopper.body.isAdmin !== false)
    return `the fuzz shopper is no longer a signed-in shopper (${shopper.status})`;
  const guest = await (await identity('guest')).get('/api/users/profile');
  if (guest.status !== 401) return `the guest is signed in (${guest.status})`;
  return undefined;
}

async function health(): Promise<Answer> {
  return send(shop.url, new Map(), { method: 'GET', url: '/api/health' }, TIMEOUT_MS);
}

/** Sends one generated request and returns why its answer is wrong, if it is. */
async function run(c: FuzzCase): Promise<string | undefined> {
  tally(kinds, c.kind);
  const { jar, done } = await jarFor(c.who);
  try {
    return await sendCase(c, jar);
  } finally {
    done();
  }
}

async function sendCase(c: FuzzCase, jar: Jar): Promise<string | undefined> {
  if (c.vanish) {
    const vanish = c.vanish;
    let whileStalled: Answer | undefined;
    const { answered } = await sendAndVanish(
      shop.url,
      jar,
      {
        method: c.method,
        url: c.url,
        contentType: vanish.contentType,
        prefix: Buffer.from(vanish.bytes.subarray(0, vanish.sendBytes)),
        declaredLength: vanish.bytes.length,
      },
      async () => {
        whileStalled = await health();
      },
    );
    if (/^HTTP\/1\.1 5/.test(answered)) return `answered ${answered}`;
    if (whileStalled?.status !== 200)
      return `the shop stopped serving others while a client stalled: ${whileStalled?.error ?? whileStalled?.status}`;
    const after = await health();
    return after.status === 200 ? undefined : `the shop did not answer after a client vanished: ${after.error ?? after.status}`;
  }
  const answer = await send(shop.url, jar, toRawRequest(c), TIMEOUT_MS);
  if (c.kind === 'hostile input') tally(mixedAnswers, answer.status === 0 ? 'none' : `${String(answer.status).slice(0, 1)}xx`);
  return judge(answer, c.expect);
}

/** Uploaded images stored (one row per image and width). */
async function uploadedFiles(): Promise<number> {
  return await shop.database.db.$count(images);
}

/** Sets the fixtures back to a known state, so each route meets the same shop. */
async function resetFixtures() {
  const res = await root.put(`/api/products/${product._id}`, { price: 100, countInStock: 1_000_000, name: 'Fuzz Product' });
  expect(res.status).toBe(200);
}

const failures: string[] = [];
/** The failures themselves, so the assertion message says what to send to see each one. */
function report(list: string[]): string {
  const kinds = new Map<string, number>();
  for (const failure of list) {
    const kind = failure.replace(/ — .*$/s, '').replace(/(without an errors array).*$/s, '$1');
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const summary = [...kinds].map(([kind, n]) => `${n} × ${kind}`).join('\n');
  return `${list.length} failures:\n${summary}\nfirst ones:\n${list.slice(0, 40).join('\n')}`;
}

beforeAll(async () => {
  shop = await startTestShop({ RATE_LIMIT_STKPUSH_MAX: '1000000' });
  root = await shop.admin();
  product = await createProduct(root, { price: 100, countInStock: 1_000_000, name: 'Fuzz Product' });
  const shopper = await newShopper('Fuzz Shopper');
  identities.set('shopper', shopper);
  identities.set('admin', await newAdmin());
  identities.set('guest', await newGuest());
  const placed = await placeOrder(shopper, [{ _id: product._id, qty: 2 }], NAIROBI_ADDRESS);
  expect(placed.status).toBe(201);
  order = placed.body;
  expect((await shopper.post(`/api/products/${product._id}/reviews`, { rating: 4, comment: 'Fine' })).status).toBe(201);
  const review = (await getProduct(shopper, product._id)) as Product & { reviews: { _id: string }[] };
  const victim = await newShopper('Fuzz Victim');

  const image = (format: 'png' | 'gif' | 'tiff') =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 10, g: 120, b: 200 } } })
      .toFormat(format)
      .toBuffer()
      .then((b) => new Uint8Array(b));
  ctx = {
    ids: {
      products: [product._id],
      orders: [order._id],
      users: [victim.user?._id ?? ''],
      reviews: review.reviews.map((r) => r._id),
    },
    emails: [ADMIN_EMAIL, victim.user?.email ?? '', shopper.user?.email ?? ''],
    amounts: [Math.ceil(order.totalPrice)],
    hookSecret: shop.mpesa.hookSecret,
    images: { png: await image('png'), gif: await image('gif'), tiff: await image('tiff') },
  };
  routes = await loadRouteSpecs(shop.client());
  console.log(`fuzz: seed ${SEED}, ${routes.length} routes, ${REFUSED_RUNS} refused + ${MIXED_RUNS} mixed requests per route`);
});

afterAll(async () => {
  for (const route of routes ?? []) {
    const s = stats.get(route.key) ?? { requests: 0, failures: 0 };
    console.log(`fuzz: ${route.key}: ${s.requests} requests, ${s.failures} failures`);
  }
  const total = [...stats.values()].reduce((a, s) => ({ requests: a.requests + s.requests, failures: a.failures + s.failures }), {
    requests: 0,
    failures: 0,
  });
  console.log(`fuzz: total: ${total.requests} requests on ${stats.size} routes, ${total.failures} failures`);
  const list = (map: Map<string, number>) => [...map].map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`fuzz: requests by kind: ${list(kinds)}`);
  console.log(`fuzz: hostile but possibly valid requests answered: ${list(mixedAnswers)}`);
  await shop?.stop();
});

/**
 * Defects the fuzzing found, each pinned by the smallest request that showed it. They run first:
 * the fuzzing below leaves M-Pesa prompts whose callbacks arrive later and change the tables.
 */
describe('regressions found by fuzzing', () => {
  it('answers 400, not 500, to a NUL character in text the database would store or search, and stores nothing', async () => {
    const shopper = await newShopper('Nul Shopper');
    const before = await snapshot(shop.database.db);
    expectClientError(await root.get('/api/products?keyword=a%00b'), 400, 'not allowed');
    expectClientError(await root.put(`/api/products/${product._id}`, { name: 'a\u0000b' }), 400, 'not allowed');
    expectClientError(
      await root.request('PUT', `/api/products/${product._id}`, {
        body: 'description=x%00y',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      'not allowed',
    );
    expectClientError(
      await shopper.post(`/api/products/${product._id}/reviews`, { rating: 5, comment: 'ok\u0000' }),
      400,
      'not allowed',
    );
    expectClientError(
      await shop.client().post('/api/users', { name: 'x\u0000', email: 'nul-name@example.com', password: 'long-enough-1' }),
      400,
      'not allowed',
    );
    expectClientError(
      await placeOrder(shopper, [{ _id: product._id, qty: 1 }], { ...NAIROBI_ADDRESS, ward: 'Park\u0000lands' }),
      400,
      'not allowed',
    );
    const callback = await shop.client().request('POST', `/api/hooks/daraja/stk/${ctx.hookSecret('stk')}`, {
      xsrf: false,
      json: { Body: { stkCallback: { MerchantRequestID: 'm', CheckoutRequestID: 'ws_CO_\u0000', ResultCode: 0 } } },
    });
    expect(callback.status, JSON.stringify(callback.body)).toBeLessThan(500);
    expect(changedTables(before, await snapshot(shop.database.db))).toEqual([]);
  });

  it('refuses a price the database cannot hold with a 400 on the price, and accepts the largest allowed', async () => {
    for (const price of [21_474_836.48, 99_999_999.99, 100_000_000]) {
      expectClientError(await root.put(`/api/products/${product._id}`, { price }), 400, 'Price is too large');
    }
    const largest = await root.put<Product>(`/api/products/${product._id}`, { price: 10_000_000 });
    expect(largest.status, JSON.stringify(largest.body)).toBe(200);
    expect(largest.body.price).toBe(10_000_000);
    await resetFixtures();
  });

  it('answers 400, not 500, to an order whose total the database cannot hold, and keeps the stock', async () => {
    const expensive = await createProduct(root, { price: 10_000_000, countInStock: 10, name: 'Fuzz Tractor' });
    const shopper = await newShopper('Big Spender');
    expectClientError(await placeOrder(shopper, [{ _id: expensive._id, qty: 3 }]), 400);
    expect((await getProduct(shopper, expensive._id)).countInStock).toBe(10);
    const one = await placeOrder(shopper, [{ _id: expensive._id, qty: 1 }]);
    expect(one.status, JSON.stringify(one.body)).toBe(201);
    expect((await getProduct(shopper, expensive._id)).countInStock).toBe(9);
  });
});

describe('hostile input on every /api route', () => {
  it('covers every documented route, including the upload and the M-Pesa callback', () => {
    const keys = routes.map((r) => r.key);
    expect(keys.length).toBeGreaterThan(25);
    expect(keys).toContain(UPLOAD_ROUTE);
    expect(keys).toContain(DARAJA_CALLBACK);
  });

  it(
    'refuses every request built to be refused with a 4xx in the error shape, in time, and changes nothing',
    async () => {
      for (const [index, route] of routes.entries()) {
        const arbitrary = refusedCases(route, ctx);
        if (!arbitrary) continue;
        const before = await snapshot(shop.database.db);
        const filesBefore = await uploadedFiles();
        await fc.assert(
          fc.asyncProperty(arbitrary, async (c) => {
            const problem = await run(c);
            count(route, problem !== undefined);
            if (problem) failures.push(`${route.key}: ${problem} — ${describeCase(c)}`);
          }),
          { seed: SEED + index, numRuns: REFUSED_RUNS },
        );
        const changed = changedTables(before, await snapshot(shop.database.db));
        if (changed.length > 0) failures.push(`${route.key}: refused requests changed ${changed.join(', ')}`);
        if ((await uploadedFiles()) !== filesBefore) failures.push(`${route.key}: refused requests stored an upload`);
        const up = await health();
        if (up.status !== 200)
          failures.push(`${route.key}: the shop is down after its refused requests (${up.error ?? up.status})`);
        const who = await identitiesProblem();
        if (who) failures.push(`${route.key}: after its refused requests ${who}`);
      }
      expect(failures, report(failures)).toEqual([]);
    },
    PHASE_TIMEOUT_MS,
  );

  it(
    'never answers hostile but possibly valid input with a 5xx or a hang',
    async () => {
      const before = failures.length;
      for (const [index, route] of routes.entries()) {
        await resetFixtures();
        const runs = refusedCases(route, ctx) ? MIXED_RUNS : REFUSED_RUNS + MIXED_RUNS;
        await fc.assert(
          fc.asyncProperty(mixedCases(route, ctx), async (c) => {
            const problem = await run(c);
            count(route, problem !== undefined);
            if (problem) failures.push(`${route.key}: ${problem} — ${describeCase(c)}`);
          }),
          { seed: SEED + 1000 + index, numRuns: runs },
        );
        const up = await health();
        if (up.status !== 200) failures.push(`${route.key}: the shop is down after hostile input (${up.error ?? up.status})`);
        const who = await identitiesProblem();
        if (who) {
          failures.push(`${route.key}: after hostile input ${who}`);
          identities.clear();
        }
      }
      expect(failures.slice(before), report(failures.slice(before))).toEqual([]);
    },
    PHASE_TIMEOUT_MS,
  );

  it('stays up and keeps serving after all of it', async () => {
    const up = await health();
    expect(up.status, up.error).toBe(200);
    const page = await root.get<{ products: unknown[] }>('/api/products');
    expect(page.status).toBe(200);
    for (const route of routes) expect(stats.get(route.key)?.requests ?? 0, route.key).toBeGreaterThanOrEqual(20);
  });
});

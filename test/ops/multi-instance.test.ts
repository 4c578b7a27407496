import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DarajaSimulator, startDarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus, StkPushResponse } from '../../src/shared/schemas/payments.js';
import type { Product, ProductPage } from '../../src/shared/schemas/products.js';
import { ShopProcess } from '../reliability/fault-process.js';
import { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { metricValue, parseMetrics } from '../support/metrics.js';
import { freePort } from '../support/ports.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, freshPostgresUrl } from '../support/shop.js';
import { outOfTime } from '../support/wait.js';

/**
 * Several instances of the shop on one PostgreSQL and Redis, as real processes: two separate
 * instances (as on two machines behind a load balancer) with a client alternating between them,
 * and one instance in cluster mode (WEB_CONCURRENCY=2). Whatever a shopper or an admin does on one
 * instance must hold on every other, and background work must happen once.
 *
 * Daraja is one service for all instances (as Safaricom is): a simulator started here, which the
 * instances reach with MPESA_ENV=sandbox and MPESA_BASE_URL, calling back to MPESA_CALLBACK_BASE_URL.
 */

const POSTGRES = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SIMULATOR_KEY = 'duka-simulator-key';
const SIMULATOR_SECRET = 'duka-simulator-secret';
const SANDBOX_SHORTCODE = '174379';
const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const LOGIN_LIMIT = 6;
/** Daraja's sandbox success number, and "success, but the callback never arrives". */
const SUCCESS_PHONE = '0708374149';
const NO_CALLBACK_PHONE = '0700000006';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error('cleanup failed', error));
});

/** The same browser (one cookie jar) talking to another instance, as behind a load balancer. */
function sameBrowser(client: ApiClient, url: string): ApiClient {
  const other = new ApiClient(url);
  Object.defineProperty(other, 'cookies', { value: client.cookies });
  other.user = client.user;
  return other;
}

async function signUp(url: string, name: string): Promise<ApiClient & { email: string }> {
  const client = new ApiClient(url);
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}@example.com`;
  await client.signUp(name, email, 'shopper-pass-1');
  return Object.assign(client, { email });
}

/** Reads `fn` until `done` holds (20 s at most) and returns what it read, or fails saying what was last read. */
function poll<T>(what: string, fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await fn();
      if (!done(value)) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
      return value;
    },
    { timeout: timeoutMs, interval: 150 },
  );
}

/** Everything the instances share: the database, a Redis key prefix, and Daraja. */
async function sharedServices() {
  if (!POSTGRES) throw new Error('TEST_DATABASE_URL is not set');
  const database = await freshPostgresUrl(POSTGRES);
  cleanups.push(database.drop);
  const sql = new pg.Pool({ connectionString: database.url, max: 2 });
  cleanups.push(() => sql.end());
  const simulator: DarajaSimulator = await startDarajaSimulator({
    consumerKey: SIMULATOR_KEY,
    consumerSecret: SIMULATOR_SECRET,
    shortcode: SANDBOX_SHORTCODE,
    passkey: SANDBOX_PASSKEY,
    callbackDelayMs: 400,
  });
  cleanups.push(() => simulator.close());
  const env = {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '8',
    REDIS_URL,
    REDIS_KEY_PREFIX: `duka-test-${randomBytes(6).toString('hex')}:`,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    MPESA_ENV: 'sandbox',
    MPESA_BASE_URL: simulator.url,
    MPESA_CONSUMER_KEY: SIMULATOR_KEY,
    MPESA_CONSUMER_SECRET: SIMULATOR_SECRET,
    MPESA_RECONCILE_AFTER_MS: '1000',
    // "Payment received" for a prompt settled by the query alone goes at the next pass.
    MPESA_RECEIPT_WAIT_MS: '0',
    MPESA_RECONCILE_INTERVAL_MS: '300',
    MPESA_PROMPT_COOLDOWN_MS: '0',
    MAIL_POLL_INTERVAL_MS: '200',
    RATE_LIMIT_LOGIN_MAX: String(LOGIN_LIMIT),
    RATE_LIMIT_REGISTER_MAX: '100000',
    RATE_LIMIT_STKPUSH_MAX: '1000',
    // The client below plays shoppers at different addresses through X-Forwarded-For.
    TRUST_PROXY: '127.0.0.1',
  };
  return { database, sql, simulator, env };
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

async function startProcess(env: Record<string, string>): Promise<ShopProcess> {
  const shop = await ShopProcess.start(env, 120_000);
  cleanups.push(() => shop.stop());
  return shop;
}

describe('cluster mode on the embedded database', () => {
  it('refuses to start with a clear message: PGlite is one process', async () => {
    const dataDir = await tempDir('duka-cluster-pglite-');
    const port = String(await freePort());
    const error = await ShopProcess.start({ PORT: port, DATA_DIR: dataDir, WEB_CONCURRENCY: '2' }, 60_000).then(
      () => new Error('the shop started'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toContain('the shop exited while starting');
    expect(error.message).toContain('WEB_CONCURRENCY=2 needs DATABASE_URL');
    expect(error.message).toContain('the embedded PGlite database can be opened by one process only');
    // Nothing was created: it refused before opening the database.
    await expect(fs.readdir(dataDir)).resolves.toEqual([]);
  });
});

describe.skipIf(!POSTGRES)('on PostgreSQL', () => {
  describe('two instances on one PostgreSQL and Redis', () => {
    let shared: Awaited<ReturnType<typeof sharedServices>>;
    let a: ShopProcess;
    let b: ShopProcess;
    let outboxes: string[];
    let adminA: ApiClient;

    beforeAll(async () => {
      shared = await sharedServices();
      const [portA, portB] = [await freePort(), await freePort()];
      const [dirA, dirB] = [await tempDir('duka-instance-a-'), await tempDir('duka-instance-b-')];
      outboxes = [path.join(dirA, 'outbox'), path.join(dirB, 'outbox')];
      const urlA = `http://127.0.0.1:${portA}`;
      const urlB = `http://127.0.0.1:${portB}`;
      // Started together: migrations and the seed run once, under the advisory lock.
      [a, b] = await Promise.all([
        // Each one's PUBLIC_URL (and so Daraja's callback) is the other instance.
        startProcess({ ...shared.env, PORT: String(portA), DATA_DIR: dirA, PUBLIC_URL: urlA, MPESA_CALLBACK_BASE_URL: urlB }),
        startProcess({ ...shared.env, PORT: String(portB), DATA_DIR: dirB, PUBLIC_URL: urlB, MPESA_CALLBACK_BASE_URL: urlA }),
      ]);
      adminA = new ApiClient(a.url);
      await adminA.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    }, 180_000);

    it('seeded once although both started together', async () => {
      const { rows } = await shared.sql.query<{ admins: string; products: string }>(
        `SELECT (SELECT count(*) FROM users WHERE email = $1) AS admins, (SELECT count(*) FROM products) AS products`,
        [ADMIN_EMAIL],
      );
      expect(Number(rows[0]?.admins)).toBe(1);
      expect(Number(rows[0]?.products)).toBe(40);
    });

    it('a session made on one instance works on the other, and signing out on one ends it on both', async () => {
      const onA = await signUp(a.url, 'Roaming Shopper');
      const onB = sameBrowser(onA, b.url);
      for (let i = 0; i < 6; i += 1) {
        const res = await (i % 2 ? onA : onB).get<{ email: string }>('/api/users/profile');
        expect(res.status).toBe(200);
        expect(res.body.email).toBe(onA.email);
      }
      // The profile changed on B is the profile read on A.
      expect((await onB.put('/api/users/profile', { name: 'Renamed On B' })).status).toBe(200);
      expect((await onA.get<{ name: string }>('/api/users/profile')).body.name).toBe('Renamed On B');
      expect((await onB.post('/api/users/logout')).status).toBe(200);
      expect((await onA.get('/api/users/profile')).status).toBe(401);
      // The old session cookie, replayed on A after the sign-out on B, is dead too.
      const stolen = new ApiClient(a.url);
      for (const [name, value] of onA.cookies) stolen.cookies.set(name, value);
      expect((await stolen.get('/api/users/profile')).status).toBe(401);
    });

    it('counts a sign-in limit across both instances, per address', async () => {
      const address = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
      const login = (url: string, ip: string) =>
        new ApiClient(url).request('POST', '/api/users/auth', {
          json: { email: 'wanjiku@example.com', password: 'not-her-password' },
          headers: { 'x-forwarded-for': ip },
        });
      for (let i = 0; i < LOGIN_LIMIT; i += 1) {
        const res = await login(i % 2 ? b.url : a.url, address);
        expect(res.status, `attempt ${i + 1}`).toBe(401);
      }
      expectClientError(await login(a.url, address), 429, 'Too many attempts');
      expectClientError(await login(b.url, address), 429, 'Too many attempts');
      // Another shopper's address is not held back by this one's attempts.
      expect((await login(b.url, '198.51.100.7')).status).toBe(401);
    });

    it("shows an admin's edit on one instance on the other at the very next request", async () => {
      const top = await new ApiClient(b.url).get<Product[]>('/api/products/top');
      expect(top.status).toBe(200);
      const target = top.body[0];
      if (!target) throw new Error('no top products');
      const shopper = new ApiClient(b.url);
      // Warm whatever B caches before every edit, then read it straight after the edit on A.
      for (let round = 1; round <= 15; round += 1) {
        await shopper.get(`/api/products/${target._id}`);
        await shopper.get(`/api/products?keyword=${encodeURIComponent(target.name)}`);
        await shopper.get('/api/products/top');
        const price = 1000 + round * 7 + 0.5;
        const countInStock = round % 4 === 0 ? 0 : round;
        const edit = await adminA.put<Product>(`/api/products/${target._id}`, { price, countInStock });
        expect(edit.status, JSON.stringify(edit.body)).toBe(200);

        const detail = await shopper.get<Product>(`/api/products/${target._id}`);
        expect([detail.body.price, detail.body.countInStock], `detail, round ${round}`).toEqual([price, countInStock]);
        const listing = await shopper.get<ProductPage>(`/api/products?keyword=${encodeURIComponent(target.name)}`);
        const listed = listing.body.products.find((p) => p._id === target._id);
        expect([listed?.price, listed?.countInStock], `listing, round ${round}`).toEqual([price, countInStock]);
        const topNow = await shopper.get<Product[]>('/api/products/top');
        const inTop = topNow.body.find((p) => p._id === target._id);
        expect([inTop?.price, inTop?.countInStock], `top, round ${round}`).toEqual([price, countInStock]);
      }
    });

    it('sells the last 10 units exactly once to 40 shoppers racing on both instances', async () => {
      const product = await createProduct(adminA, {
        name: `Race ${randomBytes(3).toString('hex')}`,
        countInStock: 10,
        price: 250,
      });
      const shoppers: ApiClient[] = [];
      for (let i = 0; i < 40; i += 10) {
        shoppers.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => signUp((i + j) % 2 ? b.url : a.url, 'Racer')))));
      }
      const results = await Promise.all(shoppers.map((s) => placeOrder(s, [{ _id: product._id, qty: 1 }])));
      const sold = results.filter((r) => r.status === 201);
      expect(sold).toHaveLength(10);
      for (const refused of results.filter((r) => r.status !== 201)) expectClientError(refused, refused.status);
      // Both instances sold some: the race really ran across them.
      const soldBy = new Set(sold.map((r) => shoppers[results.indexOf(r)]?.baseUrl));
      expect(soldBy.size).toBe(2);
      for (const url of [a.url, b.url]) {
        const seen = await new ApiClient(url).get<Product>(`/api/products/${product._id}`);
        expect(seen.body.countInStock).toBe(0);
      }
      const { rows } = await shared.sql.query<{ stock: number; ordered: string }>(
        `SELECT p.count_in_stock AS stock,
                (SELECT coalesce(sum(i.qty), 0) FROM order_items i WHERE i.product_id = p.id) AS ordered
           FROM products p WHERE p.id = $1`,
        [product._id],
      );
      expect(rows[0]?.stock).toBe(0);
      expect(Number(rows[0]?.ordered)).toBe(10);
    });

    it("settles an order on A when Daraja's callback lands on B", async () => {
      const product = await createProduct(adminA, { countInStock: 5, price: 99 });
      const shopper = await signUp(a.url, 'Pays On A');
      const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
      const push = await shopper.post<StkPushResponse>('/api/orders/stkpush', {
        orderId: order._id,
        phoneNumber: SUCCESS_PHONE,
        Amount: Math.ceil(order.totalPrice),
      });
      expect(push.status, JSON.stringify(push.body)).toBe(200);
      // On a busy machine A's reconciler (after 1 s) may settle the order by the status query
      // first; the receipt then comes only with the callback on B, which is what this test is about.
      const paid = await poll(
        'order paid, with its receipt, as seen from A',
        async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body,
        (s) => s.isPaid && typeof s.receipt === 'string',
      );
      expect(paid.receipt).toMatch(/^[A-Z0-9]{10}$/);
      const deliveries = shared.simulator.deliveries.filter((d) => d.checkoutRequestId === push.body.checkoutRequestId);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]?.url.startsWith(`${b.url}/api/hooks/daraja/stk/`)).toBe(true);
      expect(deliveries[0]?.status).toBe(200);
      const { rows } = await shared.sql.query<{ settled_by: string }>(
        'SELECT settled_by FROM payment_attempts WHERE order_id = $1',
        [order._id],
      );
      expect(rows).toEqual([{ settled_by: 'callback' }]);
    });

    it('runs background work once: every mail sent once, a callback-less prompt settled once', async () => {
      const product = await createProduct(adminA, { countInStock: 50, price: 120 });
      const shoppers = await Promise.all(Array.from({ length: 8 }, (_, i) => signUp(i % 2 ? b.url : a.url, 'Mail Once')));
      const orders = await Promise.all(
        shoppers.map(async (s) => (await placeOrder(s, [{ _id: product._id, qty: 1 }])).body as Order),
      );

      // No callback ever comes: one of the two reconcilers must ask Daraja, and settle it once.
      const payer = shoppers[0];
      const payerOrder = orders[0];
      if (!payer || !payerOrder) throw new Error('no orders');
      const push = await payer.post('/api/orders/stkpush', {
        orderId: payerOrder._id,
        phoneNumber: NO_CALLBACK_PHONE,
        Amount: Math.ceil(payerOrder.totalPrice),
      });
      expect(push.status, JSON.stringify(push.body)).toBe(200);
      await poll(
        'the reconciler settles the prompt',
        async () => (await sameBrowser(payer, b.url).get<PaymentStatus>(`/api/orders/${payerOrder._id}/payment`)).body,
        (s) => s.isPaid,
      );
      const attempts = await shared.sql.query<{ status: string; settled_by: string }>(
        'SELECT status, settled_by FROM payment_attempts WHERE order_id = $1',
        [payerOrder._id],
      );
      expect(attempts.rows).toEqual([{ status: 'paid', settled_by: 'query' }]);

      const mailsTo = async (email: string) =>
        (await shared.sql.query<{ kind: string }>('SELECT kind FROM mail_queue WHERE to_address = $1 ORDER BY kind', [email]))
          .rows;
      // Settled by the query, the order has no receipt yet: its mail is queued by the reconciler's
      // receipt wait (0 ms here), a step after the order is paid, so it may not be there yet.
      const payerMails = await poll(
        "the payer's paid mail queued",
        () => mailsTo(payer.email),
        (mails) => mails.some((mail) => mail.kind === 'order_paid'),
      );
      expect(payerMails).toEqual([{ kind: 'order_paid' }, { kind: 'order_placed' }]);
      for (const s of shoppers.slice(1)) expect(await mailsTo(s.email)).toEqual([{ kind: 'order_placed' }]);

      // Every queued mail of the whole test is delivered once, by one of the two workers.
      const sent = await poll(
        'every mail sent',
        async () =>
          (
            await shared.sql.query<{ status: string; attempts: number; delivered_to: string | null }>(
              'SELECT status, attempts, delivered_to FROM mail_queue',
            )
          ).rows,
        (rows) => rows.every((r) => r.status === 'sent'),
      );
      expect(sent.length).toBeGreaterThanOrEqual(9);
      for (const row of sent) expect(row.attempts).toBe(1);
      const files = (
        await Promise.all(
          outboxes.map(async (dir) =>
            (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).map((f) => path.join(dir, f)),
          ),
        )
      ).flat();
      // One file per mail across both outboxes: neither worker sent what the other had claimed.
      // (Which worker sends which mail depends on timing, so how they shared it is not asserted.)
      expect(files.sort()).toEqual(sent.map((r) => r.delivered_to ?? '').sort());
    });

    it('both instances stay healthy and stop cleanly on SIGTERM', async () => {
      expect(a.alive && b.alive).toBe(true);
      expect(await Promise.all([a.stop(), b.stop()])).toEqual([0, 0]);
    });
  });

  describe('cluster mode: WEB_CONCURRENCY=2 on PostgreSQL', () => {
    let shop: ShopProcess;
    let port: number;

    /** A GET on a new connection (node:cluster hands out connections, not requests). */
    const freshGet = (url: string) =>
      new Promise<{ status: number; requestId: string }>((resolve, reject) => {
        http
          .get(url, { agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']) }));
          })
          .on('error', reject);
      });

    /** The pid of the process that logged the request, from the JSON log lines. */
    const servedBy = (requestId: string): number | undefined => {
      for (const line of shop.log().split('\n')) {
        if (!line.includes(requestId)) continue;
        const entry = JSON.parse(line) as { pid?: number; reqId?: string };
        if (entry.reqId === requestId) return entry.pid;
      }
      return undefined;
    };

    const pidsServing = async (count: number, timeoutMs: number): Promise<Set<number>> => {
      const pids = new Set<number>();
      await vi
        .waitUntil(
          async () => {
            const res = await freshGet(`${shop.url}/api/health`);
            expect(res.status).toBe(200);
            const pid = servedBy(res.requestId);
            if (pid) pids.add(pid);
            return pids.size >= count;
          },
          { timeout: timeoutMs, interval: 50 },
        )
        // Fewer workers seen when the time is up: the caller says how many it expected.
        .catch(outOfTime);
      return new Set(pids); // a copy: on a timeout, the last look may still be under way
    };

    beforeAll(async () => {
      const shared = await sharedServices();
      port = await freePort();
      const env: Record<string, string> = {
        ...shared.env,
        WEB_CONCURRENCY: '2',
        PORT: String(port),
        DATA_DIR: await tempDir('duka-cluster-'),
        LOG_LEVEL: 'info',
        // The simulator the primary runs for its workers, not the one above.
        MPESA_ENV: 'simulator',
        MPESA_SIMULATOR_DELAY_MS: '400',
      };
      shop = await startProcess(env);
    }, 180_000);

    it('serves from two worker processes', async () => {
      const pids = await pidsServing(2, 60_000);
      expect(pids.size).toBe(2);
      expect(pids.has(shop.child.pid ?? -1)).toBe(false);
    });

    it('answers /metrics for the whole cluster, whichever worker is scraped', async () => {
      const scrape = () =>
        new Promise<number>((resolve, reject) => {
          http
            .get(`${shop.url}/metrics`, { agent: false }, (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString()));
              res.on('end', () =>
                resolve(metricValue(parseMetrics(text), 'http_request_duration_seconds_count', { route: '/api/health' })),
              );
            })
            .on('error', reject);
        });
      const before = await scrape();
      // Ten requests on ten connections: node:cluster spreads them over both workers.
      for (let i = 0; i < 10; i += 1) expect((await freshGet(`${shop.url}/api/health`)).status).toBe(200);
      for (let i = 0; i < 4; i += 1) expect(await scrape()).toBe(before + 10);
    });

    it('settles a callback-less payment whichever worker reconciles it (one simulator for all)', async () => {
      const admin = new ApiClient(shop.url);
      await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      const product = await createProduct(admin, { countInStock: 5, price: 80 });
      const orders: { shopper: ApiClient; order: Order }[] = [];
      for (let i = 0; i < 3; i += 1) {
        const shopper = await signUp(shop.url, 'Cluster Payer');
        orders.push({ shopper, order: (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order });
      }
      // One at a time: Daraja allows one open prompt per phone.
      for (const { shopper, order } of orders) {
        const push = await shopper.post('/api/orders/stkpush', {
          orderId: order._id,
          phoneNumber: NO_CALLBACK_PHONE,
          Amount: Math.ceil(order.totalPrice),
        });
        expect(push.status, JSON.stringify(push.body)).toBe(200);
        await poll(
          'paid by the reconciler',
          async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body,
          (s) => s.isPaid,
        );
      }
      // A worker asking a simulator that never saw the prompt would log this and retry.
      expect(shop.log()).not.toContain('status query failed');
    });

    it('restarts a worker that is killed, serving throughout', async () => {
      const before = await pidsServing(2, 30_000);
      const [victim, survivor] = [...before];
      if (!victim || !survivor) throw new Error('two workers expected');
      process.kill(victim, 'SIGKILL');
      await poll(
        'the primary notices',
        async () => shop.log().includes('worker died unexpectedly'),
        (seen) => seen,
      );
      // Every request is answered meanwhile (pidsServing asserts 200), by the survivor or the replacement.
      const after = new Set<number>();
      await vi
        .waitUntil(
          async () => {
            for (const pid of await pidsServing(2, 2000)) after.add(pid);
            return [...after].some((pid) => !before.has(pid));
          },
          { timeout: 60_000, interval: 0 },
        )
        .catch(outOfTime); // no new worker within 60 s: the expectations below say so
      // A copy: on a timeout, the last look may still be under way.
      const seen = new Set(after);
      const replacement = [...seen].find((pid) => !before.has(pid));
      expect(replacement, 'a new worker serves').toBeDefined();
      expect(seen.has(victim)).toBe(false);
      expect([...seen].every((pid) => pid === survivor || pid === replacement)).toBe(true);
      expect(shop.alive).toBe(true);
    });

    it('drains and stops every worker on SIGTERM', async () => {
      const workers = await pidsServing(2, 30_000);
      expect(await shop.stop()).toBe(0);
      for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
      expect(shop.log()).toContain('all workers stopped');
    });
  });
});

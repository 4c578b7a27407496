import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import { ShopProcess } from '../reliability/fault-process.js';
import { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { typescriptProcess } from '../support/node-process.js';
import { freePort } from '../support/ports.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, freshPostgresUrl } from '../support/shop.js';
import { outOfTime } from '../support/wait.js';
import { fetchWithCa, NGINX, nginxArgs, startNginx, waitForOutput, writePrefix } from './nginx-support.js';

/**
 * deploy/nginx.conf, as shipped, in front of two instances of the shop on PostgreSQL and Redis.
 * The config is rendered with test ports and a test certificate into a temporary prefix (nothing
 * under /etc or /var) and nginx runs as a child. A shopper goes through it over HTTPS — sign-up,
 * order, M-Pesa payment whose callback also comes through nginx — and the proxy's promises are
 * checked: forwarded headers (secure cookies, real client address), 5 MB uploads, gzip, long
 * caching passed through, /metrics kept internal, both instances used and a stopped one avoided.
 */

const POSTGRES = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LOGIN_LIMIT = 5;
const SIMULATOR_KEY = 'duka-simulator-key';
const SIMULATOR_SECRET = 'duka-simulator-secret';
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error('cleanup failed', error));
});

if (!NGINX && process.env.REQUIRE_NGINX === '1') {
  describe('nginx in front of two instances', () => {
    it('needs nginx', () => {
      throw new Error('nginx not found: apt-get install -y nginx (or set NGINX_PATH)');
    });
  });
}

describe.skipIf(!NGINX)('with nginx', () => {
  describe('deploy/nginx.conf', () => {
    it('is a valid configuration for this nginx once ports and certificate paths are filled in', async () => {
      const prefix = await fsp.mkdtemp(path.join(os.tmpdir(), 'duka-nginx-t-'));
      cleanups.push(() => fsp.rm(prefix, { recursive: true, force: true }));
      await writePrefix(prefix, { http: await freePort(), https: await freePort(), upstreams: [3001, 3002] });
      const check = spawnSync(NGINX ?? 'nginx', ['-t', ...nginxArgs(prefix)], { encoding: 'utf8' });
      expect(check.stderr).toContain('test is successful');
      expect(check.stderr).not.toMatch(/\[(warn|emerg|alert)\]/);
      expect(check.status).toBe(0);
    });
  });
});

describe.skipIf(!(NGINX && POSTGRES))('on PostgreSQL, with nginx', () => {
  describe('nginx (deploy/nginx.conf) in front of two instances on PostgreSQL and Redis', () => {
    let prefix: string;
    let ca: string;
    let base: string;
    let httpPort: number;
    let instances: ShopProcess[];
    let upstreamPorts: [number, number];
    const client = () => new ApiClient(base, fetchWithCa(ca));

    /** A raw GET through nginx over TLS (no decompression), for headers and bytes. */
    const rawGet = (pathname: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        https
          .get(`${base}${pathname}`, { ca, headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });

    let accessLog: () => string;

    beforeAll(async () => {
      prefix = await fsp.mkdtemp(path.join(os.tmpdir(), 'duka-nginx-'));
      cleanups.push(() => fsp.rm(prefix, { recursive: true, force: true }));
      httpPort = await freePort();
      const httpsPort = await freePort();
      upstreamPorts = [await freePort(), await freePort()];
      base = `https://127.0.0.1:${httpsPort}`;
      await writePrefix(prefix, { http: httpPort, https: httpsPort, upstreams: upstreamPorts });
      ca = await fsp.readFile(path.join(prefix, 'tls', 'fullchain.pem'), 'utf8');

      // Daraja: one simulator, a process of its own that trusts the test CA, because its callbacks
      // reach the shop through nginx over HTTPS as Safaricom's do.
      const simulatorPort = await freePort();
      const simulator = spawn(process.execPath, typescriptProcess('src/server/mpesa/simulator/cli.ts'), {
        env: {
          PATH: process.env.PATH ?? '',
          PORT: String(simulatorPort),
          DARAJA_SIM_CALLBACK_DELAY_MS: '300',
          NODE_EXTRA_CA_CERTS: path.join(prefix, 'tls', 'fullchain.pem'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      cleanups.push(async () => {
        simulator.kill('SIGTERM');
      });
      await waitForOutput(simulator, /listening on/, 'the Daraja simulator');

      const database = await freshPostgresUrl(POSTGRES as string); // the suite is skipped without it
      cleanups.push(database.drop);
      // Two instances of one machine (duka@.service): one DATA_DIR, one database, one Redis.
      const env = {
        NODE_ENV: 'production',
        // The demo catalogue on purpose; /metrics is kept internal by nginx, which this test checks.
        SEED_DEMO: 'true',
        METRICS_PUBLIC: 'true',
        TRUST_PROXY: '127.0.0.1',
        PUBLIC_URL: base,
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '5',
        REDIS_URL,
        REDIS_KEY_PREFIX: `duka-test-${randomBytes(6).toString('hex')}:`,
        DATA_DIR: path.join(prefix, 'data'),
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'warn',
        MPESA_ENV: 'sandbox',
        MPESA_BASE_URL: `http://127.0.0.1:${simulatorPort}`,
        MPESA_CONSUMER_KEY: SIMULATOR_KEY,
        MPESA_CONSUMER_SECRET: SIMULATOR_SECRET,
        RATE_LIMIT_LOGIN_MAX: String(LOGIN_LIMIT),
        RATE_LIMIT_REGISTER_MAX: '100000',
      };
      instances = await Promise.all(upstreamPorts.map((port) => ShopProcess.start({ ...env, PORT: String(port) }, 120_000)));
      for (const instance of instances) cleanups.push(() => instance.stop());

      const nginx = await startNginx(prefix, { http: httpPort, https: httpsPort, upstreams: upstreamPorts });
      cleanups.push(nginx.stop);
      accessLog = nginx.accessLog;
    }, 180_000);

    it('redirects plain HTTP to HTTPS', async () => {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`http://127.0.0.1:${httpPort}/product/abc?x=1`, resolve).on('error', reject),
      );
      res.resume();
      expect(res.statusCode).toBe(301);
      expect(res.headers.location).toBe('https://127.0.0.1/product/abc?x=1');
    });

    it('carries a shopper through sign-up, order and M-Pesa payment over HTTPS, with secure cookies', async () => {
      const shopper = client();
      const first = await shopper.get('/api/health');
      expect(first.status).toBe(200);
      // X-Forwarded-Proto https from nginx: production cookies are Secure, and HSTS is sent.
      expect(first.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(first.headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='))).toMatch(/;\s*Secure/i);

      const signUp = await shopper.request('POST', '/api/users', {
        json: { name: 'Through Nginx', email: `nginx-${randomBytes(4).toString('hex')}@example.com`, password: 'shopper-pass-1' },
      });
      expect(signUp.status, JSON.stringify(signUp.body)).toBe(201);
      const session = signUp.headers.getSetCookie().find((c) => !c.startsWith('XSRF-TOKEN='));
      expect(session).toMatch(/;\s*Secure/i);
      expect(session).toMatch(/;\s*HttpOnly/i);

      const admin = client();
      await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      const product = await createProduct(admin, { price: 450, countInStock: 3 });
      const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      const order = placed.body as Order;
      const push = await shopper.post('/api/orders/stkpush', {
        orderId: order._id,
        phoneNumber: '0708374149',
        Amount: Math.ceil(order.totalPrice),
      });
      expect(push.status, JSON.stringify(push.body)).toBe(200);
      let payment: PaymentStatus | undefined;
      await expect
        .poll(
          async () => {
            payment = (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body;
            return payment.isPaid;
          },
          { timeout: 20_000, interval: 150, message: 'paid through nginx' },
        )
        .toBe(true);
      expect(payment?.isPaid, JSON.stringify(payment)).toBe(true);
      // Daraja's callback came in through nginx over HTTPS (PUBLIC_URL) and was answered 200.
      expect(accessLog()).toMatch(/^200 "POST \/api\/hooks\/daraja\/stk\/\S+ HTTP\/1\.1" 127\.0\.0\.1:\d+$/m);
    });

    it('spreads requests over both instances', async () => {
      const shopper = client();
      for (let i = 0; i < 8; i += 1) expect((await shopper.get('/api/products/top')).status).toBe(200);
      const used = new Set(
        [...accessLog().matchAll(/"GET \/api\/products\/top HTTP\/1\.1" (127\.0\.0\.1:\d+)$/gm)].map((m) => m[1]),
      );
      expect([...used].sort()).toEqual(upstreamPorts.map((p) => `127.0.0.1:${p}`).sort());
    });

    it('accepts a 5 MB image upload and passes its year-long caching through', async () => {
      const admin = client();
      await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      const width = 1180;
      const height = 1400;
      const png = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      expect(png.length).toBeGreaterThan(4.5 * 1024 * 1024);
      expect(png.length).toBeLessThan(5 * 1024 * 1024 - 1024);
      const boundary = `----duka${randomBytes(8).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const upload = await admin.request<{ image: string }>('POST', '/api/uploads', {
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(upload.status, JSON.stringify(upload.body)).toBe(201);
      for (let i = 0; i < 4; i += 1) {
        const image = await rawGet(upload.body.image);
        expect(image.status).toBe(200);
        expect(image.headers['cache-control']).toContain('max-age=31536000');
        expect(image.headers['cache-control']).toContain('immutable');
      }
    });

    it('gzips JSON and keeps /metrics internal', async () => {
      const listing = await rawGet('/api/products', { 'accept-encoding': 'gzip' });
      expect(listing.status).toBe(200);
      expect(listing.headers['content-encoding']).toBe('gzip');
      const page = JSON.parse(gunzipSync(listing.body).toString()) as ProductPage;
      expect(page.products.length).toBeGreaterThan(0);
      expect((await rawGet('/metrics')).status).toBe(403);
    });

    it('answers a browser revalidating through nginx with a 304, though nginx made the ETag weak', async () => {
      const top = JSON.parse((await rawGet('/api/products/top')).body.toString()) as { _id: string; image: string }[];
      const product = top[0];
      if (!product) throw new Error('no products');
      for (const pathname of ['/api/products', `/api/products/${product._id}`, '/', `/products/${product._id}`, product.image]) {
        const headers = { 'accept-encoding': 'gzip, br' };
        const first = await rawGet(pathname, headers);
        expect([pathname, first.status]).toEqual([pathname, 200]);
        const etag = first.headers.etag;
        expect(etag, pathname).toBeTruthy();
        // Both instances answer the same tag, whichever nginx asks (the bytes are the same).
        const again = await rawGet(pathname, { ...headers, 'if-none-match': etag ?? '' });
        expect([pathname, again.status, again.body.length]).toEqual([pathname, 304, 0]);
      }
      // nginx compressed this JSON itself, so what the browser holds is the weak form.
      const listing = await rawGet('/api/products', { 'accept-encoding': 'gzip' });
      expect(listing.headers['content-encoding']).toBe('gzip');
      expect(listing.headers.etag).toMatch(/^W\/"/);
    });

    it('takes the client address from nginx, so a forged X-Forwarded-For does not dodge a limit', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < LOGIN_LIMIT + 1; i += 1) {
        // From 127.0.0.2: nginx's own address, 127.0.0.1, is the trusted one, and a shopper is never it.
        const res = await new ApiClient(base, fetchWithCa(ca, '127.0.0.2')).request('POST', '/api/users/auth', {
          json: { email: 'brian@example.com', password: 'wrong-password' },
          headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
        });
        statuses.push(res.status);
        if (res.status === 429) {
          expectClientError(res, 429, 'Too many attempts');
          break;
        }
      }
      // Every attempt came from 127.0.0.2 whatever it claimed, so the limit (counted across both
      // instances) is reached at attempt LOGIN_LIMIT + 1.
      expect(statuses).toEqual([...Array<number>(LOGIN_LIMIT).fill(401), 429]);
    });

    it("sends every POST an Idempotency-Key: the client's own, kept across instances, else a fresh one", async () => {
      const admin = client();
      await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      const product = await createProduct(admin, { price: 90, countInStock: 20 });
      const shopper = client();
      await shopper.signUp('Keyed Shopper', `keyed-${randomBytes(4).toString('hex')}@example.com`, 'shopper-pass-1');
      const order = (headers: Record<string, string>) =>
        shopper.request<Order>('POST', '/api/orders', {
          json: { orderItems: [{ _id: product._id, qty: 1 }], shippingAddress: NAIROBI_ADDRESS },
          headers,
        });
      // Round robin sends the repeats to both instances: one order, the same answer from each.
      const keyed = await Promise.all([1, 2, 3, 4].map(() => order({ 'Idempotency-Key': 'checkout-through-nginx' })));
      expect(new Set(keyed.map((res) => res.body._id)).size).toBe(1);
      // Without a key of its own each request is a new order: nginx's request ids differ.
      const unkeyed = await Promise.all([1, 2].map(() => order({})));
      expect(unkeyed.map((res) => res.status)).toEqual([201, 201]);
      expect(unkeyed[0]?.body._id).not.toBe(unkeyed[1]?.body._id);
      expect((await shopper.get<Order[]>('/api/orders/myorders')).body).toHaveLength(3);
    });

    it('keeps serving through nginx while one instance is stopped', async () => {
      const stopped = instances[1];
      if (!stopped) throw new Error('two instances expected');
      expect(await stopped.stop()).toBe(0);
      const shopper = client();
      for (let i = 0; i < 10; i += 1) {
        const res = await shopper.get<ProductPage>('/api/products');
        expect(res.status, `request ${i + 1}`).toBe(200);
      }
    });

    it('retries an order on the other instance when the first resets the connection before reading it', async () => {
      // What a stopping instance does to the connections the kernel had queued for it: a reset,
      // with the request unread. Here a listener on the stopped instance's port does it to each.
      let resets = 0;
      const resetter = net.createServer((socket) => {
        resets += 1;
        socket.resetAndDestroy();
      });
      await new Promise<void>((resolve) => resetter.listen(upstreamPorts[1], '127.0.0.1', resolve));
      cleanups.push(() => new Promise((resolve) => resetter.close(resolve)));

      const admin = client();
      await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      const stock = 100_000;
      const product = await createProduct(admin, { price: 60, countInStock: stock });
      const shopper = client();
      await shopper.signUp('Reset Shopper', `reset-${randomBytes(4).toString('hex')}@example.com`, 'shopper-pass-1');
      // nginx leaves the stopped port out for fail_timeout, then tries it with one request: order
      // until that request has been one of these.
      const statuses: number[] = [];
      await vi
        .waitUntil(
          async () => {
            statuses.push((await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).status);
            return resets > 0;
          },
          { timeout: 20_000, interval: 0 },
        )
        .catch(outOfTime); // out of time: the expectation below says so
      expect(resets).toBeGreaterThan(0);
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
      // Each answered order was placed once: the reset attempts never ran.
      expect((await shopper.get<Order[]>('/api/orders/myorders')).body).toHaveLength(statuses.length);
      expect((await admin.get<{ countInStock: number }>(`/api/products/${product._id}`)).body.countInStock).toBe(
        stock - statuses.length,
      );
    });
  });
});

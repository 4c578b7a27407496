import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import { ShopProcess } from '../reliability/fault-process.js';
import { ApiClient } from '../support/client.js';
import { createProduct, getProduct, NAIROBI_ADDRESS } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, freshPostgresUrl } from '../support/shop.js';
import { fetchWithCa, NGINX, type RunningNginx, startNginx, writePrefix } from './nginx-support.js';

/**
 * A rolling restart, as an operator does it with the shipped deployment: two instances behind
 * deploy/nginx.conf under steady load (70 % reads, 30 % orders), restart the first, wait until its
 * health check answers, wait 3 s, restart the second. Not one request may fail and not one order
 * may be lost or doubled. The instances run with the drain deploy/env.example and the systemd unit
 * ship, so changing either to something unsafe fails here.
 */

const POSTGRES = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONCURRENCY = 8;
const ORDER_SHARE = 0.3;

/** The value of `name=` in a shipped file such as deploy/env.example or a unit's `Environment=` line. */
function shippedSetting(file: string, pattern: RegExp): string {
  const match = fs.readFileSync(path.resolve(file), 'utf8').match(pattern);
  if (!match?.[1]) throw new Error(`${file} no longer sets ${pattern}`);
  return match[1];
}

interface Failure {
  what: string;
  /** Which restart the request fell in, and when (ms since the load began), to match nginx's log. */
  when: string;
  status: number | string;
  body: string;
}

/** The drain deploy/env.example ships, which the units must ship too. */
const SHIPPED_DRAIN_MS = shippedSetting('deploy/env.example', /^SHUTDOWN_DRAIN_MS=(\d+)$/m);

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error('cleanup failed', error));
});

describe('the shipped rolling-restart settings', () => {
  it('ships a drain that outlasts nginx keeping a refused instance out, in the env file and the systemd unit', () => {
    const failTimeout = shippedSetting('deploy/nginx.conf', /max_fails=\d+ fail_timeout=(\d+)s;/);
    const idleKeepalive = shippedSetting('deploy/nginx.conf', /^\s*keepalive_timeout (\d+)s;/m);
    expect(shippedSetting('deploy/duka@.service', /^Environment=SHUTDOWN_DRAIN_MS=(\d+)$/m)).toBe(SHIPPED_DRAIN_MS);
    expect(shippedSetting('deploy/duka.service', /^Environment=SHUTDOWN_DRAIN_MS=(\d+)$/m)).toBe(SHIPPED_DRAIN_MS);
    // While one instance drains, the other (just restarted, refused for a moment) must be back
    // in nginx's rotation; and nginx must have let go of every idle connection to the draining one.
    expect(Number(SHIPPED_DRAIN_MS)).toBeGreaterThan(Number(failTimeout) * 1000);
    expect(Number(SHIPPED_DRAIN_MS)).toBeGreaterThan(Number(idleKeepalive) * 1000);
  });
});

// Two instances need a shared database: on the embedded PGlite run there is nothing to restart in turn.
// A missing nginx fails test/ops/nginx.test.ts under REQUIRE_NGINX.
describe.skipIf(!(NGINX && POSTGRES))('on PostgreSQL, with nginx', () => {
  describe('rolling restart of two instances behind deploy/nginx.conf', () => {
    let nginx: RunningNginx;
    let env: Record<string, string>;
    const instances: ShopProcess[] = [];
    let ports: [number, number];

    beforeAll(async () => {
      const prefix = await fsp.mkdtemp(path.join(os.tmpdir(), 'duka-rolling-'));
      cleanups.push(() => fsp.rm(prefix, { recursive: true, force: true }));
      ports = [await freePort(), await freePort()];
      const nginxPorts = { http: await freePort(), https: await freePort(), upstreams: ports };
      await writePrefix(prefix, nginxPorts);
      const database = await freshPostgresUrl(POSTGRES as string); // the suite is skipped without it
      cleanups.push(database.drop);
      env = {
        NODE_ENV: 'production',
        SEED_DEMO: 'false',
        METRICS_PUBLIC: 'true',
        TRUST_PROXY: '127.0.0.1',
        PUBLIC_URL: `https://127.0.0.1:${nginxPorts.https}`,
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '5',
        REDIS_URL,
        REDIS_KEY_PREFIX: `duka-test-${randomBytes(6).toString('hex')}:`,
        DATA_DIR: path.join(prefix, 'data'),
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'warn',
        // No payment is made here; Daraja is configured only because production demands it.
        MPESA_ENV: 'sandbox',
        MPESA_BASE_URL: 'http://127.0.0.1:9',
        MPESA_CONSUMER_KEY: 'unused-key',
        MPESA_CONSUMER_SECRET: 'unused-secret',
        RATE_LIMIT_REGISTER_MAX: '100000',
        SHUTDOWN_DRAIN_MS: SHIPPED_DRAIN_MS,
      };
      for (const port of ports) {
        const instance = await ShopProcess.start({ ...env, PORT: String(port) }, 120_000);
        instances.push(instance);
      }
      cleanups.push(() => Promise.all(instances.map((instance) => instance.stop())));
      nginx = await startNginx(prefix, nginxPorts);
      cleanups.push(nginx.stop);
    }, 240_000);

    it('drops no request and loses no order while each instance is restarted in turn', async () => {
      const fetchThroughNginx = fetchWithCa(nginx.ca);
      const client = () => new ApiClient(nginx.base, fetchThroughNginx);
      const admin = client();
      await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
      const stock = 100_000;
      const product = await createProduct(admin, { price: 250, countInStock: stock });
      const shoppers: ApiClient[] = [];
      for (let i = 0; i < CONCURRENCY; i += 1) {
        const shopper = client();
        const signUp = await shopper.post('/api/users', {
          name: `Rolling Shopper ${i}`,
          email: `rolling-${i}-${randomBytes(4).toString('hex')}@example.com`,
          password: 'shopper-pass-1',
        });
        expect(signUp.status, JSON.stringify(signUp.body)).toBe(201);
        shoppers.push(shopper);
      }
      const reads = ['/api/products', `/api/products/${product._id}`, '/api/products/top', '/', `/products/${product._id}`];

      const failures: Failure[] = [];
      const began = Date.now();
      let phase = 'before the restarts';
      const when = () => `${phase}, at ${Date.now() - began} ms`;
      const placed = new Map<string, ApiClient>();
      let requests = 0;
      let running = true;
      const shopperLoop = async (shopper: ApiClient, index: number) => {
        for (let i = 0; running; i += 1) {
          const ordering = Math.random() < ORDER_SHARE;
          const what = ordering ? 'POST /api/orders' : `GET ${reads[(index + i) % reads.length]}`;
          try {
            if (ordering) {
              const res = await shopper.post<Order>('/api/orders', {
                orderItems: [{ _id: product._id, qty: 1 }],
                shippingAddress: NAIROBI_ADDRESS,
              });
              if (res.status === 201) placed.set(res.body._id, shopper);
              else failures.push({ what, when: when(), status: res.status, body: JSON.stringify(res.body).slice(0, 200) });
            } else {
              const res = await shopper.get(what.slice(4));
              if (res.status !== 200)
                failures.push({ what, when: when(), status: res.status, body: JSON.stringify(res.body).slice(0, 200) });
            }
            requests += 1;
          } catch (error) {
            failures.push({ what, when: when(), status: 'network error', body: String(error) });
          }
        }
      };
      const load = shoppers.map((shopper, index) => shopperLoop(shopper, index));

      const restart = async (index: 0 | 1) => {
        const old = instances[index];
        if (!old) throw new Error('two instances expected');
        const before = requests;
        phase = `draining instance ${index} (SIGTERM at ${Date.now() - began} ms)`;
        expect(await old.stop(), old.log()).toBe(0);
        phase = `starting instance ${index} (exited at ${Date.now() - began} ms)`;
        // ShopProcess.start resolves once the new process's /api/health answers 200.
        instances[index] = await ShopProcess.start({ ...env, PORT: String(ports[index]) }, 120_000);
        phase = `after restarting instance ${index} (healthy at ${Date.now() - began} ms)`;
        return requests - before;
      };
      const duringFirst = await restart(0);
      // The operator's pause between the two restarts (the scenario itself, not a wait for an event).
      await sleep(3_000);
      const duringSecond = await restart(1);
      // Load on the restarted pair for a moment, then stop it.
      const afterBoth = requests;
      await vi.waitUntil(() => requests >= afterBoth + 50, { timeout: 60_000, interval: 50 });
      running = false;
      await Promise.all(load);

      // nginx's own account of a failure (reset, refused, closed early) says which race it was.
      expect(failures, failures.length ? await nginx.errorLog() : '').toEqual([]);
      // The load really ran through both restarts.
      expect(duringFirst).toBeGreaterThan(50);
      expect(duringSecond).toBeGreaterThan(50);
      expect(placed.size).toBeGreaterThan(20);

      // Every answered order exists, once: the stock fell by exactly their number, and each shopper's
      // order list holds exactly the orders they were answered for.
      expect((await getProduct(admin, product._id)).countInStock).toBe(stock - placed.size);
      for (const shopper of shoppers) {
        const mine = await shopper.get<Order[]>('/api/orders/myorders');
        expect(mine.status).toBe(200);
        const answered = [...placed].filter(([, owner]) => owner === shopper).map(([id]) => id);
        expect(mine.body.map((order) => order._id).sort()).toEqual(answered.sort());
      }
    }, 240_000);
  });
});

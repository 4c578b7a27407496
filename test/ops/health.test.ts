import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestShop, type TestShop } from '../support/shop.js';

/**
 * Liveness and readiness as a load balancer and a process supervisor see them: readiness follows
 * the database and shutdown, liveness only whether the process serves.
 */

let shop: TestShop;

beforeAll(async () => {
  shop = await startTestShop({ SHUTDOWN_DRAIN_MS: '1500' });
});
afterAll(() => shop?.stop());

const get = async (path: string) => {
  const res = await fetch(shop.url + path);
  return { status: res.status, body: (await res.json()) as unknown };
};

describe('health', () => {
  it('readiness and liveness answer 200 while all is well, to anyone', async () => {
    expect(await get('/api/health')).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
    expect(await get('/api/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('on shutdown, readiness answers 503 through the drain time while liveness and the shop still serve, then it stops', async () => {
    // A shop of its own: this one is shut down.
    const other = await startTestShop({ SHUTDOWN_DRAIN_MS: '1500' });
    const started = Date.now();
    const closed = other.close();
    try {
      const ready = await fetch(`${other.url}/api/health`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'shutting_down', database: 'ok' });
      expect((await fetch(`${other.url}/api/health/live`)).status).toBe(200);
      // Requests already routed to it are still served during the drain.
      expect((await fetch(`${other.url}/api/products`)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      await closed;
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      await expect(fetch(`${other.url}/api/health/live`)).rejects.toThrow();
    } finally {
      await other.stop();
    }
  });

  it('with the database gone, readiness answers 503 and liveness still 200', async () => {
    const other = await startTestShop();
    try {
      await other.database.close();
      const ready = await fetch(`${other.url}/api/health`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable', database: 'unreachable' });
      const live = await fetch(`${other.url}/api/health/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({ status: 'ok' });
    } finally {
      await other.stop();
    }
  });
});

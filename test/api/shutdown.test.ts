import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import { ApiClient } from '../support/client.js';
import { placeOrder } from '../support/fixtures.js';
import { typescriptProcess } from '../support/node-process.js';
import { freePort } from '../support/ports.js';
import { freshPostgresUrl, shopDataDir } from '../support/shop.js';

/**
 * Shutdown always finishes: the real entry point, with its standard output and error piped and
 * never read (a stalled `npm start | less`, a log shipper that stopped reading).
 */

interface Unread {
  child: ChildProcess;
  base: string;
  exit: Promise<{ code: number | null; at: number }>;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function startUnread(env: Record<string, string>): Promise<Unread> {
  const dataDir = await shopDataDir('duka-shutdown-');
  cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const full: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ADMIN_PASSWORD: 'admin-secret-123',
    ...env,
  };
  if (process.env.TEST_DATABASE_URL) {
    const db = await freshPostgresUrl(process.env.TEST_DATABASE_URL);
    cleanups.push(db.drop);
    full.DATABASE_URL = db.url;
  }
  // Piped, and never read: once the pipe's buffer is full, every write to it would block.
  const child = spawn(process.execPath, typescriptProcess('src/server/main.ts'), {
    env: full,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exit;
    }
  });
  const base = `http://127.0.0.1:${port}`;
  const state = await vi
    .waitUntil(
      async () => {
        if (child.exitCode !== null) return 'exited';
        const live = await fetch(`${base}/api/health`).catch(() => undefined);
        return live?.status === 200 && 'up';
      },
      { timeout: 60_000, interval: 200 },
    )
    .catch(() => 'silent' as const);
  if (state === 'exited') throw new Error(`the shop exited with ${child.exitCode}`);
  if (state === 'silent') throw new Error('the shop did not start');
  return { child, base, exit };
}

/** Resolves with how long the process took to exit after `since`, or rejects after `limitMs`. */
async function exitWithin(shop: Unread, since: number, limitMs: number): Promise<{ code: number | null; tookMs: number }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running ${limitMs} ms after the signal`)), limitMs);
  });
  try {
    const { code, at } = await Promise.race([shop.exit, timeout]);
    return { code, tookMs: at - since };
  } finally {
    clearTimeout(timer);
  }
}

describe('shutdown with output nobody reads', () => {
  it('serves 400 requests and then exits on SIGTERM, cleanly', async () => {
    const shop = await startUnread({ SHUTDOWN_GRACE_MS: '5000' });
    const client = new ApiClient(shop.base);
    // Each request logs two lines: far more than a pipe holds.
    for (let i = 0; i < 40; i++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${shop.base}/api/products?keyword=${i}`)));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        await answer.arrayBuffer();
      }
    }
    expect((await client.get<ProductPage>('/api/products')).status).toBe(200);
    const sent = Date.now();
    shop.child.kill('SIGTERM');
    const { code, tookMs } = await exitWithin(shop, sent, 10_000);
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(10_000);
  }, 150_000);
});

describe('shutdown with a Daraja call hanging', () => {
  /** A "Daraja" that accepts connections and never answers; resolves `called` at the first one. */
  async function silentDaraja() {
    const sockets = new Set<net.Socket>();
    let onCall!: () => void;
    const called = new Promise<void>((resolve) => (onCall = resolve));
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      onCall();
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });
    return { url: `http://127.0.0.1:${port}`, called };
  }

  async function shopPayingThrough(darajaUrl: string, grace: string) {
    const shop = await startUnread({
      MPESA_ENV: 'sandbox',
      MPESA_BASE_URL: darajaUrl,
      MPESA_CONSUMER_KEY: 'key',
      MPESA_CONSUMER_SECRET: 'secret',
      MPESA_HTTP_TIMEOUT_MS: '120000',
      SHUTDOWN_GRACE_MS: grace,
    });
    const shopper = new ApiClient(shop.base);
    await shopper.signUp('Hanging Payer', `hanging-${Date.now()}@example.com`, 'hanging-pass-1');
    const products = (await shopper.get<ProductPage>('/api/products')).body.products;
    const product = products.find((p) => p.countInStock > 0)!;
    const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body;
    // Not awaited: this request waits on Daraja, which never answers.
    void shopper
      .post('/api/orders/stkpush', { orderId: order._id, phoneNumber: '0708374149', Amount: Math.ceil(order.totalPrice) })
      .catch(() => {});
    return shop;
  }

  it('exits within the grace period', async () => {
    const daraja = await silentDaraja();
    const shop = await shopPayingThrough(daraja.url, '2000');
    await daraja.called;
    const sent = Date.now();
    shop.child.kill('SIGTERM');
    const { code, tookMs } = await exitWithin(shop, sent, 12_000);
    expect(code).not.toBeNull();
    expect(tookMs).toBeGreaterThanOrEqual(1500);
    expect(tookMs).toBeLessThan(12_000);
  }, 150_000);

  it('exits at once on a second SIGTERM or SIGINT', async () => {
    for (const second of ['SIGTERM', 'SIGINT'] as const) {
      const daraja = await silentDaraja();
      const shop = await shopPayingThrough(daraja.url, '60000');
      await daraja.called;
      shop.child.kill('SIGTERM');
      // The first signal has begun a shutdown that would wait out the Daraja call: the wait is the
      // test, the shop must still be running after it.
      await sleep(500);
      expect(shop.child.exitCode).toBeNull();
      const sent = Date.now();
      shop.child.kill(second);
      const { code, tookMs } = await exitWithin(shop, sent, 5_000);
      expect(code, second).toBe(1);
      expect(tookMs, second).toBeLessThan(5_000);
    }
  }, 240_000);
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import { ApiClient } from '../support/client.js';
import { spawnMain, startMain } from '../support/main-process.js';
import { freePort } from '../support/ports.js';
import { freshPostgresUrl, shopDataDir, startTestShop } from '../support/shop.js';

/** The real entry point, started as `npm start` would, with no configuration but a port and a folder. */

/**
 * A start from an empty folder runs initdb, migrates and seeds first: about 7 s of CPU, and in a
 * full run it shares two cores with four test workers and Chromium. A CI run on a slow day saw it
 * take more than 45 s.
 */
const START_MS = 90_000;

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('starting the shop with no configuration', () => {
  // Two starts of the real process, each waited for up to START_MS.
  it('seeds once, prints the admin password once, reuses its data and shuts down cleanly', { timeout: 240_000 }, async () => {
    // A truly empty folder, as a new shop owner has: this start runs PGlite's initdb too.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-main-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1' };
    if (process.env.TEST_DATABASE_URL) {
      const db = await freshPostgresUrl(process.env.TEST_DATABASE_URL);
      cleanups.push(db.drop);
      env.DATABASE_URL = db.url;
    }
    const base = `http://127.0.0.1:${env.PORT}`;

    const first = await startMain(env, START_MS);
    const password = /admin account admin@example\.com with password (\S+)/.exec(first.output())?.[1];
    expect(password, first.output()).toBeDefined();
    const client = new ApiClient(base);
    const products = (await client.get<ProductPage>('/api/products')).body;
    expect(products.count).toBeGreaterThanOrEqual(24);
    const outOfStock = [];
    for (let page = 1; page <= products.pages; page++) {
      outOfStock.push(
        ...(await client.get<ProductPage>(`/api/products?pageNumber=${page}`)).body.products.filter((p) => p.countInStock === 0),
      );
    }
    expect(outOfStock.length).toBeGreaterThan(0);
    expect(new Set(products.products.map((p) => p.category)).size).toBeGreaterThan(1);
    const image = await fetch(base + products.products[0]!.image);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/webp');
    expect((await fetch(`${base}/api/health`)).status).toBe(200);

    // A request in flight when SIGTERM arrives still gets its answer. The client has its XSRF
    // cookie first, so the sign-in is one request; SIGTERM goes once the shop has logged it as
    // received (its password check then takes a while), not after a guessed pause.
    const signingIn = new ApiClient(base);
    expect((await signingIn.get('/api/health')).status).toBe(200);
    const inFlight = signingIn.post('/api/users/auth', { email: 'admin@example.com', password: password! });
    await first.printed('"url":"/api/users/auth"', 10_000);
    first.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(200);
    expect((await first.exited).code, first.output()).toBe(0);
    expect(first.output()).toContain('stopped');

    const second = await startMain(env, START_MS);
    expect(second.output()).not.toContain('with password');
    expect(second.output()).not.toContain('seeded the demo shop');
    const again = new ApiClient(base);
    expect((await again.get<ProductPage>('/api/products')).body.count).toBe(products.count);
    await again.signIn('admin@example.com', password!);
    second.child.kill('SIGINT');
    expect((await second.exited).code, second.output()).toBe(0);
  });

  it('refuses a DATABASE_URL that is not PostgreSQL', async () => {
    const shop = spawnMain({ DATABASE_URL: 'mysql://nope', PORT: String(await freePort()) });
    const { code } = await shop.exited;
    expect(code, shop.output()).not.toBe(0);
  });
});

/** A production environment with every setting a real shop needs; each case below breaks one. */
const PRODUCTION: Record<string, string> = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://shop.example.co.ke',
  SEED_DEMO: 'false',
  METRICS_TOKEN: 'a-long-metrics-token',
  MPESA_ENV: 'production',
  MPESA_CONSUMER_KEY: 'key',
  MPESA_CONSUMER_SECRET: 'secret',
  MPESA_SHORTCODE: '600000',
  MPESA_PASSKEY: 'passkey',
};

/** Runs the real entry point until it exits, and what it printed to stderr. */
async function refusedStart(env: Record<string, string | undefined>): Promise<{ code: number | null; stderr: string }> {
  const definedEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const shop = spawnMain({ PORT: String(await freePort()), ...definedEnv });
  const timer = setTimeout(() => void shop.kill(), 30_000);
  const { code } = await shop.exited;
  clearTimeout(timer);
  return { code, stderr: shop.stderr() };
}

describe('a production start never takes a demo default', () => {
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['MPESA_ENV unset (the simulator)', { MPESA_ENV: undefined }, /MPESA_ENV/],
    ['MPESA_ENV=simulator without the staging flag', { MPESA_ENV: 'simulator' }, /ALLOW_SIMULATOR_IN_PRODUCTION=true/],
    ['SEED_DEMO not set', { SEED_DEMO: undefined }, /SEED_DEMO/],
    ['PUBLIC_URL unset', { PUBLIC_URL: undefined }, /PUBLIC_URL/],
    ['PUBLIC_URL over http', { PUBLIC_URL: 'http://shop.example.co.ke' }, /PUBLIC_URL/],
    ['PUBLIC_URL on localhost', { PUBLIC_URL: 'https://localhost:3000' }, /PUBLIC_URL.*localhost/],
    ['the callback base over http', { MPESA_CALLBACK_BASE_URL: 'http://pay.example.co.ke' }, /MPESA_CALLBACK_BASE_URL/],
    ['the callback base on localhost', { MPESA_CALLBACK_BASE_URL: 'https://pay.localhost' }, /MPESA_CALLBACK_BASE_URL/],
    ['METRICS_TOKEN unset', { METRICS_TOKEN: undefined }, /METRICS_TOKEN/],
  ];
  for (const [what, change, message] of cases) {
    it(`refuses ${what}: exits non-zero with one line naming the setting`, async () => {
      const { code, stderr } = await refusedStart({ ...PRODUCTION, ...change });
      expect(code, stderr).not.toBe(0);
      const lines = stderr.split('\n').filter((line) => line.startsWith('Duka cannot start:'));
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('starts for staging with the simulator allowed explicitly and metrics public by choice', { timeout: 120_000 }, async () => {
    const dataDir = await shopDataDir('duka-staging-');
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      ...PRODUCTION,
      MPESA_ENV: 'simulator',
      ALLOW_SIMULATOR_IN_PRODUCTION: 'true',
      METRICS_PUBLIC: 'true',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
    };
    delete env.METRICS_TOKEN;
    if (process.env.TEST_DATABASE_URL) {
      const db = await freshPostgresUrl(process.env.TEST_DATABASE_URL);
      cleanups.push(db.drop);
      env.DATABASE_URL = db.url;
    }
    const shop = await startMain(env, START_MS);
    expect((await fetch(`http://127.0.0.1:${env.PORT}/api/health`)).status).toBe(200);
    shop.child.kill('SIGTERM');
    expect((await shop.exited).code, shop.output()).toBe(0);
  });
});

describe('an unexpected failure', () => {
  it('answers 500 with a generic msg and no internals, and health reports the database down', async () => {
    const shop = await startTestShop();
    // The whole shop, not just its routes: a shop left running keeps its database among the
    // process's metrics sources, and a closed one there hides the ledger's gauges from later files.
    cleanups.push(() => shop.close());
    await shop.database.close();
    const res = await new ApiClient(shop.url).get('/api/products');
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).toBe(
      JSON.stringify({ errors: [{ msg: 'Something went wrong on our side. Please try again.' }] }),
    );
    const health = await fetch(`${shop.url}/api/health`);
    expect(health.status).toBe(503);
  });
});

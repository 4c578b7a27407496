import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { inArray, sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase, queryRows } from '../../src/server/db/client.js';
import { products, users } from '../../src/server/db/schema.js';
import { hashPassword } from '../../src/server/domain/passwords.js';
import type { Captures } from './captures.js';
import { explainReadQueries } from './explain.js';
import {
  type LoadRun,
  load,
  mergeRuns,
  percentile,
  type RawResponse,
  type RequestSpec,
  type StreamResult,
  send,
  setCookies,
  stream,
  summarise,
  toCapture,
} from './load.js';
import {
  type BenchResults,
  type CaseKind,
  type CaseResult,
  consoleSummary,
  type DatabaseRun,
  type Machine,
  markdown,
  type OrdersCheck,
  type UncachedResult,
} from './report.js';
import { SEEDED_ORDER_PREFIX, seedCatalogue, seedOrders } from './seed.js';
import { distinctTypos } from './typos.js';

/**
 * `npm run bench`: seeds a large catalogue, starts the production build of Duka and, beside it, a
 * reference server replaying Duka's own answers, loads both alike and reports Duka ÷ limit.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const { values: args } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    db: { type: 'string' },
    /** Orders of the shop's history, for the admin cases. */
    orders: { type: 'string', default: '100000' },
    'skip-frontend': { type: 'boolean', default: false },
    out: { type: 'string', default: 'bench-results' },
    /** Comma-separated case keys to run (listing-1,listing-500,search-exact,search-typo,detail,top,sign-in,orders,admin-dashboard,admin-orders). */
    only: { type: 'string' },
  },
});

function whole(name: string, raw: string | undefined, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number of at least ${min}, got "${raw}"`);
  return n;
}

const options = {
  products: whole('products', args.products, 100),
  orders: whole('orders', args.orders, 0),
  duration: whole('duration', args.duration, 1),
  connections: whole('connections', args.connections, 1),
  rounds: whole('rounds', args.rounds, 1),
};
const databaseUrl = process.env.DATABASE_URL || undefined;
const dbChoice = args.db ?? (databaseUrl ? 'both' : 'pglite');
if (!['pglite', 'postgres', 'both'].includes(dbChoice)) throw new Error('--db must be pglite, postgres or both');
if (dbChoice !== 'pglite' && !databaseUrl) throw new Error(`--db ${dbChoice} needs DATABASE_URL (postgres://…)`);
const databases = (dbChoice === 'both' ? ['pglite', 'postgres'] : [dbChoice]) as ('pglite' | 'postgres')[];

const SHOPPER_PASSWORD = 'bench-shopper-pass';
const ADMIN_PASSWORD = randomBytes(12).toString('base64url');
/** Products the order case sells from; the first SCARCE of them have little stock, so they sell out. */
const ORDER_PRODUCTS = 100;
const SCARCE = 10;
const SCARCE_STOCK = 20;
const PLENTY_STOCK = 1_000_000;
const DETAIL_PRODUCTS = 100;
const XSRF = randomBytes(16).toString('base64url');
/** What the revalidation case asks for again: a listing page no other case captures. */
const REVALIDATED_PATH = '/api/products?pageNumber=2';
/** Distinct misspellings searched once each, and some more for the warm-up and the capture. */
const TYPO_SEARCHES = 3000;
const TYPO_WARMUP = 100;
/** Listing misses timed per page, each after an edit that moves the listing version. */
const UNCACHED_SAMPLES = 40;

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

// ---------------------------------------------------------------------------------------------
// Build, machine, child processes

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds when there is no build, or when a source file is newer than it. */
function ensureBuilt(): void {
  const main = path.join(root, 'dist', 'src', 'server', 'main.js');
  const web = path.join(root, 'dist', 'web', 'index.html');
  const built = fs.existsSync(main) && fs.existsSync(web) ? Math.min(fs.statSync(main).mtimeMs, fs.statSync(web).mtimeMs) : 0;
  if (built > newestMtime(path.join(root, 'src'))) return;
  log('building (npm run build)…');
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

function machine(): Machine {
  const pglitePkg = JSON.parse(
    fs.readFileSync(path.join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
  ) as { version: string };
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    ramGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    postgres: null,
    pglite: pglitePkg.version,
    date: new Date().toISOString(),
    loadAverage: os.loadavg()[0] ?? 0,
  };
}

function readStatusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const peakRssMiB = (pid: number) => {
  const kib = readStatusKiB(pid, 'VmHWM');
  return kib === null ? null : kib / 1024;
};

/** Children being stopped by the bench, so their exit is not reported as a crash. */
const stopping = new WeakSet<ChildProcess>();

async function stopChild(child: ChildProcess): Promise<void> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address && typeof address === 'object' ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Server {
  child: ChildProcess;
  url: string;
}

async function startDuka(env: Record<string, string>, logFile: string): Promise<Server> {
  const port = await freePort();
  const out = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ') ?? []), path.join(root, 'dist', 'src', 'server', 'main.js')],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ADMIN_PASSWORD,
        SEED_DEMO: 'false',
        // A bench, not a shop: the simulator and an open /metrics (read below), both allowed explicitly.
        MPESA_ENV: 'simulator',
        ALLOW_SIMULATOR_IN_PRODUCTION: 'true',
        METRICS_PUBLIC: 'true',
        PUBLIC_URL: 'https://bench.example.co.ke',
        // The bench serves plain http on 127.0.0.1.
        SECURE_COOKIES: 'false',
        // Sign-in and orders are loaded on purpose, far past what a person does.
        RATE_LIMIT_LOGIN_MAX: '1000000000',
        RATE_LIMIT_REGISTER_MAX: '1000000000',
        RATE_LIMIT_STKPUSH_MAX: '1000000000',
        ...env,
      },
      stdio: ['ignore', out, out],
    },
  );
  child.once('exit', (code, signal) => {
    if (!stopping.has(child)) log(`the server exited on its own (code ${code}, signal ${signal}); see ${logFile}`);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}; see ${logFile}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stopChild(child);
  throw new Error(`the server did not become healthy in 180 s; see ${logFile}`);
}

async function startReference(capturesFile: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'reference-server.ts'), capturesFile], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /listening (\d+)/.exec(buffered);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the reference server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Sum of duka_db_queries_total over its labels; null while the server has no /metrics. */
async function scrapeQueries(baseUrl: string): Promise<number | null> {
  try {
    const response = await fetch(`${baseUrl}/metrics`);
    if (!response.ok) return null;
    const text = await response.text();
    let total = 0;
    let found = false;
    for (const line of text.split('\n')) {
      const match = /^duka_db_queries_total(?:\{[^}]*\})?\s+([\d.e+-]+)/.exec(line);
      if (match) {
        total += Number(match[1]);
        found = true;
      }
    }
    return found ? total : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The database: seed, shoppers, stock for the orders case

interface Prepared {
  seedSeconds: number;
  /** Seconds to seed the order history; its orders are not the order rush's. */
  orderSeedSeconds: number;
  serverVersion: string;
  detailIds: string[];
  orderStock: Map<string, number>;
  scarceIds: string[];
  shopperEmails: string[];
  explain: DatabaseRun['explain'];
}

async function prepareDatabase(database: Database): Promise<Prepared> {
  const { db } = database;
  await database.migrate();
  log(`seeding ${options.products.toLocaleString('en')} products…`);
  const seeded = await seedCatalogue(db, options.products);
  log(`seeded ${seeded.products.toLocaleString('en')} products in ${seeded.seconds.toFixed(1)} s`);
  const [version] = await queryRows<{ server_version: string }>(db, sql`SHOW server_version`);

  const picked = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM ${products} ORDER BY random() LIMIT ${DETAIL_PRODUCTS + ORDER_PRODUCTS}`,
  );
  const detailIds = picked.slice(0, DETAIL_PRODUCTS).map((r) => r.id);
  const orderIds = picked.slice(DETAIL_PRODUCTS).map((r) => r.id);
  const scarceIds = orderIds.slice(0, SCARCE);
  const orderStock = new Map(orderIds.map((id) => [id, scarceIds.includes(id) ? SCARCE_STOCK : PLENTY_STOCK]));
  await db.update(products).set({ countInStock: SCARCE_STOCK }).where(inArray(products.id, scarceIds));
  await db
    .update(products)
    .set({ countInStock: PLENTY_STOCK })
    .where(inArray(products.id, orderIds.slice(SCARCE)));

  // Shoppers straight into the database with one hash: hashing each would take minutes.
  const count = Math.max(20, options.connections * 2);
  const passwordHash = await hashPassword(SHOPPER_PASSWORD);
  const shopperEmails = Array.from({ length: count }, (_, i) => `shopper${i + 1}@bench.duka.test`);
  const shopperIds = await db
    .insert(users)
    .values(shopperEmails.map((email, i) => ({ name: `Bench Shopper ${i + 1}`, email, passwordHash })))
    .returning({ id: users.id });

  // The order history the admin cases read, with lines of products the order rush does not sell.
  log(`seeding ${options.orders.toLocaleString('en')} orders…`);
  const history = await seedOrders(
    db,
    options.orders,
    shopperIds.map((u) => u.id),
    detailIds,
  );
  log(`seeded ${history.orders.toLocaleString('en')} orders in ${history.seconds.toFixed(1)} s`);

  log('EXPLAIN ANALYZE of the read queries…');
  const explain = await explainReadQueries(database, { productId: detailIds[0] ?? '' });
  return {
    seedSeconds: seeded.seconds,
    orderSeedSeconds: history.seconds,
    serverVersion: version?.server_version ?? 'unknown',
    detailIds,
    orderStock,
    scarceIds,
    shopperEmails,
    explain,
  };
}

async function checkStock(database: Database, prepared: Prepared): Promise<Omit<OrdersCheck, 'ordersPerSec' | 'failures'>> {
  const ids = [...prepared.orderStock.keys()];
  const rows = await queryRows<{ id: string; final: number; sold: number | string }>(
    database.db,
    sql`SELECT p.id, p.count_in_stock AS final, coalesce((SELECT sum(oi.qty) FROM order_items oi WHERE oi.product_id = p.id), 0) AS sold
        FROM ${products} p WHERE p.id IN ${ids}`,
  );
  const [placed] = await queryRows<{ n: number | string }>(
    database.db,
    sql`SELECT count(*) AS n FROM orders WHERE number NOT LIKE ${`${SEEDED_ORDER_PREFIX}%`}`,
  );
  let mismatched = 0;
  let oversold = 0;
  let unitsSold = 0;
  let soldOut = 0;
  for (const row of rows) {
    const initial = prepared.orderStock.get(row.id) ?? 0;
    const sold = Number(row.sold);
    unitsSold += sold;
    if (initial - Number(row.final) !== sold) mismatched++;
    if (Number(row.final) < 0 || sold > initial) oversold++;
    if (prepared.scarceIds.includes(row.id) && Number(row.final) === 0) soldOut++;
  }
  return {
    placed: Number(placed?.n ?? 0),
    products: rows.length,
    unitsSold,
    mismatched: mismatched + (ids.length - rows.length),
    oversold,
    scarceSoldOut: `${soldOut} of ${prepared.scarceIds.length} scarce products (${SCARCE_STOCK} units each) sold out exactly`,
  };
}

// ---------------------------------------------------------------------------------------------
// Cases

function mergeStreams(runs: StreamResult[]): StreamResult {
  const sent = runs.reduce((n, r) => n + r.sent, 0);
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  // The rounds' own percentiles, the worse of them: the latencies themselves are not kept.
  return {
    sent,
    perSec: runs.reduce((n, r) => n + r.perSec, 0) / Math.max(1, runs.length),
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    statuses,
  };
}

/** A header of a raw response; throws when it is missing. */
function headerOf(response: RawResponse, name: string): string {
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
    if (response.rawHeaders[i]?.toLowerCase() === name) return response.rawHeaders[i + 1] ?? '';
  }
  throw new Error(`the answer has no ${name} header`);
}

interface Case {
  key: string;
  label: string;
  kind: CaseKind;
  specs: RequestSpec[];
  /** Sent to Duka beside the load, at `perSec` a second (not to the reference server). */
  stream?: { label: string; perSec: number; specs: RequestSpec[] };
  /**
   * Every request is new to Duka (none repeats, in the warm-up or any round): each round sends its
   * own share of `specs` once. The reference server answers them all with the answer to `capture`,
   * a request of the same kind that the rounds never send.
   */
  fresh?: { warmup: RequestSpec[]; capture: RequestSpec; wildcard: string };
  /**
   * The same load without the stream is measured too, in rounds alternating with the stream's,
   * so "the stream changes nothing" compares two figures of one stretch of the machine, not this
   * case with another case measured minutes earlier.
   */
  pairedWithoutStream?: boolean;
}

function jsonPost(pathname: string, body: unknown, cookies: string): RequestSpec {
  return {
    method: 'POST',
    path: pathname,
    headers: { 'content-type': 'application/json', cookie: cookies, 'x-xsrf-token': XSRF },
    body: JSON.stringify(body),
  };
}

function randomInt(n: number): number {
  return Math.floor(Math.random() * n);
}

async function signInShoppers(baseUrl: string, emails: string[]): Promise<string[]> {
  const sessions: string[] = new Array(emails.length);
  let next = 0;
  const worker = async () => {
    while (next < emails.length) {
      const i = next++;
      const response = await send(
        baseUrl,
        jsonPost('/api/users/auth', { email: emails[i], password: SHOPPER_PASSWORD }, `XSRF-TOKEN=${XSRF}`),
      );
      const session = setCookies(response).get('duka_session');
      if (response.status !== 200 || !session)
        throw new Error(`sign-in answered ${response.status}: ${response.body.toString()}`);
      sessions[i] = session;
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return sessions;
}

function buildCases(prepared: Prepared, sessions: string[], revalidationTag: string, adminCookies: string): Case[] {
  const get = (p: string, headers?: Record<string, string>): RequestSpec => ({
    method: 'GET',
    path: p,
    ...(headers && { headers }),
  });
  const br = { 'accept-encoding': 'br' };
  const typoSearches = distinctTypos(TYPO_SEARCHES + TYPO_WARMUP + 1).map((typo) =>
    get(`/api/products?keyword=${encodeURIComponent(typo)}`),
  );
  const lastPage = Math.max(1, Math.ceil(options.products / 12));
  const address = {
    county: 'Nairobi',
    phoneNumber: '0712345678',
    postalCode: '00100',
    sub_county: 'Westlands',
    ward: 'Parklands',
  };
  const orderIds = [...prepared.orderStock.keys()];
  const orders: RequestSpec[] = [];
  for (let i = 0; i < 2000; i++) {
    const lines = new Map<string, number>();
    const count = 1 + randomInt(2);
    while (lines.size < count) lines.set(orderIds[randomInt(orderIds.length)] ?? '', 1 + randomInt(3));
    const body = { orderItems: [...lines].map(([_id, qty]) => ({ _id, qty })), shippingAddress: address };
    orders.push(jsonPost('/api/orders', body, `XSRF-TOKEN=${XSRF}; duka_session=${sessions[i % sessions.length]}`));
  }
  // A shop's browsing: 40 % product pages, 40 % listing pages, 15 % searches over 8 keywords, 5 % top.
  const keywords = ['samsung', 'phone', 'tv', 'shoes', 'maize', 'laptop', 'radio', 'sofa'];
  const listingPages = Math.max(1, Math.min(100, lastPage));
  const browsing: RequestSpec[] = [];
  for (let i = 0; i < 200; i++) {
    const roll = i % 20;
    if (roll < 8) browsing.push(get(`/api/products/${prepared.detailIds[i % prepared.detailIds.length] ?? ''}`));
    else if (roll < 16) browsing.push(get(`/api/products?pageNumber=${1 + (i % listingPages)}`));
    else if (roll < 19) browsing.push(get(`/api/products?keyword=${keywords[i % keywords.length] ?? ''}`));
    else browsing.push(get('/api/products/top'));
  }
  const anonymousPosts = [
    { method: 'POST', path: '/api/orders', headers: { 'content-type': 'application/json' }, body: '{}' },
    {
      method: 'POST',
      path: `/api/products/${prepared.detailIds[0] ?? ''}/reviews`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    },
  ] satisfies RequestSpec[];
  const mix = (perSec: number): Case => ({
    key: `mix-${perSec}`,
    label: `Browsing mix, ${perSec} orders/s`,
    kind: 'mix',
    specs: browsing,
    ...(perSec > 0 && { stream: { label: `${perSec} orders/s`, perSec, specs: orders } }),
  });
  return [
    mix(0),
    mix(1),
    mix(5),
    mix(25),
    {
      key: 'mix-anonymous',
      label: 'Browsing mix, 5 anonymous POSTs/s',
      kind: 'mix',
      specs: browsing,
      stream: { label: '5 anonymous POSTs/s (403)', perSec: 5, specs: anonymousPosts },
      pairedWithoutStream: true,
    },
    { key: 'listing-1', label: 'Listing page 1', kind: 'listing', specs: [get('/api/products?pageNumber=1')] },
    { key: 'listing-500', label: 'Listing page 500', kind: 'listing', specs: [get('/api/products?pageNumber=500')] },
    {
      key: 'listing-last',
      label: `Listing, last page (${lastPage})`,
      kind: 'listing-last',
      specs: [get(`/api/products?pageNumber=${lastPage}`)],
    },
    { key: 'home-br', label: 'Home page /, brotli', kind: 'page', specs: [get('/', br)] },
    {
      key: 'product-br',
      label: 'Product page, brotli',
      kind: 'page',
      specs: [get(`/products/${prepared.detailIds[0] ?? ''}`, br)],
    },
    {
      key: 'revalidate',
      label: 'Revalidation (If-None-Match, 304)',
      kind: 'revalidate',
      specs: [get(REVALIDATED_PATH, { 'if-none-match': revalidationTag })],
    },
    { key: 'search-exact', label: 'Search "samsung"', kind: 'search-exact', specs: [get('/api/products?keyword=samsung')] },
    { key: 'search-typo', label: 'Search "samsng" (typo)', kind: 'search-typo', specs: [get('/api/products?keyword=samsng')] },
    {
      key: 'search-typos',
      label: `${TYPO_SEARCHES.toLocaleString('en')} distinct typo searches (each a miss)`,
      kind: 'search-typos',
      specs: typoSearches.slice(0, TYPO_SEARCHES),
      fresh: {
        warmup: typoSearches.slice(TYPO_SEARCHES, TYPO_SEARCHES + TYPO_WARMUP),
        capture: typoSearches.at(-1) ?? get('/api/products?keyword=samsng'),
        wildcard: 'GET /api/products?keyword=*',
      },
    },
    {
      key: 'detail',
      label: `Product detail (${prepared.detailIds.length} ids)`,
      kind: 'detail',
      specs: prepared.detailIds.map((id) => get(`/api/products/${id}`)),
    },
    { key: 'top', label: 'Top products', kind: 'top', specs: [get('/api/products/top')] },
    {
      key: 'sign-in',
      label: 'Sign-in',
      kind: 'sign-in',
      specs: prepared.shopperEmails.map((email) =>
        jsonPost('/api/users/auth', { email, password: SHOPPER_PASSWORD }, `XSRF-TOKEN=${XSRF}`),
      ),
    },
    { key: 'orders', label: `Place order (${sessions.length} shoppers)`, kind: 'orders', specs: orders },
    // The admin's reads over the seeded order history (--orders), never cached.
    {
      key: 'admin-dashboard',
      label: `Admin dashboard (${options.orders.toLocaleString('en')} orders)`,
      kind: 'admin',
      specs: [get('/api/admin/dashboard', { cookie: adminCookies })],
    },
    {
      key: 'admin-orders',
      label: `Admin order list, to deliver, page 1 (${options.orders.toLocaleString('en')} orders)`,
      kind: 'admin',
      specs: [get('/api/orders?isPaid=true&isDelivered=false&pageNumber=1', { cookie: adminCookies })],
    },
  ];
}

/**
 * Listing pages as a miss costs them: before each read an admin edit moves the listing version,
 * so the page is computed again (the products it shows stay cached per product, as in a shop).
 * Page 1 and the last page alternate, so a slow patch of the machine falls on both.
 */
/** Signs the admin in; answers the cookies an admin's requests carry. */
async function signInAdmin(baseUrl: string): Promise<string> {
  const signIn = await send(
    baseUrl,
    jsonPost('/api/users/auth', { email: 'admin@example.com', password: ADMIN_PASSWORD }, `XSRF-TOKEN=${XSRF}`),
  );
  const session = setCookies(signIn).get('duka_session');
  if (signIn.status !== 200 || !session) throw new Error(`the admin sign-in answered ${signIn.status}`);
  return `XSRF-TOKEN=${XSRF}; duka_session=${session}`;
}

async function uncachedListing(duka: Server, lastPage: number, productId: string): Promise<UncachedResult[]> {
  const cookies = await signInAdmin(duka.url);
  const pages = [1, lastPage];
  const times = new Map<number, number[]>(pages.map((page) => [page, []]));
  for (let i = 0; i < UNCACHED_SAMPLES * pages.length; i++) {
    const page = pages[i % pages.length] ?? 1;
    const edit = await send(duka.url, {
      ...jsonPost(`/api/products/${productId}`, { countInStock: 1000 + i }, cookies),
      method: 'PUT',
    });
    if (edit.status !== 200) throw new Error(`the admin edit answered ${edit.status}: ${edit.body.toString().slice(0, 200)}`);
    const started = performance.now();
    const read = await send(duka.url, { method: 'GET', path: `/api/products?pageNumber=${page}` });
    const ms = performance.now() - started;
    if (read.status !== 200) throw new Error(`listing page ${page} answered ${read.status}`);
    times.get(page)?.push(ms);
  }
  return pages.map((page) => {
    const sorted = [...(times.get(page) ?? [])].sort((a, b) => a - b);
    return {
      page,
      samples: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      loadAverage: os.loadavg()[0] ?? Number.NaN,
    };
  });
}

async function capture(baseUrl: string, cases: Case[]): Promise<Captures> {
  const captures: Captures = {};
  for (const c of cases) {
    if (c.fresh) {
      // Capturing the case's own requests would make them hits: one of its kind stands for all.
      const response = await send(baseUrl, c.fresh.capture);
      if (response.status !== 200) throw new Error(`${c.label}: ${c.fresh.capture.path} answered ${response.status}`);
      captures[c.fresh.wildcard] = toCapture(response);
      continue;
    }
    // One order and one sign-in are enough to know the size of their answers.
    const specs = c.kind === 'orders' || c.kind === 'sign-in' ? c.specs.slice(0, 1) : c.specs;
    for (const spec of specs) {
      const response: RawResponse = await send(baseUrl, spec);
      const expected = c.kind === 'orders' ? 201 : c.kind === 'revalidate' ? 304 : 200;
      if (response.status !== expected) {
        throw new Error(
          `${c.label}: ${spec.method} ${spec.path} answered ${response.status}: ${response.body.toString().slice(0, 300)}`,
        );
      }
      captures[`${spec.method} ${spec.path}`] = toCapture(response);
    }
  }
  return captures;
}

/**
 * Requests still queued in Duka when a load stops would eat into the next measurement; a health
 * check queues behind them, so its answer means the backlog is gone.
 */
async function drained(duka: Server): Promise<void> {
  await fetch(`${duka.url}/api/health`, { signal: AbortSignal.timeout(60_000) }).catch(() => {});
}

async function runCase(c: Case, duka: Server, reference: Server): Promise<CaseResult> {
  const { connections, duration, rounds } = options;
  const streams: StreamResult[] = [];
  // A fresh case sends each request once: the warm-up its own, each round its share.
  const shares = c.fresh
    ? Array.from({ length: rounds }, (_, round) =>
        c.specs.slice(Math.floor((round * c.specs.length) / rounds), Math.floor(((round + 1) * c.specs.length) / rounds)),
      )
    : [];
  let nextShare = 0;
  /** A warm-up is not measured; a `baseline` round is the paired one, without the stream. */
  const loadDuka = async (seconds: number, { warmup = false, baseline = false } = {}) => {
    const measured = !warmup;
    const beside = !baseline && c.stream ? stream(duka.url, c.stream.specs, c.stream.perSec) : undefined;
    const specs = !c.fresh ? c.specs : measured ? (shares[nextShare++] ?? []) : c.fresh.warmup;
    const run = await load(duka.url, specs, connections, seconds, c.fresh ? specs.length : undefined);
    const got = await beside?.stop();
    if (got && measured) streams.push(got);
    await drained(duka);
    return run;
  };
  const roundSeconds = Math.max(1, Math.round(duration / rounds));
  const loadLimit = (round: number) =>
    c.fresh
      ? load(reference.url, shares[round] ?? [], connections, roundSeconds, shares[round]?.length)
      : load(reference.url, c.specs, connections, roundSeconds);
  // Warm both (JIT, caches, pools) before measuring.
  await loadDuka(1, { warmup: true });
  await load(reference.url, c.fresh?.warmup ?? c.specs, connections, 1, c.fresh?.warmup.length);
  const before = await scrapeQueries(duka.url);
  const dukaRuns: LoadRun[] = [];
  const limitRuns: LoadRun[] = [];
  const withoutStreamRuns: LoadRun[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which goes first, so a slow patch of the machine falls on both (or all three).
    const order = [
      async () => dukaRuns.push(await loadDuka(roundSeconds)),
      async () => limitRuns.push(await loadLimit(round)),
      ...(c.pairedWithoutStream ? [async () => withoutStreamRuns.push(await loadDuka(roundSeconds, { baseline: true }))] : []),
    ];
    if (round % 2 === 1) order.reverse();
    for (const step of order) await step();
  }
  const after = await scrapeQueries(duka.url);
  const dukaSummary = summarise(mergeRuns(dukaRuns));
  const limitSummary = summarise(mergeRuns(limitRuns));
  const withoutStream = withoutStreamRuns.length > 0 ? summarise(mergeRuns(withoutStreamRuns)) : undefined;
  // Statements are counted over every round Duka served, with the stream or without.
  const served = dukaSummary.requests + (withoutStream?.requests ?? 0);
  const sqlPerRequest = before !== null && after !== null && served > 0 ? (after - before) / served : null;
  return {
    key: c.key,
    label: c.label,
    kind: c.kind,
    duka: dukaSummary,
    limit: limitSummary,
    ratio: dukaSummary.reqPerSec / limitSummary.reqPerSec,
    sqlPerRequest,
    peakRssMiB: duka.child.pid ? peakRssMiB(duka.child.pid) : null,
    loadAverage: os.loadavg()[0] ?? Number.NaN,
    ...(c.stream && { stream: { label: c.stream.label, ...mergeStreams(streams) } }),
    ...(withoutStream && { withoutStream }),
  };
}

// ---------------------------------------------------------------------------------------------
// One database, end to end

interface FrontendModule {
  measureFrontend(opts: { baseUrl: string; productId: string; chromePath?: string }): Promise<unknown>;
}

async function loadFrontendModule(): Promise<FrontendModule | null> {
  const file = path.join(here, 'frontend.ts');
  if (!fs.existsSync(file)) return null;
  return (await import(pathToFileURL(file).href)) as FrontendModule;
}

async function benchDatabase(
  kind: 'pglite' | 'postgres',
  outDir: string,
  frontend: { wanted: boolean; result: unknown },
): Promise<DatabaseRun> {
  const work = await fsp.mkdtemp(path.join(os.tmpdir(), `duka-bench-${kind}-`));
  const dataDir = path.join(work, 'data');
  let pgDatabase: { url: string; drop: () => Promise<void> } | undefined;
  const servers: Server[] = [];
  try {
    if (kind === 'postgres') pgDatabase = await createPostgresDatabase(databaseUrl ?? '');
    const openBench = () =>
      openDatabase(kind === 'postgres' ? { url: pgDatabase?.url, poolSize: 4 } : { pgliteDir: path.join(dataDir, 'pglite') });

    log(`${kind}: preparing the database`);
    let database = await openBench();
    let prepared: Prepared;
    try {
      prepared = await prepareDatabase(database);
    } finally {
      // PGlite is single-process: the server can open the directory only once the bench lets go.
      await database.close();
    }

    // The server finds its PGlite database at DATA_DIR/pglite (src/server/shop.ts).
    const env: Record<string, string> = { DATA_DIR: dataDir, ...(pgDatabase && { DATABASE_URL: pgDatabase.url }) };
    const logFile = path.join(outDir, `server-${kind}.log`);
    await fsp.rm(logFile, { force: true });
    log(`${kind}: starting the server (log: ${path.relative(root, logFile)})`);
    const duka = await startDuka(env, logFile);
    servers.push(duka);

    const sessions = await signInShoppers(duka.url, prepared.shopperEmails);
    const revalidated = await send(duka.url, { method: 'GET', path: REVALIDATED_PATH });
    const revalidationTag = headerOf(revalidated, 'etag');
    const cases = buildCases(prepared, sessions, revalidationTag, await signInAdmin(duka.url));
    const captures = await capture(duka.url, cases);
    const capturesFile = path.join(work, 'captures.json');
    await fsp.writeFile(capturesFile, JSON.stringify(captures));
    const reference = await startReference(capturesFile);
    servers.push(reference);

    // The front end first, on a server that nothing else is loading: Lighthouse's simulated
    // throttling scales what it measures on this machine, so a busy machine reads as a slow page.
    if (frontend.wanted) {
      frontend.wanted = false;
      const module = await loadFrontendModule();
      if (!module) {
        log('front end: tools/bench/frontend.ts is not there yet; skipping gzip sizes and Lighthouse');
      } else {
        log('front end: gzip sizes and Lighthouse…');
        try {
          frontend.result = await module.measureFrontend({ baseUrl: duka.url, productId: prepared.detailIds[0] ?? '' });
        } catch (error) {
          log(`front end failed: ${(error as Error).message}`);
          frontend.result = { error: (error as Error).message };
        }
      }
    }

    const only = args.only?.split(',').map((k) => k.trim());
    const results: CaseResult[] = [];
    for (const c of cases.filter((c) => !only || only.includes(c.key))) {
      log(`${kind}: ${c.label}`);
      const result = await runCase(c, duka, reference);
      results.push(result);
      const bound = Math.max(result.duka.generatorBusy, result.limit.generatorBusy) >= 0.9;
      const beside = result.stream
        ? ` | ${result.stream.label}: p50 ${result.stream.p50.toFixed(1)} p99 ${result.stream.p99.toFixed(1)} ms`
        : '';
      log(
        `  Duka ${result.duka.reqPerSec.toFixed(0)} req/s p50 ${result.duka.p50.toFixed(1)} p99 ${result.duka.p99.toFixed(1)} ms | limit ${result.limit.reqPerSec.toFixed(0)} req/s | ÷ ${result.ratio.toFixed(2)}${bound ? ' (generator-bound: the load generator, not the server, was the limit)' : ''}${beside} | load avg ${result.loadAverage.toFixed(2)}`,
      );
    }

    let uncached: UncachedResult[] = [];
    if (!only || only.includes('listing-uncached')) {
      log(`${kind}: listing page 1 and the last page, uncached (${UNCACHED_SAMPLES} misses each)`);
      uncached = await uncachedListing(duka, Math.max(1, Math.ceil(options.products / 12)), prepared.detailIds.at(-1) ?? '');
      for (const u of uncached) {
        log(`  page ${u.page}: p50 ${u.p50.toFixed(1)} p99 ${u.p99.toFixed(1)} ms | load avg ${u.loadAverage.toFixed(2)}`);
      }
    }

    const peak = duka.child.pid ? peakRssMiB(duka.child.pid) : null;
    for (const server of servers.splice(0)) await stopChild(server.child);

    database = await openBench();
    let stock: Awaited<ReturnType<typeof checkStock>>;
    try {
      stock = await checkStock(database, prepared);
    } finally {
      await database.close();
    }
    const orderCase = results.find((r) => r.kind === 'orders');
    const failures: Record<string, number> = {};
    for (const [code, n] of Object.entries(orderCase?.duka.statuses ?? {})) {
      if (code === '201') continue;
      failures[code === '400' ? '400 out of stock' : code] = n;
    }
    if (orderCase?.duka.errors) failures.errors = orderCase.duka.errors;
    if (orderCase?.duka.timeouts) failures.timeouts = orderCase.duka.timeouts;
    const orders: OrdersCheck | null = orderCase
      ? {
          ...stock,
          ordersPerSec: (orderCase.duka.statuses['201'] ?? 0) / (orderCase.duka.requests / orderCase.duka.reqPerSec),
          failures,
        }
      : null;

    return {
      database: kind,
      serverVersion: prepared.serverVersion,
      products: options.products,
      seedSeconds: prepared.seedSeconds,
      seededOrders: { orders: options.orders, seconds: prepared.orderSeedSeconds },
      cases: results,
      uncached,
      orders,
      peakRssMiB: peak,
      explain: prepared.explain,
    };
  } finally {
    for (const server of servers) await stopChild(server.child);
    await pgDatabase?.drop().catch((error: Error) => log(`could not drop the bench database: ${error.message}`));
    await fsp.rm(work, { recursive: true, force: true });
  }
}

async function createPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `duka_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

async function postgresVersion(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const outDir = path.resolve(root, args.out ?? 'bench-results');
  await fsp.mkdir(outDir, { recursive: true });
  ensureBuilt();
  const info = machine();
  if (databaseUrl) info.postgres = await postgresVersion(databaseUrl);
  log(
    `${info.cpu}, ${info.cores} cores, ${info.ramGiB.toFixed(1)} GiB, Node ${info.node}; ${options.products} products, ${options.connections} connections, ${options.duration} s per case per server; databases: ${databases.join(', ')}`,
  );

  const frontend = { wanted: !args['skip-frontend'], result: null as unknown };
  const runs: DatabaseRun[] = [];
  for (const kind of databases) runs.push(await benchDatabase(kind, outDir, frontend));

  info.loadAverageEnd = os.loadavg()[0] ?? 0;
  const results: BenchResults = {
    machine: info,
    options,
    runs,
    frontend: frontend.result,
    totalSeconds: (performance.now() - started) / 1000,
  };
  const stamp = info.date.replace(/[:.]/g, '-');
  const jsonFile = path.join(outDir, `bench-${stamp}.json`);
  const mdFile = path.join(outDir, `bench-${stamp}.md`);
  await fsp.writeFile(jsonFile, JSON.stringify(results, null, 2));
  await fsp.writeFile(mdFile, markdown(results));
  console.log(`\n${consoleSummary(results)}`);
  log(
    `results: ${path.relative(root, jsonFile)} and ${path.relative(root, mdFile)} (${results.totalSeconds.toFixed(0)} s in all)`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

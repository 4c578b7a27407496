import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/server/db/client.js';
import { toCents } from '../../src/shared/money.js';
import { DEFAULT_PRICING, orderTotals } from '../../src/shared/pricing.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus, StkPushResponse } from '../../src/shared/schemas/payments.js';
import type { Product, ProductDetail } from '../../src/shared/schemas/products.js';
import type { ApiClient, ApiResponse, ErrorResponse } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { outOfTime } from '../support/wait.js';
import {
  installStockAudit,
  Lane,
  mapLimit,
  openConnections,
  readSoldLines,
  readStockAudit,
  type SoldLine,
  type StockChange,
  seededRandom,
} from './load-support.js';

/**
 * Money and stock under concurrency: hundreds of shoppers order a few scarce products at once,
 * while others review them, pay by M-Pesa (through the local Daraja simulator, over real HTTP)
 * and the admin edits prices and restocks. Afterwards nothing is oversold, no stock is negative,
 * every order is priced by the server's rules at the price of its moment, and every payment is
 * credited exactly once. Runs on PGlite, or on PostgreSQL with TEST_DATABASE_URL.
 *
 * Stock is observed with an audit trigger (load-support.ts) that logs every change of a
 * product's stock or price with its transaction id: an order's change is matched to the order's
 * own lines (same transaction), and whatever is not an order's is the admin's.
 *
 * The admin works as the edit screen does (load the product, think, save every field), one form
 * at a time; the form saves an absolute countInStock, so the figures also show how many sold units
 * a form that was open during sales put back on the shelf. The connections are opened before the
 * burst (openConnections), then every request of the burst is sent at once.
 */

const STRESS = process.env.STRESS === '1';
const SIZE = STRESS
  ? { attempts: 1000, shoppers: 200, reviews: 300, edits: 60, spreadMs: 10000 }
  : { attempts: 240, shoppers: 60, reviews: 90, edits: 16, spreadMs: 3000 };
const SEED = 0x5eed_d0ca;
const SIMULATOR_DELAY_MS = 200;
const RECONCILE_AFTER_MS = 500;
const SIGN_UP_PARALLELISM = 8;

/** A few products with little stock. */
const CATALOGUE = [
  { name: 'Kiondo basket', price: 1499.99, countInStock: 5 },
  { name: 'Maasai shuka', price: 2500, countInStock: 3 },
  { name: 'Jiko stove', price: 799.5, countInStock: 8 },
  { name: 'Sufuria set', price: 4999, countInStock: 4 },
];

/**
 * How each placed order is paid, in turn: own = the shopper's own number; sandbox, twice, never =
 * the simulator's 0708374149, 0700000005 (callback twice), 0700000006 (no callback: the reconciler
 * settles it); retry = the shopper taps Pay again and again; admin = marked paid by hand; race =
 * M-Pesa and the admin's Mark As Paid at once; none = left unpaid.
 */
const PAYMENT_MODES = [
  'own',
  'sandbox',
  'own',
  'twice',
  'retry',
  'own',
  'never',
  'admin',
  'own',
  'race',
  'sandbox',
  'retry',
  'none',
] as const;
type PaymentMode = (typeof PAYMENT_MODES)[number];
const LANE_PHONES = { sandbox: '0708374149', twice: '0700000005', never: '0700000006' } as const;

const OUT_OF_STOCK = /is out of stock|left in stock/;
const COOLDOWN = /payment prompt was sent to your phone/;
const ALREADY_PAID = /already paid/;
const PHONE_BUSY = /already an M-Pesa prompt on this phone/;

let shop: TestShop;
/**
 * The causes the shop logged for its failures (a 500 says only "Something went wrong"), printed
 * beside the breaches: a CI run once failed with 197 answers of 500 on PostgreSQL and nothing to
 * say why.
 */
const loggedFailures = new Map<string, number>();
let admin: ApiClient;
let shoppers: ApiClient[] = [];
const products: Product[] = [];

beforeAll(
  async () => {
    shop = await startTestShop(
      {
        MPESA_ENV: 'simulator',
        MPESA_SIMULATOR_DELAY_MS: String(SIMULATOR_DELAY_MS),
        MPESA_RECONCILE_AFTER_MS: String(RECONCILE_AFTER_MS),
        // "Payment received" for a prompt settled by the query alone goes at the next pass.
        MPESA_RECEIPT_WAIT_MS: '0',
        // The test runs the reconciler itself at the end, to settle the prompts whose callback never came.
        MPESA_RECONCILE_INTERVAL_MS: '3600000',
        RATE_LIMIT_STKPUSH_MAX: '1000000',
        // Daraja's 10 s: the in-process simulator, answering 240 pushes on a loaded 2-core machine,
        // once took longer, and the push became a lost answer that no lane here expects. Lost
        // answers are the payment-chaos and faults suites' subject; this one's is money and stock.
        MPESA_HTTP_TIMEOUT_MS: '60000',
        LOG_LEVEL: 'error',
      },
      {
        logStream: {
          write: (lines: string) => {
            for (const line of lines.split('\n').filter((l) => l.trim() !== '')) {
              const entry = JSON.parse(line) as { msg?: string; err?: { message?: string; code?: string } };
              const cause = `${entry.msg}: ${entry.err?.code ?? ''} ${entry.err?.message ?? ''}`.trim();
              loggedFailures.set(cause, (loggedFailures.get(cause) ?? 0) + 1);
            }
          },
        },
      },
    );
    admin = await shop.admin();
    for (const item of CATALOGUE) products.push(await createProduct(admin, { ...item, category: 'Load test' }));
    // Sign-ups hash passwords with argon2 on purpose; a few at a time.
    shoppers = await mapLimit(
      Array.from({ length: SIZE.shoppers }, (_, i) => i),
      SIGN_UP_PARALLELISM,
      (i) => shop.shopper(`Shopper ${i + 1}`),
    );
    await installStockAudit(shop.database.db);
  },
  STRESS ? 600_000 : 60_000,
);
// Twice on a slow, loaded machine the stop after the burst took over the default 60 s; why is
// not known yet. A stop that hangs for good still fails here, by name.
afterAll(async () => {
  printFigures();
  await shop?.stop();
}, 180_000);

interface Placed {
  order: Order;
  cart: { _id: string; qty: number }[];
  shopper: number;
  mode: PaymentMode;
  adminPaid: boolean;
}
interface Prompt {
  orderId: string;
  checkoutRequestId: string;
  mode: PaymentMode;
}

const msgOf = (body: unknown): string =>
  ((body as Partial<ErrorResponse> | undefined)?.errors ?? []).map((e) => e.msg).join(' | ') || JSON.stringify(body);

/** Every price each product had during the run (the initial one and each the admin set). */
const priceHistory = new Map<string, Set<number>>();

/** What the burst left behind, for the checks after it. */
interface Burst {
  placed: Placed[];
  prompts: Prompt[];
  /** Answers that were not the expected ones. */
  problems: string[];
  statusCounts: Map<string, number>;
  initial: { id: string; stock: number }[];
  /** Each shopper's review answers, by `shopper:product`. */
  reviewAnswers: Map<string, number[]>;
  /** Each save of the edit form: the stock it loaded, and how many units the admin added. */
  saves: { productId: string; read: number; added: number; priceCents: number }[];
  edits: number;
  refused: number;
  comebacks: number;
  warmUpResets: number;
  burstMs: number;
  settledMs: number;
}
/** What the stock check read, for the order check and the figures. */
interface Stock {
  finalProducts: Map<string, ProductDetail>;
  /** Each order's transaction id. */
  orderTx: Map<string, string>;
  /** The stock changes no order made. */
  adminChanges: StockChange[];
  oversold: number;
  negativeStock: number;
  stockLines: string[];
}
/** The payments as the database holds them after the burst. */
interface Payments {
  attempts: {
    order_id: string;
    checkout_request_id: string | null;
    status: string;
    amount: number;
    mpesa_receipt: string | null;
  }[];
  paidMails: { text_body: string }[];
}

let burst: Burst | undefined;
let stock: Stock | undefined;
let orders: Map<string, Order> | undefined;
let payments: Payments | undefined;
/** Figures only the later checks know, printed with the others after all. */
const figures: { doubleCredits?: number; reviewsStored?: number; breaches: number } = { breaches: 0 };

/** A step's result, or a clear failure if the step it comes from did not get that far. */
function finished<T>(value: T | undefined, step: string): T {
  if (value === undefined) throw new Error(`${step} did not finish: see its failure`);
  return value;
}

/** Every invariant of a check is tested and every breach noted before the check fails. */
function breachList() {
  const breaches: string[] = [];
  return {
    breaches,
    check: (ok: boolean, breach: () => string) => {
      if (!ok) breaches.push(breach());
    },
    expectNone: () => {
      figures.breaches += breaches.length;
      expect(breaches.slice(0, 30), `${breaches.length} breaches`).toEqual([]);
    },
  };
}

/** Runs the burst: every order attempt, review and admin edit at once, then lets the payments settle. */
async function runBurst(): Promise<Burst> {
  const db = shop.database.db;
  const random = seededRandom(SEED);
  const problems: string[] = [];
  const statusCounts = new Map<string, number>();
  const note = (what: string, res: ApiResponse) => {
    const key = `${what} ${res.status}`;
    statusCounts.set(key, (statusCounts.get(key) ?? 0) + 1);
  };
  const unexpected = (what: string, res: ApiResponse) => problems.push(`${what}: ${res.status} ${msgOf(res.body)}`);

  const initial = products.map((p) => ({ id: p._id, stock: p.countInStock }));
  for (const p of products) priceHistory.set(p._id, new Set([toCents(p.price)]));

  // --- The plan, from the fixed seed ------------------------------------------------------
  const orderPlans = Array.from({ length: SIZE.attempts }, () => {
    const shopper = random.int(0, shoppers.length - 1);
    const count = random.chance(0.6) ? 1 : 2;
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(random.int(0, products.length - 1));
    const lines = [...chosen].map((p) => ({ _id: products[p]!._id, qty: random.int(1, 3) }));
    // Now and then a cart lists one product twice; the server adds the lines up.
    const first = lines[0]!;
    if (first.qty > 1 && random.chance(0.05))
      lines.splice(0, 1, { _id: first._id, qty: 1 }, { _id: first._id, qty: first.qty - 1 });
    // A refused shopper may come back, up to three times, as the admin may have restocked.
    const comeBacks = random.chance(0.4) ? random.int(1, 3) : 0;
    const comeBackAfterMs = Array.from({ length: comeBacks }, () => random.int(500, SIZE.spreadMs));
    return { shopper, lines, comeBackAfterMs };
  });
  const reviewPlans = Array.from({ length: SIZE.reviews }, () => ({
    shopper: random.int(0, shoppers.length - 1),
    product: random.int(0, products.length - 1),
    // Some shoppers press Submit two or three times.
    copies: random.chance(0.3) ? random.int(2, 3) : 1,
    rating: random.int(1, 5),
    delayMs: random.int(0, SIZE.spreadMs),
  }));
  const editPlans = Array.from({ length: SIZE.edits }, (_, i) => ({
    product: i % products.length,
    price: random.int(500, 6000) + random.pick([0, 0.5, 0.99]),
    restock: random.chance(0.7) ? random.int(2, 6) : 0,
    delayMs: random.int(0, SIZE.spreadMs),
    /** How long the admin looks at the edit form before saving it. */
    thinkMs: random.int(0, 300),
  }));

  // --- Payments ---------------------------------------------------------------------------
  const placed: Placed[] = [];
  const prompts: Prompt[] = [];
  const lanes = { sandbox: new Lane(), twice: new Lane(), never: new Lane() };
  let ownPhones = 0;
  const ownPhone = () => `0712${String(++ownPhones).padStart(6, '0')}`;

  const stkPush = async (p: Placed, phoneNumber: string) => {
    const res = await shoppers[p.shopper]!.post<StkPushResponse & ErrorResponse>('/api/orders/stkpush', {
      orderId: p.order._id,
      phoneNumber,
      Amount: Math.ceil(p.order.totalPrice),
    });
    note('stkpush', res);
    if (res.status === 200) prompts.push({ orderId: p.order._id, checkoutRequestId: res.body.checkoutRequestId, mode: p.mode });
    return res;
  };
  const promptOrFail = async (p: Placed, phoneNumber: string) => {
    let res = await stkPush(p, phoneNumber);
    // A shared test number may still hold the previous shopper's prompt when the event loop is
    // busy; M-Pesa then refuses with a clear message, and the shopper tries again.
    for (let tries = 0; tries < 20 && res.status === 400 && PHONE_BUSY.test(msgOf(res.body)); tries++) {
      await sleep(100);
      res = await stkPush(p, phoneNumber);
    }
    if (res.status !== 200) unexpected(`stkpush (${p.mode}) for ${p.order._id}`, res);
  };
  /**
   * Waits (20 s at most) for the order's latest prompt to leave 'pending'. One still pending then
   * is left to the settling after the burst, and to the checks.
   */
  const settled = (p: Placed) =>
    vi
      .waitUntil(
        async () => {
          const res = await shoppers[p.shopper]!.get<PaymentStatus>(`/api/orders/${p.order._id}/payment`);
          if (res.status !== 200) {
            unexpected('payment status', res);
            return true;
          }
          return res.body.lastAttempt?.status !== 'pending';
        },
        { timeout: 20_000, interval: 50 },
      )
      // Still pending after 20 s: left to the settling after the burst, and to the checks.
      .catch(outOfTime);
  const markPaid = async (p: Placed, mayBeLate: boolean) => {
    const res = await admin.put<Order & ErrorResponse>(`/api/orders/${p.order._id}`);
    note('mark paid', res);
    if (res.status === 200) p.adminPaid = true;
    else if (!(mayBeLate && res.status === 400 && ALREADY_PAID.test(msgOf(res.body)))) unexpected('mark paid', res);
  };

  async function pay(p: Placed): Promise<void> {
    switch (p.mode) {
      case 'own':
        return promptOrFail(p, ownPhone());
      case 'sandbox':
        return lanes.sandbox.run(async () => {
          await promptOrFail(p, LANE_PHONES.sandbox);
          await settled(p);
        });
      case 'twice':
        return lanes.twice.run(async () => {
          await promptOrFail(p, LANE_PHONES.twice);
          await settled(p);
          await sleep(400); // the second delivery of the callback
        });
      case 'never':
        return lanes.never.run(async () => {
          await promptOrFail(p, LANE_PHONES.never);
          await sleep(SIMULATOR_DELAY_MS + 150); // the simulator closes the prompt, sends nothing
        });
      case 'retry': {
        // A double tap, then taps around the moment the callback lands: each must be refused
        // (prompt still open, or order already paid); a second prompt could charge twice.
        const phone = ownPhone();
        const tap = () => stkPush(p, phone);
        const firstTwo = await Promise.all([tap(), tap()]);
        const doubleTap = firstTwo.filter((r) => r.status === 200).length;
        if (doubleTap !== 1) problems.push(`retry: ${doubleTap} of a double tap's two prompts were accepted`);
        // From two devices, or a frantic thumb: a tap every 5 ms while the callback is due.
        const offsets = Array.from({ length: 50 }, (_, i) => 0.75 * SIMULATOR_DELAY_MS + 5 * i);
        const later = await Promise.all(
          [...offsets, 3 * SIMULATOR_DELAY_MS].map(async (ms) => {
            await sleep(ms);
            return tap();
          }),
        );
        for (const res of [...firstTwo, ...later]) {
          if (res.status === 200) continue;
          const msg = msgOf(res.body);
          if (!((res.status === 429 && COOLDOWN.test(msg)) || (res.status === 400 && ALREADY_PAID.test(msg))))
            unexpected('stkpush (retry tap)', res);
        }
        const accepted = [...firstTwo, ...later].filter((r) => r.status === 200).length;
        if (accepted > 1) problems.push(`retry: ${accepted - 1} extra M-Pesa prompt(s) accepted for order ${p.order._id}`);
        return;
      }
      case 'admin':
        return markPaid(p, false);
      case 'race': {
        const [res] = await Promise.all([stkPush(p, ownPhone()), markPaid(p, true)]);
        if (res.status !== 200 && !(res.status === 400 && ALREADY_PAID.test(msgOf(res.body)))) unexpected('stkpush (race)', res);
        return;
      }
      case 'none':
        return;
    }
  }

  // --- The burst --------------------------------------------------------------------------
  let refused = 0;
  let comebacks = 0;
  const attemptOrder = async (plan: (typeof orderPlans)[number], tries = 0): Promise<void> => {
    if (tries > 0) comebacks += 1;
    const res = await placeOrder(shoppers[plan.shopper]!, plan.lines);
    note('order', res);
    if (res.status === 201) {
      const p: Placed = {
        order: res.body,
        cart: plan.lines,
        shopper: plan.shopper,
        mode: PAYMENT_MODES[placed.length % PAYMENT_MODES.length]!,
        adminPaid: false,
      };
      placed.push(p);
      await pay(p);
    } else if (res.status === 400 && OUT_OF_STOCK.test(msgOf(res.body))) {
      refused += 1;
      const wait = plan.comeBackAfterMs[tries];
      if (wait !== undefined) {
        await sleep(wait);
        await attemptOrder(plan, tries + 1);
      }
    } else unexpected('order', res);
  };

  const reviewAnswers = new Map<string, number[]>();
  const review = async (plan: (typeof reviewPlans)[number]) => {
    await sleep(plan.delayMs);
    const product = products[plan.product]!;
    const answers = await Promise.all(
      Array.from({ length: plan.copies }, (_, copy) =>
        shoppers[plan.shopper]!.post(`/api/products/${product._id}/reviews`, {
          rating: plan.rating,
          comment: `Load test review ${copy + 1}`,
        }),
      ),
    );
    const key = `${plan.shopper}:${product._id}`;
    for (const res of answers) {
      note('review', res);
      reviewAnswers.set(key, [...(reviewAnswers.get(key) ?? []), res.status]);
      if (res.status !== 201 && !(res.status === 400 && /already reviewed/.test(msgOf(res.body)))) unexpected('review', res);
    }
  };

  /** Each save of the edit form: the stock it loaded, and how many units the admin added. */
  const saves: { productId: string; read: number; added: number; priceCents: number }[] = [];
  let edits = 0;
  /** One admin, one edit screen at a time: edits wait their turn at the desk. */
  const adminDesk = new Lane();
  const edit = async (plan: (typeof editPlans)[number]) => {
    await sleep(plan.delayMs);
    await adminDesk.run(async () => {
      const product = products[plan.product]!;
      // As the admin's edit screen does: load the product, fill in the form, save every field.
      const current = await admin.get<Product>(`/api/products/${product._id}`);
      if (current.status !== 200) return unexpected('admin read', current);
      const form = current.body;
      saves.push({
        productId: product._id,
        read: form.countInStock,
        added: plan.restock,
        priceCents: toCents(plan.price),
      });
      await sleep(plan.thinkMs);
      priceHistory.get(product._id)!.add(toCents(plan.price));
      const res = await admin.put<Product>(`/api/products/${product._id}`, {
        name: form.name,
        price: plan.price,
        image: form.image,
        countInStock: form.countInStock + plan.restock,
        category: form.category,
        description: form.description,
      });
      note('admin edit', res);
      if (res.status === 200) edits += 1;
      else unexpected('admin edit', res);
    });
  };

  // One connection per request of the burst, opened beforehand (see openConnections).
  const warmUpResets = await openConnections(admin, SIZE.attempts + SIZE.reviews + SIZE.edits);
  const started = performance.now();
  await Promise.all([...orderPlans.map((plan) => attemptOrder(plan)), ...reviewPlans.map(review), ...editPlans.map(edit)]);
  const burstMs = performance.now() - started;

  // --- Let the payments settle: callbacks first, then the reconciler for the silent ones ---
  const count = async (query: ReturnType<typeof sql>) => Number((await queryRows<{ n: string }>(db, query))[0]?.n ?? 0);
  // 30 s at most: a prompt still pending then is the reconciler's below, and the checks'.
  await vi
    .waitUntil(
      async () =>
        (await count(sql`SELECT count(*) AS n FROM payment_attempts WHERE status = 'pending' AND phone <> '254700000006'`)) === 0,
      { timeout: 30_000, interval: 100 },
    )
    .catch(outOfTime);
  await sleep(500); // late duplicate callbacks: nothing to wait on, they may or may not come
  const unsettled = async () =>
    (await count(sql`SELECT count(*) AS n FROM payment_attempts WHERE status IN ('pending', 'timed_out')`)) +
    // A query-settled payment's "payment received" waits for its callback, then goes without the receipt.
    (await count(sql`SELECT count(*) AS n FROM mpesa_payments WHERE status = 'credited' AND notified_at IS NULL`));
  // The reconciler takes a prompt only RECONCILE_AFTER_MS after it was sent: a pass each time, about 30 s at most.
  for (let pass = 0; pass < 55 && (await unsettled()) > 0; pass++) {
    await sleep(RECONCILE_AFTER_MS + 50);
    await shop.mpesa.reconcileNow();
  }
  const settledMs = performance.now() - started;

  return {
    placed,
    prompts,
    problems,
    statusCounts,
    initial,
    reviewAnswers,
    saves,
    edits,
    refused,
    comebacks,
    warmUpResets,
    burstMs,
    settledMs,
  };
}

/**
 * The run's figures, printed after all the checks whether they passed or not, so a failure comes
 * with them. A figure a check never got to is shown as "?".
 */
function printFigures() {
  for (const [cause, times] of loggedFailures) console.log(`concurrency: the shop logged ×${times}: ${cause.slice(0, 300)}`);
  if (!burst) return;
  const { placed, prompts, refused, comebacks, edits, saves, reviewAnswers, statusCounts } = burst;
  const unknown = (value: number | undefined) => (value === undefined ? '?' : String(value));
  const reviewRequests = [...reviewAnswers.values()].reduce((n, s) => n + s.length, 0);
  // The edit form saves an absolute countInStock: what changed between loading and saving it
  // is overwritten. Each save is matched with its own change in the audit.
  let salesPutBack = 0;
  let restocksLost = 0;
  const unmatched = [...(stock?.adminChanges ?? [])];
  for (const r of saves) {
    const at = unmatched.findIndex(
      (c) => c.productId === r.productId && c.newStock === r.read + r.added && c.newPriceCents === r.priceCents,
    );
    const change = unmatched.splice(at, 1)[0];
    if (at < 0 || !change) continue;
    salesPutBack += Math.max(0, r.read - change.oldStock);
    restocksLost += Math.max(0, change.oldStock - r.read);
  }
  console.log(
    `concurrency: ${SIZE.attempts + comebacks} order attempts (${SIZE.attempts} at once, ${comebacks} later), ${placed.length} placed, ${refused} refused (out of stock), ${prompts.length} payments, ${reviewRequests} reviews, ${edits} admin edits, oversold ${unknown(stock?.oversold)}, negative stock ${unknown(stock?.negativeStock)}, double credits ${unknown(figures.doubleCredits)}`,
  );
  console.log(
    `concurrency: ${shop.database.kind}, ${SIZE.shoppers} shoppers, burst ${(burst.burstMs / 1000).toFixed(1)} s, settled after ${(burst.settledMs / 1000).toFixed(1)} s`,
  );
  console.log(`concurrency: ${burst.warmUpResets} connections reset while opening them before the burst (retried)`);
  console.log(`concurrency: answers ${[...statusCounts].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  const paidOrders = orders && [...orders.values()].filter((o) => o.isPaid).length;
  console.log(
    `concurrency: ${unknown(paidOrders)} orders paid (${placed.filter((p) => p.adminPaid).length} by the admin), ${unknown(figures.reviewsStored)} reviews stored`,
  );
  console.log(
    `concurrency: admin edit forms saved ${saves.length}, ${saves.filter((r) => r.added > 0).length} restocks (+${saves.reduce((n, r) => n + r.added, 0)} units meant); overwritten while the form was open: ${salesPutBack} sold units put back on the shelf, ${restocksLost} restocked units lost`,
  );
  for (const line of stock?.stockLines ?? []) console.log(`concurrency: ${line}`);
  console.log(`concurrency: ${figures.breaches} breaches`);
}

/** The payment lanes, in the order the checks report them. */
const LANES: { mode: PaymentMode; how: string }[] = [
  { mode: 'own', how: "paid from the shopper's own number" },
  { mode: 'sandbox', how: "paid from the sandbox's shared number, the shoppers taking turns" },
  { mode: 'twice', how: 'paid with the callback delivered twice' },
  { mode: 'never', how: 'paid with no callback, the reconciler settling it' },
  { mode: 'retry', how: 'paid while the shopper taps Pay again and again' },
  { mode: 'admin', how: 'marked paid by the admin' },
  { mode: 'race', how: "paid by M-Pesa and the admin's Mark As Paid at once" },
  { mode: 'none', how: 'left unpaid' },
];

describe('money and stock under concurrency', () => {
  it(
    `${SIZE.attempts} concurrent order attempts with reviews, payments and admin edits: every answer is an expected one`,
    async () => {
      burst = await runBurst();
      const { problems, placed, refused, comebacks } = burst;
      const { breaches, expectNone } = breachList();
      // Every answer was the expected one: no 5xx, every refusal a 4xx with a clear msg.
      breaches.push(...problems);
      expectNone();
      expect(SIZE.attempts).toBeGreaterThanOrEqual(200);
      expect(placed.length + refused).toBe(SIZE.attempts + comebacks);
    },
    STRESS ? 900_000 : 120_000,
  );

  it('stock: nothing oversold, no stock negative, each order took its units at the price of its moment', async () => {
    const { initial, edits } = finished(burst, 'The burst');
    const db = shop.database.db;
    const { check, expectNone } = breachList();
    const audit: StockChange[] = await readStockAudit(db);
    const sold: SoldLine[] = await readSoldLines(db);
    const finalProducts = new Map<string, ProductDetail>();
    for (const p of products) {
      const res = await admin.get<ProductDetail>(`/api/products/${p._id}`);
      expect(res.status).toBe(200);
      finalProducts.set(p._id, res.body);
    }

    // Every order's lines were written by one transaction, which took exactly their units at
    // the price of that moment, and nothing else.
    const orderTx = new Map<string, string>();
    for (const line of sold) {
      const tx = orderTx.get(line.orderId);
      check(tx === undefined || tx === line.txid, () => `order ${line.orderId}: lines written by two transactions`);
      orderTx.set(line.orderId, line.txid);
    }
    const orderTxids = new Set(orderTx.values());
    check(orderTxids.size === orderTx.size, () => 'two orders written by one transaction');
    for (const line of sold) {
      const what = `order ${line.orderId}, product ${line.productId}`;
      const changes = audit.filter((c) => c.txid === line.txid && c.productId === line.productId);
      const [change] = changes;
      check(changes.length === 1, () => `${what}: stock changed ${changes.length} times by the order`);
      if (!change) continue;
      check(
        change.oldStock - change.newStock === line.qty,
        () => `${what}: took ${change.oldStock} → ${change.newStock} for ${line.qty} sold`,
      );
      check(
        change.newPriceCents === line.priceCents && change.oldPriceCents === change.newPriceCents,
        () => `${what}: line price ${line.priceCents} while the product cost ${change.newPriceCents} (cents)`,
      );
      check(
        priceHistory.get(line.productId)?.has(line.priceCents) === true,
        () => `${what}: line price ${line.priceCents} is none the product had`,
      );
    }
    const orderChanges = audit.filter((c) => orderTxids.has(c.txid)).length;
    check(orderChanges === sold.length, () => `${orderChanges} stock changes by orders for ${sold.length} lines`);
    const adminChanges = audit.filter((c) => !orderTxids.has(c.txid));
    check(adminChanges.length <= edits, () => `${adminChanges.length} stock changes by no order, ${edits} admin edits`);

    let oversold = 0;
    let negativeStock = audit.filter((c) => c.newStock < 0).length;
    const stockLines: string[] = [];
    for (const start of initial) {
      const final = finalProducts.get(start.id)!;
      const [row] = await queryRows<{ count_in_stock: number }>(
        db,
        sql`SELECT count_in_stock FROM products WHERE id = ${start.id}`,
      );
      check(Number(row?.count_in_stock) === final.countInStock, () => `${final.name}: the API and the database disagree`);
      if (final.countInStock < 0) negativeStock += 1;
      const units = sold.filter((l) => l.productId === start.id).reduce((sum, l) => sum + l.qty, 0);
      const adminAdded = adminChanges
        .filter((c) => c.productId === start.id)
        .reduce((sum, c) => sum + c.newStock - c.oldStock, 0);
      // final countInStock + units in orders == initial stock + admin-added units
      const balanced = final.countInStock + units === start.stock + adminAdded;
      if (!balanced || final.countInStock < 0) oversold += 1;
      const line = `${final.name}: ${start.stock} + ${adminAdded} by the admin = ${units} sold + ${final.countInStock} left, ${priceHistory.get(start.id)?.size} prices`;
      check(balanced && final.countInStock >= 0, () => `oversold: ${line}`);
      stockLines.push(line);
    }
    stock = { finalProducts, orderTx, adminChanges, oversold, negativeStock, stockLines };
    expectNone();
    expect(oversold).toBe(0);
    expect(negativeStock).toBe(0);
  }, 60_000);

  it('orders: those answered 201 are stored, priced by the rules and unchanged by later price edits', async () => {
    const { placed } = finished(burst, 'The burst');
    const { orderTx } = finished(stock, 'The stock check');
    const { check, expectNone } = breachList();
    const listed = await admin.get<Order[]>('/api/orders');
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.map((o) => [o._id, o]));
    const placedIds = placed.map((p) => p.order._id).sort();
    check(
      JSON.stringify([...byId.keys()].sort()) === JSON.stringify(placedIds),
      () => `${byId.size} orders stored, ${placed.length} answered 201`,
    );
    check(
      JSON.stringify([...orderTx.keys()].sort()) === JSON.stringify(placedIds),
      () => 'the order lines belong to other orders than those placed',
    );
    for (const p of placed) {
      const order = byId.get(p.order._id);
      if (!order) continue;
      const totals = orderTotals(
        order.orderItems.map((l) => ({ price: l.price, qty: l.qty })),
        DEFAULT_PRICING,
      );
      const stored = {
        itemsPrice: order.itemsPrice,
        shippingPrice: order.shippingPrice,
        taxPrice: order.taxPrice,
        totalPrice: order.totalPrice,
      };
      check(
        JSON.stringify(stored) === JSON.stringify(totals),
        () => `order ${order._id}: totals ${JSON.stringify(stored)}, the rules say ${JSON.stringify(totals)}`,
      );
      check(
        JSON.stringify(order.orderItems) === JSON.stringify(p.order.orderItems) && order.totalPrice === p.order.totalPrice,
        () => `order ${order._id} changed after it was placed`,
      );
      // The order holds what the cart asked for, lines of one product added up.
      const cart = new Map<string, number>();
      for (const line of p.cart) cart.set(line._id, (cart.get(line._id) ?? 0) + line.qty);
      const got = new Map(order.orderItems.map((l) => [l._id ?? '', l.qty]));
      check(
        got.size === cart.size && [...cart].every(([id, qty]) => got.get(id) === qty),
        () => `order ${order._id}: lines ${JSON.stringify([...got])} for the cart ${JSON.stringify([...cart])}`,
      );
    }
    orders = byId;
    expectNone();
  }, 60_000);

  it('payments: every accepted M-Pesa prompt ends paid, and nothing is credited twice', async () => {
    const { placed, prompts } = finished(burst, 'The burst');
    const all = finished(orders, 'The order check');
    const db = shop.database.db;
    const attempts: Payments['attempts'] = await queryRows<Payments['attempts'][number]>(
      db,
      sql`SELECT order_id, checkout_request_id, status, amount, mpesa_receipt FROM payment_attempts`,
    );
    const paidMails = await queryRows<{ text_body: string }>(db, sql`SELECT text_body FROM mail_queue WHERE kind = 'order_paid'`);
    payments = { attempts, paidMails };
    const { check, expectNone } = breachList();
    const receipts = attempts.map((a) => a.mpesa_receipt).filter((r): r is string => r !== null);
    const orderReceipts = [...all.values()].map((o) => o.mpesaReceipt).filter((r): r is string => r !== null);
    let doubleCredits = receipts.length - new Set(receipts).size + (orderReceipts.length - new Set(orderReceipts).size);
    for (const p of placed) {
      const paid = attempts.filter((a) => a.order_id === p.order._id && a.status === 'paid').length;
      if (paid > 1) doubleCredits += paid - 1;
      const mails = paidMails.filter((m) => m.text_body.includes(p.order._id)).length;
      if (mails > 1) doubleCredits += mails - 1;
    }
    figures.doubleCredits = doubleCredits;
    for (const prompt of prompts) {
      const attempt = attempts.find((a) => a.checkout_request_id === prompt.checkoutRequestId);
      // Every number used succeeds at M-Pesa, so every accepted prompt ends paid.
      check(
        attempt?.status === 'paid',
        () => `prompt ${prompt.checkoutRequestId} (${prompt.mode}) for ${prompt.orderId}: ${attempt?.status ?? 'not recorded'}`,
      );
    }
    expectNone();
    expect(doubleCredits).toBe(0);
  }, 60_000);

  it.each(LANES)(
    'payments, $mode lane: each order $how is credited once, at its amount, and seen so',
    async ({ mode }) => {
      const { placed } = finished(burst, 'The burst');
      const all = finished(orders, 'The order check');
      const { attempts, paidMails } = finished(payments, 'The payment check');
      const { check, expectNone } = breachList();
      for (const p of placed.filter((placedOrder) => placedOrder.mode === mode)) {
        const order = all.get(p.order._id);
        if (!order) continue;
        const what = `order ${order._id} (${p.mode})`;
        const own = attempts.filter((a) => a.order_id === order._id);
        const paid = own.filter((a) => a.status === 'paid');
        check(paid.length <= 1, () => `${what}: paid by M-Pesa ${paid.length} times`);
        check(
          own.every((a) => Number(a.amount) === Math.ceil(order.totalPrice)),
          () => `${what}: a prompt for another amount than ${Math.ceil(order.totalPrice)}`,
        );
        check(
          order.isPaid === (paid.length > 0 || p.adminPaid),
          () => `${what}: isPaid ${order.isPaid}, ${paid.length} M-Pesa payments, admin ${p.adminPaid}`,
        );
        // In a race the admin may win, and M-Pesa is then rightly not asked.
        if (!['none', 'admin', 'race'].includes(p.mode)) check(paid.length > 0, () => `${what}: never paid`);
        const receipt = paid[0]?.mpesa_receipt ?? null;
        if (paid.length === 1 && !(p.adminPaid && order.mpesaReceipt === null))
          check(order.mpesaReceipt === receipt, () => `${what}: receipt ${order.mpesaReceipt}, M-Pesa's ${receipt}`);
        const mails = paidMails.filter((m) => m.text_body.includes(order._id)).length;
        check(mails === (order.isPaid ? 1 : 0), () => `${what}: ${mails} "payment received" mails`);
        // What the shopper sees agrees.
        const seen = await shoppers[p.shopper]!.get<PaymentStatus>(`/api/orders/${order._id}/payment`);
        check(seen.status === 200 && seen.body.isPaid === order.isPaid, () => `${what}: the shopper sees ${seen.status}`);
      }
      expectNone();
    },
    60_000,
  );

  it('reviews: one per shopper and product, however often Submit is pressed, and the ratings add up', async () => {
    const { reviewAnswers } = finished(burst, 'The burst');
    const { finalProducts } = finished(stock, 'The stock check');
    const db = shop.database.db;
    const { check, expectNone } = breachList();
    const reviewRows = await queryRows<{ product_id: string; user_id: string; rating: number }>(
      db,
      // Only the test's products: the demo catalogue comes with reviews of its own.
      sql`SELECT product_id, user_id, rating FROM reviews WHERE product_id IN (${sql.join(
        products.map((p) => sql`${p._id}`),
        sql`, `,
      )})`,
    );
    const pairs = reviewRows.map((r) => `${r.user_id}:${r.product_id}`);
    check(new Set(pairs).size === pairs.length, () => 'a shopper reviewed a product twice');
    for (const [key, statuses] of reviewAnswers) {
      const accepted = statuses.filter((s) => s === 201).length;
      check(accepted === 1, () => `review ${key}: accepted ${accepted} times`);
    }
    check(
      reviewRows.length === reviewAnswers.size,
      () => `${reviewRows.length} reviews stored, ${reviewAnswers.size} shoppers reviewed`,
    );
    for (const p of products) {
      const rows = reviewRows.filter((r) => r.product_id === p._id);
      const final = finalProducts.get(p._id)!;
      const mean = rows.length === 0 ? 0 : rows.reduce((sum, r) => sum + Number(r.rating), 0) / rows.length;
      check(
        final.numReviews === rows.length && final.reviews.length === rows.length,
        () => `${final.name}: numReviews ${final.numReviews}, ${final.reviews.length} listed, ${rows.length} stored`,
      );
      check(
        final.rating === Math.round(mean * 100) / 100,
        () => `${final.name}: rating ${final.rating}, mean of its reviews ${mean}`,
      );
    }
    figures.reviewsStored = reviewRows.length;
    expectNone();
  }, 60_000);
});

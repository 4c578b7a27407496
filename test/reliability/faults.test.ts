import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, orderTotals } from '../../src/shared/pricing.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus, StkPushResponse } from '../../src/shared/schemas/payments.js';
import type { Product } from '../../src/shared/schemas/products.js';
import { ApiClient, type ApiResponse, type ErrorResponse } from '../support/client.js';
import { createProduct, NAIROBI_ADDRESS } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  freshPostgresUrl,
  shopDataDir,
  startTestShop,
  TEST_PGLITE_SHARED_BUFFERS_MB,
} from '../support/shop.js';
import { type AttemptRow, readSnapshot } from './fault-inspect.js';
import { ShopProcess, within } from './fault-process.js';

/**
 * Faults: the shop is killed with SIGKILL in the middle of a burst of orders and M-Pesa payments
 * and started again on the same data; and (on PostgreSQL) its database connections are cut and
 * refused while it serves. Nothing a client saw acknowledged may be lost, nothing may be
 * half-written, stock must add up, and every payment prompt must end settled.
 */

const STRESS = process.env.STRESS === '1';
const ROUNDS = STRESS ? 10 : 2;
const SHOPPERS = STRESS ? 12 : 6;
/** PostgreSQL outage: how many times the shop's connections are cut for two seconds. */
const CUTS = STRESS ? 10 : 3;
const SEED = 20_240_611;
const DATABASE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

const SIMULATOR_DELAY_MS = 1500;
const RECONCILE_AFTER_MS = 1000;
const RECONCILE_INTERVAL_MS = 500;
/** Short, so that prompts whose outcome died with the killed simulator are given up within the test. */
const GIVE_UP_AFTER_MS = 3000;
/** A request without an answer for this long counts as a hang. */
const REQUEST_LIMIT_MS = 20_000;
/**
 * The kill comes right after a prompt acknowledged within this long of being sent: the simulator
 * took it at most this long ago, so it is still open on the phone when the simulator dies.
 */
const FRESH_PROMPT_MS = SIMULATOR_DELAY_MS - 500;
/**
 * How long the burst may run before such a prompt comes. On a 2-core machine busy with the rest of
 * the suite, every prompt of a 20 s stretch once took longer than FRESH_PROMPT_MS to acknowledge.
 */
const FRESH_PROMPT_WAIT_MS = 45_000;

/** Phones: Daraja's sandbox success number, "success but the callback never comes", and unique successes. */
const SANDBOX_PHONE = '0708374149';
const NO_CALLBACK_PHONE = '0700000006';

/** mulberry32: the bursts are the same on every run for a given seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function isErrorShape(body: unknown): boolean {
  const errors = (body as Partial<ErrorResponse> | null)?.errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e.msg === 'string' && e.msg.length > 0);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error('cleanup failed', error));
});

interface Prompt {
  orderId: string;
  sentAt: number;
  /** The CheckoutRequestID, when the shop acknowledged the prompt. */
  checkoutRequestId?: string;
  /** The kill came before the simulator could have resolved it: the new simulator never knew it. */
  openAtKill: boolean;
}

describe(`killing the shop with SIGKILL mid-burst (${DATABASE})`, () => {
  it(`loses no acknowledged order and leaves nothing half-written over ${ROUNDS} kills`, {
    timeout: 60_000 + ROUNDS * (60_000 + FRESH_PROMPT_WAIT_MS),
  }, async () => {
    const dataDir = await shopDataDir('duka-faults-');
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      MPESA_ENV: 'simulator',
      MPESA_SIMULATOR_DELAY_MS: String(SIMULATOR_DELAY_MS),
      MPESA_RECONCILE_AFTER_MS: String(RECONCILE_AFTER_MS),
      // "Payment received" for a prompt settled by the query alone goes at the next pass.
      MPESA_RECEIPT_WAIT_MS: '0',
      MPESA_RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
      MPESA_GIVE_UP_AFTER_MS: String(GIVE_UP_AFTER_MS),
      // A prompt given up on is past its cooldown too, so its shopper may pay again at once (the
      // last check below); with the default minute that check passed only on a slow machine.
      MPESA_PROMPT_COOLDOWN_MS: String(GIVE_UP_AFTER_MS),
      RATE_LIMIT_STKPUSH_MAX: '1000000',
      RATE_LIMIT_LOGIN_MAX: '1000000',
      RATE_LIMIT_REGISTER_MAX: '1000000',
      PGLITE_SHARED_BUFFERS_MB: String(TEST_PGLITE_SHARED_BUFFERS_MB),
    };
    if (process.env.TEST_DATABASE_URL) {
      const database = await freshPostgresUrl(process.env.TEST_DATABASE_URL);
      cleanups.push(database.drop);
      env.DATABASE_URL = database.url;
    }

    let shop = await ShopProcess.start(env);
    cleanups.push(async () => {
      if (shop.alive) await shop.kill();
    });
    const admin = new ApiClient(shop.url);
    await admin.signIn(ADMIN_EMAIL, ADMIN_PASSWORD);

    // Three products that never run out and one scarce one that shoppers fight over every round.
    const plenty = [
      await createProduct(admin, { name: 'Unga 2kg', price: 499.5, countInStock: 100_000 }),
      await createProduct(admin, { name: 'Sufuria set', price: 1250, countInStock: 100_000 }),
      await createProduct(admin, { name: 'Kiondo basket', price: 2999.99, countInStock: 100_000 }),
    ];
    const scarce = await createProduct(admin, { name: 'Last kikoi', price: 75.25, countInStock: 0 });
    const products: Product[] = [...plenty, scarce];
    const price = new Map(products.map((p) => [p._id, p.price]));
    /** Units put on the shelf by the test, per product: stock must always be this minus the units ordered. */
    const shelved = new Map(products.map((p) => [p._id, p.countInStock]));

    const shoppers: ApiClient[] = [];
    for (let i = 0; i < SHOPPERS; i++) {
      const shopper = new ApiClient(shop.url);
      await shopper.signUp(`Fault Shopper ${i}`, `fault-shopper-${i}@example.com`, 'shopper-pass-1');
      shoppers.push(shopper);
    }

    const rng = random(SEED);
    const acked = new Map<string, Order>();
    const ownerOf = new Map<string, number>();
    const prompts: Prompt[] = [];
    const figures = { requests: 0, cutOff: 0, outOfStock: 0, promptRefused: 0, promptCoolingDown: 0, unexpected: [] as string[] };
    let uniquePhone = 0;
    let kills = 0;

    const phoneFor = (): string => {
      const pick = rng();
      if (pick < 0.3) return SANDBOX_PHONE;
      if (pick < 0.55) return NO_CALLBACK_PHONE;
      uniquePhone += 1;
      return `0711${String(uniquePhone).padStart(6, '0')}`;
    };

    for (let round = 1; round <= ROUNDS; round++) {
      // Put 12 of the scarce product on the shelf again (no orders run now, so the count is exact).
      const before = (await admin.get<Product>(`/api/products/${scarce._id}`)).body.countInStock;
      const restock = await admin.put<Product>(`/api/products/${scarce._id}`, { countInStock: before + 12 });
      expect(restock.status, JSON.stringify(restock.body)).toBe(200);
      shelved.set(scarce._id, (shelved.get(scarce._id) ?? 0) + 12);

      // The burst: every shopper orders and pays as fast as it can until the kill cuts it off.
      let killedAt = 0;
      let inFlight = 0;
      let freshPromptAcknowledged: (() => void) | undefined;
      const attempt = async <T>(send: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T> | undefined> => {
        if (killedAt) return undefined;
        figures.requests += 1;
        inFlight += 1;
        try {
          return await within(send(), REQUEST_LIMIT_MS, 'a request during the burst');
        } catch (error) {
          if (!killedAt) throw error;
          figures.cutOff += 1;
          return undefined;
        } finally {
          inFlight -= 1;
        }
      };
      const pay = async (who: number, client: ApiClient, order: Order) => {
        const prompt: Prompt = { orderId: order._id, sentAt: Date.now(), openAtKill: false };
        const res = await attempt(() =>
          client.post<StkPushResponse>('/api/orders/stkpush', {
            orderId: order._id,
            phoneNumber: phoneFor(),
            Amount: Math.ceil(order.totalPrice),
          }),
        );
        prompts.push(prompt);
        if (!res) return;
        if (res.status === 200) {
          prompt.checkoutRequestId = res.body.checkoutRequestId;
          if (Date.now() - prompt.sentAt < FRESH_PROMPT_MS) freshPromptAcknowledged?.();
        } else if (res.status === 400 && isErrorShape(res.body))
          figures.promptRefused += 1; // the phone is busy, or paid
        else if (res.status === 429 && isErrorShape(res.body)) figures.promptCoolingDown += 1;
        else figures.unexpected.push(`stkpush by shopper ${who}: ${res.status} ${JSON.stringify(res.body)}`);
      };
      const shopperLoop = async (who: number) => {
        const client = shoppers[who]!;
        while (!killedAt) {
          const lines = products.filter(() => rng() < 0.45).map((p) => ({ _id: p._id, qty: 1 + Math.floor(rng() * 3) }));
          if (lines.length === 0) lines.push({ _id: plenty[Math.floor(rng() * plenty.length)]!._id, qty: 1 });
          const res = await attempt(() =>
            client.post<Order>('/api/orders', { orderItems: lines, shippingAddress: NAIROBI_ADDRESS }),
          );
          if (!res) return;
          if (res.status === 201 && typeof res.body._id === 'string') {
            acked.set(res.body._id, res.body);
            ownerOf.set(res.body._id, who);
            if (rng() < 0.75) await pay(who, client, res.body);
          } else if (res.status === 400 && isErrorShape(res.body)) {
            figures.outOfStock += 1;
          } else {
            figures.unexpected.push(`order by shopper ${who}: ${res.status} ${JSON.stringify(res.body)}`);
          }
          // Now and then the shopper tries again to pay an older unpaid order of theirs.
          if (rng() < 0.2) {
            const mine = [...acked.values()].filter((o) => ownerOf.get(o._id) === who && !o.isPaid);
            const older = mine[Math.floor(rng() * mine.length)];
            if (older) await pay(who, client, older);
          }
        }
      };
      const burst = shoppers.map((_, who) => shopperLoop(who));
      await sleep(1500 + Math.floor(rng() * 2000)); // the burst runs a while before the kill: the scenario's own timing
      // Then at the next prompt the shop acknowledges promptly, so that every kill leaves a prompt
      // open on a phone (a busy machine's first seconds of burst may acknowledge none in time).
      await within(
        new Promise<void>((resolve) => {
          freshPromptAcknowledged = resolve;
        }),
        FRESH_PROMPT_WAIT_MS,
        'a prompt acknowledged promptly during the burst',
      );
      const cutInFlight = inFlight;
      killedAt = Date.now();
      await shop.kill();
      kills += 1;
      await Promise.all(burst);
      expect(cutInFlight, 'the kill must land while requests are in flight').toBeGreaterThan(0);
      for (const prompt of prompts) {
        // The killed simulator resolves a prompt DELAY after it received it, never before it was sent.
        if (prompt.sentAt + SIMULATOR_DELAY_MS > killedAt + 250 && prompt.sentAt <= killedAt) prompt.openAtKill = true;
      }

      shop = await ShopProcess.start(env);
      await checkThroughTheApi(round);
    }

    /** What the API shows after a restart: every acknowledged order whole, stock adding up, prompts settling. */
    async function checkThroughTheApi(round: number) {
      const res = await admin.get<Order[]>('/api/orders');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const byId = new Map(res.body.map((o) => [o._id, o]));
      for (const [id, seen] of acked) {
        const now = byId.get(id);
        expect(now, `acknowledged order ${id} lost after kill ${round}`).toBeDefined();
        expect(now!.orderItems.map((l) => [l._id, l.qty, l.price])).toEqual(seen.orderItems.map((l) => [l._id, l.qty, l.price]));
        expect(now!.totalPrice).toBe(seen.totalPrice);
      }
      const sold = new Map<string, number>();
      for (const order of res.body) {
        expect(order.orderItems.length, `order ${order._id} has no lines`).toBeGreaterThan(0);
        for (const line of order.orderItems) {
          expect(line.price).toBe(price.get(line._id ?? ''));
          sold.set(line._id ?? '', (sold.get(line._id ?? '') ?? 0) + line.qty);
        }
        const totals = orderTotals(order.orderItems, DEFAULT_PRICING);
        expect([order.itemsPrice, order.shippingPrice, order.taxPrice, order.totalPrice]).toEqual([
          totals.itemsPrice,
          totals.shippingPrice,
          totals.taxPrice,
          totals.totalPrice,
        ]);
      }
      for (const product of products) {
        const now = (await admin.get<Product>(`/api/products/${product._id}`)).body.countInStock;
        expect(now, `stock of ${product.name} after kill ${round}`).toBe(
          (shelved.get(product._id) ?? 0) - (sold.get(product._id) ?? 0),
        );
      }
      // The reconciler of the restarted shop settles every prompt, including those the old simulator took with it.
      const paidNow = new Set<string>();
      for (const orderId of new Set(prompts.map((p) => p.orderId))) {
        await expect
          .poll(
            async () => {
              const status = await admin.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
              if (status.body.isPaid) paidNow.add(orderId);
              return status.body.lastAttempt?.status ?? 'none';
            },
            {
              timeout: GIVE_UP_AFTER_MS + 15_000,
              interval: 200,
              message: `the prompt for order ${orderId} still pending after kill ${round}; the shop logged:\n${shop.log().slice(-3000)}`,
            },
          )
          .not.toBe('pending');
      }
      for (const id of paidNow) {
        const order = acked.get(id);
        if (order) order.isPaid = true;
      }
    }

    // A prompt given up after the kill does not block the shopper: they pay again, and it goes through.
    const retry = [...acked.values()].find(
      (o) => !o.isPaid && prompts.some((p) => p.orderId === o._id && p.openAtKill && p.checkoutRequestId),
    );
    expect(retry, 'an order whose prompt died with the killed simulator').toBeDefined();
    const payer = shoppers[ownerOf.get(retry!._id)!]!;
    const again = await payer.post<StkPushResponse>('/api/orders/stkpush', {
      orderId: retry!._id,
      phoneNumber: '0722000001',
      Amount: Math.ceil(retry!.totalPrice),
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await expect
      .poll(async () => (await payer.get<PaymentStatus>(`/api/orders/${retry!._id}/payment`)).body.isPaid, {
        timeout: SIMULATOR_DELAY_MS + 10_000,
        interval: 200,
      })
      .toBe(true);
    retry!.isPaid = true;

    const givenUp = (shop.log().match(/status query failed past the give-up time/g) ?? []).length;
    expect(await shop.stop(), shop.log()).toBe(0);

    // The ground truth, read from the database itself.
    const snapshot = await readSnapshot({ databaseUrl: env.DATABASE_URL, dataDir });
    const linesOf = new Map<string, typeof snapshot.lines>();
    for (const line of snapshot.lines) linesOf.set(line.order_id, [...(linesOf.get(line.order_id) ?? []), line]);
    const attemptsOf = new Map<string, AttemptRow[]>();
    for (const a of snapshot.attempts) attemptsOf.set(a.order_id, [...(attemptsOf.get(a.order_id) ?? []), a]);
    const ordersById = new Map(snapshot.orders.map((o) => [o.id, o]));

    const lost = [...acked.keys()].filter((id) => !ordersById.has(id));
    const halfWritten = snapshot.orders.filter((order) => {
      const lines = linesOf.get(order.id) ?? [];
      const totals = orderTotals(
        lines.map((l) => ({ price: l.price_cents / 100, qty: l.qty })),
        DEFAULT_PRICING,
      );
      const cents = [totals.itemsPrice, totals.shippingPrice, totals.taxPrice, totals.totalPrice].map((k) => Math.round(k * 100));
      return (
        lines.length === 0 ||
        JSON.stringify(cents) !== JSON.stringify([order.items_cents, order.shipping_cents, order.tax_cents, order.total_cents])
      );
    });
    const orphanLines = snapshot.lines.filter((l) => !ordersById.has(l.order_id));
    const unitsSold = new Map<string, number>();
    for (const line of snapshot.lines)
      unitsSold.set(line.product_id ?? '', (unitsSold.get(line.product_id ?? '') ?? 0) + line.qty);
    const stockOff = products.filter(
      (p) => snapshot.products.get(p._id) !== (shelved.get(p._id) ?? 0) - (unitsSold.get(p._id) ?? 0),
    );

    const byStatus = new Map<string, number>();
    for (const a of snapshot.attempts) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const unsettled = snapshot.attempts.filter((a) => !['paid', 'failed', 'timed_out', 'rejected', 'unknown'].includes(a.status));
    const byCheckout = new Map(snapshot.attempts.filter((a) => a.checkout_request_id).map((a) => [a.checkout_request_id!, a]));
    const ackedPrompts = prompts.filter((p) => p.checkoutRequestId);
    const promptsLost = ackedPrompts.filter((p) => byCheckout.get(p.checkoutRequestId!)?.order_id !== p.orderId);
    const ghostPaid = ackedPrompts.filter((p) => p.openAtKill && byCheckout.get(p.checkoutRequestId!)?.status === 'paid');
    const openAtKill = ackedPrompts.filter((p) => p.openAtKill);
    const ledgerByCheckout = new Map(
      snapshot.ledger.filter((p) => p.checkout_request_id).map((p) => [p.checkout_request_id!, p]),
    );
    // Money the shop learnt of and forgot: a prompt it calls paid without its payment in the ledger.
    const paidOffLedger = snapshot.attempts.filter(
      (a) => a.status === 'paid' && !ledgerByCheckout.has(a.checkout_request_id ?? ''),
    );
    /**
     * A shopper may pay an order again once its first prompt is past the cool-down, to another
     * phone, before the first one's result has come; then both are paid. The second payment is the
     * shopper's money: the ledger must hold it as a double payment for the merchant to refund.
     */
    const paidTwice = snapshot.attempts.filter(
      (a) => a.status === 'paid' && ledgerByCheckout.get(a.checkout_request_id ?? '')?.exception === 'double_payment',
    );
    const paymentMismatch = snapshot.orders.filter((order) => {
      const paid = (attemptsOf.get(order.id) ?? []).filter((a) => a.status === 'paid' && !paidTwice.includes(a));
      const credited = snapshot.ledger.filter((p) => p.order_id === order.id && p.status === 'credited');
      if (!order.is_paid) return paid.length !== 0 || credited.length !== 0;
      return (
        paid.length !== 1 ||
        credited.length !== 1 ||
        paid[0]!.checkout_request_id !== credited[0]!.checkout_request_id ||
        paid[0]!.mpesa_receipt !== order.mpesa_receipt ||
        paid[0]!.amount !== Math.ceil(order.total_cents / 100) ||
        !['callback', 'query'].includes(paid[0]!.settled_by ?? '')
      );
    });
    const paidOrders = snapshot.orders.filter((o) => o.is_paid).length;
    const mailsOf = (kind: string) => snapshot.mails.filter((m) => m.kind === kind).reduce((sum, m) => sum + m.count, 0);
    const mailStatus = new Map<string, number>();
    for (const m of snapshot.mails) mailStatus.set(m.status, (mailStatus.get(m.status) ?? 0) + m.count);

    console.log(
      `faults (${DATABASE}): ${kills} kills survived, ${acked.size} acknowledged orders, ${lost.length} lost, ${halfWritten.length} half-written`,
    );
    console.log(
      `faults (${DATABASE}): ${figures.requests} requests in the bursts from ${SHOPPERS} concurrent shoppers, ${figures.cutOff} cut off by the kills, ${figures.unexpected.length} unexpected answers`,
    );
    console.log(
      `faults (${DATABASE}): ${snapshot.orders.length} orders in the database (${snapshot.orders.length - acked.size} committed but cut off before the answer), ${figures.outOfStock} refused for stock, stock consistent on ${products.length - stockOff.length}/${products.length} products`,
    );
    console.log(
      `faults (${DATABASE}): ${prompts.length} M-Pesa prompts asked, ${ackedPrompts.length} acknowledged (${promptsLost.length} lost), ${openAtKill.length} open at a kill (${ghostPaid.length} marked paid); attempts: ${[...byStatus].map(([s, n]) => `${n} ${s}`).join(', ')}; ${unsettled.length} pending`,
    );
    console.log(
      `faults (${DATABASE}): ${paidOrders} paid orders, ${paymentMismatch.length} without exactly one matching paid attempt and ledger credit; ${paidTwice.length} paid twice (held as double payments), ${paidOffLedger.length} paid prompts missing from the ledger; ${givenUp} prompts given up by the last shop after a failed status query`,
    );
    console.log(
      `faults (${DATABASE}): mails queued with their orders: ${mailsOf('order_placed')} "placed" for ${snapshot.orders.length} orders, ${mailsOf('order_paid')} "paid" for ${paidOrders} paid orders (${[...mailStatus].map(([s, n]) => `${n} ${s}`).join(', ')})`,
    );

    expect(figures.unexpected, figures.unexpected.join('\n')).toEqual([]);
    expect(lost).toEqual([]);
    expect(halfWritten).toEqual([]);
    expect(orphanLines).toEqual([]);
    expect(stockOff.map((p) => p.name)).toEqual([]);
    expect(unsettled).toEqual([]);
    expect(promptsLost).toEqual([]);
    expect(openAtKill.length, 'some prompts must be open at the kills').toBeGreaterThan(0);
    expect(ghostPaid).toEqual([]);
    // Each with its prompts and ledger rows, so that a failure can be read without a rerun.
    expect(
      paymentMismatch.map((order) => ({
        order,
        attempts: attemptsOf.get(order.id),
        ledger: snapshot.ledger.filter((p) => p.order_id === order.id),
      })),
    ).toEqual([]);
    expect(paidOffLedger).toEqual([]);
    expect(mailsOf('order_placed')).toBe(snapshot.orders.length);
    expect(mailsOf('order_paid')).toBe(paidOrders);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
  describe('the PostgreSQL connection dropping and coming back', () => {
    it(
      'serves errors (never a crash, never a hang) while connections are cut, 503 on health while refused, then recovers',
      async () => {
        const shop = await startTestShop({ MAIL_POLL_INTERVAL_MS: '200', MPESA_RECONCILE_INTERVAL_MS: '200' });
        cleanups.push(() => shop.stop());
        const dbName = new URL(shop.config.databaseUrl!).pathname.slice(1);
        const dba = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await dba.connect();
        cleanups.push(async () => {
          await dba.query(`ALTER DATABASE ${dbName} WITH ALLOW_CONNECTIONS true`);
          await dba.end();
        });
        const terminate = async () => {
          const result = await dba.query<{ done: boolean }>(
            'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
            [dbName],
          );
          return result.rows.filter((r) => r.done).length;
        };

        const admin = await shop.admin();
        const product = await createProduct(admin, { name: 'Jiko', price: 850, countInStock: 100_000 });
        const shoppers = await Promise.all([1, 2, 3, 4].map((i) => shop.shopper(`Outage Shopper ${i}`)));

        const tally = { requests: 0, ok: 0, serverErrors: 0, health503: 0, bad: [] as string[] };
        const acked: string[] = [];
        const check = async (what: string, send: () => Promise<ApiResponse<unknown>>) => {
          tally.requests += 1;
          let res: ApiResponse<unknown>;
          try {
            res = await within(send(), 15_000, what);
          } catch (error) {
            tally.bad.push(`${what}: ${String(error)}`); // no answer at all: a crash or a hang
            return undefined;
          }
          if (what === 'health') {
            if (res.status === 503) tally.health503 += 1;
            else if (res.status === 200) tally.ok += 1;
            else tally.bad.push(`health: ${res.status}`);
          } else if (res.status >= 500) {
            tally.serverErrors += 1;
            if (!isErrorShape(res.body))
              tally.bad.push(`${what}: ${res.status} without the error shape: ${JSON.stringify(res.body)}`);
          } else if (res.status >= 400) {
            tally.bad.push(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
          } else {
            tally.ok += 1;
          }
          return res;
        };
        let stop = false;
        const traffic = shoppers.map(async (client) => {
          while (!stop) {
            const placed = await check('order', () =>
              client.post<Order>('/api/orders', { orderItems: [{ _id: product._id, qty: 1 }], shippingAddress: NAIROBI_ADDRESS }),
            );
            if (placed?.status === 201) acked.push((placed.body as Order)._id);
            await check('products', () => client.get('/api/products'));
            await check('my orders', () => client.get('/api/orders/myorders'));
            await check('health', () => client.get('/api/health'));
          }
        });

        // 1. Connections cut again and again for two seconds while the shoppers keep going, a few
        //    times over: a pooled connection lost for good in one cut would add up to a dead pool.
        let terminated = 0;
        const recoveries: number[] = [];
        for (let cut = 0; cut < CUTS; cut++) {
          // The two seconds of cuts are the scenario itself, not a wait for an event.
          const cutUntil = Date.now() + 2000;
          while (Date.now() < cutUntil) {
            terminated += await terminate();
            await sleep(50);
          }
          const cutEnded = Date.now();
          await expect
            .poll(async () => (await admin.get<Order[]>('/api/orders')).status, { timeout: 15_000, interval: 50 })
            .toBe(200);
          recoveries.push(Date.now() - cutEnded);
        }
        const duringCuts = { ...tally };

        // 2. The database refuses every connection: health says so, requests fail cleanly.
        await dba.query(`ALTER DATABASE ${dbName} WITH ALLOW_CONNECTIONS false`);
        terminated += await terminate();
        // A connection that was starting as they were refused had passed that check already (a CI run
        // placed an order through one): each is cut as it shows, until none is left.
        await expect.poll(terminate, { interval: 50 }).toBe(0);
        const refusedStart = Date.now();
        const health: number[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await check('health', () => admin.get('/api/health'));
          if (res) health.push(res.status);
          await sleep(100); // five looks spread over half a second while refused, not a wait for an event
        }
        const refusedOrder = await check('order', () =>
          shoppers[0]!.post('/api/orders', { orderItems: [{ _id: product._id, qty: 1 }], shippingAddress: NAIROBI_ADDRESS }),
        );
        await dba.query(`ALTER DATABASE ${dbName} WITH ALLOW_CONNECTIONS true`);
        const outageMs = Date.now() - refusedStart;

        // 3. Without a restart, health comes back and so does everything else.
        const back = Date.now();
        await expect.poll(async () => (await admin.get('/api/health')).status, { timeout: 15_000, interval: 100 }).toBe(200);
        const recoveryMs = Date.now() - back;
        stop = true;
        await Promise.all(traffic);
        const after = await shoppers[1]!.post<Order>('/api/orders', {
          orderItems: [{ _id: product._id, qty: 2 }],
          shippingAddress: NAIROBI_ADDRESS,
        });
        expect(after.status, JSON.stringify(after.body)).toBe(201);
        acked.push(after.body._id);
        expect((await admin.get('/api/products')).status).toBe(200);
        expect(shop.app.server.listening).toBe(true);

        // Orders acknowledged during the outage are all there, and the stock agrees with the orders.
        const all = await admin.get<Order[]>('/api/orders');
        expect(all.status).toBe(200);
        const ids = new Set(all.body.map((o) => o._id));
        const lost = acked.filter((id) => !ids.has(id));
        const units = all.body.reduce((sum, o) => sum + o.orderItems.reduce((s, l) => s + l.qty, 0), 0);
        const stock = (await admin.get<Product>(`/api/products/${product._id}`)).body.countInStock;

        console.log(
          `faults (PostgreSQL outage): ${terminated} server connections terminated in ${CUTS} cuts of 2 s, ${duringCuts.requests} requests meanwhile from 4 shoppers (${duringCuts.ok} ok, ${duringCuts.serverErrors} 5xx with the error shape, ${duringCuts.health503} health 503), 0 crashes, ${tally.bad.length} bad answers or hangs; served again ${recoveries.join(', ')} ms after each cut`,
        );
        console.log(
          `faults (PostgreSQL outage): connections refused for ${outageMs} ms: health ${health.join(',')}; order ${refusedOrder?.status}; health 200 again ${recoveryMs} ms after, without a restart; ${acked.length} orders acknowledged, ${lost.length} lost`,
        );

        expect(tally.bad, tally.bad.join('\n')).toEqual([]);
        expect(terminated).toBeGreaterThan(0);
        expect(health).toContain(503);
        expect(refusedOrder?.status).toBeGreaterThanOrEqual(500);
        expect(lost).toEqual([]);
        expect(stock).toBe(100_000 - units);
      },
      60_000 + CUTS * 20_000,
    );
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { startShopSimulator } from '../support/simulator.js';

/**
 * Payment chaos: many shoppers pay at once while the simulator makes Daraja misbehave in every way
 * the shop must survive (answers lost to the client's timeout, callbacks before the answer, late
 * successes after the give-up time, the query knowing first, duplicates, stale failures, two paid
 * prompts on one order). Then the conservation invariant: every receipt the simulated M-Pesa
 * issued is in the ledger exactly once, crediting an order that is now paid or as an open
 * exception, and the ledger adds up to the shilling. Small in `npm test`; STRESS=1 runs it large.
 */

const STRESS = process.env.STRESS === '1';
const ROUNDS = STRESS ? 12 : 2;
const DATABASE = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

const CALLBACK_DELAY_MS = 250;
// Generous against a loaded machine: only the slow-answer fault should outlast the client.
const HTTP_TIMEOUT_MS = 2000;
const SLOW_ANSWER_MS = 4000;
// Long enough for the shopper to see the first prompt time out and pay again, even at full size.
const LATE_CALLBACK_MS = STRESS ? 8000 : 5000;
// Shorter than the late callbacks, so they come after it; on a loaded machine a lost answer's
// callback may take seconds to be confirmed, and must still fall within it to be matched.
const GIVE_UP_AFTER_MS = STRESS ? 5000 : 4000;

type Scenario =
  | 'plain'
  | 'twice'
  | 'never'
  | 'slow_answer'
  | 'late_success'
  | 'callback_first'
  | 'stale_failure'
  | 'query_first'
  | 'cancelled'
  | 'two_paid_prompts';

const PHONE: Record<Exclude<Scenario, 'two_paid_prompts'>, string> = {
  plain: '0708374149',
  twice: '0700000005',
  never: '0700000006',
  slow_answer: '0700000007',
  late_success: '0700000008',
  callback_first: '0700000009',
  stale_failure: '0700000010',
  query_first: '0700000011',
  cancelled: '0700000001',
};
const SCENARIOS = [...(Object.keys(PHONE) as Scenario[]), 'two_paid_prompts' as const];

let shop: TestShop;
let simulator: DarajaSimulator;
let admin: ApiClient;

beforeAll(async () => {
  simulator = await startShopSimulator({
    callbackDelayMs: CALLBACK_DELAY_MS,
    slowAnswerMs: SLOW_ANSWER_MS,
    lateCallbackMs: LATE_CALLBACK_MS,
  });
  shop = await startTestShop({
    MPESA_ENV: 'simulator',
    MPESA_SIMULATOR_URL: simulator.url,
    MPESA_HTTP_TIMEOUT_MS: String(HTTP_TIMEOUT_MS),
    MPESA_RECONCILE_AFTER_MS: '300',
    MPESA_RECONCILE_INTERVAL_MS: '150',
    MPESA_GIVE_UP_AFTER_MS: String(GIVE_UP_AFTER_MS),
    // A shopper whose prompt timed out may pay again at once: the two-paid-prompts path.
    MPESA_PROMPT_COOLDOWN_MS: '0',
    RATE_LIMIT_STKPUSH_MAX: '100000',
  });
  admin = await shop.admin();
}, 120_000);
afterAll(async () => {
  await shop?.stop();
  await simulator?.close();
});

interface Run {
  scenario: Scenario;
  order: Order;
  shopper: ApiClient;
  /** two_paid_prompts: whether the shopper paid again (not when the late success came first). */
  paidAgain?: boolean;
}

function pay(shopper: ApiClient, order: Order, phoneNumber: string) {
  return shopper.post('/api/orders/stkpush', { orderId: order._id, phoneNumber, Amount: Math.ceil(order.totalPrice) });
}

/**
 * The simulator allows one open prompt per phone, as M-Pesa does ("Unable to lock subscriber"):
 * a shopper who meets that lock taps Pay again until the prompt goes.
 */
async function payUntilSent(shopper: ApiClient, order: Order, phoneNumber: string, alsoFinal?: RegExp) {
  let last = await pay(shopper, order, phoneNumber);
  await expect
    .poll(
      async () => {
        if (last.status === 400 && JSON.stringify(last.body).includes('already an M-Pesa prompt on this phone')) {
          last = await pay(shopper, order, phoneNumber);
        }
        const refusal = JSON.stringify(last.body);
        return last.status === 400 && !alsoFinal?.test(refusal) ? refusal : 'sent';
      },
      { timeout: 20_000, interval: 50 },
    )
    .toBe('sent');
  return last;
}

async function play(run: Run): Promise<void> {
  const { scenario, order, shopper } = run;
  if (scenario !== 'two_paid_prompts') {
    const res = await payUntilSent(shopper, order, PHONE[scenario]);
    // A lost answer is told honestly, never as a failure to pay.
    if (scenario === 'slow_answer') expect(JSON.stringify(res.body)).toContain('The prompt may still reach your phone');
    else expect([200, 502], JSON.stringify(res.body)).toContain(res.status);
    return;
  }
  // The first prompt times out (1037) and is paid late; meanwhile the shopper pays again.
  expect((await payUntilSent(shopper, order, PHONE.late_success)).status).toBe(200);
  await expect
    .poll(async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.lastAttempt?.status, {
      timeout: 20_000,
      interval: 50,
    })
    .toMatch(/^(timed_out|failed|paid)$/);
  // On a slow machine the late success may pay it first: the shop then refuses a second prompt.
  if ((await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.isPaid) return;
  const again = await payUntilSent(shopper, order, PHONE.plain, /already paid/);
  run.paidAgain = again.status === 200;
  if (!run.paidAgain) expect(JSON.stringify(again.body)).toContain('already paid');
}

interface LedgerRow {
  receipt: string | null;
  checkout_request_id: string | null;
  amount_cents: number;
  order_id: string | null;
  status: string;
  exception: string | null;
}

async function ledger(): Promise<LedgerRow[]> {
  const result = (await shop.database.db.execute(
    sql`SELECT receipt, checkout_request_id, amount_cents, order_id, status, exception FROM mpesa_payments`,
  )) as unknown as { rows: LedgerRow[] };
  return result.rows;
}

/** What the shop did with each receipt missing from the ledger, so a failure can be read without a rerun. */
async function explainMissing(rows: LedgerRow[]): Promise<void> {
  const known = new Set(rows.flatMap((r) => [r.receipt, `checkout:${r.checkout_request_id}`]));
  for (const issued of simulator.receipts) {
    if (known.has(issued.receipt) || known.has(`checkout:${issued.checkoutRequestId}`)) continue;
    const attempts = (await shop.database.db.execute(
      sql`SELECT status, result_code, checkout_request_id, amount, created_at, updated_at FROM payment_attempts WHERE phone = ${issued.phone} AND amount = ${issued.amount}`,
    )) as unknown as { rows: unknown[] };
    const callbacks = (await shop.database.db.execute(
      sql`SELECT outcome, attempts, processed_at FROM mpesa_callbacks WHERE body LIKE ${`%${issued.checkoutRequestId}%`}`,
    )) as unknown as { rows: unknown[] };
    const deliveries = simulator.deliveries.filter((d) => d.checkoutRequestId === issued.checkoutRequestId);
    console.log(
      `missing from the ledger: ${JSON.stringify(issued)}\n  prompts: ${JSON.stringify(attempts.rows)}\n  callbacks stored: ${JSON.stringify(callbacks.rows)}\n  deliveries: ${JSON.stringify(deliveries.map((d) => [d.status, d.error]))}`,
    );
  }
}

async function unprocessedCallbacks(): Promise<number> {
  const result = (await shop.database.db.execute(
    sql`SELECT count(*)::int AS n FROM mpesa_callbacks WHERE processed_at IS NULL`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}

describe(`payment chaos (${DATABASE})`, () => {
  it(
    'records every receipt M-Pesa issued exactly once, crediting a paid order or as an open exception',
    async () => {
      const product = await createProduct(admin, { price: 501.93, countInStock: 10_000 });
      const runs: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const scenario of SCENARIOS) {
          const shopper = await shop.shopper(`Chaos ${scenario}`);
          // A quantity of its own gives each order its own amount: a lost answer is matched by
          // phone and amount, and two open prompts alike in both are rightly left to the admin.
          const placed = await placeOrder(shopper, [{ _id: product._id, qty: runs.length + 1 }]);
          expect(placed.status, JSON.stringify(placed.body)).toBe(201);
          runs.push({ scenario, order: placed.body as Order, shopper });
        }
      }
      // Every shopper at once; those sharing a test number queue at the simulator's lock.
      await Promise.all(runs.map(play));

      // Quiet: M-Pesa has completed every payment the shoppers made (late ones included), every
      // receipt issued has reached the ledger, and nothing waits to be processed.
      const expectedPayments = runs.reduce((n, r) => n + (r.scenario === 'cancelled' ? 0 : r.paidAgain ? 2 : 1), 0);
      const keyOf = (receipt: string | null, checkout: string | null) => receipt ?? `checkout:${checkout}`;
      const quiet = expect
        .poll(
          async () => {
            const rows = await ledger();
            const known = new Set(rows.flatMap((r) => [r.receipt, `checkout:${r.checkout_request_id}`]));
            const missing = simulator.receipts.filter(
              (r) => !known.has(r.receipt) && !known.has(`checkout:${r.checkoutRequestId}`),
            );
            return {
              issued: simulator.receipts.length,
              missing: missing.length,
              unprocessed: await unprocessedCallbacks(),
            };
          },
          { timeout: 60_000, interval: 200 },
        )
        .toEqual({ issued: expectedPayments, missing: 0, unprocessed: 0 });
      await quiet.catch(async (error: unknown) => {
        await explainMissing(await ledger());
        throw error;
      });

      const rows = await ledger();
      const ordersNow = new Map((await admin.get<Order[]>('/api/orders')).body.map((o) => [o._id, o] as const));
      await explainMissing(rows);
      const breaches: string[] = [];
      const matched = new Set<LedgerRow>();
      for (const issued of simulator.receipts) {
        const hits = rows.filter(
          (r) => r.receipt === issued.receipt || (r.receipt === null && r.checkout_request_id === issued.checkoutRequestId),
        );
        if (hits.length !== 1) {
          breaches.push(`receipt ${issued.receipt} is in the ledger ${hits.length} times`);
          continue;
        }
        const row = hits[0]!;
        matched.add(row);
        if (row.amount_cents !== issued.amount * 100)
          breaches.push(`${keyOf(row.receipt, row.checkout_request_id)}: amount ${row.amount_cents} ≠ ${issued.amount * 100}`);
        const open = row.exception !== null && ['exception', 'credited'].includes(row.status);
        const credits = row.status === 'credited' && row.order_id !== null && ordersNow.get(row.order_id)?.isPaid === true;
        if (!credits && !open)
          breaches.push(`${issued.receipt}: neither crediting a paid order nor an open exception (${row.status})`);
      }
      const phantoms = rows.filter((r) => !matched.has(r));
      for (const p of phantoms) breaches.push(`ledger row ${keyOf(p.receipt, p.checkout_request_id)} that M-Pesa never issued`);
      const issuedCents = simulator.receipts.reduce((sum, r) => sum + r.amount * 100, 0);
      const ledgerCents = rows.reduce((sum, r) => sum + r.amount_cents, 0);
      if (issuedCents !== ledgerCents) breaches.push(`M-Pesa moved ${issuedCents} cents, the ledger holds ${ledgerCents}`);

      // Every order that was paid for is paid; none is paid twice without the merchant being told.
      for (const run of runs) {
        const order = ordersNow.get(run.order._id);
        const paying = simulator.receipts.filter((r) =>
          rows.some(
            (row) =>
              row.order_id === run.order._id && (row.receipt === r.receipt || row.checkout_request_id === r.checkoutRequestId),
          ),
        );
        if (run.scenario === 'cancelled') {
          if (order?.isPaid) breaches.push(`cancelled order ${run.order._id} is paid`);
        } else if (!order?.isPaid) {
          breaches.push(`${run.scenario}: order ${run.order._id} was paid for but is not paid`);
        }
        if (run.paidAgain) {
          const doubles = rows.filter((r) => r.order_id === run.order._id && r.exception === 'double_payment');
          if (doubles.length !== 1)
            breaches.push(`two paid prompts on ${run.order._id}: ${doubles.length} double payments flagged`);
        }
        if (paying.length > 1 && !run.paidAgain) breaches.push(`${run.scenario}: ${paying.length} payments on one order`);
      }

      const faults = runs.filter((r) => !['plain', 'cancelled'].includes(r.scenario)).length;
      const doublePaid = runs.filter((r) => r.paidAgain).length;
      expect(doublePaid, 'at least one order paid twice, or the double-payment path went untested').toBeGreaterThan(0);
      const exceptions = rows.filter((r) => r.exception !== null);
      console.log(
        `payment chaos (${DATABASE}): ${runs.length} orders, ${simulator.receipts.length} payments (receipts issued), ${faults} with a fault, ` +
          `${doublePaid} orders paid twice, ${rows.length} ledger rows, ${exceptions.length} exceptions (${[...new Set(exceptions.map((e) => e.exception))].join(', ') || 'none'}), ` +
          `receipts lost: ${simulator.receipts.length - matched.size}, breaches: ${breaches.length}`,
      );
      expect(breaches).toEqual([]);
    },
    STRESS ? 600_000 : 180_000,
  );
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { startShopSimulator } from '../support/simulator.js';

/**
 * Payment chaos: many shoppers pay at once, by prompt and by Paybill, while the simulator makes
 * Daraja misbehave in every way the shop must survive (answers lost to the client's timeout,
 * callbacks before the answer, late successes after the give-up time, the query knowing first,
 * duplicates, stale failures, two paid prompts on one order, Paybill confirmations sent twice).
 * Then the merchant refunds some payments while reversals misbehave too (a queue timeout, a
 * refusal, no answer at all, refund requests racing). Then the conservation invariant: every
 * receipt the simulated M-Pesa issued is in the ledger exactly once, and money in = credited +
 * open exceptions + refunded, to the shilling, with refunded = what M-Pesa really reversed.
 * Small in `npm test`; STRESS=1 runs it large.
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
  | 'two_paid_prompts'
  | 'paybill'
  | 'paybill_twice'
  | 'refund'
  | 'refund_race'
  | 'refund_queue_timeout'
  | 'refund_failed'
  | 'refund_unanswered';

/** Paid by Paybill (the simulator's C2B payment) from this phone, rather than by prompt. */
const PAYBILL_PHONE: Partial<Record<Scenario, string>> = {
  paybill: '0708374149',
  paybill_twice: '0700000005',
  refund_queue_timeout: '0700000012',
  refund_unanswered: '0700000013',
};
const REFUNDED: Scenario[] = ['refund', 'refund_race', 'refund_queue_timeout', 'refund_failed'];
const RESULT_WAIT_MS = 1500;
const REVERSAL_MAX_ATTEMPTS = 3;

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
  paybill: '0708374149',
  paybill_twice: '0700000005',
  refund: '0708374149',
  refund_race: '0708374149',
  refund_queue_timeout: '0700000012',
  refund_failed: '0700000014',
  refund_unanswered: '0700000013',
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
    resultDelayMs: CALLBACK_DELAY_MS,
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
    MPESA_RESULT_WAIT_MS: String(RESULT_WAIT_MS),
    MPESA_REVERSAL_MAX_ATTEMPTS: String(REVERSAL_MAX_ATTEMPTS),
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
  /** The payment the merchant refunded. */
  refunded?: LedgerRow;
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
  const paybillPhone = PAYBILL_PHONE[scenario];
  if (paybillPhone) {
    const res = await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: paybillPhone });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return;
  }
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
  id: string;
  receipt: string | null;
  checkout_request_id: string | null;
  amount_cents: number;
  order_id: string | null;
  status: string;
  exception: string | null;
}

async function ledger(): Promise<LedgerRow[]> {
  const result = (await shop.database.db.execute(
    sql`SELECT id, receipt, checkout_request_id, amount_cents, order_id, status, exception FROM mpesa_payments`,
  )) as unknown as { rows: LedgerRow[] };
  return result.rows;
}

async function pendingRefunds(): Promise<number> {
  const result = (await shop.database.db.execute(
    sql`SELECT count(*)::int AS n FROM mpesa_refunds WHERE status = 'pending'`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}

/** The refunds asked for a payment, with how many Reversal requests each sent. */
async function refundsOf(paymentId: string): Promise<{ id: string; attempts: number }[]> {
  const result = (await shop.database.db.execute(
    sql`SELECT id, attempts FROM mpesa_refunds WHERE payment_id = ${paymentId}`,
  )) as unknown as { rows: { id: string; attempts: number }[] };
  return result.rows;
}

/** The merchant refunds: once, or several times at once (race), or again after a refusal. */
async function refund(run: Run, rows: LedgerRow[]): Promise<void> {
  const payment = rows.find((r) => r.order_id === run.order._id && r.status === 'credited');
  if (!payment) throw new Error(`${run.scenario}: no crediting payment to refund`);
  run.refunded = payment;
  const url = `/api/admin/payments/${payment.id}/refund`;
  if (run.scenario === 'refund_race') {
    const answers = await Promise.all(Array.from({ length: 4 }, () => admin.post(url)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409]);
    return;
  }
  expect((await admin.post(url)).status).toBe(202);
  if (run.scenario !== 'refund_failed') return;
  // Refused (insufficient balance); once the refusal is known, the merchant refunds again.
  await expect
    .poll(
      async () => {
        const status = await admin.get<PaymentStatus>(`/api/orders/${run.order._id}/payment`);
        return status.body.payments.find((p) => p._id === payment.id)?.refund?.failedAt ?? null;
      },
      { timeout: 30_000, interval: 100 },
    )
    .not.toBeNull();
  const again = await admin.post<LedgerPayment>(url);
  if (again.status === 202) return;
  // Under load the reconciler may have resent the first Reversal before its refusal came; that
  // request succeeded, and the payment is refunded already: the second refund is rightly refused.
  expect(again.status, JSON.stringify(again.body)).toBe(409);
  const status = await admin.get<PaymentStatus>(`/api/orders/${run.order._id}/payment`);
  expect(status.body.payments.find((p) => p._id === payment.id)?.status).toBe('refunded');
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

/** An open exception, as the admin's list counts it (src/server/domain/payments/ledger.ts). */
function isOpen(row: LedgerRow): boolean {
  if (row.exception === null) return false;
  return (
    ['exception', 'credited'].includes(row.status) || (row.status === 'refund_pending' && row.exception === 'refund_unanswered')
  );
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

      // The merchant refunds: the refund scenarios' payments, and every double payment.
      const paidRows = await ledger();
      await Promise.all(runs.filter((r) => r.scenario.startsWith('refund')).map((r) => refund(r, paidRows)));
      const doublePayments = paidRows.filter((r) => r.exception === 'double_payment' && r.status === 'exception');
      for (const double of doublePayments) {
        expect((await admin.post(`/api/admin/payments/${double.id}/refund`)).status).toBe(202);
      }
      // Quiet again: every reversal answered, retried or given up on.
      await expect
        .poll(async () => ({ pending: await pendingRefunds(), unprocessed: await unprocessedCallbacks() }), {
          timeout: 60_000,
          interval: 200,
        })
        .toEqual({ pending: 0, unprocessed: 0 });

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
        const open = isOpen(row);
        const credits = row.status === 'credited' && row.order_id !== null && ordersNow.get(row.order_id)?.isPaid === true;
        if (!credits && !open && row.status !== 'refunded')
          breaches.push(`${issued.receipt}: neither crediting a paid order, nor an open exception, nor refunded (${row.status})`);
      }
      const phantoms = rows.filter((r) => !matched.has(r));
      for (const p of phantoms) breaches.push(`ledger row ${keyOf(p.receipt, p.checkout_request_id)} that M-Pesa never issued`);

      // Conservation: money in = credited + open exceptions + refunded, to the shilling; and what
      // the ledger calls refunded is what M-Pesa really reversed.
      const issuedCents = simulator.receipts.reduce((sum, r) => sum + r.amount * 100, 0);
      const sumOf = (keep: (r: LedgerRow) => boolean) => rows.filter(keep).reduce((sum, r) => sum + r.amount_cents, 0);
      const refundedCents = sumOf((r) => r.status === 'refunded');
      const openCents = sumOf((r) => r.status !== 'refunded' && isOpen(r));
      const creditedCents = sumOf((r) => r.status === 'credited' && !isOpen(r));
      for (const r of rows.filter((r) => r.status !== 'refunded' && !isOpen(r) && r.status !== 'credited'))
        breaches.push(`${keyOf(r.receipt, r.checkout_request_id)}: neither credited, open nor refunded (${r.status})`);
      if (issuedCents !== creditedCents + openCents + refundedCents)
        breaches.push(
          `M-Pesa took in ${issuedCents} cents; credited ${creditedCents} + open ${openCents} + refunded ${refundedCents} = ${creditedCents + openCents + refundedCents}`,
        );
      const reversedCents = simulator.reversals
        .filter((r) => r.outcome === 'reversed')
        .reduce((sum, r) => sum + Math.round(r.amount * 100), 0);
      if (reversedCents !== refundedCents)
        breaches.push(`M-Pesa reversed ${reversedCents} cents, the ledger calls ${refundedCents} refunded`);
      const reversedTwice = simulator.reversals.filter(
        (r, i, all) =>
          r.outcome === 'reversed' && all.findIndex((o) => o.outcome === 'reversed' && o.transactionId === r.transactionId) !== i,
      );
      for (const r of reversedTwice) breaches.push(`${r.transactionId} reversed twice`);
      for (const double of doublePayments) {
        const now = rows.find((r) => r.id === double.id);
        if (now?.status !== 'refunded') breaches.push(`double payment ${double.receipt} not refunded (${now?.status})`);
        if (double.order_id && !ordersNow.get(double.order_id)?.isPaid)
          breaches.push(`refunding the double payment ${double.receipt} unpaid its order`);
      }

      // Every order that was paid for is paid; none is paid twice without the merchant being told.
      for (const run of runs) {
        const order = ordersNow.get(run.order._id);
        const paying = simulator.receipts.filter((r) =>
          rows.some(
            (row) =>
              row.order_id === run.order._id && (row.receipt === r.receipt || row.checkout_request_id === r.checkoutRequestId),
          ),
        );
        if (REFUNDED.includes(run.scenario)) {
          const row = rows.find((r) => r.id === run.refunded?.id);
          if (row?.status !== 'refunded') breaches.push(`${run.scenario}: payment not refunded (${row?.status})`);
          if (order?.isPaid) breaches.push(`${run.scenario}: order ${run.order._id} refunded but still paid`);
          if (run.scenario === 'refund_race') {
            // The four clicks at once make one refund. A result that comes later than
            // MPESA_RESULT_WAIT_MS (a busy machine) has the reconciler ask again, and M-Pesa
            // answers that one "already reversed": still one refund, and every reversal M-Pesa
            // received is one the refund counted as sent, none from a second click.
            const sent = simulator.reversals.filter((r) => r.transactionId === run.refunded?.receipt);
            const refunds = await refundsOf(run.refunded?.id ?? '');
            if (refunds.length !== 1) breaches.push(`refund_race: ${refunds.length} refunds made`);
            // (A resend the reconciler claimed as the result came may still be on its way: fewer is fine.)
            if (sent.length > (refunds[0]?.attempts ?? 0))
              breaches.push(`refund_race: ${sent.length} reversals received, ${refunds[0]?.attempts} sent by the refund`);
            const reversed = sent.filter((r) => r.outcome === 'reversed').length;
            if (reversed !== 1) breaches.push(`refund_race: reversed ${reversed} times`);
          }
        } else if (run.scenario === 'refund_unanswered') {
          const row = rows.find((r) => r.id === run.refunded?.id);
          if (row?.exception !== 'refund_unanswered') breaches.push(`refund_unanswered: ${row?.status}/${row?.exception}`);
          const requests = simulator.reversals.filter((r) => r.transactionId === run.refunded?.receipt).length;
          if (requests !== REVERSAL_MAX_ATTEMPTS) breaches.push(`refund_unanswered: ${requests} reversals sent`);
        } else if (run.scenario === 'cancelled') {
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

      const faults = runs.filter((r) => !['plain', 'cancelled', 'paybill', 'refund'].includes(r.scenario)).length;
      const doublePaid = runs.filter((r) => r.paidAgain).length;
      expect(doublePaid, 'at least one order paid twice, or the double-payment path went untested').toBeGreaterThan(0);
      const exceptions = rows.filter((r) => r.exception !== null);
      console.log(
        `payment chaos (${DATABASE}): ${runs.length} orders, ${simulator.receipts.length} payments (receipts issued), ${faults} with a fault, ` +
          `${doublePaid} orders paid twice, ${rows.length} ledger rows, ${exceptions.length} exceptions (${[...new Set(exceptions.map((e) => e.exception))].join(', ') || 'none'}), ` +
          `${simulator.reversals.length} reversals sent (${refundedCents / 100} shillings refunded), ` +
          `receipts lost: ${simulator.receipts.length - matched.size}, breaches: ${breaches.length}`,
      );
      expect(breaches).toEqual([]);
    },
    STRESS ? 600_000 : 180_000,
  );
});

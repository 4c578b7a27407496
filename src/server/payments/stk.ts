import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { formatKsh } from '../../shared/money.js';
import { MSISDN_ERROR, maskMsisdn, normaliseMsisdn } from '../../shared/phone.js';
import type { PaymentAttempt, PaymentStatus, StkPushBody } from '../../shared/schemas/payments.js';
import type { Queryable } from '../db/client.js';
import { orders, paymentAttempts } from '../db/schema.js';
import { heldCents, heldCentsOf } from '../domain/payments/coverage.js';
import type { LedgerRow, RefundRow } from '../domain/payments/ledger.js';
import { latestRefunds, paymentsOfOrder, toLedgerJson } from '../domain/payments/ledger-views.js';
import type { SessionUser } from '../domain/sessions.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { countPayment, paymentOutcomeOf } from '../metrics.js';
import { DarajaError } from '../mpesa/daraja-client.js';
import type { PaymentDeps } from './deps.js';
import { amountStillDue, howToPayWithout } from './lipa-na-mpesa.js';

/**
 * Paying an order with M-Pesa STK push: record the prompt, ask Daraja to send it, and move the
 * prompt on as its result comes. The callback is taken in by callbacks.ts (stored as received
 * before anything else), which confirms a success with an STK query and hands every payment to the
 * ledger (domain/payments/ledger.ts), which decides what it does to the order. When no callback
 * comes, the reconciler (reconciler.ts) asks Daraja with an STK query.
 */

export type AttemptRow = typeof paymentAttempts.$inferSelect;
type OrderRow = typeof orders.$inferSelect;

/** Daraja charges whole shillings: the order's total rounded up (docs/payments.md, STK push request). */
export function amountDue(totalCents: number): number {
  return Math.ceil(totalCents / 100);
}

/** What a shopper is told for each result code (docs/payments.md, The callback); the code, never the text, decides. */
export function failureReason(resultCode: string | null, resultDesc: string | null): string | null {
  switch (resultCode) {
    case null:
    case '0':
      return null;
    case '1032':
      return 'You cancelled the M-Pesa prompt.';
    case '1037':
      return 'The M-Pesa prompt timed out: your phone could not be reached, or the prompt was not answered.';
    case '2001':
      return 'The M-Pesa PIN was wrong.';
    case '1':
      return 'Your M-Pesa balance was not enough for this payment.';
    case '1019':
      return 'The M-Pesa prompt expired before it was answered.';
    case '17':
      return 'M-Pesa limits repeated requests. Wait two minutes and try again.';
    case 'no_answer':
      return 'No answer came from M-Pesa for this prompt.';
    case 'unreachable':
    case 'unavailable':
      return 'M-Pesa could not be reached for this prompt. Try again in a minute.';
    case 'lost_answer':
      return 'M-Pesa did not confirm this prompt. If it reached your phone, enter your PIN; if not, try again after a minute.';
    default:
      return `M-Pesa could not complete the payment (${resultCode}${resultDesc ? `: ${resultDesc}` : ''}).`;
  }
}

/** Codes after which the customer may still have paid later, so the prompt stays reconcilable. */
const NOT_DEFINITE = new Set(['1037']);

function toAttemptJson(row: AttemptRow): PaymentAttempt {
  return {
    status: row.status as PaymentAttempt['status'],
    reason: row.status === 'rejected' ? row.resultDesc : failureReason(row.resultCode, row.resultDesc),
    resultCode: row.resultCode,
    amount: row.amount,
    phone: maskMsisdn(row.phone),
    receipt: row.mpesaReceipt,
    createdAt: row.createdAt.toISOString(),
  };
}

async function findOrderFor(db: Queryable, viewer: SessionUser, orderId: string) {
  const [order] = await db.select().from(orders).where(eq(orders.id, orderId));
  if (!order || (!viewer.isAdmin && order.userId !== viewer.id)) throw notFound('Order not found');
  return order;
}

export async function paymentStatus(
  { db, lipaNaMpesa, paybillSimulation }: Pick<PaymentDeps, 'db' | 'lipaNaMpesa' | 'paybillSimulation'>,
  viewer: SessionUser,
  orderId: string,
): Promise<PaymentStatus> {
  // One snapshot for the order, its last prompt and its ledger: read one by one, a payment
  // committing in between showed the prompt paid beside an order not yet paid.
  const { order, last, payments, refunds } = await db.transaction(
    async (tx) => {
      const order = await findOrderFor(tx, viewer, orderId);
      const [last] = await tx
        .select()
        .from(paymentAttempts)
        .where(eq(paymentAttempts.orderId, orderId))
        .orderBy(desc(paymentAttempts.createdAt))
        .limit(1);
      const payments = await paymentsOfOrder(tx, orderId);
      const refunds = await latestRefunds(
        tx,
        payments.map((p) => p.id),
      );
      return { order, last, payments, refunds };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  const held = heldCentsOf(payments);
  return {
    orderId,
    orderNumber: order.number,
    isPaid: order.isPaid,
    paidAt: order.paidAt?.toISOString() ?? null,
    receipt: order.mpesaReceipt,
    amountDue: amountDue(order.totalCents),
    lastAttempt: last ? toAttemptJson(last) : null,
    payments: payments.map((p) => toLedgerJson(p, viewer.isAdmin ? 'admin' : 'owner', order.number, refunds.get(p.id) ?? null)),
    amountPaid: held / 100,
    ...howToPayWithout(lipaNaMpesa, order.number, order.isPaid ? 0 : amountStillDue(order.totalCents, held)),
    paybillSimulator: paybillSimulation !== null && !order.isPaid,
    refundedAt: order.isPaid || held > 0 ? null : refundedCreditAt(payments, refunds),
  };
}

/** When the last of the money that had paid the order went back; null when none of it was refunded. */
function refundedCreditAt(payments: LedgerRow[], refunds: Map<string, RefundRow>): string | null {
  const times = payments
    .filter((p) => p.status === 'refunded')
    .map((p) => refunds.get(p.id))
    .filter((r): r is RefundRow => r?.completedAt !== null && r?.completedAt !== undefined)
    .map((r) => (r.completedAt as Date).getTime());
  return times.length === 0 ? null : new Date(Math.max(...times)).toISOString();
}

/** The sandbox's test number, when a demo payment names no phone. */
const SANDBOX_TEST_MSISDN = '254708374149';

/**
 * A demo shop only: the simulator pays what is still due on the order by Paybill (the order number
 * as the account) or Till, from the shopper's phone, exactly as M-Pesa would: its confirmation then
 * comes to the shop's C2B URL like any other. Owner or admin.
 */
export async function simulatePaybillPayment(
  deps: Pick<PaymentDeps, 'db' | 'daraja' | 'lipaNaMpesa' | 'paybillSimulation'>,
  viewer: SessionUser,
  orderId: string,
  phoneNumber: string | undefined,
): Promise<{ amount: number }> {
  const { db, daraja, lipaNaMpesa, paybillSimulation } = deps;
  if (!paybillSimulation) throw notFound('Paybill payments are simulated only in a demo shop (MPESA_ENV=simulator)');
  const order = await findOrderFor(db, viewer, orderId);
  if (order.isPaid) throw badRequest('This order is already paid');
  const msisdn = phoneNumber ? normaliseMsisdn(phoneNumber) : SANDBOX_TEST_MSISDN;
  if (!msisdn) throw badRequest('Enter a Safaricom number like 0712345678 or +254712345678', 'phoneNumber');
  const amount = amountStillDue(order.totalCents, heldCentsOf(await paymentsOfOrder(db, orderId)));
  const paybill = 'paybill' in lipaNaMpesa;
  try {
    await daraja.simulateC2bPayment(paybillSimulation.version, {
      shortCode: paybill ? lipaNaMpesa.paybill : lipaNaMpesa.till,
      commandId: paybill ? 'CustomerPayBillOnline' : 'CustomerBuyGoodsOnline',
      amount,
      msisdn,
      billRefNumber: paybill ? order.number : '',
    });
  } catch (error) {
    if (!(error instanceof DarajaError)) throw error;
    // Whatever the simulator did with it, the order says so: a payment made after all is
    // confirmed to the shop like any other, and shows on the order.
    throw new AppError(
      502,
      error.kind === 'rejected'
        ? `The M-Pesa simulator refused the payment: ${error.message}`
        : 'The M-Pesa simulator did not answer. If the order shows as paid in a minute, the payment went through; otherwise try again.',
    );
  }
  return { amount };
}

/**
 * Stores the prompt for what is still due on the order, under the order's row lock; refuses when
 * the order is paid or a prompt is still open on it.
 */
async function openAttempt(
  tx: Queryable,
  deps: Pick<PaymentDeps, 'promptCooldownMs'>,
  order: Pick<OrderRow, 'id' | 'totalCents'>,
  customerId: string,
  phone: string,
): Promise<{ attemptId: string; due: number }> {
  // One prompt at a time per order: M-Pesa itself refuses a second prompt while one is open.
  const [locked] = await tx.select({ isPaid: orders.isPaid }).from(orders).where(eq(orders.id, order.id)).for('update');
  // Checked again under the lock: a callback may have paid the order since it was read above,
  // and a new prompt then would charge the shopper twice (test/reliability/concurrency.test.ts).
  if (!locked || locked.isPaid) throw badRequest('This order is already paid');
  const due = amountStillDue(order.totalCents, await heldCents(tx, order.id));
  if (due === 0) throw badRequest('This order is already paid');
  const [open] = await tx
    .select({ createdAt: paymentAttempts.createdAt })
    .from(paymentAttempts)
    .where(
      and(
        eq(paymentAttempts.orderId, order.id),
        // An unknown prompt (its answer lost) may still be on the phone, like a pending one.
        inArray(paymentAttempts.status, ['pending', 'unknown']),
        sql`${paymentAttempts.createdAt} > now() - ${deps.promptCooldownMs} * interval '1 millisecond'`,
      ),
    )
    .limit(1);
  if (open) {
    throw new AppError(
      429,
      'A payment prompt was sent to your phone less than a minute ago. Check your phone, or wait a minute and try again.',
    );
  }
  const [created] = await tx
    .insert(paymentAttempts)
    .values({ orderId: order.id, userId: customerId, phone, amount: due })
    .returning({ id: paymentAttempts.id });
  if (!created) throw new Error('payment attempt insert returned nothing');
  return { attemptId: created.id, due };
}

/**
 * Sends the payment prompt for an unpaid order of the caller. The attempt is stored before
 * Daraja is called, so a crash in between leaves a pending record the reconciler resolves.
 */
export async function requestPayment(deps: PaymentDeps, customer: SessionUser, body: StkPushBody & { orderId: string }) {
  const { db, daraja, log } = deps;
  const [order] = await db.select().from(orders).where(eq(orders.id, body.orderId));
  if (!order || order.userId !== customer.id) throw notFound('Order not found');
  if (order.isPaid) throw badRequest('This order is already paid');
  const phone = normaliseMsisdn(body.phoneNumber);
  if (!phone) throw badRequest(MSISDN_ERROR, 'phoneNumber');

  // The prompt asks for what is still due, whatever Amount the client sent: the specification's
  // client sends the order's total, and after a Paybill part payment less is due.
  const { attemptId, due } = await db.transaction((tx) => openAttempt(tx, deps, order, customer.id, phone));

  try {
    const accepted = await daraja.stkPush({
      amount: due,
      phone,
      // Daraja's AccountReference (at most 12 characters): the order number the shopper also sees.
      accountReference: order.number,
      description: 'Duka order',
      callbackUrl: deps.callbackUrl(),
    });
    await db
      .update(paymentAttempts)
      .set({
        merchantRequestId: accepted.merchantRequestId,
        checkoutRequestId: accepted.checkoutRequestId,
        // The reconciler may have called it unknown while the answer was on its way: it is known now.
        status: sql`CASE WHEN ${paymentAttempts.status} = 'unknown' THEN 'pending' ELSE ${paymentAttempts.status} END`,
        updatedAt: sql`now()`,
      })
      .where(eq(paymentAttempts.id, attemptId));
    log.info({ orderId: order.id, checkoutRequestId: accepted.checkoutRequestId, amount: due }, 'M-Pesa prompt sent');
    countPayment('prompt_sent');
    return {
      msg: `We sent an M-Pesa prompt to ${maskMsisdn(phone)}. Enter your M-Pesa PIN on your phone to pay ${formatKsh(due)}.`,
      checkoutRequestId: accepted.checkoutRequestId,
    };
  } catch (error) {
    return promptNotSent(deps, order.id, attemptId, error);
  }
}

/**
 * The push was not taken: the prompt is marked with what is known of it (refused, unknown, failed)
 * and the shopper is told what to do.
 */
async function promptNotSent(
  deps: Pick<PaymentDeps, 'db' | 'log'>,
  orderId: string,
  attemptId: string,
  error: unknown,
): Promise<never> {
  const { db, log } = deps;
  if (error instanceof DarajaError && error.kind === 'rejected') {
    // Daraja refused it outright: nothing is pending on the phone.
    await db
      .update(paymentAttempts)
      .set({ status: 'rejected', resultCode: error.errorCode, resultDesc: error.message, updatedAt: sql`now()` })
      .where(eq(paymentAttempts.id, attemptId));
    countPayment('prompt_rejected');
    const aboutThePhone = /phone|subscriber|prompt/i.test(error.message);
    // Anything else Daraja refuses (credentials, shortcode, callback URL) is the shop's set-up.
    if (!aboutThePhone)
      log.error(
        { errorCode: error.errorCode, msg: error.message },
        'M-Pesa refused the shop’s request: check the MPESA_ settings',
      );
    throw badRequest(error.message, aboutThePhone ? 'phoneNumber' : undefined);
  }
  // Unknown outcome (a timeout, a dropped connection): the prompt may be on the phone all the
  // same. It stays unknown, never failed; a later callback is matched to it by phone and amount.
  log.warn({ err: error, orderId }, 'M-Pesa prompt failed');
  countPayment('prompt_error');
  if (error instanceof DarajaError && error.promptMayBeLive) {
    await db
      .update(paymentAttempts)
      .set({ status: 'unknown', resultCode: 'lost_answer', resultDesc: error.message, updatedAt: sql`now()` })
      .where(and(eq(paymentAttempts.id, attemptId), eq(paymentAttempts.status, 'pending')));
    throw new AppError(
      502,
      'M-Pesa did not answer in time. The prompt may still reach your phone: if it does, enter your PIN. If no prompt comes, try again in a minute.',
    );
  }
  if (error instanceof DarajaError && error.kind === 'network') {
    // Daraja was never reached (its token, or the push's connection, failed): nothing is on the phone.
    await db
      .update(paymentAttempts)
      .set({ status: 'failed', resultCode: 'unreachable', resultDesc: error.message, updatedAt: sql`now()` })
      .where(and(eq(paymentAttempts.id, attemptId), eq(paymentAttempts.status, 'pending')));
    throw new AppError(502, 'We could not reach M-Pesa. Please try again in a minute.');
  }
  // Daraja answered that it could not take the request: nothing reached the phone.
  await db
    .update(paymentAttempts)
    .set({
      status: 'failed',
      resultCode: 'unavailable',
      resultDesc: error instanceof Error ? error.message : null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(paymentAttempts.id, attemptId), eq(paymentAttempts.status, 'pending')));
  throw new AppError(503, 'M-Pesa is not available right now. Please try again in a few minutes.');
}

/** A prompt that was paid; its receipt is kept when known. A payment never un-pays a prompt. */
export async function markAttemptPaid(
  tx: Queryable,
  attempt: AttemptRow,
  settledBy: 'callback' | 'query',
  receipt: string | null,
) {
  await tx
    .update(paymentAttempts)
    .set({
      status: 'paid',
      resultCode: '0',
      settledBy: attempt.status === 'paid' ? attempt.settledBy : settledBy,
      ...(receipt && !attempt.mpesaReceipt && { mpesaReceipt: receipt }),
      updatedAt: sql`now()`,
    })
    .where(eq(paymentAttempts.id, attempt.id));
}

/** A result that is not a payment: it only moves a prompt that has not been paid. */
export async function applyFailure(
  deps: Pick<PaymentDeps, 'db' | 'log' | 'giveUpAfterMs'>,
  checkoutRequestId: string,
  resultCode: string,
  resultDesc: string,
  settledBy: 'callback' | 'query',
): Promise<'failure' | 'ignored'> {
  return deps.db.transaction(async (tx) => {
    const [attempt] = await tx
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.checkoutRequestId, checkoutRequestId))
      .for('update');
    if (!attempt || !['pending', 'unknown', 'timed_out'].includes(attempt.status)) return 'ignored';
    const status = NOT_DEFINITE.has(resultCode) ? 'timed_out' : 'failed';
    if (attempt.status === status && attempt.resultCode === resultCode) return 'ignored';
    await tx
      .update(paymentAttempts)
      .set({ status, resultCode, resultDesc, settledBy, updatedAt: sql`now()` })
      .where(eq(paymentAttempts.id, attempt.id));
    deps.log.info({ orderId: attempt.orderId, checkoutRequestId, resultCode, settledBy }, 'M-Pesa prompt not paid');
    countPayment(paymentOutcomeOf(resultCode));
    return 'failure';
  });
}

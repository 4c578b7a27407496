import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { formatKsh } from '../../shared/money.js';
import { MSISDN_ERROR, maskMsisdn, normaliseMsisdn } from '../../shared/phone.js';
import type { PaymentAttempt, PaymentStatus, StkPushBody } from '../../shared/schemas/payments.js';
import type { Db, Queryable } from '../db/client.js';
import { mpesaCallbacks, mpesaPayments, orders, paymentAttempts } from '../db/schema.js';
import { heldCents, heldCentsOf } from '../domain/payments/coverage.js';
import {
  type LedgerRow,
  latestRefunds,
  notifyAwaitingReceipts,
  paymentsOfOrder,
  type RefundRow,
  recordPayment,
  toLedgerJson,
} from '../domain/payments/ledger.js';
import type { SessionUser } from '../domain/sessions.js';
import { AppError, badRequest, notFound } from '../errors.js';
import type { Notifications } from '../mail/notifications.js';
import { countPayment, countPaymentException, paymentOutcomeOf } from '../metrics.js';
import {
  type DarajaClient,
  DarajaError,
  type ParsedStkCallback,
  parseStkCallback,
  type StkQueryResult,
} from '../mpesa/daraja-client.js';
import {
  type InitiatorDeps,
  isInitiatorCallback,
  lookUpMissingReceipts,
  processInitiatorCallback,
  reconcileRefunds,
} from './initiator.js';
import { amountStillDue, howToPayWithout, type LipaNaMpesa } from './lipa-na-mpesa.js';
import { processC2bConfirmation } from './paybill.js';

/**
 * Paying an order with M-Pesa STK push: record the prompt, ask Daraja to send it, take in the
 * callback (stored as received before anything else), confirm a success with an STK query, and
 * hand every payment to the ledger (domain/payments/ledger.ts), which decides what it does to the
 * order. When no callback comes, the reconciler asks Daraja with an STK query.
 */

export interface PaymentDeps {
  db: Db;
  notify: Notifications;
  daraja: DarajaClient;
  /** The CallBackURL, known once the server listens. */
  callbackUrl: () => string;
  log: FastifyBaseLogger;
  promptCooldownMs: number;
  /** A lost push answer is matched to a later callback within this window. */
  giveUpAfterMs: number;
  /** Re-check each success callback with an STK query before crediting it. */
  confirmCallbacks: boolean;
  /** How long a query-settled payment's mail waits for its receipt. */
  receiptWaitMs: number;
  /** The shop's Paybill or Till, for paying without the prompt. */
  lipaNaMpesa: LipaNaMpesa;
  /**
   * A demo shop's simulator, which can make a Paybill/Till payment for the shopper over Daraja's
   * C2B simulate call, with the C2B version the URLs were registered with; null against Safaricom.
   */
  paybillSimulation: { version: 'v1' | 'v2' } | null;
  /** Reversal (refunds) and Transaction Status (missing receipts): the initiator and its URLs. */
  initiator: InitiatorDeps;
}

type AttemptRow = typeof paymentAttempts.$inferSelect;

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
  const { attemptId, due } = await db.transaction(async (tx) => {
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
      .values({ orderId: order.id, userId: customer.id, phone, amount: due })
      .returning({ id: paymentAttempts.id });
    if (!created) throw new Error('payment attempt insert returned nothing');
    return { attemptId: created.id, due };
  });

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
    log.warn({ err: error, orderId: order.id }, 'M-Pesa prompt failed');
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
}

// ------------------------------------------------------------------------------------------------
// Callbacks: stored as received, then acted on. One that cannot be acted on yet stays unprocessed
// and the reconciler tries it again, so a crash, a bug or Daraja being busy loses nothing.
// ------------------------------------------------------------------------------------------------

type CallbackRow = typeof mpesaCallbacks.$inferSelect;

/** How many times an unconfirmable success is retried before it is put in front of the merchant. */
const MAX_CONFIRM_TRIES = 5;

/** Stores an STK callback body exactly as it came, before anything is done with it. */
export async function storeCallback(
  db: Db,
  body: unknown,
  remoteIp: string,
  outcome?: string,
  kind: string = 'stk',
  /** The refund or payment a Result's URL names. */
  subjectId?: string,
): Promise<CallbackRow> {
  // PostgreSQL text holds no NUL character: one is kept written out, as JSON would write it.
  const text = (typeof body === 'string' ? body : (JSON.stringify(body ?? null) ?? 'null')).replaceAll('\u0000', '\\u0000');
  const [row] = await db
    .insert(mpesaCallbacks)
    .values({ kind, body: text, remoteIp, subjectId, ...(outcome && { outcome, processedAt: sql`now()` }) })
    .returning();
  if (!row) throw new Error('callback insert returned nothing');
  return row;
}

export async function finishCallback(db: Queryable, id: string, outcome: string): Promise<void> {
  await db
    .update(mpesaCallbacks)
    .set({ outcome, processedAt: sql`now()`, attempts: sql`${mpesaCallbacks.attempts} + 1` })
    .where(eq(mpesaCallbacks.id, id));
}

/**
 * How long a prompt whose push answer never came can still be found by phone and amount. Longer
 * than the give-up time: Daraja may call back late, and a callback whose CheckoutRequestID the
 * shop never learned is still that prompt's. A longer window only adds candidates, and two
 * candidates leave the payment unmatched for the merchant, never on the wrong order.
 */
const LOST_ANSWER_MATCH_MS = 24 * 60 * 60 * 1000;

/** The prompt a result belongs to, locked; a lost-answer prompt is found by phone and amount. */
async function findAttemptFor(
  tx: Queryable,
  deps: Pick<PaymentDeps, 'giveUpAfterMs'>,
  callback: ParsedStkCallback,
): Promise<AttemptRow | undefined> {
  const [known] = await tx
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.checkoutRequestId, callback.checkoutRequestId))
    .for('update');
  if (known) return known;
  const phone = callback.phone ? normaliseMsisdn(callback.phone) : null;
  if (callback.resultCode !== '0' || !phone || callback.amount === null) return undefined;
  // The push's answer never reached the shop (or has not yet): the one open prompt from this
  // phone for this amount is the one this callback answers. None, or several, cannot be told.
  // The answer may be committed while this waits for the prompt's row lock; PostgreSQL then
  // re-reads the row, now with this CheckoutRequestID, so that must still match.
  const candidates = await tx
    .select()
    .from(paymentAttempts)
    .where(
      and(
        or(isNull(paymentAttempts.checkoutRequestId), eq(paymentAttempts.checkoutRequestId, callback.checkoutRequestId)),
        inArray(paymentAttempts.status, ['pending', 'unknown']),
        eq(paymentAttempts.phone, phone),
        eq(paymentAttempts.amount, callback.amount),
        gt(paymentAttempts.createdAt, new Date(Date.now() - Math.max(deps.giveUpAfterMs, LOST_ANSWER_MATCH_MS))),
      ),
    )
    .limit(2)
    .for('update');
  const answered = candidates.find((c) => c.checkoutRequestId === callback.checkoutRequestId);
  if (answered) return answered;
  if (candidates.length !== 1 || !candidates[0]) return undefined;
  const [matched] = await tx
    .update(paymentAttempts)
    .set({ checkoutRequestId: callback.checkoutRequestId, merchantRequestId: callback.merchantRequestId })
    .where(eq(paymentAttempts.id, candidates[0].id))
    .returning();
  return matched;
}

/** A prompt that was paid; its receipt is kept when known. A payment never un-pays a prompt. */
async function markAttemptPaid(tx: Queryable, attempt: AttemptRow, settledBy: 'callback' | 'query', receipt: string | null) {
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
async function applyFailure(
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

/** Hands a success to the ledger, against the order of the prompt it answers (if any is found). */
async function creditSuccess(
  deps: Pick<PaymentDeps, 'db' | 'log' | 'notify' | 'giveUpAfterMs'>,
  callback: ParsedStkCallback & { amount: number; receipt: string },
  raw: string,
  exception?: 'unconfirmed',
): Promise<string> {
  return deps.db.transaction(async (tx) => {
    const attempt = exception ? undefined : await findAttemptFor(tx, deps, callback);
    const phone = callback.phone ? (normaliseMsisdn(callback.phone) ?? callback.phone) : null;
    const incoming = {
      receipt: callback.receipt,
      amountCents: Math.round(callback.amount * 100),
      phone,
      source: 'stk_callback' as const,
      checkoutRequestId: exception ? null : callback.checkoutRequestId,
      raw,
      transactionAt: callback.transactionDate,
    };
    // An unconfirmed success is kept for the merchant to check against the M-Pesa statement; it pays no order.
    const hold = exception && { exception, detail: 'M-Pesa’s status query did not confirm this STK payment.' };
    const outcome = await recordPayment(tx, deps, incoming, attempt?.orderId ?? null, hold || undefined);
    if (attempt) await markAttemptPaid(tx, attempt, 'callback', callback.receipt);
    if (outcome.kind !== 'duplicate') countPayment('paid');
    return outcome.kind;
  });
}

/**
 * Acts on one stored callback. Returns what became of it, or null when it must be tried again
 * (its success could not be confirmed yet).
 */
export async function processCallback(deps: PaymentDeps, stored: CallbackRow): Promise<string | null> {
  if (stored.kind === 'c2b_confirmation') return processC2bConfirmation(deps, stored);
  if (isInitiatorCallback(stored.kind)) return processInitiatorCallback(deps, stored);
  const { db, log } = deps;
  const callback = parseStkCallback(stored.body);
  if (!callback) {
    log.warn({ callbackId: stored.id }, 'M-Pesa callback that is not an STK result kept, not acted on');
    await finishCallback(db, stored.id, 'not_stk_result');
    return 'not_stk_result';
  }
  if (callback.resultCode !== '0') {
    const outcome = await applyFailure(deps, callback.checkoutRequestId, callback.resultCode, callback.resultDesc, 'callback');
    await finishCallback(db, stored.id, outcome);
    return outcome;
  }
  const { amount, receipt } = callback;
  if (amount === null || receipt === null || amount <= 0) {
    // A success without its receipt or amount pays nothing by itself; the prompt stays open, and
    // the reconciler's status query settles it.
    log.warn(
      { callbackId: stored.id, checkoutRequestId: callback.checkoutRequestId },
      'M-Pesa success without receipt or amount',
    );
    await finishCallback(db, stored.id, 'incomplete_success');
    return 'incomplete_success';
  }
  const [known] = await db
    .select({ id: mpesaPayments.id, receipt: mpesaPayments.receipt })
    .from(mpesaPayments)
    .where(eq(mpesaPayments.receipt, receipt.trim().toUpperCase()));
  if (known) {
    await finishCallback(db, stored.id, 'duplicate');
    return 'duplicate';
  }

  const [prompt] = await db
    .select({ amount: paymentAttempts.amount })
    .from(paymentAttempts)
    .where(eq(paymentAttempts.checkoutRequestId, callback.checkoutRequestId));
  if (prompt && prompt.amount !== amount) {
    // An STK push charges exactly what it asked for: another amount is not M-Pesa speaking.
    log.error(
      { callbackId: stored.id, checkoutRequestId: callback.checkoutRequestId, asked: prompt.amount, got: amount },
      'M-Pesa success callback with another amount than the prompt asked for: kept, not acted on',
    );
    await finishCallback(db, stored.id, 'amount_mismatch');
    return 'amount_mismatch';
  }

  let unconfirmed = false;
  if (deps.confirmCallbacks) {
    // The callback is unsigned: Daraja's own status query must agree before it pays an order.
    let verdict: StkQueryResult | 'error' | 'refused';
    try {
      verdict = await deps.daraja.stkQuery(callback.checkoutRequestId);
    } catch (error) {
      // Daraja refusing the query outright (an unknown CheckoutRequestID) is an answer; anything
      // else (network, busy) may pass.
      const refused = error instanceof DarajaError && error.kind === 'rejected';
      log.warn({ err: error, checkoutRequestId: callback.checkoutRequestId }, 'M-Pesa success could not be confirmed');
      verdict = refused ? 'refused' : 'error';
    }
    if (verdict === 'refused') {
      unconfirmed = true;
    } else if (verdict === 'error' || verdict.state === 'pending') {
      const tries = stored.attempts + 1;
      if (tries < MAX_CONFIRM_TRIES) {
        await db.update(mpesaCallbacks).set({ attempts: tries }).where(eq(mpesaCallbacks.id, stored.id));
        return null;
      }
      unconfirmed = true;
    } else if (verdict.resultCode !== '0') {
      unconfirmed = true;
    }
    if (unconfirmed) {
      log.error(
        { callbackId: stored.id, checkoutRequestId: callback.checkoutRequestId, receipt },
        'M-Pesa success callback not confirmed by the status query: kept as an exception, no order paid',
      );
    }
  }
  const outcome = await creditSuccess(
    deps,
    { ...callback, amount, receipt },
    stored.body,
    unconfirmed ? 'unconfirmed' : undefined,
  );
  await finishCallback(db, stored.id, unconfirmed ? 'unconfirmed' : outcome);
  return outcome;
}

/** Stores, then acts on, one STK callback. Never throws for what the body says. */
export async function receiveStkCallback(deps: PaymentDeps, body: unknown, remoteIp: string): Promise<void> {
  const stored = await storeCallback(deps.db, body, remoteIp);
  try {
    await processCallback(deps, stored);
  } catch (error) {
    // Kept unprocessed: the reconciler tries it again.
    deps.log.error({ err: error, callbackId: stored.id }, 'M-Pesa callback could not be processed; will retry');
  }
}

// ------------------------------------------------------------------------------------------------
// The reconciler
// ------------------------------------------------------------------------------------------------

/** A success the status query reports: the order is paid now, the receipt comes with the callback. */
async function creditFromQuery(deps: PaymentDeps, attempt: AttemptRow & { checkoutRequestId: string }): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(paymentAttempts).where(eq(paymentAttempts.id, attempt.id)).for('update');
    if (!locked) return false;
    const outcome = await recordPayment(
      tx,
      deps,
      {
        receipt: null,
        amountCents: locked.amount * 100,
        phone: locked.phone,
        source: 'stk_query',
        checkoutRequestId: attempt.checkoutRequestId,
        raw: null,
        transactionAt: null,
      },
      locked.orderId,
    );
    await markAttemptPaid(tx, locked, 'query', null);
    if (outcome.kind === 'duplicate') return false;
    countPayment('paid');
    return true;
  });
}

/** How many times a stored callback is tried before it is parked for the merchant. */
export const MAX_CALLBACK_TRIES = 8;
/** The longest wait between two tries of a stored callback. */
const MAX_CALLBACK_BACKOFF_MS = 60 * 60 * 1000;

/**
 * Callbacks stored but not acted on (a crash, a failure, a success not yet confirmed), claimed a
 * few at a time by when they are next due. Each claim pushes the callback's next try back, doubling
 * with every try, so one that keeps failing waits longer and longer and never holds up the others.
 * After MAX_CALLBACK_TRIES it is parked: marked processed as "parked", logged as an error and
 * mailed to the merchant, its body kept as it came.
 */
async function retryStoredCallbacks(deps: PaymentDeps, olderThanMs: number, batch: number): Promise<number> {
  const due = await deps.db
    .update(mpesaCallbacks)
    .set({
      nextAttemptAt: sql`now() + least(${olderThanMs} * power(2, ${mpesaCallbacks.attempts}), ${MAX_CALLBACK_BACKOFF_MS}) * interval '1 millisecond'`,
    })
    .where(
      inArray(
        mpesaCallbacks.id,
        sql`(SELECT id FROM ${mpesaCallbacks}
              WHERE processed_at IS NULL
                AND created_at < now() - ${olderThanMs} * interval '1 millisecond'
                AND (next_attempt_at IS NULL OR next_attempt_at <= now())
              ORDER BY coalesce(next_attempt_at, created_at)
              LIMIT ${batch}
              FOR UPDATE SKIP LOCKED)`,
      ),
    )
    .returning();
  let done = 0;
  for (const stored of due) {
    if (stored.attempts >= MAX_CALLBACK_TRIES) {
      await parkCallback(deps, stored);
      continue;
    }
    try {
      if ((await processCallback(deps, stored)) !== null) done += 1;
    } catch (error) {
      await deps.db
        .update(mpesaCallbacks)
        .set({ attempts: sql`${mpesaCallbacks.attempts} + 1` })
        .where(eq(mpesaCallbacks.id, stored.id));
      deps.log.warn(
        { err: error, callbackId: stored.id, attempts: stored.attempts + 1 },
        'stored M-Pesa callback failed again; will retry',
      );
    }
  }
  return done;
}

/** A callback that failed every try: kept as it came, out of the retries, in front of the merchant. */
async function parkCallback(deps: PaymentDeps, stored: CallbackRow): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const parked = await tx
      .update(mpesaCallbacks)
      .set({ outcome: 'parked', processedAt: sql`now()` })
      .where(and(eq(mpesaCallbacks.id, stored.id), isNull(mpesaCallbacks.processedAt)))
      .returning({ id: mpesaCallbacks.id });
    if (parked.length === 0) return;
    await deps.notify.callbackParked(tx, { kind: stored.kind, receivedAt: stored.receivedAt, tries: stored.attempts });
  });
  countPaymentException('callback_parked');
  deps.log.error(
    { callbackId: stored.id, kind: stored.kind, attempts: stored.attempts },
    'M-Pesa callback failed every try: parked for the merchant, its body kept',
  );
}

/**
 * Confirms prompts whose callback has not come, with an STK query, and retries stored callbacks.
 * Each instance claims a few due attempts with SKIP LOCKED, so with several instances each prompt
 * is queried by one.
 */
export async function reconcilePendingPayments(
  deps: PaymentDeps,
  options: { olderThanMs: number; giveUpAfterMs: number; batch?: number },
) {
  const { db, daraja, log } = deps;
  const callbacksRetried = await retryStoredCallbacks(deps, options.olderThanMs, options.batch ?? 10);
  const claimed = await db
    .update(paymentAttempts)
    .set({ lastCheckedAt: sql`now()`, queryCount: sql`${paymentAttempts.queryCount} + 1` })
    .where(
      inArray(
        paymentAttempts.id,
        sql`(SELECT id FROM ${paymentAttempts}
              WHERE (status IN ('pending', 'timed_out') OR (status = 'unknown' AND checkout_request_id IS NOT NULL))
                AND created_at < now() - ${options.olderThanMs} * interval '1 millisecond'
                AND (last_checked_at IS NULL OR last_checked_at < now() - ${options.olderThanMs} * interval '1 millisecond')
              ORDER BY created_at
              LIMIT ${options.batch ?? 10}
              FOR UPDATE SKIP LOCKED)`,
      ),
    )
    .returning();
  let settled = 0;
  for (const attempt of claimed) {
    const expired = Date.now() - attempt.createdAt.getTime() > options.giveUpAfterMs;
    const checkoutRequestId = attempt.checkoutRequestId;
    if (!checkoutRequestId) {
      // Daraja's answer to this push never arrived: nothing can be queried. It may still have
      // reached the phone, so it ends unknown, never failed; a late callback still pays.
      if (expired) {
        await db
          .update(paymentAttempts)
          .set({ status: 'unknown', resultCode: 'lost_answer', updatedAt: sql`now()` })
          .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, 'pending')));
        countPayment('given_up');
      }
      continue;
    }
    let result: StkQueryResult;
    try {
      result = await daraja.stkQuery(checkoutRequestId);
    } catch (error) {
      // The query itself failed. Past the give-up time, a Daraja that refuses the query (400
      // "Invalid CheckoutRequestID" for a prompt it no longer knows) means the outcome is no longer
      // learnable: the prompt ends failed so the shopper may pay again, and a late success callback
      // still pays. A query that could not be made at all (network, Daraja busy) is tried again,
      // however late: the prompt may have been paid and no callback may ever come.
      if (expired && error instanceof DarajaError && error.kind === 'rejected') {
        await db
          .update(paymentAttempts)
          .set({
            status: 'failed',
            resultCode: 'no_answer',
            resultDesc: error instanceof Error ? error.message : 'M-Pesa status query failed',
            updatedAt: sql`now()`,
          })
          .where(and(eq(paymentAttempts.id, attempt.id), inArray(paymentAttempts.status, ['pending', 'unknown', 'timed_out'])));
        log.warn({ err: error, checkoutRequestId }, 'M-Pesa status query failed past the give-up time; prompt marked failed');
        countPayment('given_up');
      } else {
        log.warn({ err: error, checkoutRequestId }, 'M-Pesa status query failed; will retry');
      }
      continue;
    }
    try {
      if (result.state === 'completed' && result.resultCode === '0') {
        if (await creditFromQuery(deps, { ...attempt, checkoutRequestId })) settled += 1;
      } else if (result.state === 'completed') {
        if ((await applyFailure(deps, checkoutRequestId, result.resultCode, result.resultDesc, 'query')) === 'failure') {
          settled += 1;
        }
      } else if (expired) {
        await db
          .update(paymentAttempts)
          .set({ status: 'timed_out', resultCode: '1037', resultDesc: 'No answer from M-Pesa', updatedAt: sql`now()` })
          .where(and(eq(paymentAttempts.id, attempt.id), inArray(paymentAttempts.status, ['pending', 'unknown'])));
      }
    } catch (error) {
      log.warn({ err: error, checkoutRequestId }, 'M-Pesa result could not be recorded; will retry');
    }
  }
  // Timed-out prompts stop being queried once they are old enough to be given up.
  await db
    .update(paymentAttempts)
    .set({ status: 'failed', updatedAt: sql`now()` })
    .where(
      and(eq(paymentAttempts.status, 'timed_out'), lt(paymentAttempts.createdAt, new Date(Date.now() - options.giveUpAfterMs))),
    );
  const mailedWithoutReceipt = await notifyAwaitingReceipts(db, deps, deps.receiptWaitMs);
  const refunds = await reconcileRefunds(deps);
  const receiptLookups = await lookUpMissingReceipts(deps);
  return { claimed: claimed.length, settled, callbacksRetried, mailedWithoutReceipt, refunds, receiptLookups };
}

export type { LedgerRow };

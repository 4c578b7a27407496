import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { formatKsh } from '../../shared/money.js';
import { maskMsisdn, normaliseMsisdn } from '../../shared/phone.js';
import type { PaymentAttempt, PaymentStatus, StkPushBody } from '../../shared/schemas/payments.js';
import type { Db } from '../db/client.js';
import { orders, paymentAttempts } from '../db/schema.js';
import { amountPaysOrder, loadExistingOrder } from '../domain/orders.js';
import type { SessionUser } from '../domain/sessions.js';
import { AppError, badRequest, notFound } from '../errors.js';
import type { Notifications } from '../mail/notifications.js';
import { countPayment, paymentOutcomeOf } from '../metrics.js';
import { type DarajaClient, DarajaError, type ParsedStkCallback, type StkQueryResult } from './daraja-client.js';

/**
 * Paying an order with M-Pesa: record the prompt, ask Daraja to send it, and settle the order
 * from the callback or, when no callback comes, from an STK query. Every step is idempotent:
 * one terminal state per prompt, one credit per receipt, the order paid once.
 */

export interface PaymentDeps {
  db: Db;
  notify: Notifications;
  daraja: DarajaClient;
  /** The CallBackURL, known once the server listens. */
  callbackUrl: () => string;
  log: FastifyBaseLogger;
  promptCooldownMs: number;
}

type AttemptRow = typeof paymentAttempts.$inferSelect;

/** Daraja charges whole shillings: the order's total rounded up (DARAJA.md §2.4). */
export function amountDue(totalCents: number): number {
  return Math.ceil(totalCents / 100);
}

/** What a shopper is told for each result code (DARAJA.md §3.4); the code, never the text, decides. */
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

async function findOrderFor(db: Db, viewer: SessionUser, orderId: string) {
  const [order] = await db.select().from(orders).where(eq(orders.id, orderId));
  if (!order || (!viewer.isAdmin && order.userId !== viewer.id)) throw notFound('Order not found');
  return order;
}

export async function paymentStatus(db: Db, viewer: SessionUser, orderId: string): Promise<PaymentStatus> {
  const order = await findOrderFor(db, viewer, orderId);
  const [last] = await db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orderId))
    .orderBy(desc(paymentAttempts.createdAt))
    .limit(1);
  return {
    orderId,
    isPaid: order.isPaid,
    paidAt: order.paidAt?.toISOString() ?? null,
    receipt: order.mpesaReceipt,
    amountDue: amountDue(order.totalCents),
    lastAttempt: last ? toAttemptJson(last) : null,
    payments: [],
    amountPaid: 0,
  };
}

/** Daraja's AccountReference: at most 12 letters and digits that identify the order. */
export function accountReference(orderId: string): string {
  return `DUKA${orderId.replace(/-/g, '').slice(0, 8).toUpperCase()}`;
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
  const due = amountDue(order.totalCents);
  if (!amountPaysOrder(body.Amount, order.totalCents))
    throw badRequest(`The amount to pay for this order is ${formatKsh(due)}`, 'Amount');
  const phone = normaliseMsisdn(body.phoneNumber);
  if (!phone) {
    throw badRequest('Enter a Safaricom number like 0712345678 or +254712345678', 'phoneNumber');
  }

  const attemptId = await db.transaction(async (tx) => {
    // One prompt at a time per order: M-Pesa itself refuses a second prompt while one is open.
    const [locked] = await tx.select({ isPaid: orders.isPaid }).from(orders).where(eq(orders.id, order.id)).for('update');
    // Checked again under the lock: a callback may have paid the order since it was read above,
    // and a new prompt then would charge the shopper twice (test/reliability/concurrency.test.ts).
    if (!locked || locked.isPaid) throw badRequest('This order is already paid');
    const [open] = await tx
      .select({ createdAt: paymentAttempts.createdAt })
      .from(paymentAttempts)
      .where(
        and(
          eq(paymentAttempts.orderId, order.id),
          eq(paymentAttempts.status, 'pending'),
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
    return created.id;
  });

  try {
    const accepted = await daraja.stkPush({
      amount: due,
      phone,
      accountReference: accountReference(order.id),
      description: 'Duka order',
      callbackUrl: deps.callbackUrl(),
    });
    await db
      .update(paymentAttempts)
      .set({
        merchantRequestId: accepted.merchantRequestId,
        checkoutRequestId: accepted.checkoutRequestId,
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
    // Unknown outcome (network, Daraja down): the attempt stays pending without a CheckoutRequestID
    // and is given up by the reconciler; the shopper may try again after the cool-down.
    log.warn({ err: error, orderId: order.id }, 'M-Pesa prompt failed');
    countPayment('prompt_error');
    if (error instanceof DarajaError && error.kind === 'network') {
      throw new AppError(502, 'We could not reach M-Pesa. Please try again in a minute.');
    }
    throw new AppError(503, 'M-Pesa is not available right now. Please try again in a few minutes.');
  }
}

/**
 * Applies an outcome to a prompt, at most once. A success must match the amount asked for and
 * carry a receipt (when it comes from a callback); it marks the order paid if it is not already.
 */
async function settle(
  deps: Pick<PaymentDeps, 'db' | 'log' | 'notify'>,
  checkoutRequestId: string,
  outcome: {
    resultCode: string;
    resultDesc: string;
    amount: number | null;
    receipt: string | null;
    transactionDate: Date | null;
    phone: string | null;
  },
  settledBy: 'callback' | 'query',
): Promise<'settled' | 'ignored'> {
  const { db, log } = deps;
  return db.transaction(async (tx) => {
    const [attempt] = await tx
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.checkoutRequestId, checkoutRequestId))
      .for('update');
    if (!attempt) {
      log.warn({ checkoutRequestId, settledBy }, 'M-Pesa result for an unknown CheckoutRequestID ignored');
      return 'ignored';
    }
    if (attempt.status !== 'pending' && attempt.status !== 'timed_out') {
      log.info(
        { checkoutRequestId, status: attempt.status, settledBy },
        'M-Pesa result for a settled prompt ignored (duplicate or late)',
      );
      return 'ignored';
    }
    if (outcome.resultCode === '0') {
      if (
        settledBy === 'callback' &&
        (outcome.amount === null || Math.round(outcome.amount) !== attempt.amount || !outcome.receipt)
      ) {
        log.warn(
          { checkoutRequestId, expected: attempt.amount, got: outcome.amount },
          'M-Pesa success with a wrong amount or no receipt ignored',
        );
        return 'ignored';
      }
      if (outcome.receipt) {
        const [used] = await tx
          .select({ id: paymentAttempts.id })
          .from(paymentAttempts)
          .where(eq(paymentAttempts.mpesaReceipt, outcome.receipt));
        if (used) {
          log.warn({ checkoutRequestId, receipt: outcome.receipt }, 'M-Pesa receipt already credited; ignored');
          return 'ignored';
        }
      }
      await tx
        .update(paymentAttempts)
        .set({
          status: 'paid',
          resultCode: '0',
          resultDesc: outcome.resultDesc,
          mpesaReceipt: outcome.receipt,
          transactionDate: outcome.transactionDate,
          settledBy,
          updatedAt: sql`now()`,
        })
        .where(eq(paymentAttempts.id, attempt.id));
      const nowPaid = await tx
        .update(orders)
        .set({ isPaid: true, paidAt: sql`now()`, mpesaReceipt: outcome.receipt, updatedAt: sql`now()` })
        .where(and(eq(orders.id, attempt.orderId), eq(orders.isPaid, false)))
        .returning({ id: orders.id });
      if (nowPaid.length > 0) await deps.notify.orderPaid(tx, await loadExistingOrder(tx, attempt.orderId));
      log.info({ orderId: attempt.orderId, checkoutRequestId, receipt: outcome.receipt, settledBy }, 'order paid with M-Pesa');
      countPayment('paid');
      return 'settled';
    }
    const status = NOT_DEFINITE.has(outcome.resultCode) ? 'timed_out' : 'failed';
    if (attempt.status === status && attempt.resultCode === outcome.resultCode) return 'ignored';
    await tx
      .update(paymentAttempts)
      .set({ status, resultCode: outcome.resultCode, resultDesc: outcome.resultDesc, settledBy, updatedAt: sql`now()` })
      .where(eq(paymentAttempts.id, attempt.id));
    log.info(
      { orderId: attempt.orderId, checkoutRequestId, resultCode: outcome.resultCode, settledBy },
      'M-Pesa prompt not paid',
    );
    countPayment(paymentOutcomeOf(outcome.resultCode));
    return 'settled';
  });
}

export function settleCallback(deps: Pick<PaymentDeps, 'db' | 'log' | 'notify'>, callback: ParsedStkCallback) {
  return settle(deps, callback.checkoutRequestId, callback, 'callback');
}

/**
 * Confirms prompts whose callback has not come, with an STK query. Each instance claims a few
 * due attempts with SKIP LOCKED, so with several instances each prompt is queried by one.
 */
export async function reconcilePendingPayments(
  deps: PaymentDeps,
  options: { olderThanMs: number; giveUpAfterMs: number; batch?: number },
) {
  const { db, daraja, log } = deps;
  const claimed = await db
    .update(paymentAttempts)
    .set({ lastCheckedAt: sql`now()`, queryCount: sql`${paymentAttempts.queryCount} + 1` })
    .where(
      inArray(
        paymentAttempts.id,
        sql`(SELECT id FROM ${paymentAttempts}
              WHERE status IN ('pending', 'timed_out')
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
    if (!attempt.checkoutRequestId) {
      // Daraja never acknowledged this prompt: nothing can be queried; give it up once old enough.
      if (expired) {
        await db
          .update(paymentAttempts)
          .set({ status: 'failed', resultCode: 'no_answer', updatedAt: sql`now()` })
          .where(eq(paymentAttempts.id, attempt.id));
        countPayment('given_up');
      }
      continue;
    }
    let result: StkQueryResult;
    try {
      result = await daraja.stkQuery(attempt.checkoutRequestId);
    } catch (error) {
      // The query itself failed. Past the give-up time the outcome is taken as no longer learnable
      // (e.g. Daraja answers 400 "Invalid CheckoutRequestID" for a prompt it no longer knows, as a
      // restarted simulator does): the prompt ends failed, like one Daraja never acknowledged, so it
      // does not stay pending forever and the shopper may pay again. Before that, retry.
      if (expired) {
        await db
          .update(paymentAttempts)
          .set({
            status: 'failed',
            resultCode: 'no_answer',
            resultDesc: error instanceof Error ? error.message : 'M-Pesa status query failed',
            updatedAt: sql`now()`,
          })
          .where(and(eq(paymentAttempts.id, attempt.id), inArray(paymentAttempts.status, ['pending', 'timed_out'])));
        log.warn(
          { err: error, checkoutRequestId: attempt.checkoutRequestId },
          'M-Pesa status query failed past the give-up time; prompt marked failed',
        );
        countPayment('given_up');
      } else {
        log.warn({ err: error, checkoutRequestId: attempt.checkoutRequestId }, 'M-Pesa status query failed; will retry');
      }
      continue;
    }
    try {
      if (result.state === 'completed') {
        const done = await settle(
          deps,
          attempt.checkoutRequestId,
          {
            resultCode: result.resultCode,
            resultDesc: result.resultDesc,
            amount: null,
            receipt: null,
            transactionDate: null,
            phone: null,
          },
          'query',
        );
        if (done === 'settled') settled += 1;
      } else if (expired) {
        await db
          .update(paymentAttempts)
          .set({ status: 'timed_out', resultCode: '1037', resultDesc: 'No answer from M-Pesa', updatedAt: sql`now()` })
          .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, 'pending')));
      }
    } catch (error) {
      log.warn({ err: error, checkoutRequestId: attempt.checkoutRequestId }, 'M-Pesa result could not be recorded; will retry');
    }
  }
  // Timed-out prompts stop being queried once they are old enough to be given up.
  await db
    .update(paymentAttempts)
    .set({ status: 'failed', updatedAt: sql`now()` })
    .where(
      and(eq(paymentAttempts.status, 'timed_out'), lt(paymentAttempts.createdAt, new Date(Date.now() - options.giveUpAfterMs))),
    );
  return { claimed: claimed.length, settled };
}

import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { paymentAttempts } from '../db/schema.js';
import { notifyAwaitingReceipts, recordPayment } from '../domain/payments/ledger.js';
import { countPayment } from '../metrics.js';
import { DarajaError, type StkQueryResult } from '../mpesa/daraja-client.js';
import { retryStoredCallbacks } from './callbacks.js';
import type { PaymentDeps } from './deps.js';
import { reconcileRefunds } from './initiator.js';
import { lookUpMissingReceipts } from './status-lookups.js';
import { type AttemptRow, applyFailure, markAttemptPaid } from './stk.js';

/**
 * The reconciler, run on a timer (runtime.ts): it retries stored callbacks, asks Daraja with an STK
 * query about prompts whose callback has not come, and runs the refund and receipt lookups.
 */

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

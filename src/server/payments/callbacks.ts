import { and, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { normaliseMsisdn } from '../../shared/phone.js';
import type { Queryable } from '../db/client.js';
import { mpesaCallbacks, mpesaPayments, paymentAttempts } from '../db/schema.js';
import { recordPayment } from '../domain/payments/ledger.js';
import { countPayment, countPaymentException } from '../metrics.js';
import { DarajaError, type ParsedStkCallback, parseStkCallback, type StkQueryResult } from '../mpesa/daraja-client.js';
import { type CallbackRow, finishCallback, storeCallback } from './callback-store.js';
import type { PaymentDeps } from './deps.js';
import { isInitiatorCallback, processInitiatorCallback } from './initiator.js';
import { processC2bConfirmation } from './paybill.js';
import { type AttemptRow, applyFailure, markAttemptPaid } from './stk.js';

/**
 * Callbacks: stored as received, then acted on. One that cannot be acted on yet stays unprocessed
 * and the reconciler tries it again, so a crash, a bug or Daraja being busy loses nothing. An STK
 * result is acted on here (a success is confirmed with an STK query, then handed to the ledger);
 * a C2B confirmation goes to paybill.ts, a Reversal or Transaction Status Result to initiator.ts.
 */

/** How many times an unconfirmable success is retried before it is put in front of the merchant. */
const MAX_CONFIRM_TRIES = 5;

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
export async function retryStoredCallbacks(deps: PaymentDeps, olderThanMs: number, batch: number): Promise<number> {
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

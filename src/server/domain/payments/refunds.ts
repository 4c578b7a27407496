import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { LedgerPayment, LedgerStatus, PaymentException } from '../../../shared/schemas/payments.js';
import type { Db, Queryable } from '../../db/client.js';
import { mpesaPayments, mpesaRefunds, orders } from '../../db/schema.js';
import { AppError, conflict } from '../../errors.js';
import { countPaymentException, countRefund } from '../../metrics.js';
import { isHeld } from './coverage.js';
import { type LedgerDeps, type LedgerRow, lockPayment, type RefundRow, settleAfter } from './ledger.js';
import { ledgerJsonOf } from './ledger-views.js';

/**
 * Refunds by M-Pesa Reversal: the ledger's side (docs/payments.md, Refunds). The whole payment
 * goes back; a payment is refunded at most once. The rules:
 *
 * - A refund may be asked for a payment that has its receipt and is not being, or already,
 *   refunded. The payment becomes `refund_pending` and a refund row is written in the same
 *   transaction, under the payment's row lock; a partial unique index allows one live refund per
 *   payment, so two requests racing each other send one Reversal between them.
 * - Success (or M-Pesa's "already reversed", which means the money is back) makes the payment
 *   `refunded`, and its order is settled again by the one rule (coverage.ts), in the same
 *   transaction: unpaid when what is left no longer covers it, still paid (by another payment
 *   held for it) when it does.
 * - Only money M-Pesa confirmed is sent back, and the amount asked is what M-Pesa holds.
 * - A failure puts the payment back as it was, with the reason; the admin may then ask again.
 * - A Reversal with no answer is sent again by the reconciler (M-Pesa refuses a second reversal of
 *   one receipt, and that refusal means refunded), up to a limit; then it is listed for the admin.
 */

/** Asks for a refund of a whole payment; the caller then sends the Reversal. */
export async function openRefund(
  db: Db,
  paymentId: string,
  adminId: string | null,
  /** False when the initiator is not configured: the request is refused once the payment checks out. */
  canSend: boolean,
): Promise<{ payment: LedgerRow; refund: RefundRow }> {
  return db.transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    if (payment.status === 'refund_pending')
      throw conflict('A refund of this payment is already on its way: it can be sent only once.');
    if (payment.status === 'refunded') throw conflict('This payment is already refunded: a refund can never be sent twice.');
    if (payment.receipt === null) {
      throw conflict('This payment has no M-Pesa receipt yet, and a reversal needs it. Wait for the receipt, then refund.');
    }
    if (isHeld(payment)) {
      throw conflict(
        'M-Pesa has not confirmed this payment, so there is nothing to send back. Check your M-Pesa statement; if it shows the payment, assign it to its order first.',
      );
    }
    if (!canSend) throw refundsUnavailable();
    const [refund] = await tx
      .insert(mpesaRefunds)
      .values({
        paymentId,
        previousStatus: payment.status,
        previousException: payment.exception,
        amountCents: payment.amountCents,
        requestedBy: adminId,
        attempts: 1,
        lastSentAt: sql`now()`,
      })
      .onConflictDoNothing()
      .returning();
    // The row lock makes this unreachable; the unique index is the last word should it not be.
    if (!refund) throw conflict('A refund of this payment is already on its way: it can be sent only once.');
    const [row] = await tx
      .update(mpesaPayments)
      .set({ status: 'refund_pending', updatedAt: sql`now()` })
      .where(and(eq(mpesaPayments.id, paymentId), inArray(mpesaPayments.status, ['credited', 'exception', 'resolved'])))
      .returning();
    if (!row) throw conflict('This payment cannot be refunded now.');
    countRefund('requested');
    return { payment: row, refund };
  });
}

/** Daraja queued the Reversal: its ids, for the log and the merchant's statement. */
export async function recordReversalAccepted(
  db: Queryable,
  refundId: string,
  ids: { originatorConversationId: string; conversationId: string },
): Promise<void> {
  await db
    .update(mpesaRefunds)
    .set({ ...ids, updatedAt: sql`now()` })
    .where(eq(mpesaRefunds.id, refundId));
}

async function lockRefund(tx: Queryable, refundId: string): Promise<RefundRow | undefined> {
  const [refund] = await tx.select().from(mpesaRefunds).where(eq(mpesaRefunds.id, refundId)).for('update');
  return refund;
}

/**
 * M-Pesa reversed the payment (or says it already was). Returns what became of the Result:
 * refunded, or duplicate when it was already known.
 */
export async function completeRefund(
  db: Db,
  deps: LedgerDeps,
  refundId: string,
  result: { resultCode: string; reversalReceipt: string | null },
): Promise<'refunded' | 'duplicate' | 'unknown_refund' | 'superseded'> {
  return db.transaction(async (tx) => {
    const refund = await lockRefund(tx, refundId);
    if (!refund) return 'unknown_refund';
    if (refund.status === 'refunded') return 'duplicate';
    const payment = await lockPayment(tx, refund.paymentId);
    if (refund.status === 'failed') {
      // A late success of an earlier request that was thought failed: the money is back all the
      // same. A newer request for the payment will hear "already reversed" and finish it.
      if (payment.status === 'refund_pending' || payment.status === 'refunded') return 'superseded';
    }
    await settleRefunded(tx, deps, refund, payment, result);
    return 'refunded';
  });
}

/** The money is back: the refund is done, the payment refunded, and its order unpaid if no longer covered. */
async function settleRefunded(
  tx: Queryable,
  deps: LedgerDeps,
  refund: RefundRow,
  payment: LedgerRow,
  result: { resultCode: string; reversalReceipt: string | null },
  note?: string,
): Promise<LedgerRow> {
  const refundId = refund.id;
  await tx
    .update(mpesaRefunds)
    .set({
      status: 'refunded',
      resultCode: result.resultCode,
      reversalReceipt: result.reversalReceipt,
      completedAt: sql`now()`,
      failureReason: null,
      failedAt: null,
      updatedAt: sql`now()`,
    })
    .where(eq(mpesaRefunds.id, refundId));
  const [row] = await tx
    .update(mpesaPayments)
    .set({
      status: 'refunded',
      // An unanswered reversal that was answered after all no longer needs the merchant.
      exception: payment.exception === 'refund_unanswered' ? refund.previousException : payment.exception,
      ...(note !== undefined && { note, resolvedAt: sql`now()` }),
      updatedAt: sql`now()`,
    })
    .where(eq(mpesaPayments.id, payment.id))
    .returning();
  if (!row) throw new Error('ledger update returned nothing');
  await settleAfter(tx, deps, row.orderId);
  countRefund('refunded');
  deps.log.info(
    { paymentId: row.id, refundId, receipt: row.receipt, reversal: result.reversalReceipt, resultCode: result.resultCode },
    'M-Pesa payment refunded by reversal',
  );
  return row;
}

/** M-Pesa refused the reversal: the payment is back as it was, with the reason, and may be refunded again. */
export async function failRefund(
  db: Db,
  deps: LedgerDeps,
  refundId: string,
  result: { resultCode: string; reason: string },
): Promise<'failed' | 'ignored' | 'unknown_refund'> {
  return db.transaction(async (tx) => {
    const refund = await lockRefund(tx, refundId);
    if (!refund) return 'unknown_refund';
    // A failure after a success (a stale Result of an earlier request) changes nothing.
    if (refund.status !== 'pending' && refund.status !== 'unanswered') return 'ignored';
    await settleFailed(tx, deps, refund, result);
    return 'failed';
  });
}

/** The money did not go back: the refund failed, with the reason, and the payment is as it was. */
async function settleFailed(
  tx: Queryable,
  deps: LedgerDeps,
  refund: RefundRow,
  result: { resultCode: string; reason: string },
  note?: string,
): Promise<LedgerRow> {
  await tx
    .update(mpesaRefunds)
    .set({
      status: 'failed',
      resultCode: result.resultCode,
      failureReason: result.reason,
      failedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(eq(mpesaRefunds.id, refund.id));
  const [row] = await tx
    .update(mpesaPayments)
    .set({
      status: refund.previousStatus as LedgerStatus,
      exception: refund.previousException as PaymentException | null,
      ...(note !== undefined && { note, resolvedAt: sql`now()` }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(mpesaPayments.id, refund.paymentId), eq(mpesaPayments.status, 'refund_pending')))
    .returning();
  countRefund('failed');
  deps.log.warn({ refundId: refund.id, paymentId: refund.paymentId, resultCode: result.resultCode }, 'M-Pesa reversal failed');
  // Unchanged when the payment had already moved on (a stale failure): it is read as it stands.
  return row ?? (await lockPayment(tx, refund.paymentId));
}

/**
 * The merchant closes an unanswered refund from their M-Pesa statement: it shows the reversal
 * (the payment is refunded, and its order unpaid if no longer covered) or it does not (the refund
 * failed, and the payment may be refunded again). Either way the refund is no longer open.
 */
export async function resolveUnansweredRefund(
  db: Db,
  deps: LedgerDeps,
  paymentId: string,
  refunded: boolean,
  note: string,
): Promise<LedgerPayment> {
  return db.transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    if (payment.status !== 'refund_pending' || payment.exception !== 'refund_unanswered') {
      throw conflict('Only an unanswered refund is resolved by saying whether the money went back.');
    }
    const [refund] = await tx
      .select()
      .from(mpesaRefunds)
      .where(and(eq(mpesaRefunds.paymentId, paymentId), eq(mpesaRefunds.status, 'unanswered')))
      .for('update');
    if (!refund) throw new Error(`payment ${paymentId} is refund_unanswered with no unanswered refund`);
    deps.log.info({ paymentId, refundId: refund.id, refunded }, 'unanswered M-Pesa reversal resolved from the statement');
    const row = refunded
      ? await settleRefunded(tx, deps, refund, payment, { resultCode: STATEMENT_RESULT, reversalReceipt: null }, note)
      : await settleFailed(
          tx,
          deps,
          refund,
          { resultCode: STATEMENT_RESULT, reason: 'The M-Pesa statement shows no reversal (checked by the merchant).' },
          note,
        );
    return (await ledgerJsonOf(tx, [row], 'admin'))[0] as LedgerPayment;
  });
}

/** The result code kept for a refund settled from the merchant's statement rather than by M-Pesa's Result. */
const STATEMENT_RESULT = 'statement';

/** No answer after every retry: the payment stays refund_pending and is listed for the merchant. */
export async function markRefundUnanswered(db: Db, deps: LedgerDeps, refundId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const refund = await lockRefund(tx, refundId);
    if (refund?.status !== 'pending') return false;
    await tx.update(mpesaRefunds).set({ status: 'unanswered', updatedAt: sql`now()` }).where(eq(mpesaRefunds.id, refundId));
    const exception: PaymentException = 'refund_unanswered';
    const [row] = await tx
      .update(mpesaPayments)
      .set({ exception, updatedAt: sql`now()` })
      .where(and(eq(mpesaPayments.id, refund.paymentId), eq(mpesaPayments.status, 'refund_pending')))
      .returning();
    if (row) {
      countPaymentException(exception);
      const [order] = row.orderId
        ? await tx.select({ number: orders.number }).from(orders).where(eq(orders.id, row.orderId))
        : [];
      await deps.notify.paymentException(tx, {
        receipt: row.receipt,
        amount: row.amountCents / 100,
        phone: row.phone,
        exception,
        orderNumber: order?.number ?? null,
      });
    }
    countRefund('unanswered');
    deps.log.error(
      { refundId, paymentId: refund.paymentId },
      'M-Pesa reversal unanswered after every retry: listed for the merchant',
    );
    return true;
  });
}

/** M-Pesa's queue-timeout notice for a refund's latest request: the reconciler sends it again. */
export async function markQueueTimeout(db: Queryable, refundId: string): Promise<'timeout' | 'ignored'> {
  const rows = await db
    .update(mpesaRefunds)
    .set({ queueTimeoutAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(mpesaRefunds.id, refundId), eq(mpesaRefunds.status, 'pending')))
    .returning({ id: mpesaRefunds.id });
  return rows.length > 0 ? 'timeout' : 'ignored';
}

/**
 * Pending refunds due another Reversal (a queue timeout for the latest request, or no Result within
 * `waitMs`), claimed by this instance: their attempt is counted before the request goes out.
 */
export async function claimDueRefunds(
  db: Queryable,
  waitMs: number,
  maxAttempts: number,
  batch = 10,
): Promise<{ resend: RefundRow[]; exhausted: RefundRow[] }> {
  const due = sql`(SELECT id FROM ${mpesaRefunds}
      WHERE status = 'pending'
        AND (last_sent_at < now() - ${waitMs} * interval '1 millisecond'
             OR (queue_timeout_at IS NOT NULL AND queue_timeout_at >= last_sent_at))
      ORDER BY last_sent_at
      LIMIT ${batch}
      FOR UPDATE SKIP LOCKED)`;
  const exhausted = await db
    .select()
    .from(mpesaRefunds)
    .where(and(inArray(mpesaRefunds.id, due), sql`attempts >= ${maxAttempts}`));
  const resend = await db
    .update(mpesaRefunds)
    .set({ attempts: sql`${mpesaRefunds.attempts} + 1`, lastSentAt: sql`now()`, queueTimeoutAt: null, updatedAt: sql`now()` })
    .where(and(inArray(mpesaRefunds.id, due), sql`${mpesaRefunds.attempts} < ${maxAttempts}`))
    .returning();
  return { resend, exhausted };
}

/** The payment and receipt a refund reverses. */
export async function refundTarget(
  db: Queryable,
  refundId: string,
): Promise<{ refund: RefundRow; payment: LedgerRow } | undefined> {
  const [row] = await db
    .select({ refund: mpesaRefunds, payment: mpesaPayments })
    .from(mpesaRefunds)
    .innerJoin(mpesaPayments, eq(mpesaPayments.id, mpesaRefunds.paymentId))
    .where(eq(mpesaRefunds.id, refundId))
    .orderBy(desc(mpesaRefunds.requestedAt));
  return row;
}

/** Refunds need the initiator: without it the route says which settings to set. */
export function refundsUnavailable(): AppError {
  return new AppError(
    503,
    'Refunds by M-Pesa reversal are not set up: set MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD (and MPESA_CERT_PATH for Safaricom) and restart the shop.',
  );
}

import { and, count, eq, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { LedgerStatus, PaymentException, PaymentSource } from '../../../shared/schemas/payments.js';
import type { Db, Queryable } from '../../db/client.js';
import { mpesaPayments, type mpesaRefunds, orders } from '../../db/schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Notifications } from '../../mail/notifications.js';
import { countPaymentException } from '../../metrics.js';
import { loadExistingOrder } from '../orders.js';
import { heldCents, isHeld, type Settlement, settleOrder, stillDueCents } from './coverage.js';

/**
 * The M-Pesa ledger. Every payment the shop learns of, from whatever source, is recorded here
 * exactly once (keyed by its receipt, and by its prompt when it answers one), before anything else
 * happens to it. Nothing here is deleted. Whether an order is paid is never decided here: each
 * function records its fact and then asks coverage.ts, which holds the one rule.
 *
 * What a new payment is called (its status and exception, for the merchant's eyes):
 * - for an order already covered: a double payment, to refund or keep;
 * - short of what is still due: a part payment by Paybill or from the statement; by STK (which
 *   asks for what is due) an exception, amount_short. Either way its money counts;
 * - above what is still due: credited and flagged overpaid, whatever its source;
 * - naming no order the shop can find: unmatched, for an admin to assign;
 * - not confirmed by M-Pesa: unconfirmed, paying nothing until it is;
 * - known only from the STK status query: credited, "receipt missing" until the receipt comes.
 *
 * What admins do with the ledger is in admin-actions.ts; how it is shown and listed, in
 * ledger-views.ts.
 */

export type LedgerRow = typeof mpesaPayments.$inferSelect;
export type RefundRow = typeof mpesaRefunds.$inferSelect;

/** M-Pesa receipts are upper-case letters and digits; what the shop stores and compares. */
export function normaliseReceipt(receipt: string): string {
  return receipt.trim().toUpperCase();
}

export interface IncomingPayment {
  /** Null only for a success known from the STK query, which carries no receipt, or an admin's "Mark As Paid". */
  receipt: string | null;
  amountCents: number;
  phone: string | null;
  source: PaymentSource;
  checkoutRequestId: string | null;
  /** The body as Daraja sent it. */
  raw: string | null;
  transactionAt: Date | null;
  recordedBy?: string | null;
  /** For the merchant: why it is held (unconfirmed, an unreadable amount). */
  detail?: string | null;
  note?: string | null;
}

export interface LedgerDeps {
  notify: Notifications;
  log: FastifyBaseLogger;
}

export type RecordOutcome =
  | { kind: 'credited' | 'exception'; payment: LedgerRow }
  /** Already in the ledger (the same receipt, or a second answer for the same prompt). */
  | { kind: 'duplicate'; payment: LedgerRow }
  /** A query-settled payment got its receipt. */
  | { kind: 'receipt_filled'; payment: LedgerRow };

/** What a payment is called on the order it names, decided under the order's row lock. */
interface Verdict {
  orderId: string | null;
  status: LedgerStatus;
  exception: PaymentException | null;
}

/** Holds a payment the shop must not count (unconfirmed, an unreadable amount), on the order it names. */
export interface Hold {
  exception: 'unconfirmed' | 'bad_amount' | 'other_shortcode';
  detail: string;
}

async function judgeAgainstOrder(
  tx: Queryable,
  orderId: string | null,
  amountCents: number,
  source: PaymentSource,
): Promise<Verdict> {
  const unmatched: Verdict = { orderId: null, status: 'exception', exception: 'unmatched' };
  if (orderId === null) return unmatched;
  const [order] = await tx.select({ totalCents: orders.totalCents }).from(orders).where(eq(orders.id, orderId)).for('update');
  if (!order) return unmatched;
  const due = stillDueCents(order.totalCents, await heldCents(tx, orderId));
  if (due === 0) return { orderId, status: 'exception', exception: 'double_payment' };
  if (amountCents < due) {
    // By Paybill, or from the statement, a shopper may pay in parts; an STK prompt asks for what
    // is due, so less is odd. Either way the money counts towards the order.
    return source === 'c2b'
      ? { orderId, status: 'credited', exception: null }
      : { orderId, status: 'exception', exception: 'amount_short' };
  }
  // It pays the order; what is paid beyond it is the shopper's, and the merchant must see it.
  if (amountCents > due) return { orderId, status: 'credited', exception: 'overpaid' };
  return { orderId, status: 'credited', exception: null };
}

/**
 * Applies the coverage rule to a payment's order after a fact about it was recorded, and tells
 * the shopper "payment received" when this payment completed the cover.
 */
export async function settleAfter(tx: Queryable, deps: LedgerDeps, orderId: string | null): Promise<Settlement | null> {
  if (orderId === null) return null;
  const settlement = await settleOrder(tx, orderId);
  // A query-settled payment has no receipt yet: its mail waits for the callback (or for
  // notifyAwaitingReceipts, when none comes), so that it carries the receipt whenever it can.
  if (settlement.changed && settlement.paidBy?.receipt) await notifyPaid(tx, deps, settlement.paidBy);
  // Paid is logged by the path that recorded the payment; unpaid again is news of its own.
  if (settlement.changed && !settlement.isPaid) deps.log.warn({ orderId }, 'order no longer covered by its money: unpaid');
  return settlement;
}

/** "Payment received", once per paying payment, with what M-Pesa charged. */
export async function notifyPaid(tx: Queryable, deps: LedgerDeps, payment: LedgerRow): Promise<void> {
  if (!payment.orderId || payment.notifiedAt) return;
  const marked = await tx
    .update(mpesaPayments)
    .set({ notifiedAt: sql`now()` })
    .where(and(eq(mpesaPayments.id, payment.id), isNull(mpesaPayments.notifiedAt)))
    .returning({ id: mpesaPayments.id });
  if (marked.length === 0) return;
  await deps.notify.orderPaid(tx, await loadExistingOrder(tx, payment.orderId), payment.amountCents / 100);
}

/**
 * Query-settled payments whose callback has not brought the receipt after `olderThanMs`: the
 * shopper is told without it rather than not at all. Run by the reconciler.
 */
export async function notifyAwaitingReceipts(db: Db, deps: LedgerDeps, olderThanMs: number): Promise<number> {
  const waiting = await db
    .select()
    .from(mpesaPayments)
    .where(
      and(
        eq(mpesaPayments.status, 'credited'),
        isNull(mpesaPayments.receipt),
        isNull(mpesaPayments.notifiedAt),
        lt(mpesaPayments.createdAt, new Date(Date.now() - olderThanMs)),
      ),
    )
    .limit(20);
  for (const payment of waiting) await db.transaction((tx) => notifyPaid(tx, deps, payment));
  return waiting.length;
}

async function findExisting(tx: Queryable, payment: IncomingPayment): Promise<LedgerRow | undefined> {
  const keys: SQL[] = [];
  if (payment.receipt) keys.push(eq(mpesaPayments.receipt, payment.receipt));
  if (payment.checkoutRequestId) keys.push(eq(mpesaPayments.checkoutRequestId, payment.checkoutRequestId));
  if (keys.length === 0) return undefined;
  const [row] = await tx
    .select()
    .from(mpesaPayments)
    .where(keys.length === 1 ? keys[0] : sql`(${keys[0]} or ${keys[1]})`)
    .for('update')
    .limit(1);
  return row;
}

/**
 * Records one payment against the order it names (or none), in the caller's transaction, then
 * settles that order. Idempotent: the same receipt, or a second answer for the same prompt, is a
 * duplicate.
 */
export async function recordPayment(
  tx: Queryable,
  deps: LedgerDeps,
  incoming: IncomingPayment,
  orderId: string | null,
  /** Kept on its order but counting nothing: a payment the shop must not act on yet. */
  hold?: Hold,
): Promise<RecordOutcome> {
  const payment = { ...incoming, receipt: incoming.receipt === null ? null : normaliseReceipt(incoming.receipt) };
  const existing = await findExisting(tx, payment);
  if (existing) {
    if (existing.receipt === null && payment.receipt !== null && !hold) return fillReceipt(tx, deps, existing, payment);
    // Kept unmatched when it came (its callback could not tell which prompt it answered); now
    // that its prompt is known (the same CheckoutRequestID, from the prompt's own row), it goes
    // to that prompt's order.
    const promptNowKnown =
      orderId !== null && !hold && payment.checkoutRequestId !== null && existing.checkoutRequestId === payment.checkoutRequestId;
    if (promptNowKnown && existing.status === 'exception' && existing.exception === 'unmatched') {
      const row = await putOnOrder(tx, deps, existing, orderId);
      deps.log.info({ paymentId: row.id, orderId, status: row.status }, 'unmatched M-Pesa payment matched to its prompt’s order');
      return { kind: row.status === 'credited' ? 'credited' : 'exception', payment: row };
    }
    return { kind: 'duplicate', payment: existing };
  }
  const verdict: Verdict = hold
    ? { orderId, status: 'exception', exception: hold.exception }
    : await judgeAgainstOrder(tx, orderId, payment.amountCents, payment.source);
  // An admin's "Mark As Paid" has no receipt by nature; a query-settled payment waits for its own.
  const awaitsReceipt = payment.receipt === null && payment.source !== 'manual';
  const exception = verdict.exception ?? (awaitsReceipt ? 'receipt_missing' : null);
  const [row] = await tx
    .insert(mpesaPayments)
    .values({
      receipt: payment.receipt,
      amountCents: payment.amountCents,
      phone: payment.phone,
      source: payment.source,
      orderId: verdict.orderId,
      checkoutRequestId: payment.checkoutRequestId,
      status: verdict.status,
      exception,
      raw: payment.raw,
      transactionAt: payment.transactionAt,
      recordedBy: payment.recordedBy ?? null,
      detail: hold?.detail ?? payment.detail ?? null,
      note: payment.note ?? null,
    })
    .returning();
  if (!row) throw new Error('ledger insert returned nothing');
  const settlement = await settleAfter(tx, deps, row.orderId);
  if (exception) countPaymentException(exception);
  // The merchant hears of a payment that needs them; a receipt on its way, or a Paybill payment
  // waiting for M-Pesa's Transaction Status, is not one yet.
  if (verdict.exception && !(hold?.exception === 'unconfirmed' && hold.detail === AWAITING_CONFIRMATION)) {
    await alertException(tx, deps, row, verdict.exception);
  }
  deps.log[verdict.exception ? 'warn' : 'info'](
    {
      paymentId: row.id,
      receipt: row.receipt,
      orderId: row.orderId,
      amount: row.amountCents / 100,
      source: row.source,
      exception,
    },
    verdict.exception
      ? 'M-Pesa payment recorded as an exception'
      : settlement?.changed
        ? 'order paid with M-Pesa'
        : 'M-Pesa part payment credited to its order',
  );
  return { kind: verdict.status === 'credited' ? 'credited' : 'exception', payment: row };
}

/** The detail of a Paybill payment held until M-Pesa's Transaction Status confirms it. */
export const AWAITING_CONFIRMATION = 'Waiting for M-Pesa to confirm this payment (Transaction Status).';

/** Mails the merchant of a payment exception, in the transaction that recorded it. */
async function alertException(tx: Queryable, deps: LedgerDeps, row: LedgerRow, exception: PaymentException): Promise<void> {
  const [order] = row.orderId ? await tx.select({ number: orders.number }).from(orders).where(eq(orders.id, row.orderId)) : [];
  await deps.notify.paymentException(tx, {
    receipt: row.receipt,
    amount: row.amountCents / 100,
    phone: row.phone,
    exception,
    orderNumber: order?.number ?? null,
    detail: row.detail,
  });
}

/** The callback (or a Transaction Status lookup) that follows a query-settled payment brings its receipt. */
export async function fillReceipt(
  tx: Queryable,
  deps: LedgerDeps,
  existing: LedgerRow,
  payment: IncomingPayment,
): Promise<RecordOutcome> {
  const [row] = await tx
    .update(mpesaPayments)
    .set({
      receipt: payment.receipt,
      raw: payment.raw,
      phone: payment.phone ?? existing.phone,
      transactionAt: payment.transactionAt ?? existing.transactionAt,
      amountCents: payment.amountCents,
      exception: existing.exception === 'receipt_missing' ? null : existing.exception,
      updatedAt: sql`now()`,
    })
    .where(eq(mpesaPayments.id, existing.id))
    .returning();
  if (!row) throw new Error('ledger update returned nothing');
  await settleAfter(tx, deps, row.orderId);
  if (row.orderId && row.status === 'credited') {
    await tx
      .update(orders)
      .set({ mpesaReceipt: row.receipt, updatedAt: sql`now()` })
      .where(and(eq(orders.id, row.orderId), eq(orders.isPaid, true), isNull(orders.mpesaReceipt)));
    await notifyPaid(tx, deps, row);
  }
  deps.log.info({ paymentId: row.id, receipt: row.receipt, orderId: row.orderId }, 'M-Pesa receipt filled in');
  return { kind: 'receipt_filled', payment: row };
}

/**
 * M-Pesa's own word on a payment the shop holds: its Transaction Status confirmed it, or a
 * confirmed callback came for a receipt an admin had recorded by hand. M-Pesa's amount wins; when
 * it differs from an admin's record, the admin's figure is kept beside it as an open exception.
 * A payment held as unconfirmed now counts and is judged against its order as if it had just come.
 */
export async function applyMpesaWord(
  tx: Queryable,
  deps: LedgerDeps,
  payment: LedgerRow,
  word: { amountCents: number; raw: string | null },
): Promise<LedgerRow> {
  if (isHeld(payment)) {
    const verdict = await judgeAgainstOrder(tx, payment.orderId, word.amountCents, payment.source as PaymentSource);
    const [row] = await tx
      .update(mpesaPayments)
      .set({
        amountCents: word.amountCents,
        orderId: verdict.orderId,
        // A payment already being refunded keeps that status; what it is called changes.
        ...(payment.status === 'exception' && { status: verdict.status }),
        exception: verdict.exception,
        detail: null,
        updatedAt: sql`now()`,
      })
      .where(eq(mpesaPayments.id, payment.id))
      .returning();
    if (!row) throw new Error('ledger update returned nothing');
    await settleAfter(tx, deps, row.orderId);
    if (verdict.exception) {
      countPaymentException(verdict.exception);
      await alertException(tx, deps, row, verdict.exception);
    }
    deps.log.info({ paymentId: row.id, orderId: row.orderId, exception: row.exception }, 'M-Pesa confirmed a held payment');
    return row;
  }
  if (word.amountCents === payment.amountCents) {
    if (payment.detail === null) return payment;
    const [row] = await tx
      .update(mpesaPayments)
      .set({ detail: null, updatedAt: sql`now()` })
      .where(eq(mpesaPayments.id, payment.id))
      .returning();
    return row ?? payment;
  }
  const exception: PaymentException = 'amount_mismatch';
  const [row] = await tx
    .update(mpesaPayments)
    .set({
      amountCents: word.amountCents,
      recordedAmountCents: payment.recordedAmountCents ?? payment.amountCents,
      ...(payment.status !== 'refund_pending' && payment.status !== 'refunded' && { status: 'exception' }),
      exception,
      detail: null,
      raw: word.raw ?? payment.raw,
      updatedAt: sql`now()`,
    })
    .where(eq(mpesaPayments.id, payment.id))
    .returning();
  if (!row) throw new Error('ledger update returned nothing');
  await settleAfter(tx, deps, row.orderId);
  countPaymentException(exception);
  await alertException(tx, deps, row, exception);
  deps.log.warn(
    { paymentId: row.id, recorded: (row.recordedAmountCents ?? 0) / 100, mpesa: row.amountCents / 100 },
    'M-Pesa’s amount differs from what an admin recorded: M-Pesa’s kept',
  );
  return row;
}

/** A payment an admin recorded waits for M-Pesa's Transaction Status, which a confirmation asked for. */
export async function awaitConfirmation(tx: Queryable, payment: LedgerRow): Promise<LedgerRow> {
  const [row] = await tx
    .update(mpesaPayments)
    .set({ detail: AWAITING_CONFIRMATION, receiptLookups: 0, receiptLookupAt: null, updatedAt: sql`now()` })
    .where(eq(mpesaPayments.id, payment.id))
    .returning();
  return row ?? payment;
}

/** A held payment M-Pesa did not confirm: it stays unconfirmed, with the reason, and the merchant hears of it. */
export async function refuseConfirmation(tx: Queryable, deps: LedgerDeps, payment: LedgerRow, reason: string): Promise<void> {
  if (payment.detail === reason) return;
  const [row] = await tx
    .update(mpesaPayments)
    .set({ detail: reason, updatedAt: sql`now()` })
    .where(eq(mpesaPayments.id, payment.id))
    .returning();
  if (!row) return;
  await alertException(tx, deps, row, 'unconfirmed');
  deps.log.error({ paymentId: row.id, receipt: row.receipt, reason }, 'M-Pesa did not confirm a payment: it pays nothing');
}

export async function lockPayment(tx: Queryable, id: string): Promise<LedgerRow> {
  const [row] = await tx.select().from(mpesaPayments).where(eq(mpesaPayments.id, id)).for('update');
  if (!row) throw notFound('Payment not found');
  return row;
}

/** A payment that paid no order is judged against one: an admin's assignment, or its prompt found late. */
export async function putOnOrder(tx: Queryable, deps: LedgerDeps, payment: LedgerRow, orderId: string): Promise<LedgerRow> {
  const verdict = await judgeAgainstOrder(tx, orderId, payment.amountCents, payment.source as PaymentSource);
  const exception = verdict.exception ?? (payment.receipt === null && payment.source !== 'manual' ? 'receipt_missing' : null);
  const [row] = await tx
    .update(mpesaPayments)
    .set({ orderId, status: verdict.status, exception, detail: null, updatedAt: sql`now()` })
    .where(eq(mpesaPayments.id, payment.id))
    .returning();
  if (!row) throw new Error('ledger update returned nothing');
  await settleAfter(tx, deps, orderId);
  if (exception) countPaymentException(exception);
  return row;
}

/** An order that any payment names cannot be hard-deleted: the ledger must keep what it paid. */
export async function assertOrderHasNoPayments(tx: Queryable, orderId: string): Promise<void> {
  const [row] = await tx.select({ n: count() }).from(mpesaPayments).where(eq(mpesaPayments.orderId, orderId));
  if ((row?.n ?? 0) > 0) {
    throw new AppError(
      409,
      'This order has an M-Pesa payment on it and cannot be deleted. Keep it, or refund the payment and record that on the Payments screen.',
    );
  }
}

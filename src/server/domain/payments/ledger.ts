import { and, count, desc, eq, inArray, isNotNull, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { maskMsisdn, normaliseMsisdn } from '../../../shared/phone.js';
import type {
  AssignPaymentBody,
  LedgerFilter,
  LedgerPage,
  LedgerPayment,
  LedgerStatus,
  ManualPaymentBody,
  PaymentException,
  PaymentSource,
} from '../../../shared/schemas/payments.js';
import type { Db, Queryable } from '../../db/client.js';
import { mpesaPayments, mpesaRefunds, orders } from '../../db/schema.js';
import { AppError, badRequest, conflict, notFound } from '../../errors.js';
import type { Notifications } from '../../mail/notifications.js';
import { countPaymentException } from '../../metrics.js';
import { loadExistingOrder, orderWithNumber } from '../orders.js';

/**
 * The M-Pesa ledger's rules, in one place. Every payment the shop learns of, from whatever
 * source, is recorded here exactly once (keyed by its receipt, and by its prompt when it answers
 * one), before anything else happens to it. A payment either credits an unpaid order it covers,
 * or stands as an exception in front of the merchant with a reason. Nothing here is deleted.
 *
 * The rules:
 * - A success with a receipt settles its order when the order is unpaid and the amount covers
 *   what is due, whatever became of the prompt (pending, timed out, given up, answer lost).
 * - A payment for an order already paid is a double payment: an exception, to refund.
 * - A prompt's payment short of what is due is an exception; amounts are compared exactly, in
 *   cents. By Paybill a shopper may pay in parts: each part is credited, and the order is paid
 *   once they add up to what is due.
 * - A payment above what is due pays the order, and stands open as overpaid until the merchant
 *   refunds or keeps the difference.
 * - A payment that names no order the shop can find is unmatched, for an admin to assign; or for
 *   its prompt, should that prompt's own status query later show it answered this payment.
 * - A success known only from the STK status query pays its order at once, and is listed as
 *   "receipt missing" until its callback brings the receipt.
 */

export type LedgerRow = typeof mpesaPayments.$inferSelect;
export type RefundRow = typeof mpesaRefunds.$inferSelect;

/** M-Pesa receipts are upper-case letters and digits; what the shop stores and compares. */
export function normaliseReceipt(receipt: string): string {
  return receipt.trim().toUpperCase();
}

/** Daraja charges whole shillings: an order's total rounded up, in cents. */
export function amountDueCents(totalCents: number): number {
  return Math.ceil(totalCents / 100) * 100;
}

export interface IncomingPayment {
  /** Null only for a success known from the STK query, which carries no receipt. */
  receipt: string | null;
  amountCents: number;
  phone: string | null;
  source: PaymentSource;
  checkoutRequestId: string | null;
  /** The body as Daraja sent it. */
  raw: string | null;
  transactionAt: Date | null;
  recordedBy?: string | null;
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

/** What a payment does to the order it names, decided under the order's row lock. */
interface Verdict {
  orderId: string | null;
  status: LedgerStatus;
  exception: PaymentException | null;
  /** The order is paid once this payment is in (false for a part payment). */
  paysOrder: boolean;
}

async function judgeAgainstOrder(
  tx: Queryable,
  orderId: string | null,
  amountCents: number,
  source: PaymentSource,
): Promise<Verdict> {
  const unmatched: Verdict = { orderId: null, status: 'exception', exception: 'unmatched', paysOrder: false };
  if (orderId === null) return unmatched;
  const [order] = await tx
    .select({ isPaid: orders.isPaid, totalCents: orders.totalCents })
    .from(orders)
    .where(eq(orders.id, orderId))
    .for('update');
  if (!order) return unmatched;
  if (order.isPaid) return { orderId, status: 'exception', exception: 'double_payment', paysOrder: false };
  // A Paybill payment may be one of several: what earlier ones credited counts towards the order.
  const already = source === 'c2b' ? await creditedCents(tx, orderId) : 0;
  const due = Math.max(0, amountDueCents(order.totalCents) - already);
  if (amountCents < due) {
    // The STK prompt asks for the whole amount, so less is odd; by Paybill it is a part payment.
    return source === 'c2b'
      ? { orderId, status: 'credited', exception: null, paysOrder: false }
      : { orderId, status: 'exception', exception: 'amount_short', paysOrder: false };
  }
  // It pays the order; what is paid beyond it is the shopper's, and the merchant must see it.
  if (amountCents > due) return { orderId, status: 'credited', exception: 'overpaid', paysOrder: true };
  return { orderId, status: 'credited', exception: null, paysOrder: true };
}

/** What the ledger has credited to an order so far, in cents. */
export async function creditedCents(tx: Queryable, orderId: string): Promise<number> {
  const [row] = await tx
    .select({ cents: sql<string | null>`sum(${mpesaPayments.amountCents})` })
    .from(mpesaPayments)
    .where(and(eq(mpesaPayments.orderId, orderId), eq(mpesaPayments.status, 'credited')));
  return Number(row?.cents ?? 0);
}

/** Marks the order paid by this payment; the shopper is mailed once its receipt is known. */
async function creditOrder(tx: Queryable, deps: LedgerDeps, orderId: string, payment: LedgerRow): Promise<void> {
  await tx
    .update(orders)
    .set({ isPaid: true, paidAt: sql`now()`, mpesaReceipt: payment.receipt, updatedAt: sql`now()` })
    .where(and(eq(orders.id, orderId), eq(orders.isPaid, false)));
  // A query-settled payment has no receipt yet: its mail waits for the callback (or for
  // notifyAwaitingReceipts, when none comes), so that it carries the receipt whenever it can.
  if (payment.receipt) await notifyPaid(tx, deps, payment);
}

/** "Payment received", once per crediting payment, with what M-Pesa charged. */
async function notifyPaid(tx: Queryable, deps: LedgerDeps, payment: LedgerRow): Promise<void> {
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
 * Records one payment against the order it names (or none), in the caller's transaction.
 * Idempotent: the same receipt, or a second answer for the same prompt, is a duplicate.
 */
export async function recordPayment(
  tx: Queryable,
  deps: LedgerDeps,
  incoming: IncomingPayment,
  orderId: string | null,
  /** Kept as this exception whatever the order: a payment the shop must not act on (unconfirmed). */
  heldAs?: PaymentException,
): Promise<RecordOutcome> {
  const payment = { ...incoming, receipt: incoming.receipt === null ? null : normaliseReceipt(incoming.receipt) };
  const existing = await findExisting(tx, payment);
  if (existing) {
    if (existing.receipt === null && payment.receipt !== null) return fillReceipt(tx, deps, existing, payment);
    // Kept unmatched when it came (its callback could not tell which prompt it answered); now
    // that its prompt is known (the same CheckoutRequestID, from the prompt's own row), it goes
    // to that prompt's order.
    const promptNowKnown =
      orderId !== null &&
      !heldAs &&
      payment.checkoutRequestId !== null &&
      existing.checkoutRequestId === payment.checkoutRequestId;
    if (promptNowKnown && existing.status === 'exception' && existing.exception === 'unmatched') {
      const row = await putOnOrder(tx, deps, existing, orderId);
      deps.log.info({ paymentId: row.id, orderId, status: row.status }, 'unmatched M-Pesa payment matched to its prompt’s order');
      return { kind: row.status === 'credited' ? 'credited' : 'exception', payment: row };
    }
    return { kind: 'duplicate', payment: existing };
  }
  const verdict: Verdict = heldAs
    ? { orderId: null, status: 'exception', exception: heldAs, paysOrder: false }
    : await judgeAgainstOrder(tx, orderId, payment.amountCents, payment.source);
  const exception = verdict.exception ?? (payment.receipt === null ? 'receipt_missing' : null);
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
    })
    .returning();
  if (!row) throw new Error('ledger insert returned nothing');
  if (verdict.paysOrder && verdict.orderId) await creditOrder(tx, deps, verdict.orderId, row);
  if (exception) countPaymentException(exception);
  // The merchant hears of a payment that needs them; a receipt still on its way is not one yet.
  if (verdict.exception) await alertException(tx, deps, row, verdict.exception);
  const level = verdict.exception ? 'warn' : 'info';
  deps.log[level](
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
      : verdict.paysOrder
        ? 'order paid with M-Pesa'
        : 'M-Pesa part payment credited to its order',
  );
  return { kind: verdict.status === 'credited' ? 'credited' : 'exception', payment: row };
}

/** Mails the merchant of a payment exception, in the transaction that recorded it. */
async function alertException(tx: Queryable, deps: LedgerDeps, row: LedgerRow, exception: PaymentException): Promise<void> {
  const [order] = row.orderId ? await tx.select({ number: orders.number }).from(orders).where(eq(orders.id, row.orderId)) : [];
  await deps.notify.paymentException(tx, {
    receipt: row.receipt,
    amount: row.amountCents / 100,
    phone: row.phone,
    exception,
    orderNumber: order?.number ?? null,
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
  if (row.orderId && row.status === 'credited') {
    await tx
      .update(orders)
      .set({ mpesaReceipt: row.receipt, updatedAt: sql`now()` })
      .where(and(eq(orders.id, row.orderId), isNull(orders.mpesaReceipt)));
    await notifyPaid(tx, deps, row);
  }
  deps.log.info({ paymentId: row.id, receipt: row.receipt, orderId: row.orderId }, 'M-Pesa receipt filled in');
  return { kind: 'receipt_filled', payment: row };
}

// ------------------------------------------------------------------------------------------------
// What admins do with the ledger
// ------------------------------------------------------------------------------------------------

/**
 * Open exceptions: still need the merchant. A payment being refunded waits for M-Pesa, not for
 * them, unless its reversal went unanswered.
 */
export const isOpenException = and(
  isNotNull(mpesaPayments.exception),
  sql`(${mpesaPayments.status} in ('exception', 'credited') or (${mpesaPayments.status} = 'refund_pending' and ${mpesaPayments.exception} = 'refund_unanswered'))`,
);

/** The same rule as isOpenException, for a row in hand. */
export function hasOpenException(row: Pick<LedgerRow, 'status' | 'exception'>): boolean {
  if (row.exception === null) return false;
  return (
    row.status === 'exception' ||
    row.status === 'credited' ||
    (row.status === 'refund_pending' && row.exception === 'refund_unanswered')
  );
}

/** The payments a ledger view keeps: the list and the CSV export alike. */
export function ledgerFilterWhere(filter: LedgerFilter): SQL | undefined {
  if (filter === 'exception') return isOpenException;
  if (filter === 'unmatched') return and(eq(mpesaPayments.exception, 'unmatched'), eq(mpesaPayments.status, 'exception'));
  return undefined;
}

/** The latest refund asked for each of these payments. */
export async function latestRefunds(db: Queryable, paymentIds: string[]): Promise<Map<string, RefundRow>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(mpesaRefunds)
    .where(inArray(mpesaRefunds.paymentId, paymentIds))
    .orderBy(mpesaRefunds.requestedAt, mpesaRefunds.id);
  // Oldest first, so the latest of each payment is the one left in the map.
  return new Map(rows.map((r) => [r.paymentId, r] as const));
}

export function toLedgerJson(
  row: LedgerRow,
  viewer: 'admin' | 'owner',
  orderNumber: string | null,
  refund: RefundRow | null = null,
): LedgerPayment {
  return {
    _id: row.id,
    receipt: row.receipt,
    amount: row.amountCents / 100,
    phone: row.phone === null ? null : viewer === 'admin' ? row.phone : maskMsisdn(row.phone),
    source: row.source as PaymentSource,
    orderId: row.orderId,
    orderNumber: row.orderId === null ? null : orderNumber,
    status: row.status as LedgerStatus,
    exception: row.exception as PaymentException | null,
    receivedAt: (row.transactionAt ?? row.createdAt).toISOString(),
    note: row.note,
    refund: refund && {
      requestedAt: refund.requestedAt.toISOString(),
      completedAt: refund.completedAt?.toISOString() ?? null,
      failureReason: refund.failureReason,
      failedAt: refund.failedAt?.toISOString() ?? null,
    },
  };
}

/** The short numbers of the orders that payments name, by order id. */
async function orderNumbersOf(db: Queryable, rows: LedgerRow[]): Promise<Map<string, string>> {
  const orderIds = [...new Set(rows.flatMap((r) => (r.orderId ? [r.orderId] : [])))];
  if (orderIds.length === 0) return new Map();
  const found = await db.select({ id: orders.id, number: orders.number }).from(orders).where(inArray(orders.id, orderIds));
  return new Map(found.map((o) => [o.id, o.number] as const));
}

/** Payments as the API shows them, each with its order's number and its latest refund. */
export async function ledgerJsonOf(db: Queryable, rows: LedgerRow[], viewer: 'admin' | 'owner'): Promise<LedgerPayment[]> {
  // One after the other: inside a transaction both go through the same connection anyway.
  const refunds = await latestRefunds(
    db,
    rows.map((r) => r.id),
  );
  const numbers = await orderNumbersOf(db, rows);
  return rows.map((r) => toLedgerJson(r, viewer, (r.orderId && numbers.get(r.orderId)) || null, refunds.get(r.id) ?? null));
}

export const LEDGER_PAGE_SIZE = 20;

export async function listLedger(db: Db, filter: LedgerFilter, pageNumber: number): Promise<LedgerPage> {
  const where = ledgerFilterWhere(filter);
  const [total] = await db.select({ n: count() }).from(mpesaPayments).where(where);
  const pages = Math.max(1, Math.ceil((total?.n ?? 0) / LEDGER_PAGE_SIZE));
  const page = Math.min(Math.max(1, pageNumber), pages);
  const rows = await db
    .select()
    .from(mpesaPayments)
    .where(where)
    .orderBy(desc(mpesaPayments.createdAt), desc(mpesaPayments.id))
    .limit(LEDGER_PAGE_SIZE)
    .offset((page - 1) * LEDGER_PAGE_SIZE);
  return { payments: await ledgerJsonOf(db, rows, 'admin'), page, pages };
}

export async function openExceptionCounts(db: Queryable): Promise<Record<string, number>> {
  const rows = await db
    .select({ exception: mpesaPayments.exception, n: count() })
    .from(mpesaPayments)
    .where(isOpenException)
    .groupBy(mpesaPayments.exception);
  return Object.fromEntries(rows.map((r) => [r.exception ?? 'none', r.n]));
}

export async function paymentsOfOrder(db: Queryable, orderId: string): Promise<LedgerRow[]> {
  return db.select().from(mpesaPayments).where(eq(mpesaPayments.orderId, orderId)).orderBy(mpesaPayments.createdAt);
}

export async function lockPayment(tx: Queryable, id: string): Promise<LedgerRow> {
  const [row] = await tx.select().from(mpesaPayments).where(eq(mpesaPayments.id, id)).for('update');
  if (!row) throw notFound('Payment not found');
  return row;
}

/** How an admin names an order: by its id, or by its number (the Paybill account on the statement). */
export type OrderReference = AssignPaymentBody;

/** The id of the order an admin named; 404 when there is none. */
async function namedOrderId(tx: Queryable, named: OrderReference): Promise<string> {
  if (named.orderId === undefined) {
    const order = await orderWithNumber(tx, named.orderNumber ?? '');
    if (!order) throw notFound(`No order has the number ${named.orderNumber}`);
    return order.id;
  }
  const [order] = await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, named.orderId));
  if (!order) throw notFound('Order not found');
  return order.id;
}

/** A payment that paid no order is judged against one: an admin's assignment, or its prompt found late. */
async function putOnOrder(tx: Queryable, deps: LedgerDeps, payment: LedgerRow, orderId: string): Promise<LedgerRow> {
  const verdict = await judgeAgainstOrder(tx, orderId, payment.amountCents, payment.source as PaymentSource);
  const exception = verdict.exception ?? (payment.receipt === null ? 'receipt_missing' : null);
  const [row] = await tx
    .update(mpesaPayments)
    .set({ orderId, status: verdict.status, exception, updatedAt: sql`now()` })
    .where(eq(mpesaPayments.id, payment.id))
    .returning();
  if (!row) throw new Error('ledger update returned nothing');
  if (verdict.paysOrder) await creditOrder(tx, deps, orderId, row);
  if (exception) countPaymentException(exception);
  return row;
}

/** An admin gives an unmatched (or unconfirmed) payment its order; it settles the order if it covers what is due. */
export async function assignPayment(db: Db, deps: LedgerDeps, paymentId: string, named: OrderReference): Promise<LedgerPayment> {
  return db.transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    // Only a payment that pays no order: unmatched, or unconfirmed and found on the M-Pesa statement.
    if (payment.status !== 'exception' || (payment.exception !== 'unmatched' && payment.exception !== 'unconfirmed')) {
      throw conflict('Only an unmatched or unconfirmed payment can be assigned to an order');
    }
    const orderId = await namedOrderId(tx, named);
    const row = await putOnOrder(tx, deps, payment, orderId);
    deps.log.info({ paymentId, orderId, status: row.status, exception: row.exception }, 'M-Pesa payment assigned to an order');
    return (await ledgerJsonOf(tx, [row], 'admin'))[0] as LedgerPayment;
  });
}

/** An admin closes an exception with a note (refunded by hand, kept as credit, checked, …). */
export async function resolvePayment(db: Db, deps: LedgerDeps, paymentId: string, note: string): Promise<LedgerPayment> {
  return db.transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    if (!hasOpenException(payment)) throw conflict('This payment has no open exception');
    if (payment.exception === 'refund_unanswered') {
      throw badRequest(
        'Say whether your M-Pesa statement shows the reversal: refunded true (the money went back) or false (it did not).',
        'refunded',
      );
    }
    const [row] = await tx
      .update(mpesaPayments)
      .set({ status: 'resolved', note, resolvedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(mpesaPayments.id, paymentId))
      .returning();
    if (!row) throw new Error('ledger update returned nothing');
    // A query-settled payment whose receipt never came: the shopper still gets their mail.
    if (payment.exception === 'receipt_missing' && payment.status === 'credited') await notifyPaid(tx, deps, payment);
    deps.log.info({ paymentId, exception: payment.exception }, 'M-Pesa payment exception resolved');
    return (await ledgerJsonOf(tx, [row], 'admin'))[0] as LedgerPayment;
  });
}

/** An admin records a payment from the merchant's M-Pesa statement, with its receipt. */
export async function recordManualPayment(
  db: Db,
  deps: LedgerDeps,
  adminId: string,
  input: ManualPaymentBody,
): Promise<LedgerPayment> {
  const amountCents = Math.round(input.amount * 100);
  if (Math.abs(amountCents - input.amount * 100) > 1e-6) throw badRequest('Amount has at most two decimals', 'amount');
  const phone = input.phone ? normaliseMsisdn(input.phone) : null;
  if (input.phone && !phone) throw badRequest('Enter a Safaricom number like 0712345678 or +254712345678', 'phone');
  return db.transaction(async (tx) => {
    const orderId = await namedOrderId(tx, input);
    const outcome = await recordPayment(
      tx,
      deps,
      {
        receipt: input.receipt,
        amountCents,
        phone,
        source: 'manual',
        checkoutRequestId: null,
        raw: null,
        transactionAt: null,
        recordedBy: adminId,
      },
      orderId,
    );
    if (outcome.kind === 'duplicate') {
      throw conflict('This M-Pesa receipt is already recorded: find it in the payments list', 'receipt');
    }
    return (await ledgerJsonOf(tx, [outcome.payment], 'admin'))[0] as LedgerPayment;
  });
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

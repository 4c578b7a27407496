import { and, count, desc, eq, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import { maskMsisdn } from '../../../shared/phone.js';
import type {
  LedgerFilter,
  LedgerPage,
  LedgerPayment,
  LedgerStatus,
  PaymentException,
  PaymentSource,
} from '../../../shared/schemas/payments.js';
import type { Db, Queryable } from '../../db/client.js';
import { mpesaPayments, mpesaRefunds, orders } from '../../db/schema.js';
import type { LedgerRow, RefundRow } from './ledger.js';

/**
 * The ledger as it is shown: which payments still need the merchant, the lists and their filters,
 * and each payment as the API gives it to an admin or to the shopper who paid.
 */

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
  if (filter === 'unconfirmed') return inArray(mpesaPayments.exception, ['unconfirmed', 'other_shortcode']);
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
  const admin = viewer === 'admin';
  return {
    _id: row.id,
    receipt: row.receipt,
    amount: row.amountCents / 100,
    phone: row.phone === null ? null : admin ? row.phone : maskMsisdn(row.phone),
    source: row.source as PaymentSource,
    orderId: row.orderId,
    orderNumber: row.orderId === null ? null : orderNumber,
    status: row.status as LedgerStatus,
    // The merchant's notes and the ledger's internal codes are the merchant's: a shopper sees
    // what they paid and where the money stands, never why the merchant looked at it.
    exception: admin ? (row.exception as PaymentException | null) : null,
    receivedAt: (row.transactionAt ?? row.createdAt).toISOString(),
    note: admin ? row.note : null,
    recordedAmount: admin && row.recordedAmountCents !== null ? row.recordedAmountCents / 100 : null,
    detail: admin ? row.detail : null,
    refund: refund && {
      requestedAt: refund.requestedAt.toISOString(),
      completedAt: refund.completedAt?.toISOString() ?? null,
      failureReason: admin ? refund.failureReason : null,
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

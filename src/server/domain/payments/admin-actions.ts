import { eq, sql } from 'drizzle-orm';
import { normaliseMsisdn } from '../../../shared/phone.js';
import type { AssignPaymentBody, LedgerPayment, ManualPaymentBody } from '../../../shared/schemas/payments.js';
import type { Db, Queryable } from '../../db/client.js';
import { mpesaPayments, orders } from '../../db/schema.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import { ORDER_NOT_FOUND, orderWithNumber } from '../orders.js';
import { heldCents, stillDueCents } from './coverage.js';
import { type LedgerDeps, lockPayment, notifyPaid, putOnOrder, recordPayment } from './ledger.js';
import { hasOpenException, ledgerJsonOf } from './ledger-views.js';

/**
 * What admins do with the ledger: assign a payment to an order, resolve an exception with a note,
 * record a payment from the M-Pesa statement, and "Mark As Paid". Each records its fact through
 * the ledger (ledger.ts), which asks coverage.ts whether the order is paid.
 */

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

/**
 * An admin gives an unmatched payment its order, or confirms an unconfirmed one from the M-Pesa
 * statement (on its own order or another): it is judged against the order as if it had just come.
 */
export async function assignPayment(db: Db, deps: LedgerDeps, paymentId: string, named: OrderReference): Promise<LedgerPayment> {
  return db.transaction(async (tx) => {
    const payment = await lockPayment(tx, paymentId);
    // Only a payment that pays no order: unmatched, or unconfirmed and found on the M-Pesa statement.
    const assignable = payment.exception === 'unmatched' || payment.exception === 'unconfirmed';
    if (!assignable || (payment.status !== 'exception' && payment.status !== 'resolved')) {
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

/**
 * An admin's "Mark As Paid" (no receipt: cash, a payment found elsewhere): recorded as a manual
 * payment of what is still due, without a receipt, so that the order is paid by the one rule.
 */
export async function markPaidByAdmin(db: Db, deps: LedgerDeps, orderId: string, adminId: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    const [order] = await tx
      .select({ isPaid: orders.isPaid, totalCents: orders.totalCents })
      .from(orders)
      .where(eq(orders.id, orderId))
      .for('update');
    if (!order) throw notFound(ORDER_NOT_FOUND);
    const due = stillDueCents(order.totalCents, await heldCents(tx, orderId));
    if (order.isPaid || due === 0) throw badRequest('Order is already paid');
    const outcome = await recordPayment(
      tx,
      deps,
      {
        receipt: null,
        amountCents: due,
        phone: null,
        source: 'manual',
        checkoutRequestId: null,
        raw: null,
        transactionAt: null,
        recordedBy: adminId,
        note: MARKED_PAID_NOTE,
      },
      orderId,
    );
    await notifyPaid(tx, deps, outcome.payment);
  });
}

/** The note on the payment an admin's "Mark As Paid" records. */
export const MARKED_PAID_NOTE = 'Marked as paid by an admin, without an M-Pesa receipt';

import { and, asc, eq, inArray, ne, notInArray, type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { mpesaPayments, orders } from '../../db/schema.js';

/**
 * The one rule of the ledger: an order is paid if and only if the money held for it covers its
 * total. This file is the only code that sets or clears `orders.is_paid`.
 *
 * Money held for an order is the sum of its payments that have not been refunded, whatever their
 * status (credited, an open or resolved exception, a refund on its way) or source, except those
 * M-Pesa has not confirmed: an unconfirmed payment pays nothing. Every path that learns a fact
 * (a payment, an assignment, M-Pesa's word on an amount, a refund's result) records it and then
 * calls `settleOrder`, which applies the rule. No path decides "paid" by itself.
 */

type PaymentRow = typeof mpesaPayments.$inferSelect;

/** Daraja charges whole shillings: what covers an order is its total rounded up, in cents. */
export function amountDueCents(totalCents: number): number {
  return Math.ceil(totalCents / 100) * 100;
}

/** Money M-Pesa has not confirmed to the shop: it counts for nothing until it is. */
export const NOT_CONFIRMED: readonly string[] = ['unconfirmed', 'other_shortcode'];

/** Payments the shop holds without acting on them: not confirmed by M-Pesa, or of an unreadable amount. */
const HELD: readonly string[] = [...NOT_CONFIRMED, 'bad_amount'];

/** Whether a payment is held: it is neither counted as confirmed money nor sent back. */
export function isHeld(payment: Pick<PaymentRow, 'exception'>): boolean {
  return payment.exception !== null && HELD.includes(payment.exception);
}

/** Whether a payment's money counts towards the order it names. */
export function countsTowardsOrder(payment: Pick<PaymentRow, 'status' | 'exception'>): boolean {
  return payment.status !== 'refunded' && !(payment.exception !== null && NOT_CONFIRMED.includes(payment.exception));
}

/** The same rule as countsTowardsOrder, for SQL. */
export const countsTowardsOrderSql = and(
  ne(mpesaPayments.status, 'refunded'),
  notInArray(sql`coalesce(${mpesaPayments.exception}, '')`, [...NOT_CONFIRMED]),
) as SQL;

/** The money held for an order, from its payments in hand. */
export function heldCentsOf(payments: Pick<PaymentRow, 'status' | 'exception' | 'amountCents'>[]): number {
  return payments.filter(countsTowardsOrder).reduce((sum, p) => sum + p.amountCents, 0);
}

/** The money held for an order, in cents, read in the caller's transaction. */
export async function heldCents(tx: Queryable, orderId: string): Promise<number> {
  const [row] = await tx
    .select({ cents: sql<string | null>`sum(${mpesaPayments.amountCents})` })
    .from(mpesaPayments)
    .where(and(eq(mpesaPayments.orderId, orderId), countsTowardsOrderSql));
  return Number(row?.cents ?? 0);
}

/** What is still due on an order, in cents (never below zero). */
export function stillDueCents(totalCents: number, heldCents: number): number {
  return Math.max(0, amountDueCents(totalCents) - heldCents);
}

/** Exceptions that only say "this money was not needed to pay the order": closed once it is. */
const CLOSED_WHEN_PAYING = ['double_payment', 'amount_short'];

export interface Settlement {
  isPaid: boolean;
  /** The order became paid, or stopped being paid, with this call. */
  changed: boolean;
  /** The payment whose money completed the cover, when the order became paid now. */
  paidBy: PaymentRow | null;
}

/**
 * Applies the rule to one order, under its row lock, in the caller's transaction: marks it paid
 * or unpaid as its money says. When it is covered, the payments that make up the cover (those
 * already paying first, then the others, each in the order they came) are the ones that pay it: one held as a double payment or as short becomes
 * credited and its exception is closed (after the payment that had paid the order is refunded,
 * say). The payments beyond the cover keep their exception for the merchant.
 */
export async function settleOrder(tx: Queryable, orderId: string): Promise<Settlement> {
  const [order] = await tx
    .select({ isPaid: orders.isPaid, totalCents: orders.totalCents, mpesaReceipt: orders.mpesaReceipt })
    .from(orders)
    .where(eq(orders.id, orderId))
    .for('update');
  if (!order) return { isPaid: false, changed: false, paidBy: null };
  // The money already paying comes first, then what is held beside it, each in the order it came:
  // a payment confirmed late (a Paybill payment waiting for Transaction Status while a prompt paid
  // the order) joins the cover only if the order needs it, and otherwise stays a double payment.
  const payments = await tx
    .select()
    .from(mpesaPayments)
    .where(and(eq(mpesaPayments.orderId, orderId), countsTowardsOrderSql))
    .orderBy(
      sql`(${mpesaPayments.exception} is not null and ${mpesaPayments.exception} in ('double_payment', 'amount_short'))`,
      asc(mpesaPayments.createdAt),
      asc(mpesaPayments.id),
    )
    .for('update');
  const due = amountDueCents(order.totalCents);
  const covering: PaymentRow[] = [];
  let held = 0;
  for (const payment of payments) {
    if (held >= due) break;
    held += payment.amountCents;
    covering.push(payment);
  }
  const covered = held >= due;

  if (covered) {
    const promote = covering.filter((p) => p.exception !== null && CLOSED_WHEN_PAYING.includes(p.exception)).map((p) => p.id);
    if (promote.length > 0) {
      await tx
        .update(mpesaPayments)
        .set({ status: 'credited', exception: null, updatedAt: sql`now()` })
        .where(and(inArray(mpesaPayments.id, promote), ne(mpesaPayments.status, 'refund_pending')));
    }
  }

  const paidBy = covered ? (covering.at(-1) ?? null) : null;
  const receipt = covering.find((p) => p.receipt !== null)?.receipt ?? null;
  if (covered === order.isPaid) {
    // Still paid: the receipt shown is one of the money that pays it now.
    if (covered && order.mpesaReceipt !== receipt && !covering.some((p) => p.receipt === order.mpesaReceipt)) {
      await tx.update(orders).set({ mpesaReceipt: receipt, updatedAt: sql`now()` }).where(eq(orders.id, orderId));
    }
    return { isPaid: covered, changed: false, paidBy: null };
  }
  await tx
    .update(orders)
    .set(
      covered
        ? { isPaid: true, paidAt: sql`now()`, mpesaReceipt: receipt, updatedAt: sql`now()` }
        : { isPaid: false, paidAt: null, mpesaReceipt: null, updatedAt: sql`now()` },
    )
    .where(eq(orders.id, orderId));
  return { isPaid: covered, changed: true, paidBy };
}

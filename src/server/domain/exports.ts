import { and, asc, desc, eq, inArray, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { nairobiSecond } from '../../shared/dates.js';
import { fromCents, twoDecimals } from '../../shared/money.js';
import type { OrderFilters } from '../../shared/schemas/orders.js';
import type { LedgerFilter } from '../../shared/schemas/payments.js';
import { nameWithVariant } from '../../shared/variant-names.js';
import type { Db } from '../db/client.js';
import { mpesaPayments, orderItems, orders, users } from '../db/schema.js';
import type { CsvCell } from '../http/csv.js';
import { orderListWhere } from './orders.js';
import { ledgerFilterWhere } from './payments/ledger-views.js';

/**
 * Rows read per query. An export walks its rows newest first a batch at a time, each batch
 * starting after the last row of the one before (keyset paging, no OFFSET), so 100,000 rows cost
 * 100 reads of the same price and one batch in memory.
 */
export const EXPORT_BATCH_SIZE = 1000;

/** Where a batch resumes: the last row's creation time as PostgreSQL wrote it (to the microsecond) and id. */
interface Cursor {
  createdAt: string;
  id: string;
}

/** Rows after the cursor, newest first: the created_at bound is what the index seeks on, the id breaks ties. */
function after(createdAt: AnyPgColumn, id: AnyPgColumn, cursor: Cursor | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const at = sql`${cursor.createdAt}::timestamptz`;
  return and(lte(createdAt, at), or(lt(createdAt, at), lt(id, sql`${cursor.id}::uuid`)));
}

const money = (cents: number) => twoDecimals(fromCents(cents));
const yesNo = (flag: boolean) => (flag ? 'Yes' : 'No');

export const ORDER_CSV_HEADER = [
  'Order number',
  'Order id',
  'Placed (EAT)',
  'Customer',
  'Email',
  'Phone',
  'County',
  'Sub county',
  'Ward',
  'Postal code',
  'Items',
  'Items (Ksh)',
  'Shipping (Ksh)',
  'Tax (Ksh)',
  'Total (Ksh)',
  'Paid',
  'Paid at (EAT)',
  'M-Pesa receipt',
  'Delivered',
  'Delivered at (EAT)',
];

/** One row per order, as the admin order list filters them, newest first; lines as "2 × Name; 1 × Other (Size 42 / Black)". */
export async function* orderCsvRows(db: Db, filters: OrderFilters): AsyncGenerator<CsvCell[]> {
  const where = orderListWhere(filters);
  let cursor: Cursor | undefined;
  for (;;) {
    const batch = await db
      .select({
        order: orders,
        cursor: sql<string>`${orders.createdAt}::text`,
        customerName: users.name,
        customerEmail: users.email,
      })
      .from(orders)
      .leftJoin(users, eq(users.id, orders.userId))
      .where(and(where, after(orders.createdAt, orders.id, cursor)))
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .limit(EXPORT_BATCH_SIZE);
    if (batch.length === 0) return;
    const lines = await db
      .select({ orderId: orderItems.orderId, name: orderItems.name, variant: orderItems.variant, qty: orderItems.qty })
      .from(orderItems)
      .where(
        inArray(
          orderItems.orderId,
          batch.map((row) => row.order.id),
        ),
      )
      .orderBy(asc(orderItems.orderId), asc(orderItems.position));
    const itemsOf = new Map<string, string[]>();
    for (const line of lines) {
      const item = `${line.qty} × ${nameWithVariant(line.name, line.variant)}`;
      itemsOf.set(line.orderId, [...(itemsOf.get(line.orderId) ?? []), item]);
    }
    for (const { order, customerName, customerEmail } of batch) {
      yield [
        order.number,
        order.id,
        nairobiSecond(order.createdAt),
        customerName,
        customerEmail,
        order.phoneNumber,
        order.county,
        order.subCounty,
        order.ward,
        order.postalCode,
        (itemsOf.get(order.id) ?? []).join('; '),
        money(order.itemsCents),
        money(order.shippingCents),
        money(order.taxCents),
        money(order.totalCents),
        yesNo(order.isPaid),
        nairobiSecond(order.paidAt),
        order.mpesaReceipt,
        yesNo(order.isDelivered),
        nairobiSecond(order.deliveredAt),
      ];
    }
    if (batch.length < EXPORT_BATCH_SIZE) return;
    const last = batch[batch.length - 1];
    cursor = last && { createdAt: last.cursor, id: last.order.id };
  }
}

export const PAYMENT_CSV_HEADER = [
  'Receipt',
  'Amount (Ksh)',
  'Phone',
  'Source',
  'Status',
  'Exception',
  'Order number',
  'Order id',
  'Received (EAT)',
  'Recorded (EAT)',
  'Note',
];

/** One row per ledger payment, as the admin payments list filters them (all, open exceptions, unmatched), newest first. */
export async function* paymentCsvRows(db: Db, filter: LedgerFilter): AsyncGenerator<CsvCell[]> {
  const where = ledgerFilterWhere(filter);
  let cursor: Cursor | undefined;
  for (;;) {
    const batch = await db
      .select({ payment: mpesaPayments, cursor: sql<string>`${mpesaPayments.createdAt}::text`, orderNumber: orders.number })
      .from(mpesaPayments)
      .leftJoin(orders, eq(orders.id, mpesaPayments.orderId))
      .where(and(where, after(mpesaPayments.createdAt, mpesaPayments.id, cursor)))
      .orderBy(desc(mpesaPayments.createdAt), desc(mpesaPayments.id))
      .limit(EXPORT_BATCH_SIZE);
    for (const { payment, orderNumber } of batch) {
      yield [
        payment.receipt,
        money(payment.amountCents),
        payment.phone,
        payment.source,
        payment.status,
        payment.exception,
        orderNumber,
        payment.orderId,
        nairobiSecond(payment.transactionAt ?? payment.createdAt),
        nairobiSecond(payment.createdAt),
        payment.note,
      ];
    }
    if (batch.length < EXPORT_BATCH_SIZE) return;
    const last = batch[batch.length - 1];
    cursor = last && { createdAt: last.cursor, id: last.payment.id };
  }
}

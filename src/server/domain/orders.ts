import { and, asc, desc, eq, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import { ADMIN_LIST_PAGE_SIZE, MAX_LINE_QTY, PAYMENT_METHOD } from '../../shared/constants.js';
import { formatKsh, fromCents, toCents } from '../../shared/money.js';
import { normaliseOrderNumber } from '../../shared/order-number.js';
import { orderTotals } from '../../shared/pricing.js';
import {
  type CreateOrderBody,
  dayEnd,
  dayStart,
  type Order,
  type OrderFilters,
  type OrderListQuery,
  type OrderPage,
} from '../../shared/schemas/orders.js';
import type { Db, Queryable } from '../db/client.js';
import { containing, startingWith } from '../db/like.js';
import { orderItems, orders, users } from '../db/schema.js';
import { badRequest, isUniqueViolation, notFound } from '../errors.js';
import type { Notifications } from '../mail/notifications.js';
import type { CatalogueChanges } from './catalogue-changes.js';
import { drawOrderNumber } from './order-number.js';
import { giveBackStock, lineKey, type SoldLine, type StockLine, takeStock } from './order-stock.js';
import { assertOrderHasNoPayments } from './payments/ledger.js';
import type { SessionUser } from './sessions.js';
import { pricingOf, readSettings } from './settings.js';

type OrderRow = typeof orders.$inferSelect;
type OrderItemRow = typeof orderItems.$inferSelect;
type Customer = { id: string; name: string; email: string } | null;

export const ORDER_NOT_FOUND = 'Order not found';

function toOrderJson(row: OrderRow, customer: Customer, items: OrderItemRow[]): Order {
  return {
    _id: row.id,
    orderNumber: row.number,
    user: customer && { _id: customer.id, name: customer.name, email: customer.email },
    orderItems: items.map((item) => ({
      _id: item.productId,
      name: item.name,
      image: item.image,
      qty: item.qty,
      price: fromCents(item.priceCents),
      // Only a line of a variant says which, as it was sold.
      ...(item.variantId && { variantId: item.variantId, variant: item.variant ?? '', sku: item.sku }),
    })),
    shippingAddress: {
      county: row.county,
      phoneNumber: row.phoneNumber,
      postalCode: row.postalCode,
      sub_county: row.subCounty,
      ward: row.ward,
    },
    paymentMethod: row.paymentMethod,
    itemsPrice: fromCents(row.itemsCents),
    shippingPrice: fromCents(row.shippingCents),
    taxPrice: fromCents(row.taxCents),
    totalPrice: fromCents(row.totalCents),
    isPaid: row.isPaid,
    paidAt: row.paidAt?.toISOString() ?? null,
    mpesaReceipt: row.mpesaReceipt,
    isDelivered: row.isDelivered,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Loads orders with their customers and lines in three queries, whatever their number. */
async function loadOrders(db: Queryable, where: SQL | undefined): Promise<Order[]> {
  const rows = await db
    .select({ order: orders, customer: { id: users.id, name: users.name, email: users.email } })
    .from(orders)
    .leftJoin(users, eq(users.id, orders.userId))
    .where(where)
    .orderBy(desc(orders.createdAt), desc(orders.id));
  if (rows.length === 0) return [];
  const items = await db
    .select()
    .from(orderItems)
    .where(
      inArray(
        orderItems.orderId,
        rows.map((r) => r.order.id),
      ),
    )
    .orderBy(asc(orderItems.position));
  const itemsByOrder = new Map<string, OrderItemRow[]>();
  for (const item of items) itemsByOrder.set(item.orderId, [...(itemsByOrder.get(item.orderId) ?? []), item]);
  return rows.map((r) => toOrderJson(r.order, r.customer, itemsByOrder.get(r.order.id) ?? []));
}

async function loadOrder(db: Queryable, id: string): Promise<Order | undefined> {
  const [order] = await loadOrders(db, eq(orders.id, id));
  return order;
}

/**
 * The order a typed number names (the Paybill account number of a payment, or what an admin
 * reads off the M-Pesa statement), ignoring case, spaces and dashes.
 */
export async function orderWithNumber(
  db: Queryable,
  typed: string,
): Promise<{ id: string; isPaid: boolean; totalCents: number } | undefined> {
  const number = normaliseOrderNumber(typed);
  if (!number) return undefined;
  const [order] = await db
    .select({ id: orders.id, isPaid: orders.isPaid, totalCents: orders.totalCents })
    .from(orders)
    .where(eq(orders.number, number));
  return order;
}

/** An order as the API answers it; 404 when there is none. */
export async function loadExistingOrder(db: Queryable, id: string): Promise<Order> {
  const order = await loadOrder(db, id);
  if (!order) throw notFound(ORDER_NOT_FOUND);
  return order;
}

/** An amount in Ksh as whole cents; undefined when it has fractions of a cent (no order's total does). */
function exactCents(ksh: number): number | undefined {
  const cents = Math.round(ksh * 100);
  return Math.abs(cents - ksh * 100) < 1e-6 ? cents : undefined;
}

/**
 * Whether a payment prompt's Amount is what an order asks: the whole shillings M-Pesa charges
 * (its total rounded up), or its total with the cents, as a client sends it that pays the order's
 * totalPrice (3203.85 for an order due Ksh 3,204). Compared in integer cents, never as floats.
 */
export function amountPaysOrder(amount: number, totalCents: number): boolean {
  const cents = exactCents(amount);
  return cents !== undefined && (cents === totalCents || cents === Math.ceil(totalCents / 100) * 100);
}

/**
 * The order a payment prompt without an order id pays (the stkpush body of docs/product-rules.md, API, is only phoneNumber and
 * Amount): the caller's most recent unpaid order whose Amount it is, as amountPaysOrder decides.
 */
export async function unpaidOrderForAmount(db: Db, customerId: string, amount: number): Promise<string> {
  const cents = exactCents(amount);
  const [order] =
    cents === undefined || cents <= 0
      ? []
      : await db
          .select({ id: orders.id })
          .from(orders)
          .where(
            and(
              eq(orders.userId, customerId),
              eq(orders.isPaid, false),
              // Integer division: (total + 99) / 100 is the total rounded up to whole shillings.
              or(eq(orders.totalCents, cents), sql`(${orders.totalCents} + 99) / 100 * 100 = ${cents}`),
            ),
          )
          .orderBy(desc(orders.createdAt), desc(orders.id))
          .limit(1);
  if (!order) {
    throw badRequest(
      `None of your unpaid orders comes to ${formatKsh(amount)}. Open the order you want to pay and pay its total.`,
      'Amount',
    );
  }
  return order.id;
}

/**
 * Adds up the lines of one product (or one variant of it), so a product listed twice is checked
 * against its stock once; two variants of a product stay two lines. In the order rows are taken:
 * by product id, then variant id, so concurrent orders never wait on each other in a cycle.
 */
function mergeLines(lines: CreateOrderBody['orderItems']): StockLine[] {
  const merged = new Map<string, StockLine>();
  for (const line of lines) {
    const key = lineKey(line._id, line.variantId);
    const qty = (merged.get(key)?.qty ?? 0) + line.qty;
    if (qty > MAX_LINE_QTY) throw badRequest(`Quantity must be at most ${MAX_LINE_QTY}`, 'orderItems');
    merged.set(key, { productId: line._id, variantId: line.variantId, qty });
  }
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, line]) => line);
}

/** The order this shopper already placed with this Idempotency-Key, if any. */
async function orderPlacedWithKey(db: Queryable, userId: string, idempotencyKey: string): Promise<Order | undefined> {
  const [earlier] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.userId, userId), eq(orders.idempotencyKey, idempotencyKey)));
  return earlier ? loadExistingOrder(db, earlier.id) : undefined;
}

/**
 * Places an order: every price comes from the catalogue (what the client sends is ignored) and
 * the shipping and tax from the settings as committed when the order is priced, inside its
 * transaction; the order keeps those figures whatever the settings become. Each line's stock is
 * taken in the same transaction with a conditional update, so two shoppers can never both buy the
 * last unit. Any line that cannot be filled rolls back the lot.
 *
 * With an idempotency key, a repeat of the request answers the order the first one placed, whatever
 * its body: the first answer may have been lost on the way (a dropped mobile connection, an
 * instance stopping under nginx), and the shopper must not pay for two orders.
 */
export async function placeOrder(
  db: Db,
  changes: CatalogueChanges,
  customer: SessionUser,
  body: CreateOrderBody,
  notify: Notifications,
  idempotencyKey?: string,
): Promise<{ order: Order; repeated: boolean }> {
  if (idempotencyKey) {
    const earlier = await orderPlacedWithKey(db, customer.id, idempotencyKey);
    if (earlier) return { order: earlier, repeated: true };
  }
  try {
    return { order: await placeNewOrder(db, changes, customer, body, notify, idempotencyKey), repeated: false };
  } catch (error) {
    // The same key from a request still running when this one began: its order, now committed,
    // is the answer, and this attempt's stock went back with its rollback.
    if (idempotencyKey && isUniqueViolation(error, 'orders_idempotency_idx')) {
      const earlier = await orderPlacedWithKey(db, customer.id, idempotencyKey);
      if (earlier) return { order: earlier, repeated: true };
    }
    throw error;
  }
}

async function placeNewOrder(
  db: Db,
  changes: CatalogueChanges,
  customer: SessionUser,
  body: CreateOrderBody,
  notify: Notifications,
  idempotencyKey: string | undefined,
): Promise<Order> {
  const lines = mergeLines(body.orderItems);
  const productIds = [...new Set(lines.map((line) => line.productId))];

  const placed = await db.transaction(async (tx) => {
    const settings = await readSettings(tx);
    const sold: SoldLine[] = [];
    for (const line of lines) sold.push(await takeStock(tx, line));

    const totals = orderTotals(
      sold.map((line) => ({ price: fromCents(line.priceCents), qty: line.qty })),
      pricingOf(settings),
    );
    const address = body.shippingAddress;
    // A repeated number (about one in a trillion per order) is drawn again, without aborting the transaction.
    let created: { id: string } | undefined;
    for (let attempt = 0; !created; attempt += 1) {
      if (attempt === 5) throw new Error('Could not draw an unused order number');
      [created] = await tx
        .insert(orders)
        .values({
          number: drawOrderNumber(),
          userId: customer.id,
          county: address.county,
          phoneNumber: address.phoneNumber,
          postalCode: address.postalCode,
          subCounty: address.sub_county,
          ward: address.ward,
          paymentMethod: PAYMENT_METHOD,
          itemsCents: toCents(totals.itemsPrice),
          shippingCents: toCents(totals.shippingPrice),
          taxCents: toCents(totals.taxPrice),
          totalCents: toCents(totals.totalPrice),
          idempotencyKey,
        })
        .onConflictDoNothing({ target: orders.number })
        .returning({ id: orders.id });
    }
    // Lines keep the order the shopper listed them in.
    const position = new Map(body.orderItems.map((line, index) => [lineKey(line._id, line.variantId), index] as const).reverse());
    const placeOf = (line: SoldLine) => position.get(lineKey(line.productId, line.variantId ?? undefined)) ?? 0;
    sold.sort((a, b) => placeOf(a) - placeOf(b));
    await tx.insert(orderItems).values(
      sold.map((line, index) => ({
        orderId: created.id,
        productId: line.productId,
        position: index,
        name: line.name,
        image: line.image,
        qty: line.qty,
        priceCents: line.priceCents,
        variantId: line.variantId,
        variant: line.variant,
        sku: line.sku,
      })),
    );
    const order = await loadExistingOrder(tx, created.id);
    await notify.orderPlaced(tx, order);
    // By product, at what it has left after the whole order: the least its lines saw (a product's
    // variants' lines take from its total in turn).
    const left = new Map<string, SoldLine>();
    for (const line of sold) {
      const seen = left.get(line.productId);
      if (!seen || line.left < seen.left) left.set(line.productId, line);
    }
    const low = [...left.values()].filter((line) => line.left <= settings.lowStockThreshold);
    if (low.length > 0) {
      await notify.lowStock(
        tx,
        order,
        low.map((line) => ({ productId: line.productId, name: line.name, countInStock: line.left })),
      );
    }
    return order;
  });
  // Stock only: no list shows other products or another order because of it.
  await changes.committed({ products: productIds, listing: false });
  return placed;
}

/** Owners and admins see an order; to anyone else it does not exist. */
export async function getOrderFor(db: Db, viewer: SessionUser, id: string): Promise<Order> {
  const order = await loadOrder(db, id);
  if (!order || (!viewer.isAdmin && order.user?._id !== viewer.id)) throw notFound(ORDER_NOT_FOUND);
  return order;
}

export function listCustomerOrders(db: Db, userId: string): Promise<Order[]> {
  return loadOrders(db, eq(orders.userId, userId));
}

/** Every order, newest first: the admin list's plain answer, without parameters. */
export function listAllOrders(db: Db): Promise<Order[]> {
  return loadOrders(db, undefined);
}

/** The same phone in the other way Kenyans write it: 0712… and 254712… (a + dropped). */
function phoneSpellings(digits: string): string[] {
  if (digits.startsWith('254')) return [digits, `0${digits.slice(3)}`];
  if (digits.startsWith('0')) return [digits, `254${digits.slice(1)}`];
  return [digits];
}

/**
 * What an admin's search matches: the order number (as the shopper reads it out: case, spaces and
 * dashes ignored), an order id from its first characters, part of the shopper's name or email (any
 * case), or part of the phone the order ships to. Each has an index (orders_number_idx, migration
 * 0010); the shopper's part is a semi-join on the users' indexes.
 */
function orderSearch(keyword: string): SQL {
  const kw = keyword.toLowerCase();
  const contains = containing(kw);
  const matches: SQL[] = [
    sql`${orders.userId} IN (SELECT u.id FROM ${users} u WHERE lower(u.name) LIKE ${contains} OR u.email LIKE ${contains})`,
  ];
  const number = normaliseOrderNumber(keyword);
  if (number) matches.push(eq(orders.number, number));
  if (/^[0-9a-f-]+$/.test(kw)) matches.push(sql`${orders.id}::text LIKE ${startingWith(kw)}`);
  const digits = kw.replace(/[\s+()-]/g, '');
  if (/^\d{3,}$/.test(digits)) {
    for (const phone of phoneSpellings(digits)) matches.push(sql`${orders.phoneNumber} LIKE ${`%${phone}%`}`);
  }
  return sql`(${sql.join(matches, sql` OR `)})`;
}

/** The orders the admin list's filters and search keep; the CSV export keeps the same. */
export function orderListWhere(query: OrderFilters): SQL | undefined {
  return and(
    query.isPaid === undefined ? undefined : eq(orders.isPaid, query.isPaid),
    query.isDelivered === undefined ? undefined : eq(orders.isDelivered, query.isDelivered),
    query.from ? gte(orders.createdAt, dayStart(query.from)) : undefined,
    query.to ? lt(orders.createdAt, dayEnd(query.to)) : undefined,
    query.keyword ? orderSearch(query.keyword) : undefined,
  );
}

/** One page of the admin order list, newest first, with its filters and search. */
export async function listOrdersPage(db: Db, query: OrderListQuery): Promise<OrderPage> {
  const where = orderListWhere(query);
  const page = query.pageNumber ?? 1;
  const [counted] = await db.select({ count: sql<number>`count(*)::int` }).from(orders).where(where);
  const count = counted?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / ADMIN_LIST_PAGE_SIZE));
  const offset = (page - 1) * ADMIN_LIST_PAGE_SIZE;
  if (offset >= count) return { orders: [], page, pages };
  const ids = await db
    .select({ id: orders.id })
    .from(orders)
    .where(where)
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(ADMIN_LIST_PAGE_SIZE)
    .offset(offset);
  const found = await loadOrders(
    db,
    inArray(
      orders.id,
      ids.map((r) => r.id),
    ),
  );
  return { orders: found, page, pages };
}

/**
 * Deleting an order that has not been delivered puts its units back on the shelf. An order any
 * M-Pesa payment names is refused (409): the ledger keeps every shilling and what it paid.
 */
export async function deleteOrder(db: Db, changes: CatalogueChanges, id: string): Promise<void> {
  const restocked = await db.transaction(async (tx) => {
    const [order] = await tx.select({ isDelivered: orders.isDelivered }).from(orders).where(eq(orders.id, id)).for('update');
    if (!order) throw notFound(ORDER_NOT_FOUND);
    await assertOrderHasNoPayments(tx, id);
    const returned: string[] = [];
    if (!order.isDelivered) {
      const lines = await tx
        .select({ productId: orderItems.productId, variantId: orderItems.variantId, qty: orderItems.qty })
        .from(orderItems)
        .where(eq(orderItems.orderId, id))
        .orderBy(asc(orderItems.productId), asc(orderItems.variantId));
      for (const line of lines) {
        if (!line.productId) continue;
        const stock = { productId: line.productId, variantId: line.variantId ?? undefined, qty: line.qty };
        if (await giveBackStock(tx, stock)) returned.push(line.productId);
      }
    }
    await tx.delete(orders).where(eq(orders.id, id));
    return returned;
  });
  if (restocked.length > 0) await changes.committed({ products: [...new Set(restocked)], listing: false });
}

export async function markOrderDelivered(db: Db, id: string, notify: Notifications): Promise<Order> {
  return db.transaction(async (tx) => {
    const updated = await tx
      .update(orders)
      .set({ isDelivered: true, deliveredAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(orders.id, id), eq(orders.isDelivered, false)))
      .returning({ id: orders.id });
    const order = await loadExistingOrder(tx, id);
    if (updated.length === 0) throw badRequest('Order is already delivered');
    await notify.orderDelivered(tx, order);
    return order;
  });
}

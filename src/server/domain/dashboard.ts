import { and, asc, eq, gte, lt, lte, sql } from 'drizzle-orm';
import { DASHBOARD_CHART_DAYS, DASHBOARD_LOW_STOCK_SHOWN } from '../../shared/constants.js';
import { addDays, monthStart, NAIROBI_UTC_OFFSET_HOURS, nairobiDay, nairobiDayRange, weekStart } from '../../shared/dates.js';
import { fromCents } from '../../shared/money.js';
import type { Dashboard, SalesFigure } from '../../shared/schemas/dashboard.js';
import { dayEnd } from '../../shared/schemas/orders.js';
import { type Db, queryRows } from '../db/client.js';
import { mpesaPayments, orders, products } from '../db/schema.js';
import { isOpenException } from './payments/ledger-views.js';

/** An unpaid order older than this is overdue: the shopper may need a reminder, or the stock back. */
const UNPAID_OVERDUE_AFTER_MS = 24 * 60 * 60 * 1000;

export interface DashboardOptions {
  /** Products with this many units or fewer are low on stock. */
  lowStockThreshold: number;
  /** The moment the figures are for (tests fix it); now by default. */
  now?: Date;
}

/**
 * The Nairobi day an order was paid, as days since 1970-01-01 in Nairobi: sales are counted on the
 * shop's calendar, not UTC's. Integer arithmetic on the epoch (Nairobi is UTC+3 all year) costs a
 * fraction of formatting each row's date in the time zone, and the month's paid orders are many.
 */
const NAIROBI_OFFSET_SECONDS = NAIROBI_UTC_OFFSET_HOURS * 60 * 60;
const DAY_SECONDS = 24 * 60 * 60;
// date_part answers a float8; extract's numeric is several times slower to add up over many rows.
const paidDay = sql<number>`floor((date_part('epoch', ${orders.paidAt}) + ${NAIROBI_OFFSET_SECONDS}) / ${DAY_SECONDS})::int`;

/** "2026-11-25" for a day number of paidDay. */
const dayOfNumber = (days: number) => addDays('1970-01-01', days);

/**
 * Every figure of the admin dashboard in three queries, whatever the number of orders: the paid
 * orders of the last month by day (orders_paid_at_idx), the four counts in one statement of
 * subqueries that each use their own index, and the lowest-stock products. Products have no
 * index on their stock on purpose: one would turn every order's stock update from a HOT update
 * into an index write (migration 0009), so the low-stock count reads the products table.
 */
export async function loadDashboard(db: Db, options: DashboardOptions): Promise<Dashboard> {
  const now = options.now ?? new Date();
  const today = nairobiDay(now);
  const chartStart = addDays(today, -(DASHBOARD_CHART_DAYS - 1));
  const week = weekStart(today);
  const month = monthStart(today);
  // Day strings compare as dates; the month may start before the chart does (on the 31st).
  const firstDay = [chartStart, week, month].sort()[0] ?? chartStart;
  const placedBefore = new Date(now.getTime() - UNPAID_OVERDUE_AFTER_MS);
  const threshold = options.lowStockThreshold;
  // The order list's own filter for to=placedBefore, so its link shows exactly the orders counted.
  const overdue = lt(orders.createdAt, dayEnd(placedBefore.toISOString()));

  const [salesByDay, counts, lowest] = await Promise.all([
    db
      .select({
        day: paidDay,
        orders: sql<number>`count(*)::int`,
        cents: sql<number>`sum(${orders.totalCents})::bigint`.mapWith(Number),
      })
      .from(orders)
      .where(
        and(
          eq(orders.isPaid, true),
          gte(orders.paidAt, nairobiDayRange(firstDay).start),
          lt(orders.paidAt, nairobiDayRange(today).end),
        ),
      )
      // By position: the day's expression carries parameters, which GROUP BY would not match as the same.
      .groupBy(sql`1`),
    queryRows<{ toDeliver: number; unpaidOverdue: number; openExceptions: number; lowStock: number }>(
      db,
      sql`SELECT
        (SELECT count(*)::int FROM ${orders} WHERE ${orders.isPaid} AND NOT ${orders.isDelivered}) AS "toDeliver",
        (SELECT count(*)::int FROM ${orders} WHERE NOT ${orders.isPaid} AND ${overdue}) AS "unpaidOverdue",
        (SELECT count(*)::int FROM ${mpesaPayments} WHERE ${isOpenException}) AS "openExceptions",
        (SELECT count(*)::int FROM ${products} WHERE NOT ${products.isDraft} AND ${products.countInStock} <= ${threshold}) AS "lowStock"`,
    ),
    db
      .select({ _id: products.id, name: products.name, countInStock: products.countInStock })
      .from(products)
      .where(and(eq(products.isDraft, false), lte(products.countInStock, threshold)))
      .orderBy(asc(products.countInStock), asc(products.name), asc(products.id))
      .limit(DASHBOARD_LOW_STOCK_SHOWN),
  ]);

  const byDay = new Map(salesByDay.map((row) => [dayOfNumber(row.day), row]));
  const salesSince = (first: string): SalesFigure => {
    let cents = 0;
    let count = 0;
    for (const [day, row] of byDay) {
      if (day >= first && day <= today) {
        cents += row.cents;
        count += row.orders;
      }
    }
    return { total: fromCents(cents), orders: count };
  };
  const dailySales = Array.from({ length: DASHBOARD_CHART_DAYS }, (_, i) => {
    const day = addDays(chartStart, i);
    const row = byDay.get(day);
    return { day, total: fromCents(row?.cents ?? 0), orders: row?.orders ?? 0 };
  });
  const [figures] = counts;
  return {
    today,
    sales: { today: salesSince(today), week: salesSince(week), month: salesSince(month) },
    dailySales,
    toDeliver: figures?.toDeliver ?? 0,
    unpaidOverdue: { count: figures?.unpaidOverdue ?? 0, placedBefore: placedBefore.toISOString() },
    openExceptions: figures?.openExceptions ?? 0,
    lowStock: { threshold, count: figures?.lowStock ?? 0, products: lowest },
  };
}

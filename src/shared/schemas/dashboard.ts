import { z } from 'zod';

/** Paid orders and what they brought in, in Ksh. */
export const salesFigure = z.object({ total: z.number(), orders: z.number() });
export type SalesFigure = z.infer<typeof salesFigure>;

export const dailySales = salesFigure.extend({ day: z.string() });
export type DailySales = z.infer<typeof dailySales>;

export const lowStockProduct = z.object({ _id: z.string(), name: z.string(), countInStock: z.number() });

/**
 * The admin dashboard (GET /api/admin/dashboard). Sales count paid orders by the Nairobi day they
 * were paid; weeks start on Monday. Each count comes with what the admin lists need to show the
 * same orders: "to deliver" is isPaid=true&isDelivered=false, the overdue unpaid orders are
 * isPaid=false&to=unpaidOverdue.placedBefore.
 */
export const dashboard = z.object({
  /** Today in Nairobi ("2026-11-25"), the day the figures are for. */
  today: z.string(),
  sales: z.object({ today: salesFigure, week: salesFigure, month: salesFigure }),
  /** The last 30 Nairobi days, oldest first, today last; a day without sales is there with zeros. */
  dailySales: z.array(dailySales),
  /** Paid orders not yet delivered. */
  toDeliver: z.number(),
  /** Unpaid orders placed more than a day ago: placed at or before placedBefore (an instant). */
  unpaidOverdue: z.object({ count: z.number(), placedBefore: z.string() }),
  /** Payments in the ledger that still need the merchant. */
  openExceptions: z.number(),
  /** Published products with threshold units or fewer: how many, and the lowest few. */
  lowStock: z.object({ threshold: z.number(), count: z.number(), products: z.array(lowStockProduct) }),
});
export type Dashboard = z.infer<typeof dashboard>;

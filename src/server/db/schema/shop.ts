import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns.js';

/** The shop's own state: its settings, facts about its database, and shared rate-limit counters. */

/**
 * The merchant's settings (docs/settings.md): one row, with the defaults until the merchant changes
 * them. The shop makes it at start-up (not the migration: a database just migrated holds no shop
 * data, so that db:import can load one, settings included).
 * Money is integer cents and the tax rate basis points (15% is 1500), so prices are computed in
 * whole numbers. An order keeps the figures it was priced with; changing these never touches one.
 */
export const shopSettings = pgTable(
  'shop_settings',
  {
    id: smallint('id').primaryKey().default(1),
    shopName: text('shop_name').notNull().default('Duka'),
    /** A Safaricom number as 2547XXXXXXXX, or '' for none. */
    contactPhone: text('contact_phone').notNull().default(''),
    contactEmail: text('contact_email').notNull().default(''),
    taxBasisPoints: integer('tax_basis_points').notNull().default(1500),
    shippingFeeCents: integer('shipping_fee_cents').notNull().default(10000),
    /** Shipping is free when the items come to more than this. */
    freeShippingThresholdCents: integer('free_shipping_threshold_cents').notNull().default(500000),
    lowStockThreshold: integer('low_stock_threshold').notNull().default(5),
    /** Where merchant alerts go; '' sends none. */
    alertEmail: text('alert_email').notNull().default(''),
    alertOnUnpaidOrders: boolean('alert_on_unpaid_orders').notNull().default(false),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('shop_settings_single_row', sql`${t.id} = 1`),
    check('shop_settings_tax_range', sql`${t.taxBasisPoints} BETWEEN 0 AND 10000`),
    check('shop_settings_money_not_negative', sql`${t.shippingFeeCents} >= 0 AND ${t.freeShippingThresholdCents} >= 0`),
    check('shop_settings_low_stock_not_negative', sql`${t.lowStockThreshold} >= 0`),
  ],
);

/** Small facts about this shop's database (when it was seeded, …). */
export const shopMeta = pgTable('shop_meta', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: updatedAt(),
});

/** Fixed-window counters shared by every instance (used when no Redis is configured). */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('rate_limits_reset_idx').on(t.resetAt)],
);

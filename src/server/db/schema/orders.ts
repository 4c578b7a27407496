import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';
import { products } from './catalogue.js';
import { createdAt, updatedAt } from './columns.js';

/** Orders and the lines of each, kept as sold. */

export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /**
     * The short number people read aloud and type into M-Pesa (src/shared/order-number.ts): the
     * STK push's AccountReference and the Paybill account number.
     */
    number: text('number').notNull(),
    /** The shopper; null once their account is deleted, the order itself stays for the books. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    county: text('county').notNull(),
    phoneNumber: text('phone_number').notNull(),
    postalCode: text('postal_code').notNull(),
    subCounty: text('sub_county').notNull(),
    ward: text('ward').notNull(),
    paymentMethod: text('payment_method').notNull().default('MPESA'),
    itemsCents: integer('items_cents').notNull(),
    shippingCents: integer('shipping_cents').notNull(),
    taxCents: integer('tax_cents').notNull(),
    totalCents: integer('total_cents').notNull(),
    isPaid: boolean('is_paid').notNull().default(false),
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    /** The M-Pesa receipt (e.g. SKL4A7K2QZ) of the payment that settled it; null when paid by hand or by query only. */
    mpesaReceipt: text('mpesa_receipt'),
    isDelivered: boolean('is_delivered').notNull().default(false),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    /**
     * The Idempotency-Key the order was placed with (the web app's, or nginx's request id), so a
     * repeated POST (a shopper's retry over a dropped connection, nginx's retry on the other instance)
     * answers the order already placed instead of placing another. Null for orders placed without one.
     */
    idempotencyKey: text('idempotency_key'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('orders_totals_add_up', sql`${t.totalCents} = ${t.itemsCents} + ${t.shippingCents} + ${t.taxCents}`),
    index('orders_user_idx').on(t.userId, t.createdAt.desc()),
    // NULLS FIRST is what a plain `ORDER BY … DESC` means, as the order queries write it: an index
    // in any other null order cannot give their rows in order, and every list would be sorted.
    index('orders_latest_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    uniqueIndex('orders_number_idx').on(t.number),
    // A key is the shopper's own: two shoppers' keys never meet.
    uniqueIndex('orders_idempotency_idx').on(t.userId, t.idempotencyKey).where(sql`${t.idempotencyKey} IS NOT NULL`),
    // The admin order list's filters, newest first: paid or not, and "to deliver" (paid, undelivered).
    // The id breaks ties as the list's ORDER BY does, so a page is read off the index, not sorted.
    index('orders_paid_latest_idx').on(t.isPaid, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('orders_delivery_latest_idx').on(t.isDelivered, t.isPaid, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // The dashboard's sales by the day they were paid: the last month's paid orders and their
    // totals from the index alone.
    index('orders_paid_at_idx').on(t.paidAt, t.totalCents).where(sql`${t.isPaid}`),
    // Its search: an order id from its first characters, and a substring of the phone number.
    index('orders_id_prefix_idx').using('btree', sql`(${t.id}::text) text_pattern_ops`),
    index('orders_phone_trgm_idx').using('gin', sql`${t.phoneNumber} gin_trgm_ops`),
  ],
);

export const orderItems = pgTable(
  'order_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    /** The product bought; null once the product is deleted. Name, image and price are kept as sold. */
    productId: uuid('product_id').references(() => products.id, { onDelete: 'set null' }),
    position: smallint('position').notNull(),
    name: text('name').notNull(),
    image: text('image').notNull(),
    qty: integer('qty').notNull(),
    priceCents: integer('price_cents').notNull(),
    /**
     * The variant bought, for a product sold in variants: its id (no foreign key, so removing the
     * variant changes no order), its description as sold ("Size 42 / Black") and its SKU.
     */
    variantId: uuid('variant_id'),
    variant: text('variant'),
    sku: text('sku'),
  },
  (t) => [
    check('order_items_qty_positive', sql`${t.qty} > 0`),
    index('order_items_order_idx').on(t.orderId, t.position),
    index('order_items_product_idx').on(t.productId),
  ],
);

/**
 * The shop's tables. Money is integer cents; ids are UUIDs; times are timestamptz.
 * Generated search columns feed the full-text and trigram indexes of the keyword search.
 * One module per part of the shop under schema/; this file gathers them for the code and for
 * drizzle-kit (drizzle.config.ts), which generates the migrations from it.
 */

export * from './schema/accounts.js';
export * from './schema/catalogue.js';
export * from './schema/catalogue-feed.js';
export * from './schema/mail.js';
export * from './schema/orders.js';
export * from './schema/payments.js';
export * from './schema/shop.js';

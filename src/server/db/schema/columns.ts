import { customType, timestamp } from 'drizzle-orm/pg-core';

/** Column types and columns that several of the shop's tables share. */

export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** PGlite reads bytea as a Uint8Array, node-postgres as a Buffer: the shop always sees a Buffer. */
export const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

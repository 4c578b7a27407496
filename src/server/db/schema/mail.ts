import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';

/**
 * The mail queue: a message is written here (in the transaction of whatever caused it) and a
 * worker delivers it, retrying with backoff, so a mail server outage loses nothing.
 */
export const mailQueue = pgTable(
  'mail_queue',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** password_reset | account_changed | order_placed | order_paid | order_delivered */
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body').notNull(),
    /** queued | sending | sent | failed */
    status: text('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastError: text('last_error'),
    /** Where it went: the outbox file, or the relay's message id. */
    deliveredTo: text('delivered_to'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('mail_queue_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'queued'`),
    index('mail_queue_latest_idx').on(t.createdAt.desc()),
  ],
);

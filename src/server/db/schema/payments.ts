import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';
import { createdAt, updatedAt } from './columns.js';
import { orders } from './orders.js';

/**
 * M-Pesa: the prompts the shop sends, the ledger of payments it learns of, refunds by Reversal,
 * the callbacks Daraja posts and the initiator requests Daraja acknowledged.
 */

/**
 * Every M-Pesa payment prompt, recorded before Daraja is called so that no prompt is ever
 * untracked. A callback or a status query moves it from pending to a terminal state once.
 */
export const paymentAttempts = pgTable(
  'payment_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    phone: text('phone').notNull(),
    /** Whole shillings, as Daraja charges. */
    amount: integer('amount').notNull(),
    merchantRequestId: text('merchant_request_id'),
    checkoutRequestId: text('checkout_request_id'),
    /** pending | unknown (Daraja's answer was lost) | paid | failed | timed_out | rejected */
    status: text('status').notNull().default('pending'),
    resultCode: text('result_code'),
    resultDesc: text('result_desc'),
    mpesaReceipt: text('mpesa_receipt'),
    transactionDate: timestamp('transaction_date', { withTimezone: true, mode: 'date' }),
    /** How the outcome became known: callback or query. */
    settledBy: text('settled_by'),
    queryCount: integer('query_count').notNull().default(0),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('payment_attempts_checkout_key').on(t.checkoutRequestId),
    uniqueIndex('payment_attempts_receipt_key').on(t.mpesaReceipt),
    index('payment_attempts_order_idx').on(t.orderId, t.createdAt.desc()),
    index('payment_attempts_open_idx').on(t.createdAt).where(sql`${t.status} in ('pending', 'timed_out')`),
    check('payment_attempts_amount_positive', sql`${t.amount} > 0`),
  ],
);

/**
 * The M-Pesa ledger: every payment the shop learns of, once, from any source (STK callback, STK
 * query, C2B confirmation, an admin's entry). Rows are never deleted, and no foreign key cascades
 * into them: an order with a payment cannot be deleted (src/server/domain/payments/ledger.ts).
 */
export const mpesaPayments = pgTable(
  'mpesa_payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Trimmed and upper case; null only while a query-settled payment waits for its callback. */
    receipt: text('receipt'),
    /** What M-Pesa moved, in cents (STK amounts are whole shillings; C2B may carry cents). */
    amountCents: integer('amount_cents').notNull(),
    /** 2547XXXXXXXX as M-Pesa reported it, when it did. */
    phone: text('phone'),
    /** stk_callback | stk_query | c2b | manual */
    source: text('source').notNull(),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'restrict' }),
    /** The prompt it answered, when it came from an STK push. */
    checkoutRequestId: text('checkout_request_id'),
    /** credited | exception | resolved | refund_pending | refunded */
    status: text('status').notNull(),
    /** Why it needs the merchant: double_payment | unmatched | amount_short | receipt_missing | …; null when none. */
    exception: text('exception'),
    note: text('note'),
    /** The body Daraja sent, as received; null for an admin's entry. */
    raw: text('raw'),
    /** When M-Pesa says the payment happened. */
    transactionAt: timestamp('transaction_at', { withTimezone: true, mode: 'date' }),
    recordedBy: uuid('recorded_by').references(() => users.id, { onDelete: 'set null' }),
    /** When the shopper was sent "Payment received" for this payment; null while it waits for its receipt. */
    notifiedAt: timestamp('notified_at', { withTimezone: true, mode: 'date' }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
    /** Transaction Status lookups sent for a query-settled payment's missing receipt (bounded). */
    receiptLookups: integer('receipt_lookups').notNull().default(0),
    receiptLookupAt: timestamp('receipt_lookup_at', { withTimezone: true, mode: 'date' }),
    /**
     * What an admin recorded by hand for this receipt when M-Pesa's own word later gave another
     * amount (amount_cents is then M-Pesa's); null otherwise.
     */
    recordedAmountCents: integer('recorded_amount_cents'),
    /**
     * For the merchant only: why M-Pesa has not confirmed the payment (waiting for Transaction
     * Status, another shortcode, not completed), or the amount as M-Pesa wrote it when unreadable.
     */
    detail: text('detail'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('mpesa_payments_receipt_key').on(t.receipt),
    uniqueIndex('mpesa_payments_checkout_key').on(t.checkoutRequestId),
    index('mpesa_payments_order_idx').on(t.orderId),
    index('mpesa_payments_latest_idx').on(t.createdAt.desc()),
    index('mpesa_payments_open_idx')
      .on(t.createdAt.desc())
      .where(sql`${t.exception} is not null and ${t.status} in ('exception', 'credited')`),
    // Zero only for a payment whose amount M-Pesa wrote unreadably (exception bad_amount).
    check('mpesa_payments_amount_not_negative', sql`${t.amountCents} >= 0`),
  ],
);

/**
 * Refunds by M-Pesa Reversal, one row per request an admin made. A payment has at most one refund
 * that is live or done (pending, unanswered or refunded): the partial unique index is what makes
 * "a refund is never sent twice for one payment" hold even for requests racing each other. A
 * failed refund leaves its row, and the admin may ask again (a new row).
 */
export const mpesaRefunds = pgTable(
  'mpesa_refunds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    paymentId: uuid('payment_id')
      .notNull()
      .references(() => mpesaPayments.id, { onDelete: 'restrict' }),
    /** pending | refunded | failed | unanswered */
    status: text('status').notNull().default('pending'),
    /** What the payment was before (credited, exception, resolved), restored when the reversal fails. */
    previousStatus: text('previous_status').notNull(),
    previousException: text('previous_exception'),
    amountCents: integer('amount_cents').notNull(),
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    /** From Daraja's acknowledgement of the latest Reversal request. */
    originatorConversationId: text('originator_conversation_id'),
    conversationId: text('conversation_id'),
    /** Reversal requests sent (the first, and the reconciler's after a timeout or silence). */
    attempts: integer('attempts').notNull().default(0),
    lastSentAt: timestamp('last_sent_at', { withTimezone: true, mode: 'date' }),
    /** When M-Pesa's queue-timeout notice came for the latest request. */
    queueTimeoutAt: timestamp('queue_timeout_at', { withTimezone: true, mode: 'date' }),
    /** The reversal's own M-Pesa transaction id, on success. */
    reversalReceipt: text('reversal_receipt'),
    resultCode: text('result_code'),
    failureReason: text('failure_reason'),
    requestedAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('mpesa_refunds_one_live_key').on(t.paymentId).where(sql`${t.status} in ('pending', 'unanswered', 'refunded')`),
    index('mpesa_refunds_payment_idx').on(t.paymentId, t.requestedAt.desc()),
    index('mpesa_refunds_pending_idx').on(t.lastSentAt).where(sql`${t.status} = 'pending'`),
    check('mpesa_refunds_amount_positive', sql`${t.amountCents} > 0`),
  ],
);

/**
 * Every body posted to the Daraja callback URLs, stored before the shop acts on it so that no
 * callback is lost to a crash or a bug; one not yet processed is retried by the reconciler.
 */
export const mpesaCallbacks = pgTable(
  'mpesa_callbacks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** stk (later: c2b_validation, c2b_confirmation, …) */
    kind: text('kind').notNull(),
    body: text('body').notNull(),
    remoteIp: text('remote_ip'),
    /** Null until handled; then what became of it (credited, duplicate, refused_ip, unconfirmed, …). */
    outcome: text('outcome'),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    attempts: integer('attempts').notNull().default(0),
    /** What the URL named: the refund (Reversal results) or the payment (Transaction Status results). */
    subjectId: uuid('subject_id'),
    /** When the reconciler may try an unprocessed callback again (backoff after each failure). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    receivedAt: createdAt(),
  },
  (t) => [index('mpesa_callbacks_unprocessed_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`)],
);

/**
 * Every Reversal and Transaction Status request Daraja acknowledged, with the ids it gave. A
 * Result is acted on only when it carries the ids of a request the shop made for the same refund
 * or payment: the Result URL alone (which carries a secret) is not enough.
 */
export const mpesaInitiatorRequests = pgTable(
  'mpesa_initiator_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** reversal | status */
    kind: text('kind').notNull(),
    /** The refund (reversal) or the payment (status) the request was made for. */
    subjectId: uuid('subject_id').notNull(),
    originatorConversationId: text('originator_conversation_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('mpesa_initiator_requests_subject_idx').on(t.subjectId, t.kind)],
);

import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * The shop's tables. Money is integer cents; ids are UUIDs; times are timestamptz.
 * Generated search columns feed the full-text and trigram indexes of the keyword search.
 */

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** PGlite reads bytea as a Uint8Array, node-postgres as a Buffer: the shop always sees a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** Always stored lower-case, so the unique index is case-insensitive in effect. */
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    isAdmin: boolean('is_admin').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    index('users_admins_idx').on(t.isAdmin).where(sql`${t.isAdmin}`),
    // The admin user list's search: a substring of the name (any case) or of the email.
    index('users_name_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
    index('users_email_trgm_idx').using('gin', sql`${t.email} gin_trgm_ops`),
  ],
);

/** Server-side sessions: the cookie carries a random token, the table only its SHA-256. */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('password_reset_tokens_user_idx').on(t.userId)],
);

/**
 * Stored with fillfactor 90 (migration 0008; drizzle does not model it): a stock change then
 * stays on its page and touches none of these indexes.
 */
export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The admin who created it; kept when that account is deleted. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    image: text('image').notNull(),
    category: text('category').notNull(),
    description: text('description').notNull().default(''),
    priceCents: integer('price_cents').notNull(),
    countInStock: integer('count_in_stock').notNull().default(0),
    rating: numeric('rating', { precision: 3, scale: 2, mode: 'number' }).notNull().default(0),
    numReviews: integer('num_reviews').notNull().default(0),
    /**
     * A product the admin created and has not yet given a real name, price and image: listed and
     * edited in the admin only, never shown, searched, counted or sold in the storefront.
     */
    isDraft: boolean('is_draft').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Everything searchable, lower-case: the target of substring matching. */
    searchText: text('search_text').notNull().generatedAlwaysAs(sql`lower(name || ' ' || category || ' ' || description)`),
    /** Words weighted name > category > description for ranking. */
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('simple'::regconfig, name), 'A') || setweight(to_tsvector('simple'::regconfig, category), 'B') || setweight(to_tsvector('simple'::regconfig, description), 'C')`,
      ),
  },
  (t) => [
    check('products_price_not_negative', sql`${t.priceCents} >= 0`),
    check('products_stock_not_negative', sql`${t.countInStock} >= 0`),
    index('products_latest_idx').on(t.createdAt.desc(), t.id.desc()),
    index('products_rating_idx').on(t.rating.desc(), t.numReviews.desc()),
    // The storefront's sorts and category filter (domain/catalogue.ts, sortOrder): each walked
    // forwards or backwards, so a far page is read from the nearer end. Only published products.
    index('products_price_order_idx').on(t.priceCents.asc(), t.createdAt.desc(), t.id.desc()).where(sql`${t.isDraft} = false`),
    index('products_rating_order_idx')
      .on(t.rating.desc(), t.numReviews.desc(), t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_category_latest_idx')
      .on(sql`lower(${t.category})`, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_category_price_idx')
      .on(sql`lower(${t.category})`, t.priceCents.asc(), t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_category_rating_idx')
      .on(sql`lower(${t.category})`, t.rating.desc(), t.numReviews.desc(), t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_search_vector_idx').using('gin', t.searchVector),
    index('products_search_text_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
  ],
);

export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    /** The author; null once the author's account is deleted, the review itself stays. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    rating: smallint('rating').notNull(),
    comment: text('comment').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check('reviews_rating_range', sql`${t.rating} between 1 and 5`),
    uniqueIndex('reviews_one_per_user_key').on(t.productId, t.userId),
    index('reviews_product_idx').on(t.productId, t.createdAt),
  ],
);

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
  },
  (t) => [
    check('order_items_qty_positive', sql`${t.qty} > 0`),
    index('order_items_order_idx').on(t.orderId, t.position),
    index('order_items_product_idx').on(t.productId),
  ],
);

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

/**
 * Every word of the products' names and categories, with how many products hold it, kept by
 * triggers on products (migration 0018) in the same transaction as the product's write. A search
 * finds close spellings of a keyword here ("samsng" is close to "samsung"), in a list that stays
 * a few thousand words whatever the number of products, then the products through the full-text
 * index. A word no product holds any more is deleted.
 */
export const searchWords = pgTable(
  'search_words',
  {
    word: text('word').primaryKey(),
    products: integer('products').notNull(),
  },
  (t) => [index('search_words_trgm_idx').using('gin', sql`${t.word} gin_trgm_ops`)],
);

/**
 * How many published (not draft) products the shop has, kept exact by statement-level triggers on
 * products (migrations 0005 and 0009), so the newest-first listing knows its page count without counting the table.
 */
export const catalogueStats = pgTable(
  'catalog_stats',
  {
    id: smallint('id').primaryKey().default(1),
    productCount: integer('product_count').notNull().default(0),
  },
  (t) => [check('catalog_stats_single_row', sql`${t.id} = 1`)],
);

/**
 * What catalogue writes changed, in commit order, when several instances share PostgreSQL without
 * Redis (src/server/cache/catalogue-feed.ts). A write appends one row after its own transaction
 * commits, numbering it from catalog_change_head in the same statement, so the numbers have no
 * gaps and an instance that has read up to n knows it has seen every change up to n. Only the
 * latest few thousand rows are kept; an instance further behind forgets its whole cache.
 */
export const catalogueChanges = pgTable('catalog_changes', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  /** Product ids, 'listing', 'everything' and 'settings', comma separated. */
  change: text('change').notNull(),
});

/** The last number given to a change, and a token that changes when the feed starts again. */
export const catalogueChangeHead = pgTable(
  'catalog_change_head',
  {
    id: smallint('id').primaryKey().default(1),
    seq: bigint('seq', { mode: 'number' }).notNull().default(0),
    epoch: uuid('epoch').notNull().defaultRandom(),
  },
  (t) => [check('catalog_change_head_single_row', sql`${t.id} = 1`)],
);

/** Small facts about this shop's database (when it was seeded, …). */
export const shopMeta = pgTable('shop_meta', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: updatedAt(),
});

/**
 * Uploaded product images, in the database so every instance serves every upload. One row per
 * encoded form: width 0 is the full image (at most 1600 px wide), the others are the widths of
 * IMAGE_WIDTHS (src/shared/images.ts). Every row is WebP; rows never change once written.
 */
export const images = pgTable(
  'images',
  {
    /** The address it is served at: /uploads/<name>. */
    path: text('path').notNull(),
    width: integer('width').notNull(),
    contentType: text('content_type').notNull(),
    content: bytea('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.path, t.width] }), check('images_width_not_negative', sql`${t.width} >= 0`)],
);

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

import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../../src/server/db/client.js';
import { TEST_PGLITE_SHARED_BUFFERS_MB } from '../support/shop.js';

/**
 * Reads the shop's tables straight from its database, after the shop has been stopped (PGlite is
 * one process's at a time): what the API shows is checked by the test, this is the ground truth.
 */

export interface OrderRow {
  id: string;
  user_id: string | null;
  items_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  is_paid: boolean;
  mpesa_receipt: string | null;
}

export interface LineRow {
  order_id: string;
  product_id: string | null;
  position: number;
  qty: number;
  price_cents: number;
}

export interface AttemptRow {
  id: string;
  order_id: string;
  phone: string;
  amount: number;
  checkout_request_id: string | null;
  status: string;
  result_code: string | null;
  result_desc: string | null;
  mpesa_receipt: string | null;
  settled_by: string | null;
  query_count: number;
}

/** One payment in the shop's M-Pesa ledger: every shilling it learnt of. */
export interface LedgerPaymentRow {
  id: string;
  order_id: string | null;
  checkout_request_id: string | null;
  receipt: string | null;
  amount_cents: number;
  status: string;
  exception: string | null;
}

export interface Snapshot {
  products: Map<string, number>;
  orders: OrderRow[];
  lines: LineRow[];
  attempts: AttemptRow[];
  ledger: LedgerPaymentRow[];
  /** Queued mails by kind and status: an order's mail is written in the order's own transaction. */
  mails: { kind: string; status: string; count: number }[];
}

export async function readSnapshot(where: { databaseUrl?: string | undefined; dataDir: string }): Promise<Snapshot> {
  const database = await openDatabase({
    url: where.databaseUrl,
    pgliteDir: path.join(where.dataDir, 'pglite'),
    poolSize: 1,
    pgliteSharedBuffersMb: TEST_PGLITE_SHARED_BUFFERS_MB,
  });
  try {
    const { db } = database;
    const products = await queryRows<{ id: string; count_in_stock: number }>(db, sql`SELECT id, count_in_stock FROM products`);
    const orders = await queryRows<OrderRow>(
      db,
      sql`SELECT id, user_id, items_cents, shipping_cents, tax_cents, total_cents, is_paid, mpesa_receipt FROM orders`,
    );
    const lines = await queryRows<LineRow>(
      db,
      sql`SELECT order_id, product_id, position, qty, price_cents FROM order_items ORDER BY order_id, position`,
    );
    const attempts = await queryRows<AttemptRow>(
      db,
      sql`SELECT id, order_id, phone, amount, checkout_request_id, status, result_code, result_desc, mpesa_receipt, settled_by,
                 query_count
            FROM payment_attempts ORDER BY created_at`,
    );
    const ledger = await queryRows<LedgerPaymentRow>(
      db,
      sql`SELECT id, order_id, checkout_request_id, receipt, amount_cents, status, exception FROM mpesa_payments ORDER BY created_at`,
    );
    const mails = await queryRows<{ kind: string; status: string; count: number }>(
      db,
      sql`SELECT kind, status, count(*)::int AS count FROM mail_queue GROUP BY kind, status ORDER BY kind, status`,
    );
    return { products: new Map(products.map((p) => [p.id, p.count_in_stock])), orders, lines, attempts, ledger, mails };
  } finally {
    await database.close();
  }
}

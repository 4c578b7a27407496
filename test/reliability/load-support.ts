import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../src/server/db/client.js';

/**
 * Helpers of the concurrency load test: a seeded random source, bounded parallelism, per-phone
 * lanes, and a stock audit that records every change of a product's stock or price with the
 * transaction that made it, so the test can tell an order's stock update from an admin's edit.
 */

/** mulberry32: a small, fast, seeded generator; the same seed gives the same run plan. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer from min to max, both included. */
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof seededRandom>;

/** Runs fn over items with at most `limit` at a time, keeping the results in order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < items.length) {
      const index = nextIndex++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * One task at a time, in the order given: a phone can answer one M-Pesa prompt at a time (Daraja
 * refuses a second while one is open), so the shoppers who share a test number take turns.
 */
export class Lane {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export interface StockChange {
  productId: string;
  /** The 32-bit transaction id, comparable with a row's xmin. */
  txid: string;
  oldStock: number;
  newStock: number;
  oldPriceCents: number;
  newPriceCents: number;
}

/**
 * Installs an AFTER UPDATE trigger on products that logs each change of count_in_stock or
 * price_cents with its transaction id. It only observes: the server's statements are unchanged,
 * and a rolled-back order rolls its log rows back with it.
 */
export async function installStockAudit(db: Db): Promise<void> {
  await db.execute(
    sql.raw(`CREATE TABLE load_stock_audit (
      id bigserial PRIMARY KEY,
      product_id uuid NOT NULL,
      txid bigint NOT NULL,
      old_stock integer NOT NULL,
      new_stock integer NOT NULL,
      old_price integer NOT NULL,
      new_price integer NOT NULL
    )`),
  );
  await db.execute(
    sql.raw(`CREATE FUNCTION load_stock_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.count_in_stock IS DISTINCT FROM OLD.count_in_stock OR NEW.price_cents IS DISTINCT FROM OLD.price_cents THEN
        INSERT INTO load_stock_audit (product_id, txid, old_stock, new_stock, old_price, new_price)
        VALUES (NEW.id, txid_current() % 4294967296, OLD.count_in_stock, NEW.count_in_stock, OLD.price_cents, NEW.price_cents);
      END IF;
      RETURN NEW;
    END $$`),
  );
  await db.execute(
    sql.raw(
      'CREATE TRIGGER load_stock_audit_trigger AFTER UPDATE ON products FOR EACH ROW EXECUTE FUNCTION load_stock_audit_row()',
    ),
  );
}

export async function readStockAudit(db: Db): Promise<StockChange[]> {
  const rows = await queryRows<{
    product_id: string;
    txid: string | number;
    old_stock: number;
    new_stock: number;
    old_price: number;
    new_price: number;
  }>(db, sql`SELECT product_id, txid, old_stock, new_stock, old_price, new_price FROM load_stock_audit ORDER BY id`);
  return rows.map((r) => ({
    productId: r.product_id,
    txid: String(r.txid),
    oldStock: Number(r.old_stock),
    newStock: Number(r.new_stock),
    oldPriceCents: Number(r.old_price),
    newPriceCents: Number(r.new_price),
  }));
}

export interface SoldLine {
  orderId: string;
  productId: string;
  qty: number;
  priceCents: number;
  /** The transaction that inserted the line: the order's own. */
  txid: string;
}

export async function readSoldLines(db: Db): Promise<SoldLine[]> {
  const rows = await queryRows<{ order_id: string; product_id: string; qty: number; price_cents: number; txid: string }>(
    db,
    sql`SELECT order_id, product_id, qty, price_cents, xmin::text AS txid FROM order_items`,
  );
  return rows.map((r) => ({
    orderId: r.order_id,
    productId: r.product_id,
    qty: Number(r.qty),
    priceCents: Number(r.price_cents),
    txid: String(r.txid),
  }));
}

/**
 * Opens about `count` keep-alive connections to the shop before a burst, so the burst's requests
 * arrive together on open connections rather than as as many TCP handshakes at once: the shop
 * listens with Node's default backlog of 511, and while PGlite keeps the event loop busy, a
 * thousand connections opened at once overflow it and some are reset (ECONNRESET) before any
 * request is read. A GET of /api/health is safe to repeat, so one whose connection is reset is
 * simply sent again; the number of resets is returned and printed.
 */
export async function openConnections(client: { get(path: string): Promise<unknown> }, count: number): Promise<number> {
  let resets = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      for (let tries = 0; ; tries++) {
        try {
          await client.get('/api/health');
          return;
        } catch (error) {
          resets += 1;
          if (tries >= 20) throw error;
          await sleep(100);
        }
      }
    }),
  );
  return resets;
}

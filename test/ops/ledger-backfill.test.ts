import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsDir } from '../../src/server/paths.js';

/**
 * Migration 0020 brings a shop's existing orders under the one coverage rule (an order is paid
 * exactly when the money held for it covers it). A shop upgrading from 0019 has orders an admin
 * marked paid with no payment at all, orders the old refund path left paid with nothing held, and
 * unpaid orders a resolved payment covers. The migration runs here on a database at 0019 holding
 * one of each, and each must come out as the rule says, without losing a shilling.
 */

const BEFORE = '0020_payments_coverage';

let client: PGlite;
let workDir: string;

/** The migrations as they were before the coverage rule: the folder without 0020, its journal cut there. */
async function migrationsBefore(dir: string): Promise<string> {
  const folder = path.join(dir, 'migrations');
  await fs.cp(migrationsDir, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await fs.readFile(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((entry) => entry.tag === BEFORE);
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  await fs.writeFile(journalPath, JSON.stringify(journal));
  return folder;
}

async function order(number: string, totalCents: number, isPaid: boolean, mpesaReceipt: string | null = null): Promise<string> {
  const result = await client.query<{ id: string }>(
    `INSERT INTO orders (number, county, phone_number, postal_code, sub_county, ward, items_cents, shipping_cents, tax_cents,
       total_cents, is_paid, paid_at, mpesa_receipt)
     VALUES ($1, 'Nairobi', '0711223344', '00100', 'Westlands', 'Parklands/Highridge', $2, 0, 0, $2, $3,
       CASE WHEN $3 THEN now() END, $4)
     RETURNING id`,
    [number, totalCents, isPaid, mpesaReceipt],
  );
  return result.rows[0]?.id as string;
}

async function payment(orderId: string, receipt: string, amountCents: number, status: string, exception: string | null = null) {
  await client.query(
    `INSERT INTO mpesa_payments (receipt, amount_cents, source, order_id, status, exception)
     VALUES ($1, $2, 'stk_callback', $3, $4, $5)`,
    [receipt, amountCents, orderId, status, exception],
  );
}

async function orderAfter(id: string) {
  const result = await client.query<{ is_paid: boolean; mpesa_receipt: string | null; paid_at: Date | null }>(
    'SELECT is_paid, mpesa_receipt, paid_at FROM orders WHERE id = $1',
    [id],
  );
  return result.rows[0];
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-backfill-'));
  client = await PGlite.create('memory://', { extensions: { pg_trgm } });
  await client.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  const db = drizzle(client);
  await migrate(db, { migrationsFolder: await migrationsBefore(workDir) });

  // Marked paid by an admin: no payment at all. Ksh 1,000.50 is due as Ksh 1,001.
  ids.markedPaid = await order('MARKPAID', 100_050, true);
  // Paid by a payment that was then resolved and refunded: paid, with nothing held.
  ids.refundedAway = await order('REFUNDED', 330_400, true, 'SRF0000001');
  await payment(ids.refundedAway, 'SRF0000001', 330_400, 'refunded', 'overpaid');
  // Unpaid, though a resolved double payment on it covers it.
  ids.resolvedCovers = await order('RESOLVED', 50_000, false);
  await payment(ids.resolvedCovers, 'SRS0000001', 50_000, 'resolved', 'double_payment');
  // Paid by its payment: nothing to change.
  ids.paid = await order('PAIDWELL', 75_000, true, 'SPW0000001');
  await payment(ids.paid, 'SPW0000001', 75_000, 'credited');
  // Unpaid, its only payment unconfirmed by M-Pesa: still unpaid.
  ids.unconfirmed = await order('UNCONFIR', 20_000, false);
  await payment(ids.unconfirmed, 'SUC0000001', 20_000, 'exception', 'unconfirmed');

  await migrate(db, { migrationsFolder: migrationsDir });
});

afterAll(async () => {
  await client?.close();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

describe('migration 0020 on a shop at 0019', () => {
  it('gives an order marked paid without a payment the manual payment "Mark As Paid" now records, already notified', async () => {
    expect(await orderAfter(ids.markedPaid as string)).toMatchObject({ is_paid: true });
    const payments = await client.query<Record<string, unknown>>(
      'SELECT receipt, amount_cents, source, status, exception, note, notified_at FROM mpesa_payments WHERE order_id = $1',
      [ids.markedPaid],
    );
    expect(payments.rows).toEqual([
      {
        receipt: null,
        amount_cents: 100_100,
        source: 'manual',
        status: 'credited',
        exception: null,
        note: 'Marked as paid by an admin, without an M-Pesa receipt',
        notified_at: expect.any(Date),
      },
    ]);
  });

  it('unpays an order whose money went back, and pays one its held money covers', async () => {
    expect(await orderAfter(ids.refundedAway as string)).toEqual({ is_paid: false, mpesa_receipt: null, paid_at: null });
    expect(await orderAfter(ids.resolvedCovers as string)).toMatchObject({ is_paid: true, paid_at: expect.any(Date) });
  });

  it('leaves alone an order its payment pays, and one only unconfirmed money names', async () => {
    expect(await orderAfter(ids.paid as string)).toMatchObject({ is_paid: true, mpesa_receipt: 'SPW0000001' });
    expect(await orderAfter(ids.unconfirmed as string)).toMatchObject({ is_paid: false });
    const added = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM mpesa_payments WHERE source = 'manual' AND order_id <> $1",
      [ids.markedPaid],
    );
    expect(added.rows[0]?.n).toBe(0);
  });
});

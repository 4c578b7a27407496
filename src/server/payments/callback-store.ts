import { eq, sql } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client.js';
import { mpesaCallbacks } from '../db/schema.js';

/**
 * Every body M-Pesa posts (STK results, C2B confirmations, Reversal and Transaction Status Results
 * and timeouts) is stored in mpesa_callbacks as it came, before anything is done with it, and
 * marked processed with what became of it.
 */

export type CallbackRow = typeof mpesaCallbacks.$inferSelect;

/** Stores an STK callback body exactly as it came, before anything is done with it. */
export async function storeCallback(
  db: Db,
  body: unknown,
  remoteIp: string,
  outcome?: string,
  kind: string = 'stk',
  /** The refund or payment a Result's URL names. */
  subjectId?: string,
): Promise<CallbackRow> {
  // PostgreSQL text holds no NUL character: one is kept written out, as JSON would write it.
  const text = (typeof body === 'string' ? body : (JSON.stringify(body ?? null) ?? 'null')).replaceAll('\u0000', '\\u0000');
  const [row] = await db
    .insert(mpesaCallbacks)
    .values({ kind, body: text, remoteIp, subjectId, ...(outcome && { outcome, processedAt: sql`now()` }) })
    .returning();
  if (!row) throw new Error('callback insert returned nothing');
  return row;
}

/** Marks a stored callback processed, with what became of it. */
export async function finishCallback(db: Queryable, id: string, outcome: string): Promise<void> {
  await db
    .update(mpesaCallbacks)
    .set({ outcome, processedAt: sql`now()`, attempts: sql`${mpesaCallbacks.attempts} + 1` })
    .where(eq(mpesaCallbacks.id, id));
}

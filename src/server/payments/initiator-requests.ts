import { and, eq, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { mpesaInitiatorRequests } from '../db/schema.js';
import type { InitiatorResult } from '../mpesa/initiator-result.js';

/**
 * The requests the shop made of Daraja's initiator APIs, by the ids Daraja gave them: a Reversal or
 * Transaction Status Result is acted on only when it answers one of them.
 */

/** Keeps the ids Daraja gave a Reversal or Transaction Status request: its Result must carry them. */
export async function recordInitiatorRequest(
  db: Queryable,
  kind: 'reversal' | 'status',
  subjectId: string,
  accepted: { originatorConversationId: string; conversationId: string },
): Promise<void> {
  await db.insert(mpesaInitiatorRequests).values({ kind, subjectId, ...accepted });
}

/** Whether a Result answers a request the shop made for this refund or payment. */
export async function answersOwnRequest(db: Queryable, kind: 'reversal' | 'status', subjectId: string, result: InitiatorResult) {
  const ids: SQL[] = [];
  if (result.conversationId) ids.push(eq(mpesaInitiatorRequests.conversationId, result.conversationId));
  if (result.originatorConversationId) {
    ids.push(eq(mpesaInitiatorRequests.originatorConversationId, result.originatorConversationId));
  }
  if (ids.length === 0) return false;
  const [found] = await db
    .select({ id: mpesaInitiatorRequests.id })
    .from(mpesaInitiatorRequests)
    .where(and(eq(mpesaInitiatorRequests.kind, kind), eq(mpesaInitiatorRequests.subjectId, subjectId), or(...ids)))
    .limit(1);
  return found !== undefined;
}

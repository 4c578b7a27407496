import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { shopMeta } from './schema.js';

/**
 * A random secret made once per shop and kept in the database, so every instance and every
 * restart uses the same one without anyone having to configure it.
 */
export async function sharedSecret(db: Db, key: string): Promise<string> {
  await db
    .insert(shopMeta)
    .values({ key, value: { secret: randomBytes(24).toString('base64url') } })
    .onConflictDoNothing();
  const [row] = await db.select().from(shopMeta).where(eq(shopMeta.key, key));
  const secret = (row?.value as { secret?: unknown } | undefined)?.secret;
  if (typeof secret !== 'string') throw new Error(`shop_meta ${key} holds no secret`);
  return secret;
}

import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt, ne } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client.js';
import { sessions, users } from '../db/schema.js';

/** Who is signed in, as every authorisation check sees them (read fresh from the database). */
export interface SessionUser {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
}

/** Random, URL-safe secret for cookies and links. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are stored only as their SHA-256, so a leaked table grants nothing. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function createSession(db: Db, userId: string, days: number): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(Date.now() + days * 24 * 60 * 60 * 1000);
  await db.insert(sessions).values({ tokenHash: hashToken(token), userId, expiresAt });
  // Housekeeping while we are here: this user's expired sessions go.
  await db.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, new Date())));
  return { token, expiresAt };
}

/** The user behind a session cookie, or null when the session is unknown, expired or revoked. */
export async function findSessionUser(db: Db, token: string): Promise<SessionUser | null> {
  const [row] = await db
    .select({ id: users.id, name: users.name, email: users.email, isAdmin: users.isAdmin })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, hashToken(token)), gt(sessions.expiresAt, new Date())));
  return row ?? null;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, hashToken(token)));
}

/** Signs a user out everywhere, except (optionally) the session making the change. */
export async function deleteUserSessions(db: Queryable, userId: string, keepToken?: string): Promise<void> {
  const keep = keepToken ? ne(sessions.tokenHash, hashToken(keepToken)) : undefined;
  await db.delete(sessions).where(and(eq(sessions.userId, userId), keep));
}

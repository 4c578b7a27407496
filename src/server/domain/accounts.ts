import { and, asc, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { ADMIN_LIST_PAGE_SIZE } from '../../shared/constants.js';
import type {
  AdminUserUpdateBody,
  ProfileUpdateBody,
  PublicUser,
  RegisterBody,
  UserListQuery,
  UserPage,
} from '../../shared/schemas/users.js';
import type { Db, Queryable, Tx } from '../db/client.js';
import { passwordResetTokens, reviews, users } from '../db/schema.js';
import { badRequest, forbidden, isUniqueViolation, notFound, unauthorized } from '../errors.js';
import type { Notifications } from '../mail/notifications.js';
import type { CatalogueChanges } from './catalogue-changes.js';
import type { Passwords } from './passwords.js';
import { deleteUserSessions, hashToken, randomToken, type SessionUser } from './sessions.js';

const EMAIL_TAKEN = 'An account with this email already exists';
export const FORGOT_PASSWORD_MSG = 'If an account exists for that email, we have sent a link to reset its password.';
const RESET_LINK_INVALID = 'This reset link is invalid or has expired. Please ask for a new one.';
const RESET_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

type UserRow = typeof users.$inferSelect;

/** The public user object; the password hash never leaves this module. */
export function toPublicUser(row: Pick<UserRow, 'id' | 'name' | 'email' | 'isAdmin'> & { createdAt?: Date }): PublicUser {
  return {
    _id: row.id,
    name: row.name,
    email: row.email,
    isAdmin: row.isAdmin,
    ...(row.createdAt && { createdAt: row.createdAt.toISOString() }),
  };
}

export async function registerUser(db: Db, passwords: Passwords, body: RegisterBody): Promise<UserRow> {
  const passwordHash = await passwords.hash(body.password);
  try {
    const [row] = await db.insert(users).values({ name: body.name, email: body.email, passwordHash }).returning();
    if (!row) throw new Error('User insert returned nothing');
    return row;
  } catch (error) {
    if (isUniqueViolation(error, 'users_email_key')) throw badRequest(EMAIL_TAKEN, 'email');
    throw error;
  }
}

export async function authenticate(db: Db, passwords: Passwords, email: string, password: string): Promise<UserRow> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  const valid = await passwords.verify(row?.passwordHash, password);
  if (!row || !valid) throw unauthorized('Invalid email or password');
  return row;
}

async function findUser(db: Queryable, id: string): Promise<UserRow> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  if (!row) throw notFound('User not found');
  return row;
}

/** A profile is readable by its owner and by admins. */
export async function getUserFor(db: Db, viewer: SessionUser, id: string): Promise<PublicUser> {
  if (viewer.id !== id && !viewer.isAdmin) throw forbidden('You can only view your own profile');
  return toPublicUser(await findUser(db, id));
}

export async function listUsers(db: Db): Promise<PublicUser[]> {
  const rows = await db.select().from(users).orderBy(asc(users.createdAt), asc(users.id));
  return rows.map(toPublicUser);
}

/**
 * One page of the admin user list, newest first (a new sign-up is what an admin looks for; the
 * plain list keeps its oldest-first order): a search matches part of
 * the name (any case) or of the email, each by its trigram index (migration 0008).
 */
export async function listUsersPage(db: Db, query: UserListQuery): Promise<UserPage> {
  const keyword = query.keyword?.toLowerCase();
  const contains = keyword ? `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  const where = and(
    query.isAdmin === undefined ? undefined : eq(users.isAdmin, query.isAdmin),
    contains ? or(sql`lower(${users.name}) LIKE ${contains}`, sql`${users.email} LIKE ${contains}`) : undefined,
  );
  const page = query.pageNumber ?? 1;
  const [counted] = await db.select({ count: sql<number>`count(*)::int` }).from(users).where(where);
  const count = counted?.count ?? 0;
  const rows = await db
    .select()
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(ADMIN_LIST_PAGE_SIZE)
    .offset((page - 1) * ADMIN_LIST_PAGE_SIZE);
  return { users: rows.map(toPublicUser), page, pages: Math.max(1, Math.ceil(count / ADMIN_LIST_PAGE_SIZE)) };
}

async function saveUserChanges(
  db: Queryable,
  id: string,
  changes: {
    name?: string | undefined;
    email?: string | undefined;
    passwordHash?: string | undefined;
    isAdmin?: boolean | undefined;
  },
): Promise<UserRow> {
  try {
    const [row] = await db
      .update(users)
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.email !== undefined && { email: changes.email }),
        ...(changes.passwordHash !== undefined && { passwordHash: changes.passwordHash }),
        ...(changes.isAdmin !== undefined && { isAdmin: changes.isAdmin }),
        updatedAt: sql`now()`,
      })
      .where(eq(users.id, id))
      .returning();
    if (!row) throw notFound('User not found');
    return row;
  } catch (error) {
    if (isUniqueViolation(error, 'users_email_key')) throw badRequest(EMAIL_TAKEN, 'email');
    throw error;
  }
}

export const CURRENT_PASSWORD_REQUIRED = 'Enter your current password to change your email or password';
export const CURRENT_PASSWORD_WRONG = 'Your current password is not correct';

/** Every reset link of a user that has not been used yet stops working. */
async function revokeResetLinks(db: Queryable, userId: string): Promise<void> {
  await db.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, userId));
}

/**
 * What follows a change of password or email, in the transaction that made it: every reset link
 * dies, the sessions go (but `keepToken`'s, the one that made the change), and the old address is
 * told what changed.
 */
async function afterCredentialsChange(
  tx: Queryable,
  notify: Notifications,
  before: UserRow,
  after: UserRow,
  change: { password: boolean; byAdmin: boolean; keepToken?: string | undefined },
): Promise<void> {
  const emailChanged = after.email !== before.email;
  await revokeResetLinks(tx, before.id);
  if (change.password || change.byAdmin) await deleteUserSessions(tx, before.id, change.keepToken);
  await notify.accountChanged(tx, before.email, before.name, {
    password: change.password,
    newEmail: emailChanged ? after.email : undefined,
    at: new Date(),
    byAdmin: change.byAdmin,
  });
}

/**
 * A shopper edits their own name, email or password. A new email or password needs the current
 * password, so a borrowed or stolen session cannot take the account over; the old address is
 * told, every reset link dies, and a new password signs out the other sessions (the one making
 * the change stays signed in).
 */
export async function updateProfile(
  db: Db,
  passwords: Passwords,
  notify: Notifications,
  self: SessionUser,
  body: ProfileUpdateBody,
  currentToken: string,
): Promise<PublicUser> {
  const before = await findUser(db, self.id);
  const emailChanges = body.email !== undefined && body.email !== before.email;
  const passwordChanges = body.password !== undefined;
  if (!emailChanges && !passwordChanges) return toPublicUser(await saveUserChanges(db, self.id, { name: body.name }));
  if (!body.currentPassword) throw badRequest(CURRENT_PASSWORD_REQUIRED, 'currentPassword');
  if (!(await passwords.verify(before.passwordHash, body.currentPassword))) {
    throw badRequest(CURRENT_PASSWORD_WRONG, 'currentPassword');
  }
  const passwordHash = body.password ? await passwords.hash(body.password) : undefined;
  const row = await db.transaction(async (tx) => {
    const after = await saveUserChanges(tx, self.id, {
      name: body.name,
      email: emailChanges ? body.email : undefined,
      passwordHash,
    });
    await afterCredentialsChange(tx, notify, before, after, {
      password: passwordChanges,
      byAdmin: false,
      keepToken: currentToken,
    });
    return after;
  });
  return toPublicUser(row);
}

/**
 * Locks every admin row, so two admins demoting or deleting each other at once cannot leave
 * the shop with none: the second waits and then sees the first's change.
 */
async function lockAdmins(tx: Tx): Promise<string[]> {
  const rows = await tx.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).for('update');
  return rows.map((r) => r.id);
}

/**
 * An admin edits a user, with no current password. A new email or password revokes the user's
 * reset links and signs them out everywhere, and the old address is told.
 */
export async function adminUpdateUser(
  db: Db,
  passwords: Passwords,
  notify: Notifications,
  id: string,
  body: AdminUserUpdateBody,
): Promise<PublicUser> {
  const passwordHash = body.password ? await passwords.hash(body.password) : undefined;
  const row = await db.transaction(async (tx) => {
    const admins = await lockAdmins(tx);
    const target = await findUser(tx, id);
    if (target.isAdmin && body.isAdmin === false && admins.length <= 1) {
      throw badRequest('The last admin cannot be demoted', 'isAdmin');
    }
    const after = await saveUserChanges(tx, id, { name: body.name, email: body.email, passwordHash, isAdmin: body.isAdmin });
    if (passwordHash || after.email !== target.email) {
      await afterCredentialsChange(tx, notify, target, after, { password: passwordHash !== undefined, byAdmin: true });
    }
    return after;
  });
  return toPublicUser(row);
}

export async function deleteUser(db: Db, changes: CatalogueChanges, actor: SessionUser, id: string): Promise<void> {
  if (actor.id === id) throw badRequest('You cannot delete your own account');
  const reviewed = await db.transaction(async (tx) => {
    const admins = await lockAdmins(tx);
    const target = await findUser(tx, id);
    if (target.isAdmin && admins.length <= 1) throw badRequest('The last admin cannot be removed');
    // Their reviews stay, unlinked: the answers of the products they reviewed change.
    const theirReviews = await tx.select({ productId: reviews.productId }).from(reviews).where(eq(reviews.userId, id));
    // Their sessions and reset tokens go with them; orders and reviews stay, unlinked.
    await tx.delete(users).where(eq(users.id, id));
    return theirReviews.map((review) => review.productId);
  });
  if (reviewed.length > 0) await changes.committed({ products: reviewed, listing: false });
}

/**
 * Sends a reset link to a known email. The caller answers the same message either way, so the
 * response never tells whether an account exists.
 */
export async function requestPasswordReset(db: Db, notify: Notifications, publicUrl: string, email: string): Promise<void> {
  const [user] = await db.select().from(users).where(eq(users.email, email));
  if (!user) return;
  const token = randomToken();
  await db.transaction(async (tx) => {
    await tx.insert(passwordResetTokens).values({
      tokenHash: hashToken(token),
      userId: user.id,
      expiresAt: new Date(Date.now() + RESET_TOKEN_LIFETIME_MS),
    });
    await notify.passwordReset(tx, user.email, user.name, `${publicUrl}/reset-password/${token}`);
  });
}

/** A reset token works once, within its hour; using it signs the user out everywhere. */
export async function resetPassword(db: Db, passwords: Passwords, token: string, password: string): Promise<void> {
  const tokenHash = hashToken(token);
  const [pending] = await db
    .select({ userId: passwordResetTokens.userId })
    .from(passwordResetTokens)
    .where(
      and(
        eq(passwordResetTokens.tokenHash, tokenHash),
        isNull(passwordResetTokens.usedAt),
        gt(passwordResetTokens.expiresAt, new Date()),
      ),
    );
  if (!pending) throw badRequest(RESET_LINK_INVALID);
  // Hash before the transaction: it is slow, and PGlite runs one transaction at a time.
  const passwordHash = await passwords.hash(password);
  await db.transaction(async (tx) => {
    // Claiming the token in the same statement that checks it makes a second use fail even when racing.
    const [claimed] = await tx
      .update(passwordResetTokens)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(passwordResetTokens.tokenHash, tokenHash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, new Date()),
        ),
      )
      .returning({ userId: passwordResetTokens.userId });
    if (!claimed) throw badRequest(RESET_LINK_INVALID);
    await saveUserChanges(tx, claimed.userId, { passwordHash });
    await deleteUserSessions(tx, claimed.userId);
    await tx
      .delete(passwordResetTokens)
      .where(and(eq(passwordResetTokens.userId, claimed.userId), isNull(passwordResetTokens.usedAt)));
  });
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import { createSession, deleteSession, findSessionUser, type SessionUser } from '../../domain/sessions.js';
import { forbidden, unauthorized } from '../../errors.js';

export const SESSION_COOKIE = 'duka_session';
/**
 * Set beside an admin's session cookie: not a credential, only a hint that the session is worth
 * looking up where an admin's answer differs from everyone's (an admin's first page of
 * GET /api/products), so a shopper's public reads cost no session read. A forged hint costs one
 * lookup, which then finds no admin.
 */
export const ADMIN_HINT_COOKIE = 'duka_admin';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the requireUser / requireAdmin guards. */
    user: SessionUser | null;
    /** The answer depends on the session (set by the guards and by starting or ending one): sent with `Cache-Control: no-store`. */
    privateAnswer: boolean;
  }
  interface FastifyReply {
    startSession(userId: string, options?: { isAdmin?: boolean }): Promise<void>;
    endSession(): Promise<void>;
  }
  interface FastifyInstance {
    /** Route hook: 401 unless a live session is presented. */
    requireUser(request: FastifyRequest): Promise<void>;
    /** Route hook: 401 for guests, 403 for signed-in non-admins. */
    requireAdmin(request: FastifyRequest): Promise<void>;
  }
}

/**
 * Revocable server-side sessions in an httpOnly cookie. The user is read from the database on
 * every guarded request, so a sign-out, a password reset, a deletion or a demotion takes effect
 * at once, on every instance.
 */
export default fp(
  async function sessions(app: FastifyInstance, opts: { db: Db; config: AppConfig }) {
    const { db, config } = opts;
    const cookieOptions = {
      path: '/',
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: config.secureCookies,
    };

    app.decorateRequest('user', null);
    app.decorateRequest('privateAnswer', false);

    // An answer that depends on the session (a guarded route, whatever its status, or one that
    // starts or ends a session) is for this browser only: no shared or browser cache may keep it.
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.privateAnswer) reply.header('cache-control', 'no-store');
      return payload;
    });

    async function loadUser(request: FastifyRequest): Promise<SessionUser | null> {
      request.privateAnswer = true;
      const token = request.cookies[SESSION_COOKIE];
      if (!token || token.length > 100) return null;
      request.user = await findSessionUser(db, token);
      return request.user;
    }

    app.decorate('requireUser', async (request: FastifyRequest) => {
      if (!(await loadUser(request))) throw unauthorized('Please sign in to continue');
    });

    app.decorate('requireAdmin', async (request: FastifyRequest) => {
      const user = await loadUser(request);
      if (!user) throw unauthorized('Please sign in to continue');
      if (!user.isAdmin) throw forbidden('This is for admins only');
    });

    app.decorateReply('startSession', async function (this: FastifyReply, userId: string, options = {}) {
      this.request.privateAnswer = true;
      const { token, expiresAt } = await createSession(db, userId, config.sessionDays);
      this.setCookie(SESSION_COOKIE, token, { ...cookieOptions, expires: expiresAt });
      if (options.isAdmin) this.setCookie(ADMIN_HINT_COOKIE, '1', { ...cookieOptions, expires: expiresAt });
      else if (this.request.cookies[ADMIN_HINT_COOKIE]) this.clearCookie(ADMIN_HINT_COOKIE, cookieOptions);
    });

    app.decorateReply('endSession', async function (this: FastifyReply) {
      this.request.privateAnswer = true;
      const token = this.request.cookies[SESSION_COOKIE];
      if (token) await deleteSession(db, token);
      this.clearCookie(SESSION_COOKIE, cookieOptions);
      if (this.request.cookies[ADMIN_HINT_COOKIE]) this.clearCookie(ADMIN_HINT_COOKIE, cookieOptions);
    });
  },
  { name: 'sessions', dependencies: ['@fastify/cookie'] },
);

/** The user a guard has admitted; calling it on an unguarded route is a programming error. */
export function currentUser(request: FastifyRequest): SessionUser {
  if (!request.user) throw unauthorized('Please sign in to continue');
  return request.user;
}

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams, isPlainList, messageBody } from '../../../shared/schemas/common.js';
import {
  adminUserUpdateBody,
  forgotPasswordBody,
  loginBody,
  profileUpdateBody,
  publicUser,
  registerBody,
  resetPasswordBody,
  resetTokenParams,
  userListQuery,
  userPage,
} from '../../../shared/schemas/users.js';
import type { AppConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import {
  adminUpdateUser,
  authenticate,
  deleteUser,
  FORGOT_PASSWORD_MSG,
  getUserFor,
  listUsers,
  listUsersPage,
  registerUser,
  requestPasswordReset,
  resetPassword,
  toPublicUser,
  updateProfile,
} from '../../domain/accounts.js';
import type { CatalogueChanges } from '../../domain/catalogue-changes.js';
import type { Passwords } from '../../domain/passwords.js';
import type { Notifications } from '../../mail/notifications.js';
import { acceptFormBodies } from '../../plugins/packages/form-bodies.js';
import { currentUser, SESSION_COOKIE } from '../../plugins/shop/sessions.js';
import { mailOwnerOfPausedAccount, SignInLimit, withRetryAfter } from '../../plugins/shop/sign-in-limit.js';

const tags = ['users'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 429: errorBody };

function hasCurrentPassword(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'currentPassword' in body && body.currentPassword !== undefined;
}

function limit(rule: { max: number; windowMs: number }) {
  return { rateLimit: { max: rule.max, timeWindow: rule.windowMs } };
}

interface UserRouteOptions {
  db: Db;
  changes: CatalogueChanges;
  config: AppConfig;
  notify: Notifications;
  passwords: Passwords;
}

/** Accounts: signing up, in and out, resetting a password, one's own profile, and the admin's users. */
const userRoutes: FastifyPluginAsyncZod<UserRouteOptions> = async (app, options) => {
  await acceptFormBodies(app);
  await signInRoutes(app, options);
  await passwordResetRoutes(app, options);
  await profileRoutes(app, options);
  await userAdminRoutes(app, options);
};

export default userRoutes;

/** Signing up (which signs in), signing in within the sign-in limit, and signing out. */
const signInRoutes: FastifyPluginAsyncZod<UserRouteOptions> = async (app, { db, config, notify, passwords }) => {
  app.post('/api/users', {
    config: limit(config.rateLimits.register),
    schema: { tags, summary: 'Sign up; answers signed in', body: registerBody, response: { 201: publicUser, ...errors } },
    handler: async (request, reply) => {
      const user = await registerUser(db, passwords, request.body);
      await reply.startSession(user.id);
      return reply.status(201).send(toPublicUser(user));
    },
  });

  const signInLimit = new SignInLimit(app.attemptCounters, config.rateLimits.login, (email, pause) =>
    // The refusal is answered whether or not its notice could be queued.
    mailOwnerOfPausedAccount(db, notify, email, pause).catch((error: unknown) =>
      app.log.error({ err: error }, 'the mail telling an owner that sign-in is paused could not be queued'),
    ),
  );
  app.post('/api/users/auth', {
    schema: { tags, summary: 'Sign in', body: loginBody, response: { 200: publicUser, ...errors } },
    handler: async (request, reply) => {
      const { email, password } = request.body;
      await signInLimit.admit(email, request.ip).catch(withRetryAfter(reply));
      let user: Awaited<ReturnType<typeof authenticate>>;
      try {
        user = await authenticate(db, passwords, email, password);
      } catch (error) {
        await signInLimit.failed(email, request.ip);
        throw error;
      }
      await signInLimit.succeeded(email, request.ip);
      await reply.startSession(user.id, { isAdmin: user.isAdmin });
      return toPublicUser(user);
    },
  });

  app.post('/api/users/logout', {
    schema: { tags, summary: 'Sign out (ends this session)', response: { 200: messageBody } },
    handler: async (_request, reply) => {
      await reply.endSession();
      return { msg: 'Logged out successfully' };
    },
  });
};

/** A password reset by a link sent by mail. */
const passwordResetRoutes: FastifyPluginAsyncZod<UserRouteOptions> = async (app, { db, config, notify, passwords }) => {
  app.post('/api/users/forgot-password', {
    config: limit(config.rateLimits.forgotPassword),
    schema: {
      tags,
      summary: 'Send a password reset link (the same answer whether or not the email has an account)',
      body: forgotPasswordBody,
      response: { 200: messageBody, ...errors },
    },
    handler: async (request) => {
      // Not awaited: a known email must not answer slower than an unknown one.
      requestPasswordReset(db, notify, config.publicUrl, request.body.email).catch((error: unknown) =>
        request.log.error({ err: error }, 'password reset mail failed'),
      );
      return { msg: FORGOT_PASSWORD_MSG };
    },
  });

  app.post('/api/users/reset-password/:token', {
    // The token is the credential: logs show the URL with it redacted.
    config: { ...limit(config.rateLimits.resetPassword), secretParams: ['token'] },
    schema: {
      tags,
      summary: 'Choose a new password with a reset link; signs out every session',
      params: resetTokenParams,
      body: resetPasswordBody,
      response: { 200: messageBody, ...errors },
    },
    handler: async (request) => {
      await resetPassword(db, passwords, request.params.token, request.body.password);
      return { msg: 'Your password has been reset. Please sign in with your new password.' };
    },
  });
};

/** The signed-in user's own profile. */
const profileRoutes: FastifyPluginAsyncZod<UserRouteOptions> = async (app, { db, config, notify, passwords }) => {
  app.get('/api/users/profile', {
    onRequest: app.requireUser,
    schema: { tags, summary: 'The signed-in user', response: { 200: publicUser, ...errors } },
    handler: (request) => getUserFor(db, currentUser(request), currentUser(request).id),
  });

  app.put('/api/users/profile', {
    onRequest: app.requireUser,
    // Guessing the current password is limited like signing in; edits that do not give one are not counted.
    config: {
      rateLimit: {
        max: config.rateLimits.login.max,
        timeWindow: config.rateLimits.login.windowMs,
        hook: 'preHandler',
        allowList: (request) => !hasCurrentPassword(request.body),
      },
    },
    schema: {
      tags,
      summary: 'Update your own profile; an empty password leaves it unchanged. A new email or password needs currentPassword',
      body: profileUpdateBody,
      response: { 200: publicUser, ...errors },
    },
    handler: (request) =>
      updateProfile(db, passwords, notify, currentUser(request), request.body, request.cookies[SESSION_COOKIE] ?? ''),
  });
};

/** The users as the admin manages them (and one's own account by its id). */
const userAdminRoutes: FastifyPluginAsyncZod<UserRouteOptions> = async (app, { db, changes, notify, passwords }) => {
  app.get('/api/users', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Every user (admin). With pageNumber, keyword or isAdmin: one page of the matching users',
      querystring: userListQuery,
      response: { 200: z.union([z.array(publicUser), userPage]), ...errors },
    },
    // Without parameters, the specification's plain array, for the clients written against it.
    handler: (request) => (isPlainList(request.query) ? listUsers(db) : listUsersPage(db, request.query)),
  });

  app.get('/api/users/:id', {
    onRequest: app.requireUser,
    schema: {
      tags,
      summary: 'A user: yourself, or anyone for an admin',
      params: idParams,
      response: { 200: publicUser, ...errors },
    },
    handler: (request) => getUserFor(db, currentUser(request), request.params.id),
  });

  app.put('/api/users/:id', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Update a user from JSON or form data (admin); the last admin cannot be demoted',
      params: idParams,
      body: adminUserUpdateBody,
      response: { 200: publicUser, ...errors },
    },
    handler: (request) => adminUpdateUser(db, passwords, notify, request.params.id, request.body),
  });

  app.delete('/api/users/:id', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Delete a user (admin); not yourself, not the last admin',
      params: idParams,
      response: { 200: messageBody, ...errors },
    },
    handler: async (request) => {
      await deleteUser(db, changes, currentUser(request), request.params.id);
      return { msg: 'User deleted' };
    },
  });
};

import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { randomToken } from '../domain/sessions.js';
import { AppError } from '../errors.js';

export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false exempts a route from the XSRF check (the M-Pesa callback, which Safaricom calls). */
    xsrf?: boolean;
    /**
     * false: the route's answers never hand out the XSRF cookie. For public answers that shared
     * caches may keep (the catalogue); the app's pages hand it out before any form is sent.
     */
    xsrfCookie?: boolean;
  }
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Double-submit XSRF protection: the server hands out a random token in a readable cookie, and
 * every unsafe /api request must echo it in the X-XSRF-TOKEN header. Another site can make the
 * browser send the cookie but cannot read it to set the header.
 */
export default fp(
  async function xsrf(app: FastifyInstance, opts: { secureCookies: boolean }) {
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const cookie = request.cookies[XSRF_COOKIE];
      if (!cookie && request.routeOptions.config.xsrfCookie !== false) {
        reply.setCookie(XSRF_COOKIE, randomToken(), { path: '/', sameSite: 'lax', secure: opts.secureCookies, httpOnly: false });
      }
      // Decided by the route that will run as well as by the URL as sent: the router decodes the
      // path, so "/%61pi/products" reaches POST /api/products and must not pass as a non-API URL.
      const api = request.url.startsWith('/api/') || (request.routeOptions.url?.startsWith('/api/') ?? false);
      if (!UNSAFE_METHODS.has(request.method) || !api) return;
      if (request.routeOptions.config.xsrf === false) return;
      const header = request.headers[XSRF_HEADER];
      if (!cookie || typeof header !== 'string' || !sameToken(cookie, header)) {
        throw new AppError(403, 'Your session security token is missing or out of date. Reload the page and try again.');
      }
    });
  },
  { name: 'xsrf', dependencies: ['@fastify/cookie'] },
);

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { randomToken } from '../../domain/sessions.js';
import { AppError } from '../../errors.js';
import { sameSecret } from '../../lib/same-secret.js';

export const XSRF_COOKIE = 'XSRF-TOKEN';
export const XSRF_HEADER = 'x-xsrf-token';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false exempts a route from the XSRF check (the M-Pesa callback, which Safaricom calls). */
    xsrf?: boolean;
    /**
     * false: the route's answers never hand out the XSRF cookie. For public answers that shared
     * caches may keep (the catalogue). Requests from the shop's own pages need no cookie: the
     * browser proves where they come from (see `whereFrom`).
     */
    xsrfCookie?: boolean;
  }
}

/** The origin ("https://shop.example.co.ke") of a URL, or undefined when it is not one. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Where the browser says an unsafe request comes from. Browsers set `Sec-Fetch-Site` (all
 * current ones) and `Origin` themselves: no page's script can set or change them, and another
 * site cannot make the browser claim the shop's origin.
 *
 * - `Sec-Fetch-Site` is the browser's own verdict on this very URL, so it decides when present
 *   (a proxy that rewrites Host cannot confuse it);
 * - otherwise `Origin` (older browsers) must be the shop's: PUBLIC_URL's origin, or the one the
 *   request was sent to (scheme and Host, as a trusted proxy reports them), for a shop reached
 *   by another name (127.0.0.1, a LAN address, a dev server's proxy). "null" (a sandboxed frame,
 *   a file:// page) is never the shop's;
 * - neither (curl, a server, a very old browser): `unknown`, and the double-submit token decides.
 */
function whereFrom(request: FastifyRequest, publicOrigin: string | undefined): 'foreign' | 'same-origin' | 'unknown' {
  const site = request.headers['sec-fetch-site'];
  if (site === 'same-origin') return 'same-origin';
  if (site === 'cross-site' || site === 'same-site') return 'foreign';
  const origin = request.headers.origin;
  if (origin === undefined) return 'unknown';
  const own = origin === publicOrigin || origin === originOf(`${request.protocol}://${request.host}`);
  return own ? 'same-origin' : 'foreign';
}

const MISSING_TOKEN = 'Your session security token is missing or out of date. Reload the page and try again.';
const FROM_ANOTHER_SITE = 'This request came from another site, which cannot carry this shop’s security token, and was refused.';

/**
 * Protection against cross-site requests on every unsafe /api request:
 * - refused when the browser says it comes from another site or origin (Sec-Fetch-Site
 *   cross-site or same-site; without it, a foreign Origin), token or not;
 * - accepted when the browser proves it comes from the shop's own origin (Sec-Fetch-Site
 *   same-origin, or Origin equal to the shop's), so a fresh visitor's first sign-up works
 *   whatever its earlier answers were (SECURITY.md says why);
 * - otherwise double submit: the server hands out a random token in a readable cookie, and the
 *   request must echo it in the X-XSRF-TOKEN header. Another site can make the browser send the
 *   cookie but cannot read it to set the header.
 */
export default fp(
  async function xsrf(app: FastifyInstance, opts: { secureCookies: boolean; publicUrl: string }) {
    const publicOrigin = originOf(opts.publicUrl);
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
      const from = whereFrom(request, publicOrigin);
      if (from === 'foreign') throw new AppError(403, FROM_ANOTHER_SITE);
      if (from === 'same-origin') return;
      const header = request.headers[XSRF_HEADER];
      if (!cookie || typeof header !== 'string' || !sameSecret(cookie, header)) throw new AppError(403, MISSING_TOKEN);
    });
  },
  { name: 'xsrf', dependencies: ['@fastify/cookie'] },
);

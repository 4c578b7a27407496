import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's headers for these options. They depend on nothing in the request (no nonces), so they
 * are worked out once here rather than by helmet on every request, which rebuilt and re-parsed
 * the whole policy each time (about 6% of the server's time on a cached catalogue answer).
 */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return headers;
}

/**
 * The shop's helmet options. The content security policy allows no inline script; product images
 * may come from other https hosts because an admin can paste an image URL. Typed as written rather
 * than as HelmetOptions, so the test can hand them to @fastify/helmet too: it sees helmet's CommonJS
 * types, whose HelmetOptions differs from the one an ES module import sees (each declares its own
 * unique symbol).
 */
export function helmetOptions(secureCookies: boolean) {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(secureCookies && { upgradeInsecureRequests: [] }),
      },
    },
    // Served over plain http on a laptop; HSTS belongs to the HTTPS reverse proxy in production.
    strictTransportSecurity: secureCookies,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
  } satisfies HelmetOptions;
}

/**
 * Security headers on every response, as @fastify/helmet would send them with helmetOptions
 * (test/api/security-headers.test.ts compares the two).
 */
export default fp(
  async function securityHeaders(app: FastifyInstance, opts: { secureCookies: boolean }) {
    const headers = helmetHeaders(helmetOptions(opts.secureCookies));
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(headers);
      done();
    });
  },
  { name: 'security-headers' },
);

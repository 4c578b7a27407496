import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Security headers on every response. The content security policy allows no inline script;
 * product images may come from other https hosts because an admin can paste an image URL.
 */
export default fp(
  async function securityHeaders(app: FastifyInstance, opts: { secureCookies: boolean }) {
    await app.register(helmet, {
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
          ...(opts.secureCookies && { upgradeInsecureRequests: [] }),
        },
      },
      // Served over plain http on a laptop; HSTS belongs to the HTTPS reverse proxy in production.
      strictTransportSecurity: opts.secureCookies,
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      crossOriginEmbedderPolicy: false,
    });
  },
  { name: 'security-headers' },
);

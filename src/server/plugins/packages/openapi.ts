import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { SHOP_NAME } from '../../../shared/constants.js';

/**
 * The OpenAPI document is generated from the same zod schemas that validate requests, so it
 * cannot drift from the code: the UI at /api/docs, the JSON at /api/docs/json.
 */
export default fp(
  async function openapi(app: FastifyInstance) {
    await app.register(swagger, {
      openapi: {
        info: {
          title: `${SHOP_NAME} API`,
          version: '1.0.0',
          description:
            'Unsafe requests need the XSRF-TOKEN cookie echoed in the X-XSRF-TOKEN header. ' +
            'Errors answer { errors: [{ msg, path? }] }.',
        },
        tags: [
          { name: 'products', description: 'Catalogue and reviews' },
          { name: 'users', description: 'Accounts and sessions' },
          { name: 'orders', description: 'Orders and fulfilment' },
          { name: 'payments', description: 'M-Pesa payment prompts and their results' },
          { name: 'uploads', description: 'Product images' },
          { name: 'settings', description: 'The shop’s name, contacts, pricing and alerts' },
          { name: 'admin', description: 'The shop’s own state, for admins' },
          { name: 'health', description: 'Liveness and readiness' },
        ],
        components: {
          securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'duka_session' } },
        },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      staticCSP: true,
      // Swagger UI styles some elements inline; and on plain http (a laptop) nothing may be upgraded to https.
      transformStaticCSP: (header) =>
        header
          .replace("style-src 'self' https:", "style-src 'self' 'unsafe-inline'")
          .replace(/\s*upgrade-insecure-requests;/, ''),
    });
  },
  { name: 'openapi' },
);

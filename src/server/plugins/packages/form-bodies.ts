import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * The admin edit screens send FormData (docs/product-rules.md, API: product and user updates "with form data").
 * Registered inside a routes plugin, this lets that plugin's routes take multipart or
 * url-encoded fields as a plain body, validated by the same schemas as JSON. Files are refused
 * here; images go through /api/uploads.
 */
export async function acceptFormBodies(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { files: 0, fields: 50, fieldSize: 64 * 1024, parts: 60 },
  });
}

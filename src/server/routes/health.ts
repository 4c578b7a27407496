import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../db/client.js';

const health = z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['ok', 'unreachable']) });

/** Liveness and readiness: 200 while the database answers, 503 while it does not. */
const healthRoutes: FastifyPluginAsyncZod<{ database: Database }> = async (app, { database }) => {
  app.get('/api/health', {
    schema: { tags: ['health'], summary: 'Is the shop able to serve?', response: { 200: health, 503: health } },
    handler: async (request, reply) => {
      try {
        await database.ping();
        return { status: 'ok' as const, database: 'ok' as const };
      } catch (error) {
        request.log.warn({ err: error }, 'health check: database unreachable');
        return reply.status(503).send({ status: 'unavailable' as const, database: 'unreachable' as const });
      }
    },
  });
};

export default healthRoutes;

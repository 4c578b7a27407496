import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.js';

const health = z.object({
  status: z.enum(['ok', 'unavailable', 'shutting_down']),
  database: z.enum(['ok', 'unreachable']),
});
const live = z.object({ status: z.literal('ok') });

export interface HealthOptions {
  database: Database;
  /** True once the shop has begun to shut down. */
  isClosing: () => boolean;
}

/**
 * Readiness (GET /api/health): 200 while the database answers; 503 while it does not, or once the
 * shop is shutting down, so a load balancer stops sending it requests. Liveness
 * (GET /api/health/live): 200 while the process serves at all, without touching the database, so
 * a database outage does not get healthy processes restarted.
 */
const healthRoutes: FastifyPluginAsyncZod<HealthOptions> = async (app, { database, isClosing }) => {
  app.get('/api/health', {
    schema: {
      tags: ['health'],
      summary: 'Readiness: can the shop serve (its database answers, it is not shutting down)?',
      response: { 200: health, 503: health },
    },
    handler: async (request, reply) => {
      let reachable = true;
      try {
        await database.ping();
      } catch (error) {
        reachable = false;
        request.log.warn({ err: error }, 'health check: database unreachable');
      }
      const databaseState = reachable ? ('ok' as const) : ('unreachable' as const);
      if (isClosing()) return reply.status(503).send({ status: 'shutting_down' as const, database: databaseState });
      if (!reachable) return reply.status(503).send({ status: 'unavailable' as const, database: databaseState });
      return { status: 'ok' as const, database: databaseState };
    },
  });

  app.get('/api/health/live', {
    schema: {
      tags: ['health'],
      summary: 'Liveness: is the process serving? (does not touch the database)',
      response: { 200: live },
    },
    handler: async () => ({ status: 'ok' as const }),
  });
};

export default healthRoutes;

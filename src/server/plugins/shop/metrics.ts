import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.js';
import { sameSecret } from '../../lib/same-secret.js';
import { httpRequestDuration, METRICS_CONTENT_TYPE, renderMetrics } from '../../metrics.js';

/** The route label of requests no route matched (404s and web-app pages): one label, not one per URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request by route pattern, and serves GET /metrics in Prometheus text format. With
 * METRICS_TOKEN set, a scraper must send `Authorization: Bearer <token>`; without it the endpoint
 * is open and the reverse proxy must keep it internal. It is outside /api: not in the OpenAPI
 * document, and a GET, so the XSRF check does not apply.
 */
export default fp(
  async function metrics(app: FastifyInstance, opts: { token: string | undefined }) {
    app.addHook('onResponse', async (request, reply) => {
      httpRequestDuration.observe(
        { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: reply.statusCode },
        reply.elapsedTime / 1000,
      );
    });

    app.get('/metrics', {
      schema: { hide: true },
      handler: async (request, reply) => {
        if (opts.token !== undefined) {
          const header = request.headers.authorization ?? '';
          const given = /^Bearer (.+)$/i.exec(header)?.[1] ?? '';
          if (!sameSecret(given, opts.token)) {
            reply.header('www-authenticate', 'Bearer realm="metrics"');
            throw new AppError(401, 'Metrics need the METRICS_TOKEN as a bearer token');
          }
        }
        const text = await renderMetrics();
        return reply.header('cache-control', 'no-store').type(METRICS_CONTENT_TYPE).send(text);
      },
    });
  },
  { name: 'metrics' },
);

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { CatalogCache } from '../cache/catalog-cache.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route can change what catalogue answers show (prices, stock, ratings, reviews). */
    changesCatalog?: boolean;
  }
}

/** Route config for every route that writes products, stock or reviews. */
export const CHANGES_CATALOG = { changesCatalog: true } as const;

/**
 * After a catalogue-changing route has done its work, and before its answer leaves, every
 * instance's cached catalogue answers are made out of date. Whatever the outcome: a failed
 * request may still have committed something, and a needless refresh costs one recomputation.
 */
export default fp(
  async function catalogInvalidation(app: FastifyInstance, opts: { cache: CatalogCache }) {
    app.addHook('onSend', async (request) => {
      if (request.routeOptions.config.changesCatalog) await opts.cache.changed();
    });
  },
  { name: 'catalog-invalidation' },
);

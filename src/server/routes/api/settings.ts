import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { publicSettings } from '../../../shared/schemas/settings.js';
import type { SettingsCache } from '../../cache/settings-cache.js';
import { publicSettingsOf } from '../../domain/settings.js';

/** The merchant's settings (docs/settings.md): the storefront's share, for everyone (all of them: api/admin/settings.ts). */
const settingsRoutes: FastifyPluginAsyncZod<{ settings: SettingsCache }> = async (app, { settings }) => {
  app.get('/api/settings', {
    schema: {
      tags: ['settings'],
      summary: "The shop's name, contacts and pricing, as the storefront shows them",
      response: { 200: publicSettings },
    },
    handler: async (_request, reply) => {
      // Small and read once per page load; a browser must not keep an old delivery fee.
      reply.header('cache-control', 'no-cache');
      return publicSettingsOf(await settings.current());
    },
  });
};

export default settingsRoutes;

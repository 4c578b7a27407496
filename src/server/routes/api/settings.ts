import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '../../../shared/schemas/common.js';
import { publicSettings, settingsUpdateBody, shopSettings } from '../../../shared/schemas/settings.js';
import type { SettingsCache } from '../../cache/settings-cache.js';
import type { Db } from '../../db/client.js';
import type { CatalogChanges } from '../../domain/catalog-changes.js';
import { publicSettingsOf, updateSettings } from '../../domain/settings.js';

const adminErrors = { 400: errorBody, 401: errorBody, 403: errorBody };

/** The merchant's settings (docs/settings.md): the storefront's share for everyone, all of them for admins. */
const settingsRoutes: FastifyPluginAsyncZod<{ db: Db; changes: CatalogChanges; settings: SettingsCache }> = async (
  app,
  { db, changes, settings },
) => {
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

  app.get('/api/admin/settings', {
    onRequest: app.requireAdmin,
    schema: {
      tags: ['admin', 'settings'],
      summary: 'Every setting of the shop, alerts included (admin)',
      response: { 200: shopSettings, ...adminErrors },
    },
    handler: () => settings.current(),
  });

  app.put('/api/admin/settings', {
    onRequest: app.requireAdmin,
    schema: {
      tags: ['admin', 'settings'],
      summary: 'Change settings; those left out keep their values (admin). Orders already placed keep their figures',
      body: settingsUpdateBody,
      response: { 200: shopSettings, ...adminErrors },
    },
    handler: (request) => updateSettings(db, changes, request.body),
  });
};

export default settingsRoutes;

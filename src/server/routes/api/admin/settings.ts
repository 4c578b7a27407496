import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '../../../../shared/schemas/common.js';
import { settingsUpdateBody, shopSettings } from '../../../../shared/schemas/settings.js';
import type { SettingsCache } from '../../../cache/settings-cache.js';
import type { Db } from '../../../db/client.js';
import type { CatalogueChanges } from '../../../domain/catalogue-changes.js';
import { updateSettings } from '../../../domain/settings.js';

const adminErrors = { 400: errorBody, 401: errorBody, 403: errorBody };

/** The merchant's settings (docs/settings.md), all of them, for admins: to read and to change. */
const adminSettingsRoutes: FastifyPluginAsyncZod<{ db: Db; changes: CatalogueChanges; settings: SettingsCache }> = async (
  app,
  { db, changes, settings },
) => {
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

export default adminSettingsRoutes;

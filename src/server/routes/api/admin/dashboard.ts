import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '../../../../shared/schemas/common.js';
import { dashboard } from '../../../../shared/schemas/dashboard.js';
import type { SettingsCache } from '../../../cache/settings-cache.js';
import type { Db } from '../../../db/client.js';
import { loadDashboard } from '../../../domain/dashboard.js';

const tags = ['admin'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody };

/** What the merchant looks at first (the books to take away are in exports.ts). */
const adminDashboardRoutes: FastifyPluginAsyncZod<{ db: Db; settings: SettingsCache }> = async (app, { db, settings }) => {
  app.get('/api/admin/dashboard', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        'Sales today, this week and this month, the last 30 days by day, orders to deliver, overdue unpaid orders, open payment exceptions and low stock (admin)',
      response: { 200: dashboard, ...errors },
    },
    // Low stock is what the merchant set in /admin/settings (5 units until they do).
    handler: async () => loadDashboard(db, { lowStockThreshold: (await settings.current()).lowStockThreshold }),
  });
};

export default adminDashboardRoutes;

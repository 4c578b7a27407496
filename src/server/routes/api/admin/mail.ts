import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../../../shared/schemas/common.js';
import { mailQueueView, mailStatus } from '../../../../shared/schemas/mail.js';
import type { Db } from '../../../db/client.js';
import { recentMail } from '../../../mail/queue.js';

/** What the shop owner needs to see that the shop's own machinery is working. */
const adminMailRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get('/api/admin/mail', {
    onRequest: app.requireAdmin,
    schema: {
      tags: ['admin'],
      summary: 'The newest mails and how many are queued, sending, sent or failed (admin)',
      querystring: z.object({
        status: mailStatus.optional(),
      }),
      response: {
        200: mailQueueView,
        400: errorBody,
        401: errorBody,
        403: errorBody,
      },
    },
    handler: (request) => recentMail(db, request.query.status),
  });
};

export default adminMailRoutes;

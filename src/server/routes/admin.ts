import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../shared/schemas/common.js';
import type { Db } from '../db/client.js';
import { MAIL_STATUSES, recentMail } from '../mail/queue.js';

const queuedMail = z.object({
  _id: z.string(),
  kind: z.string(),
  to: z.string(),
  subject: z.string(),
  status: z.string(),
  attempts: z.number(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  nextAttemptAt: z.string(),
  sentAt: z.string().nullable(),
});

/** What the shop owner needs to see that the shop's own machinery is working. */
const adminRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get('/api/admin/mail', {
    onRequest: app.requireAdmin,
    schema: {
      tags: ['admin'],
      summary: 'The newest mails and how many are queued, sending, sent or failed (admin)',
      querystring: z.object({
        status: z.enum(MAIL_STATUSES, { error: 'status must be queued, sending, sent or failed' }).optional(),
      }),
      response: {
        200: z.object({ messages: z.array(queuedMail), counts: z.record(z.string(), z.number()) }),
        400: errorBody,
        401: errorBody,
        403: errorBody,
      },
    },
    handler: (request) => recentMail(db, request.query.status),
  });
};

export default adminRoutes;

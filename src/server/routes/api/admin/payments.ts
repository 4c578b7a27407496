import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, idParams } from '../../../../shared/schemas/common.js';
import {
  assignPaymentBody,
  ledgerListQuery,
  ledgerPage,
  ledgerPayment,
  ledgerSummary,
  manualPaymentBody,
  resolvePaymentBody,
} from '../../../../shared/schemas/payments.js';
import type { Db } from '../../../db/client.js';
import { assignPayment, recordManualPayment, resolvePayment } from '../../../domain/payments/admin-actions.js';
import { listLedger, openExceptionCounts } from '../../../domain/payments/ledger-views.js';
import { resolveUnansweredRefund } from '../../../domain/payments/refunds.js';
import type { Notifications } from '../../../mail/notifications.js';
import type { PaymentDeps } from '../../../payments/deps.js';
import { requestRefund } from '../../../payments/initiator.js';
import { currentUser } from '../../../plugins/shop/sessions.js';

const tags = ['admin', 'payments'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };
const refundErrors = { ...errors, 502: errorBody, 503: errorBody };

/** The M-Pesa ledger for the merchant: every payment, the exceptions, and what to do with them. */
const adminPaymentRoutes: FastifyPluginAsyncZod<{ db: Db; notify: Notifications; payments: PaymentDeps }> = async (
  app,
  { db, notify, payments },
) => {
  app.get('/api/admin/payments', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'The M-Pesa ledger, newest first: all payments, open exceptions, or unmatched ones (admin)',
      querystring: ledgerListQuery,
      response: { 200: ledgerPage, ...errors },
    },
    handler: (request) => listLedger(db, request.query.status, request.query.pageNumber),
  });

  app.get('/api/admin/payments/summary', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'How many M-Pesa payments wait for the merchant (admin)',
      response: { 200: ledgerSummary, ...errors },
    },
    handler: async () => {
      const counts = await openExceptionCounts(db);
      return { openExceptions: Object.values(counts).reduce((a, b) => a + b, 0) };
    },
  });

  app.post('/api/admin/payments', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        'Record an M-Pesa payment from the statement, with its receipt, against an order named by orderId or orderNumber (admin)',
      body: manualPaymentBody,
      response: { 201: ledgerPayment, ...errors },
    },
    handler: async (request, reply) => {
      const payment = await recordManualPayment(db, { notify, log: request.log }, currentUser(request).id, request.body);
      return reply.code(201).send(payment);
    },
  });

  app.post('/api/admin/payments/:id/assign', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        'Give an unmatched M-Pesa payment its order, by orderId or orderNumber; it pays the order if it covers what is due (admin)',
      params: idParams,
      body: assignPaymentBody,
      response: { 200: ledgerPayment, ...errors },
    },
    handler: (request) => assignPayment(db, { notify, log: request.log }, request.params.id, request.body),
  });

  app.post('/api/admin/payments/:id/resolve', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        'Close a payment exception with a note; an unanswered refund also says whether the statement shows the reversal (admin)',
      params: idParams,
      body: resolvePaymentBody,
      response: { 200: ledgerPayment, ...errors },
    },
    handler: ({ body, params, log }) =>
      body.refunded === undefined
        ? resolvePayment(db, { notify, log }, params.id, body.note)
        : resolveUnansweredRefund(db, { notify, log }, params.id, body.refunded, body.note),
  });

  app.post('/api/admin/payments/:id/refund', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        'Refund the whole payment by M-Pesa Reversal: 202 with the payment refund_pending until M-Pesa answers; a payment is refunded at most once (admin)',
      params: idParams,
      response: { 202: ledgerPayment, ...refundErrors },
    },
    handler: async (request, reply) => {
      const payment = await requestRefund({ ...payments, log: request.log }, request.params.id, currentUser(request).id);
      return reply.code(202).send(payment);
    },
  });
};

export default adminPaymentRoutes;

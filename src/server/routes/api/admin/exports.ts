import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { nairobiDay } from '../../../../shared/dates.js';
import { errorBody } from '../../../../shared/schemas/common.js';
import { orderExportQuery } from '../../../../shared/schemas/orders.js';
import { ledgerFilter } from '../../../../shared/schemas/payments.js';
import type { Db } from '../../../db/client.js';
import { ORDER_CSV_HEADER, orderCsvRows, PAYMENT_CSV_HEADER, paymentCsvRows } from '../../../domain/exports.js';
import { attachment, csvStream } from '../../../http/csv.js';

const tags = ['admin'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody };
/** Documents the body for OpenAPI; the stream itself is sent as it is, never serialised (hence the casts below). */
const csvFile = z.string().describe('CSV: UTF-8 with a byte-order mark, CRLF line ends, a header row, then a row per record');

/** The books to take away: orders and M-Pesa payments as CSV. */
const adminExportRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get('/api/admin/exports/orders.csv', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Every order the admin order list’s filters keep, newest first, as CSV (admin)',
      querystring: orderExportQuery,
      response: { 200: csvFile, ...errors },
    },
    handler: async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-disposition', attachment(`orders-${nairobiDay(new Date())}.csv`))
        .send(csvStream(ORDER_CSV_HEADER, orderCsvRows(db, request.query)) as unknown as string),
  });

  app.get('/api/admin/exports/payments.csv', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Every M-Pesa payment of a ledger view (all, open exceptions or unmatched), newest first, as CSV (admin)',
      querystring: z.object({ status: ledgerFilter.default('all') }),
      response: { 200: csvFile, ...errors },
    },
    handler: async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-disposition', attachment(`payments-${nairobiDay(new Date())}.csv`))
        .send(csvStream(PAYMENT_CSV_HEADER, paymentCsvRows(db, request.query.status)) as unknown as string),
  });
};

export default adminExportRoutes;

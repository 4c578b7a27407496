import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, idParams, isPlainList, messageBody } from '../../../shared/schemas/common.js';
import { createOrderBody, order, orderListQuery, orderPage, placeOrderHeaders } from '../../../shared/schemas/orders.js';
import type { Db } from '../../db/client.js';
import type { CatalogChanges } from '../../domain/catalog-changes.js';
import {
  deleteOrder,
  getOrderFor,
  listAllOrders,
  listCustomerOrders,
  listOrdersPage,
  loadExistingOrder,
  markOrderDelivered,
  placeOrder,
} from '../../domain/orders.js';
import { markPaidByAdmin } from '../../domain/payments/ledger.js';
import type { Notifications } from '../../mail/notifications.js';
import { ordersPlaced } from '../../metrics.js';
import { currentUser } from '../../plugins/shop/sessions.js';

const tags = ['orders'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };

const orderRoutes: FastifyPluginAsyncZod<{ db: Db; changes: CatalogChanges; notify: Notifications }> = async (
  app,
  { db, changes, notify },
) => {
  app.post('/api/orders', {
    onRequest: app.requireUser,
    schema: {
      tags,
      summary:
        'Place an order; prices are computed by the server and stock is reserved. A repeated Idempotency-Key answers the order it placed',
      headers: placeOrderHeaders,
      body: createOrderBody,
      response: { 201: order, ...errors },
    },
    handler: async (request, reply) => {
      const idempotencyKey = request.headers['idempotency-key'];
      const { order: placed, repeated } = await placeOrder(
        db,
        changes,
        currentUser(request),
        request.body,
        notify,
        idempotencyKey,
      );
      if (repeated) {
        // The first answer was lost on its way; this one repeats it.
        request.log.info({ orderId: placed._id, idempotencyKey }, 'order placed earlier with this key');
      } else {
        request.log.info({ orderId: placed._id, totalPrice: placed.totalPrice }, 'order placed');
        ordersPlaced.inc();
      }
      return reply.status(201).send(placed);
    },
  });

  app.get('/api/orders/myorders', {
    onRequest: app.requireUser,
    schema: { tags, summary: 'Your orders, newest first', response: { 200: z.array(order), ...errors } },
    handler: (request) => listCustomerOrders(db, currentUser(request).id),
  });

  app.get('/api/orders', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary:
        'Every order, newest first (admin). With pageNumber, isPaid, isDelivered, from, to or keyword: one page of the matching orders',
      querystring: orderListQuery,
      response: { 200: z.union([z.array(order), orderPage]), ...errors },
    },
    // Without parameters, the specification's plain array, for the clients written against it.
    handler: (request) => (isPlainList(request.query) ? listAllOrders(db) : listOrdersPage(db, request.query)),
  });

  app.get('/api/orders/:id', {
    onRequest: app.requireUser,
    schema: { tags, summary: 'One order (its owner or an admin)', params: idParams, response: { 200: order, ...errors } },
    handler: (request) => getOrderFor(db, currentUser(request), request.params.id),
  });

  app.delete('/api/orders/:id', {
    onRequest: app.requireAdmin,
    schema: {
      tags,
      summary: 'Delete an order (admin); an undelivered order returns its stock',
      params: idParams,
      response: { 200: messageBody, ...errors },
    },
    handler: async (request) => {
      await deleteOrder(db, changes, request.params.id);
      return { msg: 'Order deleted' };
    },
  });

  app.put('/api/orders/:id', {
    onRequest: app.requireAdmin,
    schema: { tags, summary: 'Mark an order as paid (admin)', params: idParams, response: { 200: order, ...errors } },
    handler: async (request) => {
      // Recorded as a manual payment without a receipt: the ledger's one rule then pays the order.
      await markPaidByAdmin(db, { notify, log: request.log }, request.params.id, currentUser(request).id);
      return loadExistingOrder(db, request.params.id);
    },
  });

  app.put('/api/orders/:id/deliver', {
    onRequest: app.requireAdmin,
    schema: { tags, summary: 'Mark an order as delivered (admin)', params: idParams, response: { 200: order, ...errors } },
    handler: (request) => markOrderDelivered(db, request.params.id, notify),
  });
};

export default orderRoutes;

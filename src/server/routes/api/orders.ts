import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatKsh } from '../../../shared/money.js';
import { errorBody, idParams, isPlainList, messageBody } from '../../../shared/schemas/common.js';
import { createOrderBody, order, orderListQuery, orderPage, placeOrderHeaders } from '../../../shared/schemas/orders.js';
import { paymentStatus, simulatePaybillBody, stkPushBody, stkPushResponse } from '../../../shared/schemas/payments.js';
import type { RateLimitRule } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { CatalogueChanges } from '../../domain/catalogue-changes.js';
import {
  deleteOrder,
  getOrderFor,
  listAllOrders,
  listCustomerOrders,
  listOrdersPage,
  loadExistingOrder,
  markOrderDelivered,
  placeOrder,
  unpaidOrderForAmount,
} from '../../domain/orders.js';
import { markPaidByAdmin } from '../../domain/payments/admin-actions.js';
import type { Notifications } from '../../mail/notifications.js';
import { ordersPlaced } from '../../metrics.js';
import type { PaymentDeps } from '../../payments/deps.js';
import { paymentStatus as readPaymentStatus, requestPayment, simulatePaybillPayment } from '../../payments/stk.js';
import { currentUser } from '../../plugins/shop/sessions.js';

const tags = ['orders'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody };
const paymentTags = ['payments'];
const paymentErrors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  429: errorBody,
  502: errorBody,
  503: errorBody,
};

const orderRoutes: FastifyPluginAsyncZod<{ db: Db; changes: CatalogueChanges; notify: Notifications }> = async (
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

/** Paying an order by M-Pesa: the prompt, where paying stands, and the simulator's Paybill payment. */
export const orderPaymentRoutes: FastifyPluginAsyncZod<{ deps: PaymentDeps; promptsPerUser: RateLimitRule }> = async (
  app,
  { deps, promptsPerUser },
) => {
  app.post('/api/orders/stkpush', {
    onRequest: app.requireUser,
    config: {
      rateLimit: {
        max: promptsPerUser.max,
        timeWindow: promptsPerUser.windowMs,
        // Counted per shopper (the guard above has loaded them), whatever network they are on.
        keyGenerator: (request) => request.user?.id ?? request.ip,
      },
    },
    schema: {
      tags: paymentTags,
      summary:
        'Send the M-Pesa payment prompt (STK push) for one of your unpaid orders: orderId, or else your most recent unpaid order that Amount pays',
      body: stkPushBody,
      response: { 200: stkPushResponse, ...paymentErrors },
    },
    handler: async (request) => {
      const customer = currentUser(request);
      // The specification's client sends only phoneNumber and Amount.
      const orderId = request.body.orderId ?? (await unpaidOrderForAmount(deps.db, customer.id, request.body.Amount));
      // The request's own logger, so the prompt's log lines carry its request id.
      return requestPayment({ ...deps, log: request.log }, customer, { ...request.body, orderId });
    },
  });

  app.get('/api/orders/:id/payment', {
    onRequest: app.requireUser,
    schema: {
      tags: paymentTags,
      summary: 'Where paying an order stands: paid or not, and its latest M-Pesa prompt (owner or admin)',
      params: idParams,
      response: { 200: paymentStatus, ...paymentErrors },
    },
    handler: (request) => readPaymentStatus(deps, currentUser(request), request.params.id),
  });

  app.post('/api/orders/:id/simulate-paybill', {
    onRequest: app.requireUser,
    schema: {
      tags: paymentTags,
      summary:
        "Demo shops only (MPESA_ENV=simulator): the simulator pays what is still due by Paybill (or Till) from phoneNumber, or the sandbox's test number; the confirmation follows (owner or admin)",
      params: idParams,
      body: simulatePaybillBody,
      response: { 202: messageBody, ...paymentErrors },
    },
    handler: async (request, reply) => {
      const { amount } = await simulatePaybillPayment(deps, currentUser(request), request.params.id, request.body.phoneNumber);
      return reply.status(202).send({ msg: `Paybill payment of ${formatKsh(amount)} sent from the simulated phone` });
    },
  });
};

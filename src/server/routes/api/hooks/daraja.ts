import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatKsh } from '../../../../shared/money.js';
import { errorBody, idParams, messageBody } from '../../../../shared/schemas/common.js';
import { paymentStatus, simulatePaybillBody, stkPushBody, stkPushResponse } from '../../../../shared/schemas/payments.js';
import type { RateLimitRule } from '../../../config.js';
import { unpaidOrderForAmount } from '../../../domain/orders.js';
import type { HookSecretKind } from '../../../lib/hook-secrets.js';
import { sameSecret } from '../../../lib/same-secret.js';
import { CALLBACK_KINDS, type HookKind, receiveInitiatorCallback } from '../../../payments/initiator.js';
import { C2B_REJECT_ACCOUNT, receiveC2bConfirmation, validateC2b } from '../../../payments/paybill.js';
import {
  type PaymentDeps,
  paymentStatus as readPaymentStatus,
  receiveStkCallback,
  requestPayment,
  simulatePaybillPayment,
  storeCallback,
} from '../../../payments/stk.js';
import { currentUser } from '../../../plugins/shop/sessions.js';

const tags = ['payments'];
const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 429: errorBody, 502: errorBody, 503: errorBody };

/** What Daraja gets back for every callback, at once (docs/payments.md, The callback). */
const ACK = { ResultCode: 0, ResultDesc: 'Accepted' };

export interface PaymentRoutesOptions {
  deps: PaymentDeps;
  /** The secret in the path of each kind of Daraja callback (lib/hook-secrets.ts). */
  hookSecret: (kind: HookSecretKind) => string;
  /** MPESA_CALLBACK_SECRET itself, which no URL carries any more. */
  callbackSecret: () => string;
  promptsPerUser: RateLimitRule;
  /** MPESA_CALLBACK_ALLOWED_IPS: callbacks from anywhere else are kept but not acted on. */
  callbackAllowedIps?: string[] | undefined;
}

/** The confirmation's answer: the money has moved, so it is always acknowledged. */
const C2B_CONFIRM_ACK = { ResultCode: 0, ResultDesc: 'Success' };

const paymentRoutes: FastifyPluginAsyncZod<PaymentRoutesOptions> = async (
  app,
  { deps, hookSecret, callbackSecret, promptsPerUser, callbackAllowedIps },
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
      tags,
      summary:
        'Send the M-Pesa payment prompt (STK push) for one of your unpaid orders: orderId, or else your most recent unpaid order that Amount pays',
      body: stkPushBody,
      response: { 200: stkPushResponse, ...errors },
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
      tags,
      summary: 'Where paying an order stands: paid or not, and its latest M-Pesa prompt (owner or admin)',
      params: idParams,
      response: { 200: paymentStatus, ...errors },
    },
    handler: (request) => readPaymentStatus(deps, currentUser(request), request.params.id),
  });

  app.post('/api/orders/:id/simulate-paybill', {
    onRequest: app.requireUser,
    schema: {
      tags,
      summary:
        "Demo shops only (MPESA_ENV=simulator): the simulator pays what is still due by Paybill (or Till) from phoneNumber, or the sandbox's test number; the confirmation follows (owner or admin)",
      params: idParams,
      body: simulatePaybillBody,
      response: { 202: messageBody, ...errors },
    },
    handler: async (request, reply) => {
      const { amount } = await simulatePaybillPayment(deps, currentUser(request), request.params.id, request.body.phoneNumber);
      return reply.status(202).send({ msg: `Paybill payment of ${formatKsh(amount)} sent from the simulated phone` });
    },
  });

  // Daraja's calls are taken as text whatever their content type says, and no body as an empty
  // one: the ledger keeps each exactly as sent and the shop parses it only after storing it, so no
  // body (empty, not JSON, however nested or odd) is refused, lost or crashes anything.
  await app.register(async (instance) => {
    const hooks = instance.withTypeProvider<ZodTypeProvider>();
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    hooks.addHook('preValidation', async (request) => {
      request.body ??= '';
    });
    // Daraja sends no XSRF token; the path's token is the hook's secret, never logged.
    const config = { xsrf: false, secretParams: ['token'] };
    const fromAllowedAddress = (request: FastifyRequest) => !callbackAllowedIps || callbackAllowedIps.includes(request.ip);

    /**
     * Whether the path carries this kind's own secret (lib/hook-secrets.ts). Any other is answered
     * as usual and ignored, another kind's included. MPESA_CALLBACK_SECRET itself was every URL's
     * secret before each kind had its own, and has been in logs: a call with it (to C2B URLs
     * registered on the Daraja portal before, a Result of a request sent before) is kept when
     * `keepAs` says how, never acted on, and the log says what to do.
     */
    async function rightSecret(
      kind: HookSecretKind,
      request: { params: { token: string }; body: string; ip: string; log: FastifyBaseLogger },
      keepAs?: { kind: string; subjectId?: string | undefined },
    ): Promise<boolean> {
      if (sameSecret(request.params.token, hookSecret(kind))) return true;
      if (sameSecret(request.params.token, callbackSecret())) {
        if (keepAs) await storeCallback(deps.db, request.body, request.ip, 'old_secret', keepAs.kind, keepAs.subjectId);
        request.log.warn(
          { ip: request.ip, hook: kind, kept: keepAs !== undefined },
          'M-Pesa call to a URL with MPESA_CALLBACK_SECRET itself not acted on: each kind of callback has its own secret now; register the C2B URLs again (docs/payments.md)',
        );
        return false;
      }
      request.log.warn({ ip: request.ip, hook: kind }, 'M-Pesa call with a wrong secret ignored');
      return false;
    }

    const ackSchema = { 200: z.object({ ResultCode: z.number(), ResultDesc: z.string() }) };

    hooks.post('/api/hooks/daraja/stk/:token', {
      config,
      schema: {
        tags,
        summary: 'Daraja posts STK results here; the path carries the secret of STK callbacks',
        params: z.object({ token: z.string().max(200) }),
        // The body exactly as Daraja sent it: stored before anything reads it (see below).
        body: z.string(),
        response: ackSchema,
      },
      handler: async (request) => {
        if (!(await rightSecret('stk', request, { kind: 'stk' }))) return ACK;
        if (!fromAllowedAddress(request)) {
          // Kept, so nothing is lost if the allow-list is out of date, but never acted on.
          await storeCallback(deps.db, request.body, request.ip, 'refused_ip');
          request.log.warn(
            { ip: request.ip },
            'M-Pesa callback from an address not in MPESA_CALLBACK_ALLOWED_IPS kept, not acted on',
          );
          return ACK;
        }
        await receiveStkCallback({ ...deps, log: request.log }, request.body, request.ip);
        return ACK;
      },
    });

    // Lipa na M-Pesa by Paybill or Till: the URLs registered with Daraja carry the C2B secret.
    // Neither path names M-Pesa: Daraja silently refuses to register URLs that do.
    hooks.post('/api/hooks/daraja/c2b/:token/confirm', {
      config,
      schema: {
        tags,
        summary: 'Daraja posts each Paybill or Till payment here; the path carries the secret of C2B calls',
        params: z.object({ token: z.string().max(200) }),
        body: z.string(),
        response: ackSchema,
      },
      handler: async (request) => {
        if (!(await rightSecret('c2b', request, { kind: 'c2b_confirmation' }))) return C2B_CONFIRM_ACK;
        if (!fromAllowedAddress(request)) {
          await storeCallback(deps.db, request.body, request.ip, 'refused_ip', 'c2b_confirmation');
          request.log.warn(
            { ip: request.ip },
            'C2B confirmation from an address not in MPESA_CALLBACK_ALLOWED_IPS kept, not acted on',
          );
          return C2B_CONFIRM_ACK;
        }
        await receiveC2bConfirmation({ ...deps, log: request.log }, request.body, request.ip);
        return C2B_CONFIRM_ACK;
      },
    });
    // Results of Reversal (rev) and Transaction Status (ts), and their queue-timeout notices: the
    // path carries the kind's secret and the refund or payment concerned. Answered at once, stored
    // first; a timeout notice has no body worth reading, so an empty or garbled one is stored too.
    for (const kind of ['rev', 'ts'] as const satisfies HookKind[]) {
      for (const what of ['result', 'timeout'] as const) {
        hooks.post(`/api/hooks/daraja/${kind}/:token/:id/${what}`, {
          config,
          schema: {
            tags,
            summary:
              kind === 'rev'
                ? `Daraja posts the ${what === 'result' ? 'Result' : 'queue timeout'} of a refund (Reversal) here`
                : `Daraja posts the ${what === 'result' ? 'Result' : 'queue timeout'} of a receipt lookup (Transaction Status) here`,
            params: z.object({ token: z.string().max(200), id: z.string().max(100) }),
            body: z.string(),
            response: ackSchema,
          },
          handler: async (request) => {
            const id = z.uuid().safeParse(request.params.id);
            const subjectId = id.success ? id.data : undefined;
            if (!(await rightSecret(kind, request, { kind: CALLBACK_KINDS[kind][what], subjectId }))) return ACK;
            if (!subjectId || !fromAllowedAddress(request)) {
              await storeCallback(
                deps.db,
                request.body,
                request.ip,
                subjectId ? 'refused_ip' : 'unknown_subject',
                `${kind}_${what}`,
              );
              request.log.warn({ ip: request.ip }, 'M-Pesa result kept, not acted on (unknown subject or address)');
              return ACK;
            }
            await receiveInitiatorCallback({ ...deps, log: request.log }, kind, what, subjectId, request.body, request.ip);
            return ACK;
          },
        });
      }
    }

    hooks.post('/api/hooks/daraja/c2b/:token/validate', {
      config,
      schema: {
        tags,
        summary: 'Daraja asks here whether to take a Paybill payment (when validation is on for the shortcode)',
        params: z.object({ token: z.string().max(200) }),
        body: z.string(),
        response: { 200: z.object({ ResultCode: z.string(), ResultDesc: z.string() }) },
      },
      // Daraja waits about 8 s for this answer: one indexed read, nothing else. A question needs
      // no keeping: the confirmation that follows a payment is what counts.
      handler: async (request) => {
        if (!(await rightSecret('c2b', request))) return C2B_REJECT_ACCOUNT;
        return validateC2b(deps, request.body);
      },
    });
  });
};

export default paymentRoutes;

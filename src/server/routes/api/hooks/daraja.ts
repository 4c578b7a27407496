import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HookSecretKind } from '../../../lib/hook-secrets.js';
import { sameSecret } from '../../../lib/same-secret.js';
import { storeCallback } from '../../../payments/callback-store.js';
import { receiveStkCallback } from '../../../payments/callbacks.js';
import type { HookKind, PaymentDeps } from '../../../payments/deps.js';
import { CALLBACK_KINDS, receiveInitiatorCallback } from '../../../payments/initiator.js';
import { C2B_REJECT_ACCOUNT, receiveC2bConfirmation, validateC2b } from '../../../payments/paybill.js';

const tags = ['payments'];

/** What Daraja gets back for every callback, at once (docs/payments.md, The callback). */
const ACK = { ResultCode: 0, ResultDesc: 'Accepted' };

export interface DarajaHookOptions {
  deps: PaymentDeps;
  /** The secret in the path of each kind of Daraja callback (lib/hook-secrets.ts). */
  hookSecret: (kind: HookSecretKind) => string;
  /** MPESA_CALLBACK_SECRET itself, which no URL carries any more. */
  callbackSecret: () => string;
  /** MPESA_CALLBACK_ALLOWED_IPS: callbacks from anywhere else are kept but not acted on. */
  callbackAllowedIps?: string[] | undefined;
}

/** The confirmation's answer: the money has moved, so it is always acknowledged. */
const C2B_CONFIRM_ACK = { ResultCode: 0, ResultDesc: 'Success' };

/** Daraja sends no XSRF token; the path's token is the hook's secret, never logged. */
const config = { xsrf: false, secretParams: ['token'] };

const ackSchema = { 200: z.object({ ResultCode: z.number(), ResultDesc: z.string() }) };

/** What a handler reads of Daraja's call: the secret in its path, its body as sent, where it came from. */
interface DarajaCall {
  params: { token: string };
  body: string;
  ip: string;
  log: FastifyBaseLogger;
}

/** Daraja's calls into the shop: STK results, Paybill and Till payments, Reversal and Transaction Status results. */
const darajaHookRoutes: FastifyPluginAsyncZod<DarajaHookOptions> = async (
  app,
  { deps, hookSecret, callbackSecret, callbackAllowedIps },
) => {
  const hooks: DarajaHookOptions = { deps, hookSecret, callbackSecret, callbackAllowedIps };
  // Daraja's calls (this plugin's routes, and only them) are taken as text whatever their content
  // type says, and no body as an empty one: the ledger keeps each exactly as sent and the shop
  // parses it only after storing it, so no body (empty, not JSON, however nested or odd) is
  // refused, lost or crashes anything.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('preValidation', async (request) => {
    request.body ??= '';
  });

  app.post('/api/hooks/daraja/stk/:token', {
    config,
    schema: {
      tags,
      summary: 'Daraja posts STK results here; the path carries the secret of STK callbacks',
      params: z.object({ token: z.string().max(200) }),
      // The body exactly as Daraja sent it: stored before anything reads it (see below).
      body: z.string(),
      response: ackSchema,
    },
    handler: (request) => receiveStkResult(hooks, request),
  });

  // Lipa na M-Pesa by Paybill or Till: the URLs registered with Daraja carry the C2B secret.
  // Neither path names M-Pesa: Daraja silently refuses to register URLs that do.
  app.post('/api/hooks/daraja/c2b/:token/confirm', {
    config,
    schema: {
      tags,
      summary: 'Daraja posts each Paybill or Till payment here; the path carries the secret of C2B calls',
      params: z.object({ token: z.string().max(200) }),
      body: z.string(),
      response: ackSchema,
    },
    handler: (request) => receiveC2bPayment(hooks, request),
  });
  // Results of Reversal (rev) and Transaction Status (ts), and their queue-timeout notices: the
  // path carries the kind's secret and the refund or payment concerned. Answered at once, stored
  // first; a timeout notice has no body worth reading, so an empty or garbled one is stored too.
  for (const kind of ['rev', 'ts'] as const satisfies HookKind[]) {
    for (const what of ['result', 'timeout'] as const) {
      app.post(`/api/hooks/daraja/${kind}/:token/:id/${what}`, {
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
        handler: (request) => receiveInitiatorResult(hooks, kind, what, request),
      });
    }
  }

  app.post('/api/hooks/daraja/c2b/:token/validate', {
    config,
    schema: {
      tags,
      summary: 'Daraja asks here whether to take a Paybill payment (when validation is on for the shortcode)',
      params: z.object({ token: z.string().max(200) }),
      body: z.string(),
      response: { 200: z.object({ ResultCode: z.string(), ResultDesc: z.string() }) },
    },
    handler: (request) => answerC2bValidation(hooks, request),
  });
};

export default darajaHookRoutes;

/**
 * Whether the path carries this kind's own secret (lib/hook-secrets.ts). Any other is answered
 * as usual and ignored, another kind's included. MPESA_CALLBACK_SECRET itself was every URL's
 * secret before each kind had its own, and has been in logs: a call with it (to C2B URLs
 * registered on the Daraja portal before, a Result of a request sent before) is kept when
 * `keepAs` says how, never acted on, and the log says what to do.
 */
async function rightSecret(
  hooks: DarajaHookOptions,
  kind: HookSecretKind,
  request: DarajaCall,
  keepAs?: { kind: string; subjectId?: string | undefined },
): Promise<boolean> {
  if (sameSecret(request.params.token, hooks.hookSecret(kind))) return true;
  if (sameSecret(request.params.token, hooks.callbackSecret())) {
    if (keepAs) await storeCallback(hooks.deps.db, request.body, request.ip, 'old_secret', keepAs.kind, keepAs.subjectId);
    request.log.warn(
      { ip: request.ip, hook: kind, kept: keepAs !== undefined },
      'M-Pesa call to a URL with MPESA_CALLBACK_SECRET itself not acted on: each kind of callback has its own secret now; register the C2B URLs again (docs/payments.md)',
    );
    return false;
  }
  request.log.warn({ ip: request.ip, hook: kind }, 'M-Pesa call with a wrong secret ignored');
  return false;
}

function fromAllowedAddress(hooks: DarajaHookOptions, request: DarajaCall): boolean {
  return !hooks.callbackAllowedIps || hooks.callbackAllowedIps.includes(request.ip);
}

/** An STK push's result. */
async function receiveStkResult(hooks: DarajaHookOptions, request: DarajaCall): Promise<typeof ACK> {
  if (!(await rightSecret(hooks, 'stk', request, { kind: 'stk' }))) return ACK;
  if (!fromAllowedAddress(hooks, request)) {
    // Kept, so nothing is lost if the allow-list is out of date, but never acted on.
    await storeCallback(hooks.deps.db, request.body, request.ip, 'refused_ip');
    request.log.warn({ ip: request.ip }, 'M-Pesa callback from an address not in MPESA_CALLBACK_ALLOWED_IPS kept, not acted on');
    return ACK;
  }
  await receiveStkCallback({ ...hooks.deps, log: request.log }, request.body, request.ip);
  return ACK;
}

/** A Paybill or Till payment's confirmation. */
async function receiveC2bPayment(hooks: DarajaHookOptions, request: DarajaCall): Promise<typeof C2B_CONFIRM_ACK> {
  if (!(await rightSecret(hooks, 'c2b', request, { kind: 'c2b_confirmation' }))) return C2B_CONFIRM_ACK;
  if (!fromAllowedAddress(hooks, request)) {
    await storeCallback(hooks.deps.db, request.body, request.ip, 'refused_ip', 'c2b_confirmation');
    request.log.warn({ ip: request.ip }, 'C2B confirmation from an address not in MPESA_CALLBACK_ALLOWED_IPS kept, not acted on');
    return C2B_CONFIRM_ACK;
  }
  await receiveC2bConfirmation({ ...hooks.deps, log: request.log }, request.body, request.ip);
  return C2B_CONFIRM_ACK;
}

/** The Result, or queue-timeout notice, of a Reversal (rev) or Transaction Status (ts) request. */
async function receiveInitiatorResult(
  hooks: DarajaHookOptions,
  kind: 'rev' | 'ts',
  what: 'result' | 'timeout',
  request: DarajaCall & { params: { id: string } },
): Promise<typeof ACK> {
  const id = z.uuid().safeParse(request.params.id);
  const subjectId = id.success ? id.data : undefined;
  if (!(await rightSecret(hooks, kind, request, { kind: CALLBACK_KINDS[kind][what], subjectId }))) return ACK;
  if (!subjectId || !fromAllowedAddress(hooks, request)) {
    await storeCallback(hooks.deps.db, request.body, request.ip, subjectId ? 'refused_ip' : 'unknown_subject', `${kind}_${what}`);
    request.log.warn({ ip: request.ip }, 'M-Pesa result kept, not acted on (unknown subject or address)');
    return ACK;
  }
  await receiveInitiatorCallback({ ...hooks.deps, log: request.log }, kind, what, subjectId, request.body, request.ip);
  return ACK;
}

/**
 * Whether to take a Paybill payment. Daraja waits about 8 s for this answer: one indexed read,
 * nothing else. A question needs no keeping: the confirmation that follows a payment is what counts.
 */
async function answerC2bValidation(hooks: DarajaHookOptions, request: DarajaCall) {
  if (!(await rightSecret(hooks, 'c2b', request))) return C2B_REJECT_ACCOUNT;
  return validateC2b(hooks.deps, request.body);
}

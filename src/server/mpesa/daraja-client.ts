/**
 * Typed client for Safaricom Daraja's M-Pesa Express (STK push) API (docs/payments.md: OAuth, STK push request, STK query).
 * The same client talks to the local simulator, the sandbox and production; only baseUrl and the
 * credentials differ.
 *
 * - OAuth token cached until 60 s before it expires; concurrent callers share one refresh; a
 *   refused token (404.001.03) is refreshed once and the call retried once.
 * - Timestamp (Nairobi time) and Password are generated inside every request, so they always match.
 * - Inputs are validated before anything is sent; Daraja's error bodies become DarajaError.
 * - Retries with backoff: the token call and stkQuery on network errors and 'unavailable';
 *   stkPush only when the request surely never reached Daraja (connection refused, DNS failure),
 *   because after a timeout the prompt may already be on the customer's phone.
 * - Nothing is logged, and no error message contains the passkey, consumer secret, Password or token.
 */
import { registerC2bUrls, simulateC2bPayment } from './daraja/c2b.js';
import { callApi, type FamilyContext } from './daraja/call-api.js';
import { resolveConfig } from './daraja/config.js';
import { basicAuthOf, httpCall, makeScrubber } from './daraja/http.js';
import { reversal, transactionStatus } from './daraja/initiator.js';
import { stkPush, stkQuery } from './daraja/stk.js';
import { dropToken, getToken, newTokenCache, type TokenContext } from './daraja/token.js';
import type { DarajaClient, DarajaConfig } from './daraja/types.js';
import { DarajaError } from './daraja-errors.js';

export { darajaPassword, darajaTimestamp } from './daraja/config.js';
export type {
  C2bPayment,
  C2bRegistration,
  DarajaClient,
  DarajaConfig,
  InitiatorAccepted,
  InitiatorRequest,
  MpesaEnv,
  ReversalInput,
  StkPushAccepted,
  StkPushInput,
  StkQueryResult,
  TransactionStatusInput,
} from './daraja/types.js';
export { type ParsedStkCallback, parseStkCallback } from './daraja-callback.js';
export { DarajaError };

export const SANDBOX_SHORTCODE = '174379';
export const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

/**
 * A client of one Daraja app: the checked configuration, its own token cache, and the API
 * families (daraja/stk.ts, daraja/c2b.ts, daraja/initiator.ts) given a callApi bound to them.
 */
export function createDarajaClient(config: DarajaConfig): DarajaClient {
  const cfg = resolveConfig(config);
  const basicAuth = basicAuthOf(cfg);
  const cache = newTokenCache();
  const scrub = makeScrubber(cfg, basicAuth, cache.seenTokens);
  const http = (path: string, init: Parameters<typeof httpCall>[2]) => httpCall(cfg, path, init);
  const tokens: TokenContext = { cfg, basicAuth, http, scrub };
  const api = {
    cfg,
    http,
    scrub,
    getToken: () => getToken(tokens, cache),
    dropToken: (token: string) => dropToken(cache, token),
  };
  const ctx: FamilyContext = { cfg, scrub, call: (op, path, fields) => callApi(api, op, path, fields) };
  return {
    stkPush: (input) => stkPush(ctx, input),
    stkQuery: (checkoutRequestId) => stkQuery(ctx, checkoutRequestId),
    registerC2bUrls: (input) => registerC2bUrls(ctx, input),
    simulateC2bPayment: (version, input) => simulateC2bPayment(ctx, version, input),
    reversal: (input) => reversal(ctx, input),
    transactionStatus: (input) => transactionStatus(ctx, input),
  };
}

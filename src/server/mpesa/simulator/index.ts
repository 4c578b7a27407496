/**
 * Daraja simulator — a TEST DOUBLE for Safaricom's M-Pesa Daraja API. It ships with the server
 * (MPESA_ENV=simulator starts it, see ../local-simulator.ts) but is not part of the shop's logic.
 *
 * Safaricom's Daraja cannot be reached from development machines or CI (and its sandbox cannot be
 * told which result to return), so this small HTTP server stands in for it. It speaks Daraja's
 * wire contract — paths, request and response bodies, error bodies and status codes, as described
 * in docs/payments.md (Facts about Daraja the code relies on) — for the calls the shop makes:
 *
 *   GET  /oauth/v1/generate?grant_type=client_credentials   (HTTP Basic consumer key:secret)
 *   POST /mpesa/stkpush/v1/processrequest                    (Bearer token)
 *   POST /mpesa/stkpushquery/v1/query                        (Bearer token)
 *   POST /mpesa/c2b/v1|v2/registerurl                        (Bearer token)
 *   POST /mpesa/c2b/v1|v2/simulate                           (Bearer token; sandbox's Paybill/Till payment)
 *   POST /mpesa/reversal/v1/request                          (Bearer token; Result to ResultURL, see initiator.ts)
 *   POST /mpesa/transactionstatus/v1/query                   (Bearer token; Result to ResultURL, see initiator.ts)
 *   GET  /__sim/credential-key.pem                           (simulator only: the key for the SecurityCredential)
 *
 * A C2B payment (simulate) is the customer paying from their phone: when external validation is on
 * (`c2bValidation`), the registered ValidationURL is asked first and its answer (or its silence, by
 * the registered ResponseType) decides; then the money moves (a receipt) and the confirmation is
 * POSTed to the ConfirmationURL, once, twice or never by the same phone-number table as STK.
 * After an accepted STK push, the "prompt" stays open for `callbackDelayMs`; then its outcome
 * resolves (chosen by the PhoneNumber, see SIMULATOR_OUTCOMES) and the callback is POSTed to the
 * push's CallBackURL, once, twice or never. The query answers "being processed" while the prompt is
 * open and the result afterwards. Every callback attempt is recorded in `deliveries`, and every
 * payment completed (every receipt issued, told or not) in `receipts`. Some numbers add a fault
 * between Daraja and the shop (SimulatorFault), for the shop's chaos tests.
 *
 * Rules of the double:
 * - Self-contained: it imports only node: built-ins and its own folder (test/architecture checks
 *   this), so that it checks the shop's client rather than sharing its code. The shop only ever
 *   talks to it over HTTP, through the same client it uses for Safaricom (MPESA_ENV=simulator).
 * - Bound to loopback (127.0.0.1) by default; it never calls the real Daraja. The only outbound
 *   requests are the callbacks, to the URL the caller supplied.
 * - No retries of callbacks (Safaricom says it does not retry); 'twice' exists to test idempotency.
 * - It never logs the Password, passkey, consumer secret, tokens or the callback URL's path.
 * - Beyond Daraja's observable behaviour it only adds the phone-number outcome table (which also
 *   picks reversal faults by the payer of the payment reversed) and the public key of its
 *   SecurityCredential; there is no control API.
 *
 * Standalone: `npx tsx src/server/mpesa/simulator/cli.ts` (see cli.ts).
 *
 * This file routes requests and starts the server; the rest of the double is in its own modules,
 * each a set of functions over one simulator's state (state.ts): outcomes.ts (the phone-number
 * table), oauth.ts, stk.ts (push, query, callbacks), c2b.ts, initiator.ts (Reversal, Transaction
 * Status), delivery.ts (every POST to the shop), http.ts (Daraja's error and JSON bodies), wire.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleRegister, handleSimulate, recordSilentPayment } from './c2b.js';
import { postResult } from './delivery.js';
import { darajaError, HttpError, hostForUrl, readJsonObject, sendJson } from './http.js';
import { createInitiatorApis, type ResultDelivery, type ReversalFault, type SimulatedReversal } from './initiator.js';
import { handleOAuth, requireToken } from './oauth.js';
import { reversalFaultFor } from './outcomes.js';
import { createState, type SimState, schedule } from './state.js';
import { handlePush, handleQuery } from './stk.js';
import type { DarajaSimulator, IssuedReceipt, SimulatorOptions } from './types.js';
import { newRequestId } from './wire.js';

export { SIMULATOR_OUTCOMES, type SimulatorFault } from './outcomes.js';
export type { C2bDelivery, CallbackDelivery, DarajaSimulator, IssuedReceipt, SimulatorOptions } from './types.js';
export type { ResultDelivery, ReversalFault, SimulatedReversal };

const PATHS = {
  oauth: '/oauth/v1/generate',
  push: '/mpesa/stkpush/v1/processrequest',
  query: '/mpesa/stkpushquery/v1/query',
} as const;
const C2B_PATH = /^\/mpesa\/c2b\/(v1|v2)\/(registerurl|simulate)$/;
const REVERSAL_PATH = '/mpesa/reversal/v1/request';
const STATUS_PATH = '/mpesa/transactionstatus/v1/query';
const CREDENTIAL_KEY_PATH = '/__sim/credential-key.pem';
/**
 * Not Daraja: a test's way to make M-Pesa hold a Paybill payment without telling the shop, so that
 * the test can then post the confirmation itself, as Daraja would or as a forger would, and the
 * shop's Transaction Status finds the money where it really is.
 */
const SILENT_C2B_PATH = '/__sim/c2b/silent-payment';

type InitiatorApis = ReturnType<typeof createInitiatorApis>;

export async function startDarajaSimulator(options: SimulatorOptions): Promise<DarajaSimulator> {
  for (const key of ['consumerKey', 'consumerSecret', 'shortcode', 'passkey'] as const) {
    if (typeof options[key] !== 'string' || options[key].length === 0) {
      throw new Error(`startDarajaSimulator: option ${key} is required`);
    }
  }
  const sim = createState(options);
  const initiatorApis = createInitiator(sim);
  const server = createServer((req, res) => {
    handle(sim, initiatorApis, req, res).catch((err: unknown) => answerError(sim, err, req, res));
  });
  // An idle connection is kept longer than any client keeps one. Node's fetch drops its idle
  // connections a second before the server's Keep-Alive hint (5 s by default), counted from when
  // it read the answer: with the shop's process busy, that can be after the server's own count ran
  // out, and a push sent on a connection the server is closing is lost in between (an answer that
  // never comes). Tests send hundreds of pushes from a loaded process; losing one must be a fault
  // they inject, never the simulator's own timing.
  server.keepAliveTimeout = 65_000;

  const url = await listen(server, options.port ?? 0, sim.host);
  sim.log('listening', {
    url,
    shortcode: options.shortcode,
    callbackDelayMs: sim.callbackDelayMs,
    tokenTtlSeconds: sim.tokenTtlSeconds,
  });

  let closing: Promise<void> | null = null;
  return {
    url,
    deliveries: sim.deliveries,
    receipts: sim.receipts,
    c2bDeliveries: sim.c2bDeliveries,
    get tokensIssued() {
      return sim.tokensIssued;
    },
    reversals: initiatorApis.reversals,
    resultDeliveries: initiatorApis.resultDeliveries,
    credentialKeyPem: initiatorApis.credentialKeyPem,
    balanceOf: (shortcode) => sim.balances.get(shortcode) ?? 0,
    close() {
      if (closing) return closing;
      closing = close(sim, server);
      return closing;
    },
  };
}

/** Stops every pending timer and outbound call, then the server and its connections. */
function close(sim: SimState, server: Server): Promise<void> {
  sim.closed = true;
  for (const timer of sim.timers) clearTimeout(timer);
  sim.timers.clear();
  sim.shutdown.abort();
  return new Promise<void>((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
}

/** Listens on host:port and answers the simulator's base URL. */
async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const address = server.address() as AddressInfo;
  return `http://${hostForUrl(host)}:${address.port}`;
}

/** Reversal and Transaction Status (initiator.ts), over this simulator's receipts, prompts and balances. */
function createInitiator(sim: SimState): InitiatorApis {
  const { options, receipts, checkouts } = sim;
  const knownPayment = (r: IssuedReceipt | undefined) =>
    r && {
      receipt: r.receipt,
      amount: r.amount,
      phone: r.phone,
      shortcode: r.shortcode,
      checkoutRequestId: r.checkoutRequestId,
      merchantRequestId: checkouts.get(r.checkoutRequestId)?.merchantRequestId ?? '',
      at: r.at,
    };
  return createInitiatorApis({
    initiators: options.initiators ?? { testapi: 'Safaricom999!*!' },
    resultDelayMs: options.resultDelayMs ?? sim.callbackDelayMs,
    statusLookupBy: options.statusLookupBy ?? 'checkout',
    lockAfterFailures: 3,
    findPayment: (receipt) => knownPayment(receipts.find((r) => r.receipt === receipt)),
    findPaymentByStkId: (by, id) =>
      knownPayment(
        receipts.find((r) =>
          r.via === 'stk' && by === 'checkout'
            ? r.checkoutRequestId === id
            : r.via === 'stk' && checkouts.get(r.checkoutRequestId)?.merchantRequestId === id,
        ),
      ),
    reversalFaultFor,
    balances: sim.balances,
    receiptTaken: (receipt) => receipts.some((r) => r.receipt === receipt),
    schedule: (fn, ms) => schedule(sim, fn, ms),
    post: (target, body) => postResult(sim, target, body),
    log: sim.log,
    fail: (status, errorCode, errorMessage) => darajaError(status, errorCode, errorMessage),
    send: sendJson,
  });
}

// --- Routing ---------------------------------------------------------------------------------

async function handle(sim: SimState, initiatorApis: InitiatorApis, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  const method = req.method ?? 'GET';
  if (url.pathname === PATHS.oauth) {
    if (method !== 'GET') throw darajaError(405, '405.001', 'Method Not Allowed');
    handleOAuth(sim, req, url, res);
    return;
  }
  if (url.pathname === PATHS.push || url.pathname === PATHS.query) {
    if (method !== 'POST') throw darajaError(405, '405.001', 'Method Not Allowed');
    requireToken(sim, req);
    const body = await readJsonObject(req);
    if (url.pathname === PATHS.push) await handlePush(sim, body, res);
    else handleQuery(sim, body, res);
    return;
  }
  if (url.pathname === CREDENTIAL_KEY_PATH && method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/x-pem-file' });
    res.end(initiatorApis.credentialKeyPem);
    return;
  }
  if (url.pathname === SILENT_C2B_PATH && method === 'POST') {
    sendJson(res, 200, recordSilentPayment(sim, await readJsonObject(req)));
    return;
  }
  if (url.pathname === REVERSAL_PATH || url.pathname === STATUS_PATH) {
    if (method !== 'POST') throw darajaError(405, '405.001', 'Method Not Allowed');
    requireToken(sim, req);
    const body = await readJsonObject(req);
    if (url.pathname === REVERSAL_PATH) initiatorApis.handleReversal(body, res);
    else initiatorApis.handleStatus(body, res);
    return;
  }
  const c2b = C2B_PATH.exec(url.pathname);
  if (c2b) {
    if (method !== 'POST') throw darajaError(405, '405.001', 'Method Not Allowed');
    requireToken(sim, req);
    const body = await readJsonObject(req);
    if (c2b[2] === 'registerurl') handleRegister(sim, c2b[1] as 'v1' | 'v2', body, res);
    else handleSimulate(sim, body, res);
    return;
  }
  throw darajaError(404, '404.001.01', 'Resource not found');
}

/** Answers a refused or failed request with Daraja's error body (500 for anything unexpected). */
function answerError(sim: SimState, err: unknown, req: IncomingMessage, res: ServerResponse): void {
  const httpError = err instanceof HttpError ? err : darajaError(500, '500.003.1001', 'Internal Server Error', newRequestId());
  if (!(err instanceof HttpError)) sim.log('internal error', { error: err instanceof Error ? err.message : String(err) });
  else sim.log('request rejected', { path: req.url?.split('?')[0], status: httpError.status, ...httpError.body });
  req.resume(); // discard any unread body
  if (res.headersSent) res.destroy();
  else sendJson(res, httpError.status, httpError.body);
}

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
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInitiatorApis, type ResultDelivery, type ReversalFault, type SimulatedReversal } from './initiator.js';
import {
  checkoutRequestId as formatCheckoutRequestId,
  isCallbackUrl,
  isTextOfLength,
  isValidTimestamp,
  MSISDN_PATTERN,
  maskForLog,
  merchantRequestIdSequence,
  mpesaReceipt,
  nairobiTimestamp,
  nairobiTransactionDate,
  newAccessToken,
  newRequestId,
  numericString,
  originForLog,
  parseAmount,
  SHORTCODE_PATTERN,
  stkPassword,
} from './wire.js';

export type { ResultDelivery, ReversalFault, SimulatedReversal };

export interface SimulatorOptions {
  host?: string; // default '127.0.0.1' (loopback only)
  port?: number; // default 0 (any free port)
  consumerKey: string;
  consumerSecret: string;
  shortcode: string; // e.g. '174379'
  passkey: string;
  tokenTtlSeconds?: number; // default 3599 (tests set it short)
  expiresInAsNumber?: boolean; // default false: "expires_in": "3599" as a string
  callbackDelayMs?: number; // default 1500
  /** Faults 'slow_answer' and 'lost_then_late': how long the push's HTTP answer is held (past the client's timeout). */
  slowAnswerMs?: number; // default 15000
  /** Faults 'late_success', 'query_first' and 'lost_then_late': how long after the prompt resolves the late callback comes. */
  lateCallbackMs?: number; // default 30000
  /** External validation on the shortcode (off by default, as on a real one until Safaricom enables it). */
  c2bValidation?: boolean;
  /** How long M-Pesa waits for the validation answer before the registered ResponseType decides. */
  c2bValidationTimeoutMs?: number; // default 8000
  /** 'sandbox' overwrites a registration; 'production' refuses a second one ("Urls are already registered."). */
  c2bRegistration?: 'sandbox' | 'production';
  /** API operators (initiator name → plain password); default Daraja's sandbox testapi. */
  initiators?: Record<string, string>;
  /** How long after its acknowledgement a Reversal or Transaction Status Result comes (default callbackDelayMs). */
  resultDelayMs?: number;
  /** Which STK id Transaction Status takes as OriginalConversationID (Daraja does not say): default checkout. */
  statusLookupBy?: 'checkout' | 'merchant' | 'none';
  log?: (msg: string, data?: Record<string, unknown>) => void;
}
export interface CallbackDelivery {
  checkoutRequestId: string;
  url: string;
  status: number | null;
  error?: string;
  body: unknown;
  at: Date;
}
/** A payment the simulated M-Pesa completed: money that moved, whether or not anyone was told. */
export interface IssuedReceipt {
  receipt: string;
  amount: number;
  phone: string;
  /** The STK prompt it paid; '' for a C2B (Paybill/Till) payment. */
  checkoutRequestId: string;
  /** 'c2b': paid from the phone to the Paybill/Till; its account number as typed. */
  via: 'stk' | 'c2b';
  account?: string;
  /** The Paybill, store or till number the money went to. */
  shortcode: string;
  at: Date;
}
/** A C2B call the simulated M-Pesa made to the shop: a validation or a confirmation. */
export interface C2bDelivery {
  kind: 'validation' | 'confirmation';
  transId: string;
  url: string;
  status: number | null;
  /** What the shop answered (validation: its ResultCode decides the payment). */
  answer: unknown;
  error?: string;
  body: Record<string, string>;
  at: Date;
}
export interface DarajaSimulator {
  url: string; // e.g. http://127.0.0.1:41234 (no trailing slash)
  deliveries: CallbackDelivery[]; // every callback POST attempted, in order
  receipts: IssuedReceipt[]; // every successful payment, in order: what the merchant's statement would list
  c2bDeliveries: C2bDelivery[]; // every validation and confirmation POST attempted, in order
  tokensIssued: number; // how many OAuth tokens were handed out
  reversals: SimulatedReversal[]; // every Reversal request accepted, in order, with its outcome
  resultDeliveries: ResultDelivery[]; // every Result and queue-timeout notice POSTed, in order
  /** The public key (SPKI PEM) a SecurityCredential must be encrypted with; also at GET /__sim/credential-key.pem. */
  credentialKeyPem: string;
  /** The simulated Utility account balance of a shortcode, in shillings. */
  balanceOf(shortcode: string): number;
  close(): Promise<void>; // stops the server and every pending timer
}

/** Outcomes by the PhoneNumber of the push. Any number not listed succeeds (ResultCode 0, callback once). */
/**
 * Faults, for the shop's payment chaos tests: what goes wrong between Daraja and the shop.
 * - slow_answer: the push's HTTP answer is held for slowAnswerMs (the client gives up first); the
 *   prompt itself goes on and is paid.
 * - callback_first: the success callback is delivered before the push is answered.
 * - late_success: the prompt first looks timed out (the query and a first callback say 1037);
 *   the customer pays anyway and the success callback comes lateCallbackMs later.
 * - query_first: paid, and the query says so at once; the callback comes lateCallbackMs later.
 * - stale_failure: the success callback, then a contradicting 1037 callback for the same prompt.
 * - lost_then_late: the push's answer is held like slow_answer, and the success callback comes
 *   lateCallbackMs after the prompt resolves: the shop learns of the payment only from a callback
 *   whose CheckoutRequestID it never saw, after it may have given the prompt up.
 */
export type SimulatorFault =
  | 'slow_answer'
  | 'callback_first'
  | 'late_success'
  | 'query_first'
  | 'stale_failure'
  | 'lost_then_late';

export const SIMULATOR_OUTCOMES: ReadonlyArray<{
  msisdn: string;
  local: string;
  outcome: string;
  resultCode: number | null;
  callback: 'once' | 'twice' | 'never';
  fault?: SimulatorFault;
  /** What goes wrong when a payment from this number is reversed. */
  reversal?: ReversalFault;
}> = Object.freeze([
  {
    msisdn: '254708374149',
    local: '0708374149',
    outcome: "success (Daraja's sandbox test number)",
    resultCode: 0,
    callback: 'once',
  },
  { msisdn: '254700000001', local: '0700000001', outcome: 'cancelled by the customer', resultCode: 1032, callback: 'once' },
  { msisdn: '254700000002', local: '0700000002', outcome: 'no response, timed out', resultCode: 1037, callback: 'once' },
  { msisdn: '254700000003', local: '0700000003', outcome: 'wrong PIN', resultCode: 2001, callback: 'once' },
  { msisdn: '254700000004', local: '0700000004', outcome: 'insufficient funds', resultCode: 1, callback: 'once' },
  { msisdn: '254700000005', local: '0700000005', outcome: 'success, callback sent twice', resultCode: 0, callback: 'twice' },
  {
    msisdn: '254700000006',
    local: '0700000006',
    outcome: 'success, callback never sent (only the query knows)',
    resultCode: 0,
    callback: 'never',
  },
  {
    msisdn: '254700000007',
    local: '0700000007',
    outcome: "success, but Daraja's answer to the push comes too late (the shop's request times out)",
    resultCode: 0,
    callback: 'once',
    fault: 'slow_answer',
  },
  {
    msisdn: '254700000008',
    local: '0700000008',
    outcome: 'first times out (1037), then the customer pays: a late success callback',
    resultCode: 0,
    callback: 'once',
    fault: 'late_success',
  },
  {
    msisdn: '254700000009',
    local: '0700000009',
    outcome: 'success, the callback arrives before the answer to the push',
    resultCode: 0,
    callback: 'once',
    fault: 'callback_first',
  },
  {
    msisdn: '254700000010',
    local: '0700000010',
    outcome: 'success, then a stale 1037 callback for the same prompt',
    resultCode: 0,
    callback: 'once',
    fault: 'stale_failure',
  },
  {
    msisdn: '254700000011',
    local: '0700000011',
    outcome: 'success the query reports at once; the callback comes late',
    resultCode: 0,
    callback: 'once',
    fault: 'query_first',
  },
  {
    msisdn: '254700000012',
    local: '0700000012',
    outcome: 'success; its first reversal times out in the queue (QueueTimeOutURL, no money moved), the next succeeds',
    resultCode: 0,
    callback: 'once',
    reversal: 'queue_timeout_once',
  },
  {
    msisdn: '254700000013',
    local: '0700000013',
    outcome: 'success; a reversal of it is acknowledged but never answered (no money moved)',
    resultCode: 0,
    callback: 'once',
    reversal: 'no_result',
  },
  {
    msisdn: '254700000014',
    local: '0700000014',
    outcome: 'success; its first reversal fails: insufficient balance (1), the next succeeds',
    resultCode: 0,
    callback: 'once',
    reversal: 'insufficient_once',
  },
  {
    msisdn: '254700000015',
    local: '0700000015',
    outcome: "success, but Daraja's answer to the push comes too late and the callback comes late too",
    resultCode: 0,
    callback: 'once',
    fault: 'lost_then_late',
  },
] as const);

// ---------------------------------------------------------------------------------------------
// Internals

const RESULT_DESCRIPTIONS: Record<number, string> = {
  0: 'The service request is processed successfully.',
  1: 'The balance is insufficient for the transaction.',
  1032: 'Request cancelled by user',
  1037: 'DS timeout user cannot be reached',
  2001: 'The initiator information is invalid.',
};

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

const CALLBACK_TIMEOUT_MS = 5000;
const SECOND_CALLBACK_GAP_MS = 200;
const MAX_BODY_BYTES = 64 * 1024;

const LOCK_MESSAGE = 'Unable to lock subscriber, a transaction is already in process for the current subscriber';

interface Checkout {
  merchantRequestId: string;
  checkoutRequestId: string;
  phone: string;
  amount: number;
  callbackUrl: string;
  /** The Paybill or till the money goes to. */
  partyB: string;
  resultCode: number;
  callback: 'once' | 'twice' | 'never';
  fault: SimulatorFault | undefined;
  state: 'open' | 'done';
  /** What the status query reports once the prompt is done (late_success: 1037 until paid). */
  queryResultCode: number;
}

interface DarajaErrorBody {
  requestId: string;
  errorCode: string;
  errorMessage: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: DarajaErrorBody,
  ) {
    super(body.errorMessage);
  }
}

function darajaError(status: number, errorCode: string, errorMessage: string, requestId = newRequestId()): HttpError {
  return new HttpError(status, { requestId, errorCode, errorMessage });
}

const invalidField = (field: string): HttpError => darajaError(400, '400.002.02', `Bad Request - Invalid ${field}`);

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function outcomeFor(msisdn: string): {
  resultCode: number;
  callback: 'once' | 'twice' | 'never';
  fault: SimulatorFault | undefined;
} {
  const row = SIMULATOR_OUTCOMES.find((o) => o.msisdn === msisdn);
  return { resultCode: row?.resultCode ?? 0, callback: row?.callback ?? 'once', fault: row?.fault };
}

/**
 * POSTs `body` as JSON and reads the answer to its end (so the connection can be reused), all
 * within `ms` (a TimeoutError) unless `stop` aborts first. The deadline is a timer holding its
 * own controller, not AbortSignal.any([AbortSignal.timeout(ms), stop]): on Node 20 the timeout
 * signal inside such a composite can be garbage-collected before it fires (nodejs/node#57736),
 * and the request then waits for ever.
 */
async function postJson(
  url: string,
  body: unknown,
  ms: number,
  stop: AbortSignal,
): Promise<{ status: number; ok: boolean; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out', 'TimeoutError')), ms);
  const forward = () => controller.abort(stop.reason);
  if (stop.aborted) forward();
  else stop.addEventListener('abort', forward, { once: true });
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: controller.signal,
    });
    const text = await response.text().catch(() => '');
    return { status: response.status, ok: response.ok, text };
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', forward);
  }
}

function describeFetchError(err: unknown, timeoutMs = CALLBACK_TIMEOUT_MS): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return `timeout after ${timeoutMs} ms`;
  if (err.name === 'AbortError') return 'aborted: simulator closed';
  const cause = (err as Error & { cause?: unknown }).cause;
  if (cause && typeof cause === 'object') {
    const code = (cause as { code?: unknown }).code;
    const message = (cause as { message?: unknown }).message;
    if (typeof code === 'string') return `${err.message}: ${code}`;
    if (typeof message === 'string') return `${err.message}: ${message}`;
  }
  return err.message;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

// ---------------------------------------------------------------------------------------------

export async function startDarajaSimulator(options: SimulatorOptions): Promise<DarajaSimulator> {
  for (const key of ['consumerKey', 'consumerSecret', 'shortcode', 'passkey'] as const) {
    if (typeof options[key] !== 'string' || options[key].length === 0) {
      throw new Error(`startDarajaSimulator: option ${key} is required`);
    }
  }
  const host = options.host ?? '127.0.0.1';
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3599;
  const callbackDelayMs = options.callbackDelayMs ?? 1500;
  const slowAnswerMs = options.slowAnswerMs ?? 15_000;
  const lateCallbackMs = options.lateCallbackMs ?? 30_000;
  const c2bValidationTimeoutMs = options.c2bValidationTimeoutMs ?? 8_000;
  const log = options.log ?? (() => {});

  const tokens = new Map<string, number>(); // token → expiry (epoch ms)
  const balances = new Map<string, number>(); // ShortCode (or till) → simulated Utility account balance
  const checkouts = new Map<string, Checkout>(); // CheckoutRequestID → checkout
  const openByPhone = new Map<string, Checkout>(); // PhoneNumber → open prompt
  const deliveries: CallbackDelivery[] = [];
  const receipts: IssuedReceipt[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const shutdown = new AbortController();
  const nextMerchantRequestId = merchantRequestIdSequence();
  let tokensIssued = 0;
  let closed = false;

  function schedule(fn: () => void, ms: number): void {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) fn();
    }, ms);
    timers.add(timer);
  }

  // --- OAuth ---------------------------------------------------------------------------------

  function handleOAuth(req: IncomingMessage, url: URL, res: ServerResponse): void {
    const match = /^Basic\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1]) throw darajaError(400, '400.008.01', 'Invalid authentication type passed');
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const key = colon < 0 ? decoded : decoded.slice(0, colon);
    const secret = colon < 0 ? '' : decoded.slice(colon + 1);
    if (key !== options.consumerKey || secret !== options.consumerSecret) {
      throw darajaError(400, '400.008.01', 'Invalid Authentication passed');
    }
    if (url.searchParams.get('grant_type') !== 'client_credentials') {
      throw darajaError(400, '400.008.02', 'Invalid grant type passed');
    }
    const token = newAccessToken();
    tokens.set(token, Date.now() + tokenTtlSeconds * 1000);
    tokensIssued++;
    log('oauth: token issued', { tokensIssued, expiresIn: tokenTtlSeconds });
    sendJson(res, 200, {
      access_token: token,
      expires_in: options.expiresInAsNumber ? tokenTtlSeconds : String(tokenTtlSeconds),
    });
  }

  function requireToken(req: IncomingMessage): void {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const token = match?.[1];
    const expiresAt = token === undefined ? undefined : tokens.get(token);
    if (token !== undefined && expiresAt !== undefined && Date.now() >= expiresAt) tokens.delete(token);
    if (expiresAt === undefined || Date.now() >= expiresAt) throw darajaError(404, '404.001.03', 'Invalid Access Token');
  }

  // --- Bodies ----------------------------------------------------------------------------------

  async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    // Daraja answers a missing/wrong Content-Type with this misleading message (docs/payments.md, Daraja in brief).
    if (mediaType !== 'application/json') throw invalidField('BusinessShortCode');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > MAX_BODY_BYTES) throw darajaError(400, '400.002.02', 'Bad Request - Request body too large');
      chunks.push(buf);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw darajaError(400, '400.002.02', 'Bad Request - Invalid JSON payload');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw darajaError(400, '400.002.02', 'Bad Request - Invalid JSON payload');
    }
    return parsed as Record<string, unknown>;
  }

  /** BusinessShortCode, Password and Timestamp: shape first, then merchant, then the password. */
  function validateCredentialFields(body: Record<string, unknown>): { shortcode: string; password: string; timestamp: string } {
    const shortcode = numericString(body.BusinessShortCode);
    if (shortcode === null || !SHORTCODE_PATTERN.test(shortcode)) throw invalidField('BusinessShortCode');
    const password = body.Password;
    if (typeof password !== 'string' || password.length === 0) throw invalidField('Password');
    const timestamp = numericString(body.Timestamp);
    if (timestamp === null || !isValidTimestamp(timestamp)) throw invalidField('Timestamp');
    return { shortcode, password, timestamp };
  }

  function checkMerchantAndPassword(shortcode: string, password: string, timestamp: string): void {
    if (shortcode !== options.shortcode) throw darajaError(500, '500.001.1001', 'Merchant does not exist');
    if (password !== stkPassword(shortcode, options.passkey, timestamp)) {
      throw darajaError(500, '500.001.1001', 'Wrong credentials');
    }
  }

  // --- STK push --------------------------------------------------------------------------------

  async function handlePush(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const { shortcode, password, timestamp } = validateCredentialFields(body);
    const type = body.TransactionType;
    if (type !== 'CustomerPayBillOnline' && type !== 'CustomerBuyGoodsOnline') throw invalidField('TransactionType');
    const amount = parseAmount(body.Amount);
    if (amount === null) throw invalidField('Amount');
    const partyA = numericString(body.PartyA);
    if (partyA === null || !MSISDN_PATTERN.test(partyA)) throw invalidField('PartyA');
    const partyB = numericString(body.PartyB);
    if (partyB === null || !SHORTCODE_PATTERN.test(partyB)) throw invalidField('PartyB');
    const phone = numericString(body.PhoneNumber);
    if (phone === null || !MSISDN_PATTERN.test(phone)) throw invalidField('PhoneNumber');
    const callbackUrl = body.CallBackURL;
    if (!isCallbackUrl(callbackUrl)) throw invalidField('CallBackURL');
    if (!isTextOfLength(body.AccountReference, 1, 12)) throw invalidField('AccountReference');
    if (!isTextOfLength(body.TransactionDesc, 1, 13)) throw invalidField('TransactionDesc');

    checkMerchantAndPassword(shortcode, password, timestamp);
    if (openByPhone.has(phone)) throw darajaError(500, '500.001.1001', LOCK_MESSAGE);

    const now = new Date();
    let id = formatCheckoutRequestId(now, phone);
    for (let bump = 1; checkouts.has(id); bump++) id = formatCheckoutRequestId(new Date(now.getTime() + bump), phone);
    const checkout: Checkout = {
      merchantRequestId: nextMerchantRequestId(),
      checkoutRequestId: id,
      phone,
      amount,
      callbackUrl,
      partyB,
      ...outcomeFor(phone),
      state: 'open',
      queryResultCode: 0,
    };
    checkout.queryResultCode = checkout.resultCode;
    checkouts.set(id, checkout);
    openByPhone.set(phone, checkout);
    if (checkout.fault === 'callback_first') resolve(checkout);
    else schedule(() => resolve(checkout), callbackDelayMs);

    log('stkpush: accepted', {
      checkoutRequestId: id,
      phone: maskForLog(phone),
      amount,
      resultCode: checkout.resultCode,
      callback: checkout.callback,
      resolvesInMs: callbackDelayMs,
    });
    if (checkout.fault === 'callback_first') {
      await waitForDelivery(checkout);
    } else if (checkout.fault === 'slow_answer' || checkout.fault === 'lost_then_late') {
      await new Promise<void>((done) => schedule(done, slowAnswerMs));
    }
    if (closed) return;
    sendJson(res, 200, {
      MerchantRequestID: checkout.merchantRequestId,
      CheckoutRequestID: id,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
  }

  // --- Resolution and callbacks ----------------------------------------------------------------

  function callbackBody(checkout: Checkout, resultCode: number, receipt: string | null, resolvedAt: Date): unknown {
    const stkCallback: Record<string, unknown> = {
      MerchantRequestID: checkout.merchantRequestId,
      CheckoutRequestID: checkout.checkoutRequestId,
      ResultCode: resultCode,
      ResultDesc: RESULT_DESCRIPTIONS[resultCode] ?? 'The service request failed.',
    };
    if (resultCode === 0 && receipt) {
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: checkout.amount },
          { Name: 'MpesaReceiptNumber', Value: receipt },
          { Name: 'Balance' },
          { Name: 'TransactionDate', Value: nairobiTransactionDate(resolvedAt) },
          { Name: 'PhoneNumber', Value: Number(checkout.phone) },
        ],
      };
    }
    return { Body: { stkCallback } };
  }

  /** The customer's money moves: a receipt is issued, whether or not a callback ever tells of it. */
  function pay(checkout: Checkout, at: Date): string {
    let receipt = mpesaReceipt(at);
    while (receipts.some((r) => r.receipt === receipt)) receipt = mpesaReceipt(new Date(at.getTime() + receipts.length));
    receipts.push({
      receipt,
      amount: checkout.amount,
      phone: checkout.phone,
      checkoutRequestId: checkout.checkoutRequestId,
      via: 'stk',
      shortcode: checkout.partyB,
      at,
    });
    balances.set(checkout.partyB, (balances.get(checkout.partyB) ?? 0) + checkout.amount);
    checkout.queryResultCode = 0;
    return receipt;
  }

  const firstDelivery = new Map<string, Promise<void>>();
  function waitForDelivery(checkout: Checkout): Promise<void> {
    return firstDelivery.get(checkout.checkoutRequestId) ?? Promise.resolve();
  }

  function resolve(checkout: Checkout): void {
    checkout.state = 'done';
    if (openByPhone.get(checkout.phone) === checkout) openByPhone.delete(checkout.phone);
    const now = new Date();
    log('stkpush: resolved', {
      checkoutRequestId: checkout.checkoutRequestId,
      resultCode: checkout.resultCode,
      callback: checkout.callback,
      fault: checkout.fault,
    });
    if (checkout.fault === 'late_success') {
      // The phone could not be reached, then the customer paid after all.
      checkout.queryResultCode = 1037;
      firstDelivery.set(checkout.checkoutRequestId, deliver(checkout, callbackBody(checkout, 1037, null, now)));
      schedule(() => {
        const paidAt = new Date();
        void deliver(checkout, callbackBody(checkout, 0, pay(checkout, paidAt), paidAt));
      }, lateCallbackMs);
      return;
    }
    const receipt = checkout.resultCode === 0 ? pay(checkout, now) : null;
    const body = callbackBody(checkout, checkout.resultCode, receipt, now);
    if (checkout.callback === 'never') return;
    if (checkout.fault === 'query_first' || checkout.fault === 'lost_then_late') {
      schedule(() => void deliver(checkout, body), lateCallbackMs);
      return;
    }
    const first = deliver(checkout, body);
    firstDelivery.set(checkout.checkoutRequestId, first);
    void first.then(() => {
      if (checkout.callback === 'twice') schedule(() => void deliver(checkout, body), SECOND_CALLBACK_GAP_MS);
      if (checkout.fault === 'stale_failure') {
        schedule(() => void deliver(checkout, callbackBody(checkout, 1037, null, new Date())), SECOND_CALLBACK_GAP_MS);
      }
    });
  }

  async function deliver(checkout: Checkout, body: unknown): Promise<void> {
    const delivery: CallbackDelivery = {
      checkoutRequestId: checkout.checkoutRequestId,
      url: checkout.callbackUrl,
      status: null,
      body,
      at: new Date(),
    };
    try {
      delivery.status = (await postJson(checkout.callbackUrl, body, CALLBACK_TIMEOUT_MS, shutdown.signal)).status;
    } catch (err) {
      delivery.error = describeFetchError(err);
    }
    deliveries.push(delivery);
    log(delivery.error === undefined ? 'callback: sent' : 'callback: failed', {
      checkoutRequestId: checkout.checkoutRequestId,
      to: originForLog(checkout.callbackUrl),
      status: delivery.status,
      ...(delivery.error !== undefined && { error: delivery.error }),
      ms: Date.now() - delivery.at.getTime(),
    });
  }

  // --- C2B: Paybill and Till -------------------------------------------------------------------

  interface Registration {
    version: 'v1' | 'v2';
    responseType: 'Completed' | 'Cancelled';
    confirmationUrl: string;
    validationUrl: string;
  }
  const registrations = new Map<string, Registration>(); // ShortCode → its URLs
  const c2bDeliveries: C2bDelivery[] = [];
  const conversationId = () =>
    `${randomUUID().slice(0, 4)}-${randomUUID().slice(0, 4)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;

  function handleRegister(version: 'v1' | 'v2', body: Record<string, unknown>, res: ServerResponse): void {
    const shortcode = numericString(body.ShortCode);
    if (shortcode === null || !SHORTCODE_PATTERN.test(shortcode)) throw invalidField('ShortCode');
    const responseType = body.ResponseType;
    if (responseType !== 'Completed' && responseType !== 'Cancelled') throw invalidField('ResponseType');
    if (!isCallbackUrl(body.ConfirmationURL)) throw invalidField('ConfirmationURL');
    if (!isCallbackUrl(body.ValidationURL)) throw invalidField('ValidationURL');
    if (options.c2bRegistration === 'production' && registrations.has(shortcode)) {
      throw darajaError(500, '500.003.1001', 'Urls are already registered.');
    }
    registrations.set(shortcode, {
      version,
      responseType,
      confirmationUrl: body.ConfirmationURL,
      validationUrl: body.ValidationURL,
    });
    log('c2b: urls registered', { shortcode, version, responseType, to: originForLog(body.ConfirmationURL) });
    sendJson(res, 200, { OriginatorCoversationID: conversationId(), ResponseCode: '0', ResponseDescription: 'Success' });
  }

  function handleSimulate(body: Record<string, unknown>, res: ServerResponse): void {
    const shortcode = numericString(body.ShortCode);
    if (shortcode === null || !SHORTCODE_PATTERN.test(shortcode)) throw invalidField('ShortCode');
    const command = body.CommandID;
    if (command !== 'CustomerPayBillOnline' && command !== 'CustomerBuyGoodsOnline') throw invalidField('CommandID');
    const amount = parseAmount(body.Amount);
    if (amount === null) throw invalidField('Amount');
    const msisdn = numericString(body.Msisdn);
    if (msisdn === null || !MSISDN_PATTERN.test(msisdn)) throw invalidField('Msisdn');
    const typed = body.BillRefNumber ?? '';
    if (typeof typed !== 'string' || [...typed].length > 20) throw invalidField('BillRefNumber');
    // A till payment carries no account number: the customer has nowhere to type one.
    const account = command === 'CustomerBuyGoodsOnline' ? '' : typed;
    sendJson(res, 200, {
      OriginatorCoversationID: conversationId(),
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
    const type = command === 'CustomerBuyGoodsOnline' ? 'Buy Goods' : 'Pay Bill';
    void payFromPhone({ shortcode, type, amount, msisdn, account }).catch((error: unknown) =>
      log('c2b: payment failed inside the simulator', { error: error instanceof Error ? error.message : String(error) }),
    );
  }

  /** What the shop sees of the payer's number: v2 masks it, v1 hashes it. */
  function payerFor(registration: Registration | undefined, msisdn: string): string {
    if (registration?.version === 'v1') return createHash('sha256').update(msisdn).digest('hex');
    return `${msisdn.slice(0, 4)} ***** ${msisdn.slice(-3)}`;
  }

  /** A Paybill payment M-Pesa holds and has told nobody of (SILENT_C2B_PATH); answers its TransID. */
  function recordSilentPayment(body: Record<string, unknown>): { TransID: string } {
    const amount = Number(body.amount);
    const shortcode = typeof body.shortcode === 'string' ? body.shortcode : options.shortcode;
    if (!Number.isFinite(amount) || amount <= 0) throw darajaError(400, '400.002.02', 'Bad Request - Invalid Amount');
    let transId = mpesaReceipt(new Date());
    while (receipts.some((r) => r.receipt === transId)) transId = mpesaReceipt(new Date());
    receipts.push({
      receipt: transId,
      amount,
      phone: typeof body.msisdn === 'string' ? body.msisdn : '254708374149',
      checkoutRequestId: '',
      via: 'c2b',
      account: typeof body.account === 'string' ? body.account : '',
      shortcode,
      at: new Date(),
    });
    balances.set(shortcode, (balances.get(shortcode) ?? 0) + amount);
    return { TransID: transId };
  }

  async function payFromPhone(payment: { shortcode: string; type: string; amount: number; msisdn: string; account: string }) {
    const registration = registrations.get(payment.shortcode);
    let transId = mpesaReceipt(new Date());
    while (receipts.some((r) => r.receipt === transId)) transId = mpesaReceipt(new Date());
    const fields = (at: Date, balance: string, thirdPartyTransId = ''): Record<string, string> => ({
      TransactionType: payment.type,
      TransID: transId,
      TransTime: nairobiTimestamp(at),
      TransAmount: `${payment.amount}.00`,
      BusinessShortCode: payment.shortcode,
      BillRefNumber: payment.account,
      InvoiceNumber: '',
      OrgAccountBalance: balance,
      ThirdPartyTransID: thirdPartyTransId,
      MSISDN: payerFor(registration, payment.msisdn),
      FirstName: 'JOHN',
      MiddleName: '',
      LastName: '',
    });

    let thirdPartyTransId = '';
    if (options.c2bValidation && registration) {
      const answer = await post(
        'validation',
        registration.validationUrl,
        transId,
        fields(new Date(), ''),
        c2bValidationTimeoutMs,
      );
      const code = isObject(answer) ? String(answer.ResultCode ?? '') : '';
      const accepted = code === '0' ? true : code.startsWith('C2B') ? false : registration.responseType === 'Completed';
      if (!accepted) {
        log('c2b: payment refused by validation', { transId, resultCode: code || '(no answer)' });
        return;
      }
      if (isObject(answer) && typeof answer.ThirdPartyTransID === 'string') thirdPartyTransId = answer.ThirdPartyTransID;
    }

    const paidAt = new Date();
    const balance = (balances.get(payment.shortcode) ?? 0) + payment.amount;
    balances.set(payment.shortcode, balance);
    receipts.push({
      receipt: transId,
      amount: payment.amount,
      phone: payment.msisdn,
      checkoutRequestId: '',
      via: 'c2b',
      account: payment.account,
      shortcode: payment.shortcode,
      at: paidAt,
    });
    log('c2b: paid', { transId, shortcode: payment.shortcode, amount: payment.amount, phone: maskForLog(payment.msisdn) });
    // With no URLs registered M-Pesa still takes the money; nobody is told.
    if (!registration) return;
    const { callback } = outcomeFor(payment.msisdn);
    if (callback === 'never') return;
    const confirmation = fields(paidAt, `${balance}.00`, thirdPartyTransId);
    await post('confirmation', registration.confirmationUrl, transId, confirmation, CALLBACK_TIMEOUT_MS);
    if (callback === 'twice') {
      schedule(
        () => void post('confirmation', registration.confirmationUrl, transId, confirmation, CALLBACK_TIMEOUT_MS),
        SECOND_CALLBACK_GAP_MS,
      );
    }
  }

  async function post(kind: C2bDelivery['kind'], url: string, transId: string, body: Record<string, string>, timeoutMs: number) {
    const delivery: C2bDelivery = { kind, transId, url, status: null, answer: undefined, body, at: new Date() };
    try {
      const answer = await postJson(url, body, timeoutMs, shutdown.signal);
      delivery.status = answer.status;
      try {
        delivery.answer = answer.ok ? JSON.parse(answer.text) : undefined;
      } catch {
        delivery.answer = undefined; // not JSON: the same as no answer
      }
    } catch (err) {
      delivery.error = describeFetchError(err, timeoutMs);
    }
    c2bDeliveries.push(delivery);
    log(delivery.error === undefined ? `c2b: ${kind} sent` : `c2b: ${kind} failed`, {
      transId,
      to: originForLog(url),
      status: delivery.status,
      ...(delivery.error !== undefined && { error: delivery.error }),
    });
    return delivery.answer;
  }

  // --- STK query -------------------------------------------------------------------------------

  function handleQuery(body: Record<string, unknown>, res: ServerResponse): void {
    const { shortcode, password, timestamp } = validateCredentialFields(body);
    const id = body.CheckoutRequestID;
    if (typeof id !== 'string' || id.length === 0) throw invalidField('CheckoutRequestID');
    checkMerchantAndPassword(shortcode, password, timestamp);
    const checkout = checkouts.get(id);
    if (!checkout) throw invalidField('CheckoutRequestID');
    if (checkout.state === 'open') {
      throw darajaError(500, '500.001.1001', 'The transaction is being processed', checkout.checkoutRequestId);
    }
    sendJson(res, 200, {
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successfully',
      MerchantRequestID: checkout.merchantRequestId,
      CheckoutRequestID: checkout.checkoutRequestId,
      ResultCode: String(checkout.queryResultCode),
      ResultDesc: RESULT_DESCRIPTIONS[checkout.queryResultCode] ?? 'The service request failed.',
    });
  }

  // --- Reversal and Transaction Status (initiator.ts) -------------------------------------------

  const outcomeRow = (phone: string) => SIMULATOR_OUTCOMES.find((o) => o.msisdn === phone);
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
  const initiatorApis = createInitiatorApis({
    initiators: options.initiators ?? { testapi: 'Safaricom999!*!' },
    resultDelayMs: options.resultDelayMs ?? callbackDelayMs,
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
    reversalFaultFor: (phone) => outcomeRow(phone)?.reversal,
    balances,
    receiptTaken: (receipt) => receipts.some((r) => r.receipt === receipt),
    schedule,
    post: async (target, body) => {
      try {
        return { status: (await postJson(target, body, CALLBACK_TIMEOUT_MS, shutdown.signal)).status };
      } catch (err) {
        return { status: null, error: describeFetchError(err) };
      }
    },
    log,
    fail: (status, errorCode, errorMessage) => darajaError(status, errorCode, errorMessage),
    send: sendJson,
  });

  // --- Routing ---------------------------------------------------------------------------------

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname === PATHS.oauth) {
      if (method !== 'GET') throw darajaError(405, '405.001', 'Method Not Allowed');
      handleOAuth(req, url, res);
      return;
    }
    if (url.pathname === PATHS.push || url.pathname === PATHS.query) {
      if (method !== 'POST') throw darajaError(405, '405.001', 'Method Not Allowed');
      requireToken(req);
      const body = await readJsonObject(req);
      if (url.pathname === PATHS.push) await handlePush(body, res);
      else handleQuery(body, res);
      return;
    }
    if (url.pathname === CREDENTIAL_KEY_PATH && method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/x-pem-file' });
      res.end(initiatorApis.credentialKeyPem);
      return;
    }
    if (url.pathname === SILENT_C2B_PATH && method === 'POST') {
      sendJson(res, 200, recordSilentPayment(await readJsonObject(req)));
      return;
    }
    if (url.pathname === REVERSAL_PATH || url.pathname === STATUS_PATH) {
      if (method !== 'POST') throw darajaError(405, '405.001', 'Method Not Allowed');
      requireToken(req);
      const body = await readJsonObject(req);
      if (url.pathname === REVERSAL_PATH) initiatorApis.handleReversal(body, res);
      else initiatorApis.handleStatus(body, res);
      return;
    }
    const c2b = C2B_PATH.exec(url.pathname);
    if (c2b) {
      if (method !== 'POST') throw darajaError(405, '405.001', 'Method Not Allowed');
      requireToken(req);
      const body = await readJsonObject(req);
      if (c2b[2] === 'registerurl') handleRegister(c2b[1] as 'v1' | 'v2', body, res);
      else handleSimulate(body, res);
      return;
    }
    throw darajaError(404, '404.001.01', 'Resource not found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const httpError =
        err instanceof HttpError ? err : darajaError(500, '500.003.1001', 'Internal Server Error', newRequestId());
      if (!(err instanceof HttpError)) log('internal error', { error: err instanceof Error ? err.message : String(err) });
      else log('request rejected', { path: req.url?.split('?')[0], status: httpError.status, ...httpError.body });
      req.resume(); // discard any unread body
      if (res.headersSent) res.destroy();
      else sendJson(res, httpError.status, httpError.body);
    });
  });
  // An idle connection is kept longer than any client keeps one. Node's fetch drops its idle
  // connections a second before the server's Keep-Alive hint (5 s by default), counted from when
  // it read the answer: with the shop's process busy, that can be after the server's own count ran
  // out, and a push sent on a connection the server is closing is lost in between (an answer that
  // never comes). Tests send hundreds of pushes from a loaded process; losing one must be a fault
  // they inject, never the simulator's own timing.
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${hostForUrl(host)}:${address.port}`;
  log('listening', { url, shortcode: options.shortcode, callbackDelayMs, tokenTtlSeconds });

  let closing: Promise<void> | null = null;
  return {
    url,
    deliveries,
    receipts,
    c2bDeliveries,
    get tokensIssued() {
      return tokensIssued;
    },
    reversals: initiatorApis.reversals,
    resultDeliveries: initiatorApis.resultDeliveries,
    credentialKeyPem: initiatorApis.credentialKeyPem,
    balanceOf: (shortcode) => balances.get(shortcode) ?? 0,
    close() {
      if (closing) return closing;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      shutdown.abort();
      closing = new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

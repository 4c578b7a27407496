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
import { MSISDN_PATTERN } from '../../shared/phone.js';
import {
  DarajaError,
  type DarajaOperation,
  describeTransportFailure,
  interpretErrorResponse,
  type TransportFailure,
} from './daraja-errors.js';

export { type ParsedStkCallback, parseStkCallback } from './daraja-callback.js';
export { DarajaError };

export type MpesaEnv = 'simulator' | 'sandbox' | 'production';

export interface DarajaConfig {
  /** https://sandbox.safaricom.co.ke, https://api.safaricom.co.ke, or the simulator's url. */
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** BusinessShortCode: the paybill, or the store/HO number for tills. */
  shortcode: string;
  passkey: string;
  transactionType: 'paybill' | 'till';
  /** PartyB for till; paybill uses shortcode. */
  tillNumber?: string;
  /** Per HTTP call, default 10000. */
  timeoutMs?: number;
  /** Network-error retries, default 2, with backoff. */
  retries?: number;
  /** For tests of the timestamp. */
  now?: () => Date;
}

export interface StkPushInput {
  /** Whole shillings, 1..250000. */
  amount: number;
  /** 2547XXXXXXXX or 2541XXXXXXXX. */
  phone: string;
  /** 1..12 letters and digits, shown to the customer. */
  accountReference: string;
  /** 1..13 of letters, digits, space and '-'. */
  description: string;
  /** http(s) URL without whitespace. */
  callbackUrl: string;
}

export interface StkPushAccepted {
  merchantRequestId: string;
  checkoutRequestId: string;
  customerMessage: string;
}

export type StkQueryResult = { state: 'pending' } | { state: 'completed'; resultCode: string; resultDesc: string };

export interface C2bRegistration {
  /** The Paybill or Till number the confirmations are for. */
  shortCode: string;
  /** Must match the C2B product of the Daraja app: v1 sends the payer hashed, v2 masked. */
  version: 'v1' | 'v2';
  confirmationUrl: string;
  validationUrl: string;
  /** What M-Pesa does when the ValidationURL does not answer in time. */
  responseType: 'Completed' | 'Cancelled';
}

export interface C2bPayment {
  shortCode: string;
  commandId: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  /** Whole shillings. */
  amount: number;
  /** 2547XXXXXXXX. */
  msisdn: string;
  /** The account number the customer types (blank for a till). */
  billRefNumber: string;
}

/** What every initiator call (Reversal, Transaction Status) carries besides its own fields. */
export interface InitiatorRequest {
  /** The API operator's user name on the M-Pesa org portal. */
  initiator: string;
  /** The initiator password encrypted with Safaricom's certificate (security-credential.ts). */
  securityCredential: string;
  resultUrl: string;
  queueTimeoutUrl: string;
  /** 2 to 100 characters. */
  remarks: string;
  occasion?: string;
}

export interface ReversalInput extends InitiatorRequest {
  /** The receipt of the payment to reverse. */
  transactionId: string;
  /** The whole original amount, in shillings. */
  amount: number;
  /** The shortcode that received the payment. */
  receiverParty: string;
  /** "11" as documented (sent under Daraja's misspelt key RecieverIdentifierType). */
  receiverIdentifierType: string;
}

/** Exactly one of transactionId (a receipt) and originalConversationId. */
export type TransactionStatusInput = InitiatorRequest & {
  partyA: string;
  /** "4" for an organisation shortcode. */
  identifierType: string;
} & (
    | { transactionId: string; originalConversationId?: undefined }
    | { originalConversationId: string; transactionId?: undefined }
  );

/** Daraja queued the request; its Result comes later to the ResultURL, carrying these ids. */
export interface InitiatorAccepted {
  originatorConversationId: string;
  conversationId: string;
}

export interface DarajaClient {
  /** Throws DarajaError. 'network' means the outcome is unknown: the prompt may have been sent. */
  stkPush(input: StkPushInput): Promise<StkPushAccepted>;
  /** Throws DarajaError; "The transaction is being processed" is { state: 'pending' }, not an error. */
  stkQuery(checkoutRequestId: string): Promise<StkQueryResult>;
  /**
   * Registers the C2B confirmation and validation URLs. 'already' when M-Pesa keeps an earlier
   * registration (production registers once; changing it is done on the Daraja portal).
   */
  registerC2bUrls(input: C2bRegistration): Promise<'registered' | 'already'>;
  /** The sandbox's (and the simulator's) way to make a Paybill or Till payment; production has none. */
  simulateC2bPayment(version: 'v1' | 'v2', input: C2bPayment): Promise<void>;
  /**
   * Asks M-Pesa to reverse a payment; the outcome comes later as a Result. Throws DarajaError;
   * 'network' means the request may have reached M-Pesa (never resent here).
   */
  reversal(input: ReversalInput): Promise<InitiatorAccepted>;
  /** Asks M-Pesa where a transaction stands; the answer comes later as a Result. Safe to repeat. */
  transactionStatus(input: TransactionStatusInput): Promise<InitiatorAccepted>;
}

export const SANDBOX_SHORTCODE = '174379';
export const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const MAX_RETRIES = 10;
const TOKEN_MARGIN_MS = 60_000;
const DEFAULT_TOKEN_TTL_S = 3599;
const BACKOFF_BASE_MS = 200;
const BACKOFF_MAX_MS = 5_000;
const MAX_AMOUNT = 250_000;

const ACCOUNT_REFERENCE_PATTERN = /^[A-Za-z0-9]{1,12}$/;
const DESCRIPTION_PATTERN = /^[A-Za-z0-9 -]{1,13}$/;

const nairobiFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Africa/Nairobi',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** YYYYMMDDHHmmss in Africa/Nairobi time (EAT, UTC+3), as Daraja's Timestamp wants it. */
export function darajaTimestamp(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('darajaTimestamp needs a valid Date');
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of nairobiFormat.formatToParts(date)) parts[part.type] = part.value;
  const stamp = `${parts.year}${parts.month}${parts.day}${parts.hour}${parts.minute}${parts.second}`;
  if (/^\d{14}$/.test(stamp)) return stamp;
  // Only reached with an ICU build without the zone data; Nairobi has had no DST since 1942.
  const eat = new Date(date.getTime() + 3 * 3_600_000).toISOString();
  return eat.slice(0, 19).replace(/\D/g, '');
}

/** base64(BusinessShortCode + Passkey + Timestamp) (docs/payments.md, STK push request). */
export function darajaPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, 'utf8').toString('base64');
}

function rejected(message: string): DarajaError {
  return new DarajaError(message, { kind: 'rejected' });
}

function validatePush(input: StkPushInput): void {
  if (typeof input.amount !== 'number' || !Number.isInteger(input.amount) || input.amount < 1 || input.amount > MAX_AMOUNT) {
    throw rejected(`The amount must be a whole number of shillings from 1 to ${MAX_AMOUNT.toLocaleString('en-KE')}.`);
  }
  if (typeof input.phone !== 'string' || !MSISDN_PATTERN.test(input.phone)) {
    throw rejected('The phone number must be a Safaricom number in the form 2547XXXXXXXX or 2541XXXXXXXX.');
  }
  if (typeof input.accountReference !== 'string' || !ACCOUNT_REFERENCE_PATTERN.test(input.accountReference)) {
    throw rejected('The account reference must be 1 to 12 letters or digits.');
  }
  if (typeof input.description !== 'string' || !DESCRIPTION_PATTERN.test(input.description)) {
    throw rejected('The transaction description must be 1 to 13 letters, digits, spaces or dashes.');
  }
  if (!isHttpUrl(input.callbackUrl)) {
    throw rejected('The callback URL must be an http(s) URL without spaces.');
  }
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

interface ResolvedConfig {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  transactionType: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  partyB: string;
  timeoutMs: number;
  retries: number;
  now: () => Date;
}

/** Configuration mistakes are programming/deployment errors: thrown at once, naming the field only. */
function resolveConfig(config: DarajaConfig): ResolvedConfig {
  const fail = (what: string): never => {
    throw new Error(`Daraja client configuration: ${what}`);
  };
  if (!isHttpUrl(config.baseUrl)) fail('baseUrl must be an http(s) URL');
  for (const key of ['consumerKey', 'consumerSecret', 'passkey'] as const) {
    if (typeof config[key] !== 'string' || config[key] === '') fail(`${key} is missing`);
  }
  if (typeof config.shortcode !== 'string' || !/^\d+$/.test(config.shortcode)) fail('shortcode must be digits');
  if (config.transactionType !== 'paybill' && config.transactionType !== 'till')
    fail("transactionType must be 'paybill' or 'till'");
  if (config.transactionType === 'till' && (typeof config.tillNumber !== 'string' || !/^\d+$/.test(config.tillNumber))) {
    fail('tillNumber (digits) is required when transactionType is till');
  }
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) fail('timeoutMs must be a positive number');
  const retries = config.retries ?? DEFAULT_RETRIES;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES)
    fail(`retries must be a whole number from 0 to ${MAX_RETRIES}`);
  const till = config.transactionType === 'till';
  return {
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    consumerKey: config.consumerKey,
    consumerSecret: config.consumerSecret,
    shortcode: config.shortcode,
    passkey: config.passkey,
    transactionType: till ? 'CustomerBuyGoodsOnline' : 'CustomerPayBillOnline',
    partyB: till ? (config.tillNumber as string) : config.shortcode,
    timeoutMs,
    retries,
    now: config.now ?? (() => new Date()),
  };
}

interface HttpAnswer {
  status: number;
  text: string;
}

class Transport extends Error {
  constructor(
    readonly failure: TransportFailure,
    cause: unknown,
  ) {
    super(failure.reason, { cause });
  }
}

interface CachedToken {
  token: string;
  /** performance.now() value after which the token is no longer used (60 s before Daraja's expiry). */
  refreshAt: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function str(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const backoffMs = (attempt: number) => Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);

export function createDarajaClient(config: DarajaConfig): DarajaClient {
  const cfg = resolveConfig(config);
  const basicAuth = `Basic ${Buffer.from(`${cfg.consumerKey}:${cfg.consumerSecret}`, 'utf8').toString('base64')}`;
  let cached: CachedToken | null = null;
  let refreshing: Promise<string> | null = null;
  /** Tokens handed out to this client, so that an error message can never echo one (bounded). */
  const seenTokens: string[] = [];

  const scrubber =
    (...extra: string[]) =>
    (s: string): string => {
      let out = s;
      for (const secret of [cfg.consumerSecret, cfg.passkey, basicAuth.slice(6), ...seenTokens, ...extra]) {
        if (secret.length >= 4) out = out.split(secret).join('[redacted]');
      }
      return out;
    };

  async function http(
    path: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  ): Promise<HttpAnswer> {
    try {
      const res = await fetch(`${cfg.baseUrl}${path}`, {
        ...init,
        redirect: 'manual',
        signal: AbortSignal.timeout(cfg.timeoutMs),
      });
      return { status: res.status, text: await res.text() };
    } catch (error) {
      throw new Transport(describeTransportFailure(error, cfg.timeoutMs), error);
    }
  }

  function networkError(op: DarajaOperation, t: Transport): DarajaError {
    const { failure } = t;
    // For a reversal, "may be live" means it may have been queued at M-Pesa.
    const promptMayBeLive = (op === 'push' || op === 'reversal') && !failure.neverSent;
    const message =
      op === 'reversal' && promptMayBeLive
        ? `No answer from M-Pesa to the reversal (${failure.reason}); it may still have been queued.`
        : promptMayBeLive
          ? `No answer from M-Pesa to the payment request (${failure.reason}); the prompt may still have been sent. Check the payment status before sending another.`
          : `Could not reach M-Pesa (${failure.reason}).`;
    return new DarajaError(message, { kind: 'network', promptMayBeLive, cause: t.cause });
  }

  async function requestToken(): Promise<CachedToken> {
    for (let attempt = 0; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await http('/oauth/v1/generate?grant_type=client_credentials', {
          method: 'GET',
          headers: { Authorization: basicAuth, Accept: 'application/json' },
        });
      } catch (error) {
        if (!(error instanceof Transport)) throw error;
        if (attempt < cfg.retries) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw networkError('token', error);
      }
      let failure: DarajaError;
      if (answer.status >= 200 && answer.status < 300) {
        const json = parseJson(answer.text);
        const token = isRecord(json) && typeof json.access_token === 'string' ? json.access_token.trim() : '';
        if (token !== '') {
          const expiresIn = isRecord(json) ? Number(json.expires_in) : Number.NaN;
          const ttlSeconds = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_TOKEN_TTL_S;
          seenTokens.push(token);
          if (seenTokens.length > 4) seenTokens.shift();
          return { token, refreshAt: performance.now() + ttlSeconds * 1000 - TOKEN_MARGIN_MS };
        }
        failure = new DarajaError('M-Pesa answered the token request without an access token.', {
          kind: 'unavailable',
          status: answer.status,
        });
      } else {
        const it = interpretErrorResponse('token', answer.status, answer.text, scrubber());
        if (it.pending) throw new Error('unreachable: token answers are never pending');
        failure = it.error;
      }
      if (failure.kind === 'unavailable' && attempt < cfg.retries) {
        await sleep(backoffMs(attempt));
        continue;
      }
      throw failure;
    }
  }

  /** A valid token: the cached one, or the result of the one refresh in flight (shared by all callers). */
  function getToken(): Promise<string> {
    if (cached && performance.now() < cached.refreshAt) return Promise.resolve(cached.token);
    if (!refreshing) {
      refreshing = requestToken()
        .then((fresh) => {
          cached = fresh;
          return fresh.token;
        })
        .finally(() => {
          refreshing = null;
        });
    }
    return refreshing;
  }

  /** After Daraja refused `token`: forget it, unless another caller already replaced it. */
  function dropToken(token: string): void {
    if (cached?.token === token) cached = null;
  }

  type ApiAnswer = { kind: 'ok'; json: unknown; status: number } | { kind: 'pending' };

  /**
   * One Daraja API call with a fresh Timestamp/Password per attempt. Retries: query on network
   * errors and 'unavailable'; push only when the request never left (refused / DNS).
   */
  async function callApi(
    op: 'push' | 'query' | 'register' | 'simulate' | 'reversal' | 'status',
    path: string,
    fields: (timestamp: string, password: string) => object,
  ): Promise<ApiAnswer> {
    let tokenRefreshed = false;
    for (let attempt = 0; ; ) {
      const token = await getToken(); // already retried inside; its errors are final
      const timestamp = darajaTimestamp(cfg.now());
      const password = darajaPassword(cfg.shortcode, cfg.passkey, timestamp);
      let answer: HttpAnswer;
      try {
        answer = await http(path, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify(fields(timestamp, password)),
        });
      } catch (error) {
        if (!(error instanceof Transport)) throw error;
        // A push or a simulated payment that may have arrived must not be sent again.
        const mayRetry = op === 'query' || op === 'register' || op === 'status' || error.failure.neverSent;
        if (mayRetry && attempt < cfg.retries) {
          await sleep(backoffMs(attempt++));
          continue;
        }
        throw networkError(op, error);
      }
      const json = parseJson(answer.text);
      const ok = answer.status >= 200 && answer.status < 300;
      if (ok && !(isRecord(json) && 'errorCode' in json)) return { kind: 'ok', json, status: answer.status };

      const it = interpretErrorResponse(op, answer.status, answer.text, scrubber(token, password));
      if (it.pending) return { kind: 'pending' };
      if (it.tokenInvalid && !tokenRefreshed) {
        // The token was refused before anything was done with the request: safe to resend once.
        tokenRefreshed = true;
        dropToken(token);
        continue;
      }
      // Busy (500.003.*, 503, 429): Daraja turned the request away before processing it, so even
      // a reversal may be sent again.
      const retriesBusy = op === 'query' || op === 'register' || op === 'status' || op === 'reversal';
      if (retriesBusy && it.error.kind === 'unavailable' && attempt < cfg.retries) {
        await sleep(backoffMs(attempt++));
        continue;
      }
      throw it.error;
    }
  }

  async function stkPush(input: StkPushInput): Promise<StkPushAccepted> {
    validatePush(input);
    const answer = await callApi('push', '/mpesa/stkpush/v1/processrequest', (timestamp, password) => ({
      BusinessShortCode: cfg.shortcode,
      Password: password,
      Timestamp: timestamp,
      TransactionType: cfg.transactionType,
      Amount: input.amount,
      PartyA: input.phone,
      PartyB: cfg.partyB,
      PhoneNumber: input.phone,
      CallBackURL: input.callbackUrl,
      AccountReference: input.accountReference,
      TransactionDesc: input.description,
    }));
    if (answer.kind !== 'ok') throw new Error('unreachable: push answers are never pending');
    const json = isRecord(answer.json) ? answer.json : {};
    const responseCode = str(json.ResponseCode);
    const checkoutRequestId = str(json.CheckoutRequestID)?.trim() ?? '';
    if (responseCode !== null && responseCode !== '0') {
      const said = str(json.ResponseDescription) ?? str(json.CustomerMessage) ?? `ResponseCode ${responseCode}`;
      throw new DarajaError(`M-Pesa refused the request: ${scrubber()(said).slice(0, 300)}`, {
        kind: 'rejected',
        status: answer.status,
        errorCode: responseCode,
      });
    }
    if (checkoutRequestId === '') {
      // Accepted or not, we cannot tell without a CheckoutRequestID: treat it like a lost answer.
      throw new DarajaError(
        'M-Pesa answered the payment request without a CheckoutRequestID; the prompt may still have been sent. Check the payment status before sending another.',
        { kind: 'network', status: answer.status },
      );
    }
    return {
      merchantRequestId: str(json.MerchantRequestID) ?? '',
      checkoutRequestId,
      customerMessage: str(json.CustomerMessage) ?? str(json.ResponseDescription) ?? '',
    };
  }

  async function stkQuery(checkoutRequestId: string): Promise<StkQueryResult> {
    if (typeof checkoutRequestId !== 'string' || !/^\S{1,100}$/.test(checkoutRequestId)) {
      throw rejected('The CheckoutRequestID to query is missing or malformed.');
    }
    const answer = await callApi('query', '/mpesa/stkpushquery/v1/query', (timestamp, password) => ({
      BusinessShortCode: cfg.shortcode,
      Password: password,
      Timestamp: timestamp,
      CheckoutRequestID: checkoutRequestId,
    }));
    if (answer.kind === 'pending') return { state: 'pending' };
    if (!isRecord(answer.json)) {
      throw new DarajaError('M-Pesa sent an unreadable answer to the status query.', {
        kind: 'unavailable',
        status: answer.status,
      });
    }
    const json = answer.json;
    const resultCode = str(json.ResultCode)?.trim() ?? '';
    if (resultCode !== '') return { state: 'completed', resultCode, resultDesc: str(json.ResultDesc) ?? '' };
    const responseCode = str(json.ResponseCode);
    if (responseCode !== null && responseCode !== '0') {
      const said = str(json.ResponseDescription) ?? `ResponseCode ${responseCode}`;
      throw new DarajaError(`M-Pesa refused the request: ${scrubber()(said).slice(0, 300)}`, {
        kind: 'rejected',
        status: answer.status,
        errorCode: responseCode,
      });
    }
    // Accepted but no result yet: the same as "being processed".
    return { state: 'pending' };
  }

  /** A C2B answer: ResponseCode "0", or a refusal in its ResponseDescription. */
  function checkC2bAnswer(json: unknown, status: number): void {
    const body = isRecord(json) ? json : {};
    const responseCode = str(body.ResponseCode);
    // Older answers had no ResponseCode at all; only a code other than "0" is a refusal.
    if (responseCode === null || responseCode === '0') return;
    const said = str(body.ResponseDescription) ?? `ResponseCode ${responseCode}`;
    throw new DarajaError(`M-Pesa refused the request: ${scrubber()(said).slice(0, 300)}`, {
      kind: 'rejected',
      status,
      errorCode: responseCode,
    });
  }

  async function registerC2bUrls(input: C2bRegistration): Promise<'registered' | 'already'> {
    try {
      const answer = await callApi('register', `/mpesa/c2b/${input.version}/registerurl`, () => ({
        ShortCode: input.shortCode,
        ResponseType: input.responseType,
        ConfirmationURL: input.confirmationUrl,
        ValidationURL: input.validationUrl,
      }));
      if (answer.kind !== 'ok') throw new Error('unreachable: registration answers are never pending');
      const said = isRecord(answer.json) ? (str(answer.json.ResponseDescription) ?? '') : '';
      if (/already registered/i.test(said)) return 'already';
      checkC2bAnswer(answer.json, answer.status);
      return 'registered';
    } catch (error) {
      if (error instanceof DarajaError && /already registered/i.test(error.message)) return 'already';
      throw error;
    }
  }

  async function simulateC2bPayment(version: 'v1' | 'v2', input: C2bPayment): Promise<void> {
    const answer = await callApi('simulate', `/mpesa/c2b/${version}/simulate`, () => ({
      ShortCode: input.shortCode,
      CommandID: input.commandId,
      Amount: String(input.amount),
      Msisdn: input.msisdn,
      BillRefNumber: input.billRefNumber,
    }));
    if (answer.kind !== 'ok') throw new Error('unreachable: simulate answers are never pending');
    checkC2bAnswer(answer.json, answer.status);
  }

  function validateInitiator(input: InitiatorRequest): void {
    if (typeof input.initiator !== 'string' || input.initiator.trim() === '') throw rejected('The initiator name is missing.');
    if (typeof input.securityCredential !== 'string' || input.securityCredential === '')
      throw rejected('The security credential is missing.');
    if (!isHttpUrl(input.resultUrl) || !isHttpUrl(input.queueTimeoutUrl))
      throw rejected('The result and queue-timeout URLs must be http(s) URLs without spaces.');
    if (typeof input.remarks !== 'string' || input.remarks.length < 2 || input.remarks.length > 100)
      throw rejected('The remarks must be 2 to 100 characters.');
  }

  /** The acknowledgement of an initiator call: ResponseCode "0" and the two ids, else a refusal. */
  function initiatorAccepted(op: 'reversal' | 'status', json: unknown, status: number): InitiatorAccepted {
    const body = isRecord(json) ? json : {};
    const responseCode = str(body.ResponseCode);
    if (responseCode !== null && responseCode !== '0') {
      const said = str(body.ResponseDescription) ?? `ResponseCode ${responseCode}`;
      throw new DarajaError(`M-Pesa refused the request: ${scrubber()(said).slice(0, 300)}`, {
        kind: 'rejected',
        status,
        errorCode: responseCode,
      });
    }
    const conversationId = str(body.ConversationID)?.trim() ?? '';
    const originatorConversationId = str(body.OriginatorConversationID)?.trim() ?? '';
    if (conversationId === '' && originatorConversationId === '') {
      // Queued or not, nothing ties a Result to it: for a reversal that is an answer lost.
      throw new DarajaError('M-Pesa answered without a ConversationID; the request may still have been queued.', {
        kind: op === 'reversal' ? 'network' : 'unavailable',
        status,
      });
    }
    return { conversationId, originatorConversationId };
  }

  async function reversal(input: ReversalInput): Promise<InitiatorAccepted> {
    validateInitiator(input);
    if (!/^[A-Z0-9]{6,20}$/.test(input.transactionId)) throw rejected('The receipt to reverse is malformed.');
    if (!Number.isFinite(input.amount) || input.amount <= 0) throw rejected('The amount to reverse must be more than 0.');
    const answer = await callApi('reversal', '/mpesa/reversal/v1/request', () => ({
      Initiator: input.initiator,
      SecurityCredential: input.securityCredential,
      CommandID: 'TransactionReversal',
      TransactionID: input.transactionId,
      Amount: String(input.amount),
      ReceiverParty: input.receiverParty,
      // Daraja's own spelling: the correct one is refused as "Invalid RecieverIdentifierType".
      RecieverIdentifierType: input.receiverIdentifierType,
      ResultURL: input.resultUrl,
      QueueTimeOutURL: input.queueTimeoutUrl,
      Remarks: input.remarks,
      ...(input.occasion && { Occasion: input.occasion }),
    }));
    if (answer.kind !== 'ok') throw new Error('unreachable: reversal answers are never pending');
    return initiatorAccepted('reversal', answer.json, answer.status);
  }

  async function transactionStatus(input: TransactionStatusInput): Promise<InitiatorAccepted> {
    validateInitiator(input);
    const byReceipt = typeof input.transactionId === 'string';
    const id = byReceipt ? input.transactionId : input.originalConversationId;
    if (typeof id !== 'string' || !/^\S{1,100}$/.test(id)) throw rejected('The transaction to look up is missing or malformed.');
    const answer = await callApi('status', '/mpesa/transactionstatus/v1/query', () => ({
      Initiator: input.initiator,
      SecurityCredential: input.securityCredential,
      CommandID: 'TransactionStatusQuery',
      // One of the two identifiers, never both.
      ...(byReceipt ? { TransactionID: id } : { OriginalConversationID: id }),
      PartyA: input.partyA,
      IdentifierType: input.identifierType,
      ResultURL: input.resultUrl,
      QueueTimeOutURL: input.queueTimeoutUrl,
      Remarks: input.remarks,
      ...(input.occasion && { Occasion: input.occasion }),
    }));
    if (answer.kind !== 'ok') throw new Error('unreachable: status answers are never pending');
    return initiatorAccepted('status', answer.json, answer.status);
  }

  return { stkPush, stkQuery, registerC2bUrls, simulateC2bPayment, reversal, transactionStatus };
}

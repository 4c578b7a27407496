/**
 * Daraja's error answers turned into one error type (docs/payments.md: OAuth, Daraja errors, STK query). Pure functions:
 * the HTTP client in daraja/call-api.ts decides what to retry from what these return.
 *
 * Error bodies are normally {requestId, errorCode, errorMessage}, but gateway failures can carry a
 * `fault` object, HTML or nothing at all, so every field is optional here.
 */

/**
 * - rejected: Daraja (or the local validation) refused the request; retrying the same request will not help.
 * - auth: the consumer key/secret or the access token were not accepted, or the app lacks the API product.
 * - unavailable: Daraja is busy, rate-limited or down (500.003.*, 503); try again later.
 * - network: no usable answer (connection failure, timeout, garbled reply). For stkPush this means
 *   the outcome is unknown: the prompt may have been sent.
 */
export type DarajaErrorKind = 'rejected' | 'auth' | 'unavailable' | 'network';

export interface DarajaErrorDetails {
  kind: DarajaErrorKind;
  status?: number | null;
  errorCode?: string | null;
  requestId?: string | null;
  /** A push that may have reached Daraja (it timed out or lost its answer): the prompt may be live. */
  promptMayBeLive?: boolean;
  cause?: unknown;
}

export class DarajaError extends Error {
  readonly status: number | null;
  readonly errorCode: string | null;
  readonly requestId: string | null;
  readonly kind: DarajaErrorKind;
  readonly promptMayBeLive: boolean;

  constructor(message: string, details: DarajaErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'DarajaError';
    this.kind = details.kind;
    this.status = details.status ?? null;
    this.errorCode = details.errorCode ?? null;
    this.requestId = details.requestId ?? null;
    this.promptMayBeLive = details.promptMayBeLive ?? false;
  }
}

export interface DarajaErrorBody {
  errorCode: string | null;
  errorMessage: string | null;
  requestId: string | null;
  /** Apigee-style `{fault: {faultstring, detail: {errorcode}}}`: the detail code, e.g. "oauth.v2.InvalidAccessToken". */
  faultCode: string | null;
}

const MAX_MESSAGE_CHARS = 300;

function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  // Keep remote text printable and short: it ends up in logs and, for refusals, in front of shoppers.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const clean = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (clean === '') return null;
  return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS)}…` : clean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads an error body, whatever it is: Daraja's JSON, a gateway fault, HTML, or empty. */
export function parseDarajaErrorBody(body: string): DarajaErrorBody {
  const out: DarajaErrorBody = { errorCode: null, errorMessage: null, requestId: null, faultCode: null };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return out; // empty, HTML or otherwise not JSON: nothing we can quote
  }
  if (!isRecord(json)) return out;
  out.errorCode = text(json.errorCode);
  out.errorMessage = text(json.errorMessage);
  out.requestId = text(json.requestId);
  const fault = json.fault;
  if (isRecord(fault)) {
    out.errorMessage ??= text(fault.faultstring);
    if (isRecord(fault.detail)) out.faultCode = text(fault.detail.errorcode);
  }
  // Some gateways answer OAuth-style: {error, error_description}.
  out.errorMessage ??= text(json.error_description) ?? text(json.error) ?? text(json.message);
  return out;
}

/**
 * token, STK push and query, C2B (register the URLs, simulate a payment: sandbox only), and the
 * initiator calls: reversal and (transaction) status.
 */
export type DarajaOperation = 'token' | 'push' | 'query' | 'register' | 'simulate' | 'reversal' | 'status';

export type ErrorInterpretation =
  /** STK query: "The transaction is being processed" — the normal answer while the prompt is open. */
  | { pending: true }
  | {
      pending: false;
      error: DarajaError;
      /** The access token was refused (404.001.03 or a gateway token fault): refresh once and retry once. */
      tokenInvalid: boolean;
    };

export const LOCKED_SUBSCRIBER_MESSAGE = 'There is already an M-Pesa prompt on this phone. Wait a minute and try again.';

/**
 * Turns a non-2xx answer (or a 2xx that carries an errorCode) into a DarajaError.
 * `scrub` removes secrets from any text quoted from the answer.
 */
export function interpretErrorResponse(
  op: DarajaOperation,
  status: number,
  bodyText: string,
  scrub: (s: string) => string = (s) => s,
): ErrorInterpretation {
  const body = parseDarajaErrorBody(bodyText);
  const code = body.errorCode ?? '';
  const fault = body.faultCode ?? '';
  const said = body.errorMessage === null ? null : scrub(body.errorMessage);
  const detail = said ?? (code ? `error ${code}` : `HTTP ${status}`);
  const make = (kind: DarajaErrorKind, message: string, tokenInvalid = false): ErrorInterpretation => ({
    pending: false,
    tokenInvalid,
    error: new DarajaError(message, {
      kind,
      status,
      errorCode: body.errorCode ?? (body.faultCode || null),
      requestId: body.requestId,
    }),
  });

  if (op === 'query' && code === '500.001.1001' && /being processed/i.test(said ?? '')) return { pending: true };

  if (code === '404.001.03' || /InvalidAccessToken|access_?token_?expired|invalid_?access_?token/i.test(fault)) {
    return make('auth', `M-Pesa did not accept the access token: ${detail}`, op !== 'token');
  }
  if (
    code.startsWith('400.008.') ||
    code.startsWith('401.') ||
    status === 401 ||
    status === 403 ||
    /^oauth\.|InvalidApiKey|InvalidClient/i.test(fault)
  ) {
    return make(
      'auth',
      `M-Pesa did not accept the shop's API credentials: ${detail}. Check the consumer key and secret (and the app's API products) for this environment.`,
    );
  }
  if (code.startsWith('500.003.') || status === 503 || status === 429 || /SpikeArrest|Quota/i.test(fault)) {
    return make('unavailable', `M-Pesa is busy or unavailable right now (${detail}). Try again in a few minutes.`);
  }
  if (code === '500.001.1001') {
    if (/unable to lock subscriber/i.test(said ?? '')) return make('rejected', LOCKED_SUBSCRIBER_MESSAGE);
    return make('rejected', `M-Pesa refused the request: ${detail}`);
  }
  if (op === 'token' && status >= 400 && status < 500) {
    // The token endpoint has one job: any refusal means the credentials (or the URL) are wrong.
    return make(
      'auth',
      `M-Pesa did not accept the shop's API credentials: ${detail}. Check the consumer key and secret for this environment.`,
    );
  }
  if (code.startsWith('400.') || code.startsWith('404.') || code.startsWith('405.') || (status >= 300 && status < 500)) {
    return make('rejected', `M-Pesa refused the request: ${detail}`);
  }
  if (op === 'reversal') {
    return make('network', `M-Pesa gave no clear answer to the reversal (${detail}); it may still have been queued.`);
  }
  if (op === 'push') {
    // A 5xx we cannot read (gateway timeout, 502, an unknown 500): the push may have gone through.
    return make(
      'network',
      `M-Pesa gave no clear answer to the payment request (${detail}); the prompt may still have been sent. Check the payment status before sending another.`,
    );
  }
  return make('unavailable', `M-Pesa is busy or unavailable right now (${detail}). Try again in a few minutes.`);
}

const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export interface TransportFailure {
  /** The request surely never reached the server (connection refused, DNS failure, no route). */
  neverSent: boolean;
  timedOut: boolean;
  /** Short, secret-free description such as "ECONNREFUSED" or "timed out after 10000 ms". */
  reason: string;
}

function collectCodes(error: unknown, into: string[], depth = 0): void {
  if (depth > 5 || !(isRecord(error) || error instanceof Error)) return;
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') into.push(e.code);
  if (Array.isArray(e.errors)) for (const inner of e.errors) collectCodes(inner, into, depth + 1);
  if (e.cause !== undefined) collectCodes(e.cause, into, depth + 1);
}

/** Classifies what fetch threw: was it a timeout, and could the request have reached the server? */
export function describeTransportFailure(error: unknown, timeoutMs: number): TransportFailure {
  const name = error instanceof Error || isRecord(error) ? (error as { name?: unknown }).name : undefined;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { neverSent: false, timedOut: true, reason: `timed out after ${timeoutMs} ms` };
  }
  const codes: string[] = [];
  collectCodes(error, codes);
  const neverSent = codes.length > 0 && codes.every((c) => NEVER_SENT_CODES.has(c));
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = codes[0] ?? (cause instanceof Error ? text(cause.message) : null) ?? 'unknown network error';
  return { neverSent, timedOut: false, reason };
}

/** One HTTP exchange with Daraja, what a lost one means, and the backoff between attempts. */
import { DarajaError, type DarajaOperation, describeTransportFailure, type TransportFailure } from '../daraja-errors.js';
import type { Scrubber } from './answers.js';
import type { ResolvedConfig } from './config.js';

const BACKOFF_BASE_MS = 200;
const BACKOFF_MAX_MS = 5_000;

export interface HttpAnswer {
  status: number;
  text: string;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** Sends a request to Daraja; throws Transport when no answer came. */
export type HttpCall = (path: string, init: HttpRequest) => Promise<HttpAnswer>;

/** No answer from Daraja: the request failed on the way, or timed out. */
export class Transport extends Error {
  constructor(
    readonly failure: TransportFailure,
    cause: unknown,
  ) {
    super(failure.reason, { cause });
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const backoffMs = (attempt: number) => Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);

/** `Basic base64(key:secret)`, the token request's Authorization. */
export function basicAuthOf(cfg: ResolvedConfig): string {
  return `Basic ${Buffer.from(`${cfg.consumerKey}:${cfg.consumerSecret}`, 'utf8').toString('base64')}`;
}

/** POSTs and GETs to cfg.baseUrl, with no redirects followed and cfg.timeoutMs per call. */
export async function httpCall(cfg: ResolvedConfig, path: string, init: HttpRequest): Promise<HttpAnswer> {
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

/**
 * A scrubber of the consumer secret, the passkey, the Basic credentials and the tokens in
 * `seenTokens` (read at each use, so tokens added later are scrubbed too).
 */
export function makeScrubber(cfg: ResolvedConfig, basicAuth: string, seenTokens: readonly string[]): Scrubber {
  return (...extra) =>
    (s) => {
      let out = s;
      for (const secret of [cfg.consumerSecret, cfg.passkey, basicAuth.slice(6), ...seenTokens, ...extra]) {
        if (secret.length >= 4) out = out.split(secret).join('[redacted]');
      }
      return out;
    };
}

/** The DarajaError for a request that got no answer; `promptMayBeLive` when it may have arrived. */
export function networkError(op: DarajaOperation, t: Transport): DarajaError {
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

/**
 * Callback delivery of the Daraja simulator (part of the test double in index.ts): every POST it
 * makes to the shop (STK callbacks, C2B validations and confirmations, initiator Results), each
 * recorded, never retried.
 */
import type { SimState } from './state.js';
import type { C2bDelivery, CallbackDelivery } from './types.js';
import { originForLog } from './wire.js';

export const CALLBACK_TIMEOUT_MS = 5000;
export const SECOND_CALLBACK_GAP_MS = 200;

/**
 * POSTs `body` as JSON and reads the answer to its end (so the connection can be reused), all
 * within `ms` (a TimeoutError) unless `stop` aborts first. The deadline is a timer holding its
 * own controller, not AbortSignal.any([AbortSignal.timeout(ms), stop]): on Node 20 the timeout
 * signal inside such a composite can be garbage-collected before it fires (nodejs/node#57736),
 * and the request then waits for ever.
 */
export async function postJson(
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

export function describeFetchError(err: unknown, timeoutMs = CALLBACK_TIMEOUT_MS): string {
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

/** POSTs an STK callback to the push's CallBackURL and records the attempt in `deliveries`. */
export async function deliverStkCallback(
  sim: SimState,
  checkout: { checkoutRequestId: string; callbackUrl: string },
  body: unknown,
): Promise<void> {
  const delivery: CallbackDelivery = {
    checkoutRequestId: checkout.checkoutRequestId,
    url: checkout.callbackUrl,
    status: null,
    body,
    at: new Date(),
  };
  try {
    delivery.status = (await postJson(checkout.callbackUrl, body, CALLBACK_TIMEOUT_MS, sim.shutdown.signal)).status;
  } catch (err) {
    delivery.error = describeFetchError(err);
  }
  sim.deliveries.push(delivery);
  sim.log(delivery.error === undefined ? 'callback: sent' : 'callback: failed', {
    checkoutRequestId: checkout.checkoutRequestId,
    to: originForLog(checkout.callbackUrl),
    status: delivery.status,
    ...(delivery.error !== undefined && { error: delivery.error }),
    ms: Date.now() - delivery.at.getTime(),
  });
}

/** POSTs a C2B validation or confirmation, records it in `c2bDeliveries`, and answers the shop's JSON answer. */
export async function postC2b(
  sim: SimState,
  kind: C2bDelivery['kind'],
  url: string,
  transId: string,
  body: Record<string, string>,
  timeoutMs: number,
): Promise<unknown> {
  const delivery: C2bDelivery = { kind, transId, url, status: null, answer: undefined, body, at: new Date() };
  try {
    const answer = await postJson(url, body, timeoutMs, sim.shutdown.signal);
    delivery.status = answer.status;
    try {
      delivery.answer = answer.ok ? JSON.parse(answer.text) : undefined;
    } catch {
      delivery.answer = undefined; // not JSON: the same as no answer
    }
  } catch (err) {
    delivery.error = describeFetchError(err, timeoutMs);
  }
  sim.c2bDeliveries.push(delivery);
  sim.log(delivery.error === undefined ? `c2b: ${kind} sent` : `c2b: ${kind} failed`, {
    transId,
    to: originForLog(url),
    status: delivery.status,
    ...(delivery.error !== undefined && { error: delivery.error }),
  });
  return delivery.answer;
}

/** POSTs an initiator Result or queue-timeout notice; initiator.ts records it. */
export async function postResult(
  sim: SimState,
  target: string,
  body: unknown,
): Promise<{ status: number | null; error?: string }> {
  try {
    return { status: (await postJson(target, body, CALLBACK_TIMEOUT_MS, sim.shutdown.signal)).status };
  } catch (err) {
    return { status: null, error: describeFetchError(err) };
  }
}

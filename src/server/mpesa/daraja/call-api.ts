/**
 * One Daraja API call with a fresh Timestamp/Password per attempt, retried with backoff where a
 * second request cannot do harm, and Daraja's error answers turned into DarajaError.
 */
import { interpretErrorResponse } from '../daraja-errors.js';
import { isRecord, parseJson, type Scrubber } from './answers.js';
import { darajaPassword, darajaTimestamp, type ResolvedConfig } from './config.js';
import { backoffMs, type HttpAnswer, type HttpCall, networkError, sleep, Transport } from './http.js';

export type ApiOperation = 'push' | 'query' | 'register' | 'simulate' | 'reversal' | 'status';

export type ApiAnswer = { kind: 'ok'; json: unknown; status: number } | { kind: 'pending' };

/** A request body, made per attempt from that attempt's Timestamp and Password. */
export type ApiFields = (timestamp: string, password: string) => object;

/** callApi with its context bound: what the API families are given. */
export type CallApi = (op: ApiOperation, path: string, fields: ApiFields) => Promise<ApiAnswer>;

export interface ApiContext {
  cfg: ResolvedConfig;
  http: HttpCall;
  scrub: Scrubber;
  /** A valid token; already retried inside, so its errors are final. */
  getToken: () => Promise<string>;
  /** Forgets a token Daraja refused. */
  dropToken: (token: string) => void;
}

/** Whether a request that got no answer may be sent again: a push or a simulated payment that may have arrived must not. */
function retriesLostAnswer(op: ApiOperation, neverSent: boolean): boolean {
  return op === 'query' || op === 'register' || op === 'status' || neverSent;
}

/**
 * Busy (500.003.*, 503, 429): Daraja turned the request away before processing it, so even a
 * reversal may be sent again; a push or a simulated payment is not.
 */
function retriesBusy(op: ApiOperation): boolean {
  return op === 'query' || op === 'register' || op === 'status' || op === 'reversal';
}

/**
 * One Daraja API call. Retries: query on network errors and 'unavailable'; push only when the
 * request never left (refused / DNS); any call once with a fresh token when the token was refused.
 */
export async function callApi(ctx: ApiContext, op: ApiOperation, path: string, fields: ApiFields): Promise<ApiAnswer> {
  const { cfg } = ctx;
  let tokenRefreshed = false;
  for (let attempt = 0; ; ) {
    const token = await ctx.getToken();
    const timestamp = darajaTimestamp(cfg.now());
    const password = darajaPassword(cfg.shortcode, cfg.passkey, timestamp);
    let answer: HttpAnswer;
    try {
      answer = await ctx.http(path, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(fields(timestamp, password)),
      });
    } catch (error) {
      if (!(error instanceof Transport)) throw error;
      if (retriesLostAnswer(op, error.failure.neverSent) && attempt < cfg.retries) {
        await sleep(backoffMs(attempt++));
        continue;
      }
      throw networkError(op, error);
    }
    const json = parseJson(answer.text);
    const ok = answer.status >= 200 && answer.status < 300;
    if (ok && !(isRecord(json) && 'errorCode' in json)) return { kind: 'ok', json, status: answer.status };

    const it = interpretErrorResponse(op, answer.status, answer.text, ctx.scrub(token, password));
    if (it.pending) return { kind: 'pending' };
    if (it.tokenInvalid && !tokenRefreshed) {
      // The token was refused before anything was done with the request: safe to resend once.
      tokenRefreshed = true;
      ctx.dropToken(token);
      continue;
    }
    if (retriesBusy(op) && it.error.kind === 'unavailable' && attempt < cfg.retries) {
      await sleep(backoffMs(attempt++));
      continue;
    }
    throw it.error;
  }
}

/** What each API family (stk.ts, c2b.ts, initiator.ts) is given: the configuration, the call and the scrubber. */
export interface FamilyContext {
  cfg: ResolvedConfig;
  call: CallApi;
  scrub: Scrubber;
}

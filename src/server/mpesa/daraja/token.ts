/**
 * The OAuth token: cached until 60 s before it expires, one refresh shared by concurrent callers,
 * and dropped when Daraja refuses it.
 */
import { DarajaError, interpretErrorResponse } from '../daraja-errors.js';
import { isRecord, parseJson, type Scrubber } from './answers.js';
import type { ResolvedConfig } from './config.js';
import { backoffMs, type HttpAnswer, type HttpCall, networkError, sleep, Transport } from './http.js';

const TOKEN_MARGIN_MS = 60_000;
const DEFAULT_TOKEN_TTL_S = 3599;
/** How many of the latest tokens are kept to be scrubbed from error messages. */
const SEEN_TOKENS_KEPT = 4;

export interface CachedToken {
  token: string;
  /** performance.now() value after which the token is no longer used (60 s before Daraja's expiry). */
  refreshAt: number;
}

export interface TokenCache {
  cached: CachedToken | null;
  refreshing: Promise<string> | null;
  /** Tokens handed out to this client, so that an error message can never echo one (bounded). */
  readonly seenTokens: string[];
}

export interface TokenContext {
  cfg: ResolvedConfig;
  basicAuth: string;
  http: HttpCall;
  scrub: Scrubber;
}

export function newTokenCache(): TokenCache {
  return { cached: null, refreshing: null, seenTokens: [] };
}

/** Asks Daraja for a token, retrying network errors and 'unavailable' with backoff. */
export async function requestToken(ctx: TokenContext, cache: TokenCache): Promise<CachedToken> {
  for (let attempt = 0; ; attempt++) {
    let answer: HttpAnswer;
    try {
      answer = await ctx.http('/oauth/v1/generate?grant_type=client_credentials', {
        method: 'GET',
        headers: { Authorization: ctx.basicAuth, Accept: 'application/json' },
      });
    } catch (error) {
      if (!(error instanceof Transport)) throw error;
      if (attempt < ctx.cfg.retries) {
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
        cache.seenTokens.push(token);
        if (cache.seenTokens.length > SEEN_TOKENS_KEPT) cache.seenTokens.shift();
        return { token, refreshAt: performance.now() + ttlSeconds * 1000 - TOKEN_MARGIN_MS };
      }
      failure = new DarajaError('M-Pesa answered the token request without an access token.', {
        kind: 'unavailable',
        status: answer.status,
      });
    } else {
      const it = interpretErrorResponse('token', answer.status, answer.text, ctx.scrub());
      if (it.pending) throw new Error('unreachable: token answers are never pending');
      failure = it.error;
    }
    if (failure.kind === 'unavailable' && attempt < ctx.cfg.retries) {
      await sleep(backoffMs(attempt));
      continue;
    }
    throw failure;
  }
}

/** A valid token: the cached one, or the result of the one refresh in flight (shared by all callers). */
export function getToken(ctx: TokenContext, cache: TokenCache): Promise<string> {
  const { cached } = cache;
  if (cached && performance.now() < cached.refreshAt) return Promise.resolve(cached.token);
  if (!cache.refreshing) {
    cache.refreshing = requestToken(ctx, cache)
      .then((fresh) => {
        cache.cached = fresh;
        return fresh.token;
      })
      .finally(() => {
        cache.refreshing = null;
      });
  }
  return cache.refreshing;
}

/** After Daraja refused `token`: forget it, unless another caller already replaced it. */
export function dropToken(cache: TokenCache, token: string): void {
  if (cache.cached?.token === token) cache.cached = null;
}

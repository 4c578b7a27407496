/**
 * The Daraja simulator's OAuth (part of the test double in index.ts): tokens for HTTP Basic
 * consumer key and secret, and the Bearer check of every other call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { darajaError, sendJson } from './http.js';
import type { SimState } from './state.js';
import { newAccessToken } from './wire.js';

export function handleOAuth(sim: SimState, req: IncomingMessage, url: URL, res: ServerResponse): void {
  const { options, tokenTtlSeconds } = sim;
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
  sim.tokens.set(token, Date.now() + tokenTtlSeconds * 1000);
  sim.tokensIssued++;
  sim.log('oauth: token issued', { tokensIssued: sim.tokensIssued, expiresIn: tokenTtlSeconds });
  sendJson(res, 200, {
    access_token: token,
    expires_in: options.expiresInAsNumber ? tokenTtlSeconds : String(tokenTtlSeconds),
  });
}

export function requireToken(sim: SimState, req: IncomingMessage): void {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const token = match?.[1];
  const expiresAt = token === undefined ? undefined : sim.tokens.get(token);
  if (token !== undefined && expiresAt !== undefined && Date.now() >= expiresAt) sim.tokens.delete(token);
  if (expiresAt === undefined || Date.now() >= expiresAt) throw darajaError(404, '404.001.03', 'Invalid Access Token');
}

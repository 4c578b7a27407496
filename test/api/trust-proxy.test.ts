import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClientError } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * TRUST_PROXY as a list of proxies: X-Forwarded-For is believed from those peers only, so a client
 * that reaches the shop directly cannot choose its address (request.ip), which the M-Pesa callback
 * allow-list and the rate limits judge. Seen twice: in the request log, which records request.ip,
 * and in the sign-in limit, which counts by it.
 */

const PROXY = '10.0.0.1';
const SAFARICOM = '196.201.214.200';
const MAX = 3;

let shop: TestShop;
const logLines: string[] = [];

beforeAll(async () => {
  shop = await buildTestApp(
    { TRUST_PROXY: `${PROXY}, 2001:db8:ff::/48`, RATE_LIMIT_LOGIN_MAX: String(MAX), LOG_LEVEL: 'info' },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
});
afterAll(() => shop?.stop());

/** The address the shop took a request from `peer`, claiming `forwardedFor`, to come from. */
async function addressSeen(peer: string, forwardedFor: string): Promise<string> {
  const id = randomUUID();
  const answer = await shop.app.inject({
    method: 'GET',
    url: '/api/health',
    remoteAddress: peer,
    headers: { 'x-forwarded-for': forwardedFor, 'x-request-id': id },
  });
  expect(answer.statusCode).toBe(200);
  const incoming = logLines
    .map((line) => JSON.parse(line) as { reqId?: string; req?: { remoteAddress?: string } })
    .find((entry) => entry.reqId === id && entry.req);
  if (!incoming?.req?.remoteAddress) throw new Error(`no request log line for ${id}`);
  return incoming.req.remoteAddress;
}

function wrongSignIn(peer: string, forwardedFor: string) {
  return shop.app.inject({
    method: 'POST',
    url: '/api/users/auth',
    remoteAddress: peer,
    headers: { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': forwardedFor },
    payload: { email: 'wanjiku@example.com', password: 'not-her-password' },
  });
}

describe('TRUST_PROXY with a list of proxies', () => {
  it('ignores X-Forwarded-For from a peer not on the list: request.ip stays the peer', async () => {
    expect(await addressSeen('203.0.113.7', SAFARICOM)).toBe('203.0.113.7');
    // A neighbour of a listed proxy, or an address just outside a listed range, is no proxy either.
    expect(await addressSeen('10.0.0.2', SAFARICOM)).toBe('10.0.0.2');
    expect(await addressSeen('2001:db8:100::1', SAFARICOM)).toBe('2001:db8:100::1');
  });

  it('believes a listed proxy, and only the hop it added', async () => {
    expect(await addressSeen(PROXY, SAFARICOM)).toBe(SAFARICOM);
    expect(await addressSeen('2001:db8:ff:1::5', SAFARICOM)).toBe(SAFARICOM);
    // The client's own X-Forwarded-For comes before the proxy's entry (nginx appends): not believed.
    expect(await addressSeen(PROXY, `${SAFARICOM}, 203.0.113.9`)).toBe('203.0.113.9');
  });

  it('so a client cannot dodge the sign-in limit by naming a new address each time', async () => {
    for (let i = 1; i <= MAX; i++) expect((await wrongSignIn('203.0.113.50', `198.51.100.${i}`)).statusCode).toBe(401);
    const refused = await wrongSignIn('203.0.113.50', '198.51.100.99');
    expectClientError({ status: refused.statusCode, body: refused.json() }, 429, 'Too many attempts');
    // Through the proxy, each shopper is counted at their own address.
    for (let i = 1; i <= MAX + 2; i++) expect((await wrongSignIn(PROXY, `198.51.100.${i}`)).statusCode).toBe(401);
  });
});

describe('TRUST_PROXY as a hop count', () => {
  let hops: TestShop;
  const hopLines: string[] = [];
  beforeAll(async () => {
    hops = await buildTestApp(
      { TRUST_PROXY: '1', LOG_LEVEL: 'info' },
      { logStream: { write: (line: string) => void hopLines.push(line) } },
    );
  });
  afterAll(() => hops?.stop());

  it('believes the nearest peer as the one proxy: the client is the address it added, not one the client claimed', async () => {
    const id = randomUUID();
    const answer = await hops.app.inject({
      method: 'GET',
      url: '/api/health',
      remoteAddress: '10.0.0.1',
      // The client claimed 1.2.3.4; the proxy appended the address it really saw.
      headers: { 'x-forwarded-for': `1.2.3.4, ${SAFARICOM}`, 'x-request-id': id },
    });
    expect(answer.statusCode).toBe(200);
    const incoming = hopLines
      .map((line) => JSON.parse(line) as { reqId?: string; req?: { remoteAddress?: string } })
      .find((entry) => entry.reqId === id && entry.req);
    expect(incoming?.req?.remoteAddress).toBe(SAFARICOM);
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createDarajaClient,
  type DarajaConfig,
  DarajaError,
  darajaPassword,
  darajaTimestamp,
  parseStkCallback,
  SANDBOX_PASSKEY,
  SANDBOX_SHORTCODE,
  type StkPushInput,
} from '../../src/server/mpesa/daraja-client.js';
import { interpretErrorResponse, parseDarajaErrorBody } from '../../src/server/mpesa/daraja-errors.js';
import { type DarajaSimulator, type SimulatorOptions, startDarajaSimulator } from '../../src/server/mpesa/simulator/index.js';

/**
 * The Daraja client over real HTTP against the Daraja simulator (src/server/mpesa/simulator). Faults the
 * simulator does not produce (hangs, 503s, a refused token) come from a small forwarding proxy in
 * front of it; callbacks are received by a small node:http server on 127.0.0.1.
 */

const KEY = 'duka-test-key';
const SECRET = 'duka-test-secret-9f8e7d';
const VECTOR_PASSWORD =
  'MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjQwMzE1MTQzMDA1';
const SANDBOX_MSISDN = '254708374149';
const CANCEL_MSISDN = '254700000001';
const DELAY_MS = 300;

/** How long a test waits for the simulator to finish a prompt or deliver its callbacks. */
const SETTLE = { timeout: 5000, interval: 25 };

/** Everything started by a test, closed after it. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close().catch(() => undefined)));
});

async function startSim(options: Partial<SimulatorOptions> = {}): Promise<DarajaSimulator> {
  const sim = await startDarajaSimulator({
    consumerKey: KEY,
    consumerSecret: SECRET,
    shortcode: SANDBOX_SHORTCODE,
    passkey: SANDBOX_PASSKEY,
    callbackDelayMs: DELAY_MS,
    ...options,
  });
  cleanups.push(() => sim.close());
  return sim;
}

function clientFor(baseUrl: string, overrides: Partial<DarajaConfig> = {}) {
  return createDarajaClient({
    baseUrl,
    consumerKey: KEY,
    consumerSecret: SECRET,
    shortcode: SANDBOX_SHORTCODE,
    passkey: SANDBOX_PASSKEY,
    transactionType: 'paybill',
    timeoutMs: 2000,
    ...overrides,
  });
}

function pushInput(overrides: Partial<StkPushInput> = {}): StkPushInput {
  return {
    amount: 150,
    phone: SANDBOX_MSISDN,
    accountReference: 'DUKA1A2B3C4D',
    description: 'Duka order',
    callbackUrl: 'http://127.0.0.1:9/hooks/daraja/stk/secret123',
    ...overrides,
  };
}

async function caught(promise: Promise<unknown>): Promise<DarajaError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DarajaError);
    return error as DarajaError;
  }
  throw new Error('expected a DarajaError, but the call succeeded');
}

/** No secret in the message, nor anywhere in the error object (cause included). */
function expectNoSecrets(error: unknown, ...extra: string[]) {
  const dump = `${(error as Error).message}\n${inspect(error, { depth: 6 })}`;
  for (const secret of [SECRET, SANDBOX_PASSKEY, Buffer.from(`${KEY}:${SECRET}`).toString('base64'), ...extra]) {
    expect(dump).not.toContain(secret);
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A port with nothing listening on it. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Receives the simulator's callbacks, like the shop's hook route would. */
async function startCallbackReceiver() {
  const received: Array<{ path: string; body: unknown }> = [];
  const url = await listen(
    createServer(async (req, res) => {
      const text = await readBody(req);
      received.push({ path: req.url ?? '', body: JSON.parse(text) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ResultCode: 0, ResultDesc: 'Accepted' }));
    }),
  );
  return { url, received };
}

type ProxyAction = 'forward' | 'hang' | 'bad-token' | { status: number; body: string };

/**
 * Sits between the client and the simulator: forwards requests (recording them), or for chosen
 * requests hangs, answers with a canned status, or swaps the bearer token for a stale one.
 */
async function startProxy(target: string, rule: (path: string, nth: number) => ProxyAction = () => 'forward') {
  const requests: Array<{ path: string; body: string }> = [];
  const url = await listen(
    createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const body = await readBody(req);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      requests.push({ path, body });
      const action = rule(path, requests.filter((r) => r.path === path).length);
      if (action === 'hang') return; // never answers; closed with the server
      if (typeof action === 'object') {
        res.writeHead(action.status, { 'content-type': 'application/json' });
        res.end(action.body);
        return;
      }
      const headers: Record<string, string> = {};
      if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
      if (req.headers.authorization)
        headers.authorization = action === 'bad-token' ? 'Bearer NotARealTokenNotARealToken1' : req.headers.authorization;
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' ? undefined : body,
      });
      const text = await upstream.text();
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    }),
  );
  const count = (path: string) => requests.filter((r) => r.path === path).length;
  return { url, requests, count };
}

const PUSH_PATH = '/mpesa/stkpush/v1/processrequest';
const QUERY_PATH = '/mpesa/stkpushquery/v1/query';
const TOKEN_PATH = '/oauth/v1/generate';

// ---------------------------------------------------------------------------------------------

describe('timestamp and password', () => {
  it('formats the timestamp in Nairobi time', () => {
    expect(darajaTimestamp(new Date('2024-03-15T11:30:05Z'))).toBe('20240315143005');
    expect(darajaTimestamp(new Date('2024-12-31T21:00:00Z'))).toBe('20250101000000'); // new year in Nairobi first
    expect(darajaTimestamp(new Date('2024-02-28T22:59:59.999Z'))).toBe('20240229015959'); // leap day
    expect(darajaTimestamp(new Date('2024-06-01T00:00:00Z'))).toBe('20240601030000'); // no DST
    expect(() => darajaTimestamp(new Date('nonsense'))).toThrow(RangeError);
  });

  it('builds the password from shortcode, passkey and timestamp', () => {
    expect(darajaPassword(SANDBOX_SHORTCODE, SANDBOX_PASSKEY, '20240315143005')).toBe(VECTOR_PASSWORD);
    // The portal's own vector (docs/payments.md, STK push request).
    expect(darajaPassword('174379', SANDBOX_PASSKEY, '20210628092408')).toBe(
      'MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjEwNjI4MDkyNDA4',
    );
  });

  it('sends the Nairobi timestamp and its matching password, and the simulator accepts them', async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url);
    const client = clientFor(proxy.url, { now: () => new Date('2024-03-15T11:30:05Z') });
    const accepted = await client.stkPush(pushInput());
    expect(accepted.checkoutRequestId).toMatch(/^ws_CO_/);
    const sent = JSON.parse(proxy.requests.find((r) => r.path === PUSH_PATH)?.body ?? '{}');
    expect(sent).toEqual({
      BusinessShortCode: '174379',
      Password: VECTOR_PASSWORD,
      Timestamp: '20240315143005',
      TransactionType: 'CustomerPayBillOnline',
      Amount: 150,
      PartyA: SANDBOX_MSISDN,
      PartyB: '174379',
      PhoneNumber: SANDBOX_MSISDN,
      CallBackURL: 'http://127.0.0.1:9/hooks/daraja/stk/secret123',
      AccountReference: 'DUKA1A2B3C4D',
      TransactionDesc: 'Duka order',
    });
  });

  it('sends a till push as Buy Goods with the till as PartyB', async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url);
    const client = clientFor(proxy.url, { transactionType: 'till', tillNumber: '654321' });
    await client.stkPush(pushInput());
    const sent = JSON.parse(proxy.requests.find((r) => r.path === PUSH_PATH)?.body ?? '{}');
    expect(sent).toMatchObject({ BusinessShortCode: '174379', TransactionType: 'CustomerBuyGoodsOnline', PartyB: '654321' });
  });

  it('refuses a wrong passkey with "Wrong credentials" and never shows it', async () => {
    const sim = await startSim();
    const wrongPasskey = 'not-the-passkey-0123456789abcdef';
    const error = await caught(clientFor(sim.url, { passkey: wrongPasskey }).stkPush(pushInput()));
    expect(error.kind).toBe('rejected');
    expect(error.status).toBe(500);
    expect(error.errorCode).toBe('500.001.1001');
    expect(error.message).toContain('Wrong credentials');
    expectNoSecrets(error, wrongPasskey);
  });
});

describe('local validation', () => {
  const cases: Array<[string, Partial<StkPushInput>]> = [
    ['amount 0', { amount: 0 }],
    ['a decimal amount', { amount: 1.5 }],
    ['an amount above 250000', { amount: 250_001 }],
    ['a NaN amount', { amount: Number.NaN }],
    ['a local phone number', { phone: '0712345678' }],
    ['a phone with +', { phone: '+254712345678' }],
    ['a non-Safaricom-range phone', { phone: '254812345678' }],
    ['a short phone', { phone: '25471234567' }],
    ['an empty account reference', { accountReference: '' }],
    ['a 13-character account reference', { accountReference: 'ABCDEFGHIJKLM' }],
    ['an account reference with a dash', { accountReference: 'ORD-1' }],
    ['an empty description', { description: '' }],
    ['a 14-character description', { description: 'Duka order 123' }],
    ['a description with #', { description: 'Order #1' }],
    ['an ftp callback URL', { callbackUrl: 'ftp://shop.example.com/hook' }],
    ['a callback URL with a space', { callbackUrl: 'https://shop.example.com/hooks/ stk' }],
    ['a callback URL with a leading space', { callbackUrl: ' https://shop.example.com/hook' }],
    ['a callback URL that is not a URL', { callbackUrl: 'shop.example.com/hook' }],
  ];

  it.each(cases)('rejects %s without calling Daraja', async (_name, override) => {
    const sim = await startSim();
    const error = await caught(clientFor(sim.url).stkPush(pushInput(override)));
    expect(error.kind).toBe('rejected');
    expect(error.status).toBeNull();
    expect(error.message.length).toBeGreaterThan(10);
    expect(sim.tokensIssued).toBe(0); // not even a token was asked for
  });

  it('accepts the limits and 2541 numbers', async () => {
    const sim = await startSim();
    const client = clientFor(sim.url);
    await expect(
      client.stkPush(pushInput({ amount: 250_000, phone: '254110123456', accountReference: 'A', description: 'x' })),
    ).resolves.toMatchObject({ checkoutRequestId: expect.stringMatching(/^ws_CO_/) });
    await expect(client.stkPush(pushInput({ amount: 1, description: 'Order 12-3 ab' }))).resolves.toBeDefined();
  });

  it('rejects an empty CheckoutRequestID for a query', async () => {
    const sim = await startSim();
    const error = await caught(clientFor(sim.url).stkQuery(''));
    expect(error.kind).toBe('rejected');
    expect(sim.tokensIssued).toBe(0);
  });

  it('refuses a broken configuration at once', () => {
    const base = {
      baseUrl: 'http://127.0.0.1:1',
      consumerKey: KEY,
      consumerSecret: SECRET,
      shortcode: '174379',
      passkey: 'p',
    } as const;
    expect(() => createDarajaClient({ ...base, transactionType: 'till' })).toThrow(/tillNumber/);
    expect(() => createDarajaClient({ ...base, baseUrl: 'sandbox.safaricom.co.ke', transactionType: 'paybill' })).toThrow(
      /baseUrl/,
    );
    expect(() => createDarajaClient({ ...base, consumerSecret: '', transactionType: 'paybill' })).toThrow(/consumerSecret/);
  });
});

describe('OAuth token', () => {
  it('caches the token across calls', async () => {
    const sim = await startSim();
    const client = clientFor(sim.url);
    const { checkoutRequestId } = await client.stkPush(pushInput());
    await client.stkQuery(checkoutRequestId);
    await client.stkQuery(checkoutRequestId);
    expect(sim.tokensIssued).toBe(1);
  });

  it('refreshes 60 s before expiry', async () => {
    const sim = await startSim({ tokenTtlSeconds: 61 }); // usable for 1 s with the 60 s margin
    const client = clientFor(sim.url);
    const { checkoutRequestId } = await client.stkPush(pushInput());
    await client.stkQuery(checkoutRequestId);
    expect(sim.tokensIssued).toBe(1);
    await sleep(1100); // the wait is the test: the token is now within the margin
    await client.stkQuery(checkoutRequestId);
    expect(sim.tokensIssued).toBe(2);
  });

  it('refreshes for every call when the token lives no longer than the margin', async () => {
    const sim = await startSim({ tokenTtlSeconds: 60 });
    const client = clientFor(sim.url);
    const { checkoutRequestId } = await client.stkPush(pushInput());
    await client.stkQuery(checkoutRequestId);
    await client.stkQuery(checkoutRequestId);
    expect(sim.tokensIssued).toBe(3);
  });

  it('shares one refresh among concurrent callers', async () => {
    const sim = await startSim({ callbackDelayMs: 5000 });
    const { checkoutRequestId } = await clientFor(sim.url).stkPush(pushInput());
    expect(sim.tokensIssued).toBe(1);
    const fresh = clientFor(sim.url);
    const results = await Promise.all(Array.from({ length: 10 }, () => fresh.stkQuery(checkoutRequestId)));
    expect(results).toEqual(Array.from({ length: 10 }, () => ({ state: 'pending' })));
    expect(sim.tokensIssued).toBe(2); // one for the pusher, one shared by the ten queries
  });

  it('reads expires_in given as a number', async () => {
    const sim = await startSim({ expiresInAsNumber: true, tokenTtlSeconds: 61 });
    const client = clientFor(sim.url);
    const { checkoutRequestId } = await client.stkPush(pushInput());
    await client.stkQuery(checkoutRequestId);
    expect(sim.tokensIssued).toBe(1);
    await sleep(1100); // the wait is the test: the token is now within the margin
    await client.stkQuery(checkoutRequestId); // 61 was understood: not the 3599 fallback
    expect(sim.tokensIssued).toBe(2);
  });

  it('turns a wrong consumer secret into an auth error without retrying it', async () => {
    const sim = await startSim();
    const wrongSecret = 'wrong-secret-abcdef123';
    const client = clientFor(sim.url, { consumerSecret: wrongSecret });
    const started = Date.now();
    const error = await caught(client.stkPush(pushInput()));
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(400);
    expect(error.errorCode).toBe('400.008.01');
    expect(Date.now() - started).toBeLessThan(500); // no retry: that would take 200 + 400 ms of backoff
    expectNoSecrets(error, wrongSecret, Buffer.from(`${KEY}:${wrongSecret}`).toString('base64'));
  });

  it('does not cache a failed refresh', async () => {
    const sim = await startSim();
    let failToken = true;
    const proxy = await startProxy(sim.url, (path) =>
      path === TOKEN_PATH && failToken
        ? { status: 400, body: '{"errorCode":"400.008.01","errorMessage":"Invalid Authentication passed"}' }
        : 'forward',
    );
    const client = clientFor(proxy.url);
    expect((await caught(client.stkPush(pushInput()))).kind).toBe('auth');
    failToken = false;
    await expect(client.stkPush(pushInput())).resolves.toMatchObject({ checkoutRequestId: expect.stringMatching(/^ws_CO_/) });
    expect(sim.tokensIssued).toBe(1);
  });

  it('refreshes once and retries once when Daraja says Invalid Access Token', async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url, (path, nth) => (path === PUSH_PATH && nth === 1 ? 'bad-token' : 'forward'));
    const client = clientFor(proxy.url);
    const accepted = await client.stkPush(pushInput());
    expect(accepted.checkoutRequestId).toMatch(/^ws_CO_/);
    expect(proxy.count(PUSH_PATH)).toBe(2);
    expect(sim.tokensIssued).toBe(2);
  });

  it('gives up with an auth error when the fresh token is refused too', async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url, (path) => (path === QUERY_PATH ? 'bad-token' : 'forward'));
    const error = await caught(clientFor(proxy.url).stkQuery('ws_CO_15032024143006123708374149'));
    expect(error.kind).toBe('auth');
    expect(error.errorCode).toBe('404.001.03');
    expect(proxy.count(QUERY_PATH)).toBe(2);
    expect(sim.tokensIssued).toBe(2);
  });
});

describe('STK push and query', () => {
  it('accepts a push and reports pending, then the result', async () => {
    const sim = await startSim();
    const client = clientFor(sim.url);
    const accepted = await client.stkPush(pushInput());
    expect(accepted.checkoutRequestId).toMatch(/^ws_CO_/);
    expect(accepted.merchantRequestId).not.toBe('');
    expect(accepted.customerMessage).toMatch(/accepted/i);
    expect(await client.stkQuery(accepted.checkoutRequestId)).toEqual({ state: 'pending' });
    const done = await vi.waitUntil(async () => {
      const r = await client.stkQuery(accepted.checkoutRequestId);
      return r.state === 'completed' ? r : undefined;
    }, SETTLE);
    expect(done).toEqual({ state: 'completed', resultCode: '0', resultDesc: expect.stringMatching(/success/i) });
  });

  it('reports a cancelled prompt as completed with 1032', async () => {
    const sim = await startSim();
    const client = clientFor(sim.url);
    const { checkoutRequestId } = await client.stkPush(pushInput({ phone: CANCEL_MSISDN }));
    const done = await vi.waitUntil(async () => {
      const r = await client.stkQuery(checkoutRequestId);
      return r.state === 'completed' ? r : undefined;
    }, SETTLE);
    expect(done).toMatchObject({ state: 'completed', resultCode: '1032' });
  });

  it('explains a second prompt to a phone that already has one', async () => {
    const sim = await startSim({ callbackDelayMs: 5000 });
    const client = clientFor(sim.url);
    await client.stkPush(pushInput());
    const error = await caught(client.stkPush(pushInput()));
    expect(error.kind).toBe('rejected');
    expect(error.errorCode).toBe('500.001.1001');
    expect(error.message).toBe('There is already an M-Pesa prompt on this phone. Wait a minute and try again.');
  });

  it('turns an unknown CheckoutRequestID into a rejection with Daraja’s message', async () => {
    const sim = await startSim();
    const error = await caught(clientFor(sim.url).stkQuery('ws_CO_01012024000000000700000000'));
    expect(error.kind).toBe('rejected');
    expect(error.status).toBe(400);
    expect(error.errorCode).toBe('400.002.02');
    expect(error.requestId).not.toBeNull();
    expect(error.message).toBe('M-Pesa refused the request: Bad Request - Invalid CheckoutRequestID');
  });
});

describe('network failures and retries', () => {
  it('fails fast with a network error when nothing listens, after bounded retries', async () => {
    const client = clientFor(await deadUrl(), { retries: 2 });
    const started = Date.now();
    const error = await caught(client.stkQuery('ws_CO_15032024143006123708374149'));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/Could not reach M-Pesa/);
    expect(elapsed).toBeGreaterThanOrEqual(550); // 200 + 400 ms of backoff: it did retry
    expect(elapsed).toBeLessThan(3000);
    expectNoSecrets(error);
  });

  it('does not retry at all with retries 0', async () => {
    expect((await caught(clientFor(await deadUrl(), { retries: 0 }).stkPush(pushInput()))).kind).toBe('network');
    const sim = await startSim();
    const proxy = await startProxy(sim.url, (path) => (path === QUERY_PATH ? { status: 503, body: '' } : 'forward'));
    const error = await caught(clientFor(proxy.url, { retries: 0 }).stkQuery('ws_CO_15032024143006123708374149'));
    expect(error.kind).toBe('unavailable');
    expect(proxy.count(QUERY_PATH)).toBe(1);
  });

  it('retries a push whose connection is refused, then reports it as never sent', async () => {
    const sim = await startSim();
    const client = clientFor(sim.url, { retries: 2 });
    await client.stkQuery('ws_CO_unknown').catch(() => undefined); // gets and caches a token
    await sim.close();
    await sleep(100); // let the client notice its kept-alive connection is gone (a dead reused socket is ambiguous)
    const started = Date.now();
    const error = await caught(client.stkPush(pushInput()));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/Could not reach M-Pesa/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
  });

  it('never re-sends a push that timed out: the prompt may be live', async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url, (path) => (path === PUSH_PATH ? 'hang' : 'forward'));
    const client = clientFor(proxy.url, { timeoutMs: 300, retries: 3 });
    const error = await caught(client.stkPush(pushInput()));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/may still have been sent/);
    expect(proxy.count(PUSH_PATH)).toBe(1);
  });

  it('does not re-send a push that got a 503, nor one with an unreadable 504', async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url, (path, nth) =>
      path === PUSH_PATH
        ? nth === 1
          ? { status: 503, body: '' }
          : { status: 504, body: '<html>Gateway Timeout</html>' }
        : 'forward',
    );
    const client = clientFor(proxy.url, { retries: 3 });
    const busy = await caught(client.stkPush(pushInput()));
    expect(busy.kind).toBe('unavailable');
    expect(busy.status).toBe(503);
    const unclear = await caught(client.stkPush(pushInput()));
    expect(unclear.kind).toBe('network');
    expect(unclear.message).toMatch(/may still have been sent/);
    expect(proxy.count(PUSH_PATH)).toBe(2);
  });

  it('retries a query on 500.003.* with backoff, up to `retries`', async () => {
    const sim = await startSim();
    const busy = JSON.stringify({
      requestId: 'r-1',
      errorCode: '500.003.02',
      errorMessage: 'Error Occurred: Spike Arrest Violation',
    });
    const proxy = await startProxy(sim.url, (path) => (path === QUERY_PATH ? { status: 500, body: busy } : 'forward'));
    const error = await caught(clientFor(proxy.url, { retries: 2 }).stkQuery('ws_CO_15032024143006123708374149'));
    expect(error.kind).toBe('unavailable');
    expect(error.errorCode).toBe('500.003.02');
    expect(error.message).toContain('Spike Arrest Violation');
    expect(proxy.count(QUERY_PATH)).toBe(3);
  });

  it('retries a query that timed out, and succeeds when Daraja answers', async () => {
    const sim = await startSim({ callbackDelayMs: 5000 });
    const client = clientFor(sim.url);
    const { checkoutRequestId } = await client.stkPush(pushInput());
    const proxy = await startProxy(sim.url, (path, nth) => (path === QUERY_PATH && nth === 1 ? 'hang' : 'forward'));
    const viaProxy = clientFor(proxy.url, { timeoutMs: 300 });
    expect(await viaProxy.stkQuery(checkoutRequestId)).toEqual({ state: 'pending' });
    expect(proxy.count(QUERY_PATH)).toBe(2);
  });
});

describe('error bodies', () => {
  it('reads Daraja’s body, gateway faults, HTML and empty bodies', () => {
    expect(
      parseDarajaErrorBody('{"requestId":"a-1","errorCode":"400.002.02","errorMessage":"Bad Request - Invalid Amount"}'),
    ).toEqual({
      requestId: 'a-1',
      errorCode: '400.002.02',
      errorMessage: 'Bad Request - Invalid Amount',
      faultCode: null,
    });
    expect(parseDarajaErrorBody('')).toEqual({ requestId: null, errorCode: null, errorMessage: null, faultCode: null });
    expect(parseDarajaErrorBody('<html><body>502 Bad Gateway</body></html>').errorMessage).toBeNull();
    expect(
      parseDarajaErrorBody(
        '{"fault":{"faultstring":"Invalid Access Token","detail":{"errorcode":"keymanagement.service.invalid_access_token"}}}',
      ),
    ).toMatchObject({
      errorMessage: 'Invalid Access Token',
      faultCode: 'keymanagement.service.invalid_access_token',
    });
  });

  it('maps codes to kinds', () => {
    const kindOf = (op: 'token' | 'push' | 'query', status: number, body: unknown) => {
      const it = interpretErrorResponse(op, status, typeof body === 'string' ? body : JSON.stringify(body));
      return it.pending ? 'pending' : it.error.kind;
    };
    const daraja = (errorCode: string, errorMessage: string) => ({ requestId: 'r', errorCode, errorMessage });
    expect(kindOf('push', 400, daraja('400.002.02', 'Bad Request - Invalid PhoneNumber'))).toBe('rejected');
    expect(kindOf('push', 404, daraja('404.001.03', 'Invalid Access Token'))).toBe('auth');
    expect(kindOf('token', 400, daraja('400.008.02', 'Invalid grant type passed'))).toBe('auth');
    expect(kindOf('token', 400, '')).toBe('auth');
    expect(kindOf('query', 401, daraja('401.003.01', 'Error Occurred - Invalid Access Token - no apiproduct match found'))).toBe(
      'auth',
    );
    expect(kindOf('query', 500, daraja('500.003.03', 'Quota Violation'))).toBe('unavailable');
    expect(kindOf('query', 503, '')).toBe('unavailable');
    expect(kindOf('push', 500, daraja('500.001.1001', 'Merchant does not exist'))).toBe('rejected');
    expect(kindOf('query', 500, daraja('500.001.1001', 'The transaction is being processed'))).toBe('pending');
    expect(kindOf('push', 500, daraja('500.001.1001', 'The transaction is being processed'))).toBe('rejected');
    expect(kindOf('push', 502, '<html>')).toBe('network'); // unclear: the push may be live
    expect(kindOf('query', 502, '<html>')).toBe('unavailable');
    const refused = interpretErrorResponse(
      'push',
      400,
      JSON.stringify(daraja('400.002.02', 'Bad Request - Invalid CallBackURL')),
    );
    expect(!refused.pending && refused.error.message).toBe('M-Pesa refused the request: Bad Request - Invalid CallBackURL');
    const token = interpretErrorResponse(
      'push',
      401,
      JSON.stringify({ fault: { faultstring: 'x', detail: { errorcode: 'oauth.v2.InvalidAccessToken' } } }),
    );
    expect(!token.pending && token.tokenInvalid).toBe(true);
  });

  it('scrubs secrets echoed in an error message', () => {
    const it = interpretErrorResponse(
      'push',
      400,
      JSON.stringify({ errorCode: '400.002.02', errorMessage: `Bad passkey ${SANDBOX_PASSKEY}` }),
      (s) => s.split(SANDBOX_PASSKEY).join('[redacted]'),
    );
    expect(!it.pending && it.error.message).toBe('M-Pesa refused the request: Bad passkey [redacted]');
  });
});

describe('parseStkCallback', () => {
  const success = {
    Body: {
      stkCallback: {
        MerchantRequestID: '7f3a-4c21-9b8e-1d2c3b4a5e6f12345',
        CheckoutRequestID: 'ws_CO_15032024143006123708374149',
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: 150.0 },
            { Name: 'MpesaReceiptNumber', Value: 'SCF4A7K2QZ' },
            { Name: 'Balance' },
            { Name: 'TransactionDate', Value: 20240315143041 },
            { Name: 'PhoneNumber', Value: 254708374149 },
          ],
        },
      },
    },
  };
  const failure = {
    Body: {
      stkCallback: {
        MerchantRequestID: '7f3a-4c21-9b8e-1d2c3b4a5e6f12345',
        CheckoutRequestID: 'ws_CO_15032024143006123708374149',
        ResultCode: 1032,
        ResultDesc: 'Request cancelled by user',
      },
    },
  };

  it('parses the success payload Daraja documents', () => {
    expect(parseStkCallback(success)).toEqual({
      checkoutRequestId: 'ws_CO_15032024143006123708374149',
      merchantRequestId: '7f3a-4c21-9b8e-1d2c3b4a5e6f12345',
      resultCode: '0',
      resultDesc: 'The service request is processed successfully.',
      amount: 150,
      receipt: 'SCF4A7K2QZ',
      transactionDate: new Date('2024-03-15T11:30:41Z'), // 14:30:41 EAT
      phone: '254708374149',
    });
    expect(parseStkCallback(JSON.stringify(success))?.receipt).toBe('SCF4A7K2QZ');
  });

  it('parses the failure payload Daraja documents', () => {
    expect(parseStkCallback(failure)).toEqual({
      checkoutRequestId: 'ws_CO_15032024143006123708374149',
      merchantRequestId: '7f3a-4c21-9b8e-1d2c3b4a5e6f12345',
      resultCode: '1032',
      resultDesc: 'Request cancelled by user',
      amount: null,
      receipt: null,
      transactionDate: null,
      phone: null,
    });
  });

  it('looks items up by name, tolerates string codes and ignores metadata on failure', () => {
    const shuffled = structuredClone(success);
    shuffled.Body.stkCallback.CallbackMetadata.Item.reverse();
    expect(parseStkCallback(shuffled)?.receipt).toBe('SCF4A7K2QZ');
    const stringCode = structuredClone(failure) as { Body: { stkCallback: Record<string, unknown> } };
    stringCode.Body.stkCallback.ResultCode = 'SFC_IC0003';
    expect(parseStkCallback(stringCode)?.resultCode).toBe('SFC_IC0003');
    const metaOnFailure = structuredClone(success) as { Body: { stkCallback: Record<string, unknown> } };
    metaOnFailure.Body.stkCallback.ResultCode = '1';
    expect(parseStkCallback(metaOnFailure)).toMatchObject({ resultCode: '1', amount: null, receipt: null });
    const noDate = structuredClone(success);
    noDate.Body.stkCallback.CallbackMetadata.Item = [{ Name: 'Amount', Value: 1 }];
    expect(parseStkCallback(noDate)).toMatchObject({ amount: 1, receipt: null, transactionDate: null, phone: null });
  });

  it('returns null for anything that is not a callback', () => {
    const without = (key: string) => {
      const copy = structuredClone(failure) as { Body: { stkCallback: Record<string, unknown> } };
      delete copy.Body.stkCallback[key];
      return copy;
    };
    for (const body of [
      null,
      undefined,
      42,
      'not json',
      [],
      {},
      { Body: {} },
      { Body: { stkCallback: [] } },
      without('CheckoutRequestID'),
      without('ResultCode'),
    ]) {
      expect(parseStkCallback(body)).toBeNull();
    }
  });

  it('parses the callbacks the simulator really sends', async () => {
    const receiver = await startCallbackReceiver();
    const sim = await startSim();
    const client = clientFor(sim.url);
    const callbackUrl = `${receiver.url}/hooks/daraja/stk/s3cr3t`;
    const paid = await client.stkPush(pushInput({ amount: 1234, callbackUrl }));
    const cancelled = await client.stkPush(pushInput({ phone: CANCEL_MSISDN, callbackUrl }));
    await vi.waitUntil(() => receiver.received.length >= 2, SETTLE);
    const parsed = receiver.received.map((r) => parseStkCallback(r.body));
    const ok = parsed.find((p) => p?.checkoutRequestId === paid.checkoutRequestId);
    expect(ok).toMatchObject({
      merchantRequestId: paid.merchantRequestId,
      resultCode: '0',
      amount: 1234,
      receipt: expect.stringMatching(/^[A-Z0-9]{10}$/),
      phone: SANDBOX_MSISDN,
    });
    expect(Math.abs((ok?.transactionDate?.getTime() ?? 0) - Date.now())).toBeLessThan(10_000);
    expect(parsed.find((p) => p?.checkoutRequestId === cancelled.checkoutRequestId)).toMatchObject({
      resultCode: '1032',
      amount: null,
      receipt: null,
      transactionDate: null,
      phone: null,
    });
    expect(receiver.received.every((r) => r.path === '/hooks/daraja/stk/s3cr3t')).toBe(true);
    // The simulator records a delivery once it has read the response: it may lag the receiver a little.
    await vi.waitUntil(() => sim.deliveries.length >= 2, SETTLE);
    expect(sim.deliveries.map((d) => d.status)).toEqual([200, 200]);
  });
});

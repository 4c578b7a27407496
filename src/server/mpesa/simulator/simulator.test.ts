import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DarajaSimulator, SIMULATOR_OUTCOMES, type SimulatorOptions, startDarajaSimulator } from './index.js';
import { nairobiTimestamp, stkPassword } from './wire.js';

/**
 * The Daraja simulator over real HTTP: the STK push and STK query endpoints, their error bodies,
 * and the callbacks it POSTs to a small callback server started here on 127.0.0.1. OAuth and
 * routing are in oauth.test.ts, C2B in c2b.test.ts, the wire helpers in wire.test.ts.
 */

const SHORTCODE = '174379';
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const KEY = 'test-key';
const SECRET = 'test-secret';
const DELAY_MS = 250;

const BASE_OPTIONS: SimulatorOptions = {
  consumerKey: KEY,
  consumerSecret: SECRET,
  shortcode: SHORTCODE,
  passkey: PASSKEY,
  callbackDelayMs: DELAY_MS,
};

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The deadline only bounds a failure: a passing wait returns as soon as the check holds, so it is
// generous enough for a CI machine running every suite at once.
async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await sleep(20);
  }
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function reply(response: Response): Promise<Reply> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function getToken(sim: DarajaSimulator): Promise<string> {
  const r = await reply(
    await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { headers: { authorization: basic(KEY, SECRET) } }),
  );
  expect(r.status).toBe(200);
  return r.body.access_token as string;
}

function credentials(timestamp = nairobiTimestamp(new Date())) {
  return { BusinessShortCode: SHORTCODE, Password: stkPassword(SHORTCODE, PASSKEY, timestamp), Timestamp: timestamp };
}

let callbackPort = 0;
function pushBody(phone: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...credentials(),
    TransactionType: 'CustomerPayBillOnline',
    Amount: 150,
    PartyA: phone,
    PartyB: SHORTCODE,
    PhoneNumber: phone,
    CallBackURL: `http://127.0.0.1:${callbackPort}/api/hooks/daraja/stk/s3cr3t`,
    AccountReference: 'ORD10293',
    TransactionDesc: 'Order 10293',
    ...overrides,
  };
}

async function post(sim: DarajaSimulator, path: string, token: string | null, body: unknown, contentType = 'application/json') {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return reply(
    await fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

const push = (sim: DarajaSimulator, token: string | null, body: unknown) =>
  post(sim, '/mpesa/stkpush/v1/processrequest', token, body);
const query = (sim: DarajaSimulator, token: string, id: string) =>
  post(sim, '/mpesa/stkpushquery/v1/query', token, { ...credentials(), CheckoutRequestID: id });

// --- the callback receiver ---------------------------------------------------------------------

interface Received {
  path: string;
  contentType: string | undefined;
  body: unknown;
}
const received: Received[] = [];
let callbackServer: Server;

beforeAll(async () => {
  callbackServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ResultCode: 0, ResultDesc: 'Accepted' }));
    });
  });
  await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', r));
  callbackPort = (callbackServer.address() as AddressInfo).port;
});

afterAll(async () => {
  callbackServer.closeAllConnections();
  await new Promise<void>((r) => callbackServer.close(() => r()));
});

const receivedFor = (id: string) =>
  received.filter(
    (r) => (r.body as { Body: { stkCallback: { CheckoutRequestID: string } } }).Body.stkCallback.CheckoutRequestID === id,
  );

// -------------------------------------------------------------------------------------------------

let sim: DarajaSimulator;
let token: string;

/** Starts a simulator (and gets a token for it) for the describe block this is called in: `sim` and `token`. */
function useSimulator(): void {
  beforeAll(async () => {
    sim = await startDarajaSimulator(BASE_OPTIONS);
    token = await getToken(sim);
  });
  afterAll(async () => {
    await sim.close();
  });
}

describe('Daraja simulator', () => {
  useSimulator();

  it('listens on loopback', () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keeps an idle connection longer than a client does, so none is closed under a request', async () => {
    const answer = await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: basic(KEY, SECRET) },
    });
    await answer.text();
    // Node's fetch keeps an idle connection one second less than this hint.
    expect(answer.headers.get('keep-alive')).toBe('timeout=65');
  });
});

describe('STK push validation', () => {
  useSimulator();
  const phone = '254712000001';

  it('accepts the documented test-vector request (timestamp 20240315143005)', async () => {
    const r = await push(sim, token, {
      ...pushBody('254712000099'),
      Timestamp: '20240315143005',
      Password:
        'MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjQwMzE1MTQzMDA1',
      BusinessShortCode: 174379, // a number is accepted too
    });
    expect(r.status).toBe(200);
    expect(r.body.ResponseCode).toBe('0');
  });

  it.each([
    ['Amount', { Amount: 150.5 }],
    ['Amount', { Amount: 0 }],
    ['Amount', { Amount: '99.99' }],
    ['PhoneNumber', { PhoneNumber: '0712345678' }],
    ['PhoneNumber', { PhoneNumber: '254733123' }],
    ['PartyA', { PartyA: '+254712345678' }],
    ['AccountReference', { AccountReference: 'ORDER-1234567' }],
    ['AccountReference', { AccountReference: '' }],
    ['TransactionDesc', { TransactionDesc: 'Payment for order 1' }],
    ['TransactionDesc', { TransactionDesc: undefined }],
    ['Timestamp', { Timestamp: '2024031514300' }],
    ['TransactionType', { TransactionType: 'CustomerPayBill' }],
    ['CallBackURL', { CallBackURL: 'ftp://example.com/cb' }],
    ['CallBackURL', { CallBackURL: ' https://example.com/cb' }],
    ['BusinessShortCode', { BusinessShortCode: '12' }],
  ])('rejects a bad %s (%j) with 400.002.02', async (field, overrides) => {
    const r = await push(sim, token, pushBody(phone, overrides));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: '400.002.02', errorMessage: `Bad Request - Invalid ${field}` });
    expect(r.body.requestId).toEqual(expect.any(String));
  });

  it('rejects a wrong password, and a Timestamp that differs from the password’s, with Wrong credentials', async () => {
    const wrongPasskey = await push(sim, token, pushBody(phone, { Password: stkPassword(SHORTCODE, 'nope', '20240315143005') }));
    expect(wrongPasskey.status).toBe(500);
    expect(wrongPasskey.body).toMatchObject({ errorCode: '500.001.1001', errorMessage: 'Wrong credentials' });

    const otherTimestamp = await push(
      sim,
      token,
      pushBody(phone, { Password: stkPassword(SHORTCODE, PASSKEY, '20240315143005'), Timestamp: '20240315143006' }),
    );
    expect(otherTimestamp.status).toBe(500);
    expect(otherTimestamp.body.errorMessage).toBe('Wrong credentials');
  });

  it('rejects an unknown shortcode with Merchant does not exist', async () => {
    const ts = '20240315143005';
    const r = await push(
      sim,
      token,
      pushBody(phone, {
        BusinessShortCode: '600000',
        PartyB: '600000',
        Timestamp: ts,
        Password: stkPassword('600000', PASSKEY, ts),
      }),
    );
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ errorCode: '500.001.1001', errorMessage: 'Merchant does not exist' });
  });

  it('rejects a missing or unknown token with 404.001.03', async () => {
    for (const t of [null, 'not-a-token']) {
      const r = await push(sim, t, pushBody(phone));
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ errorCode: '404.001.03', errorMessage: 'Invalid Access Token' });
    }
  });

  it('answers a non-JSON Content-Type with the misleading Invalid BusinessShortCode', async () => {
    const r = await post(sim, '/mpesa/stkpush/v1/processrequest', token, JSON.stringify(pushBody(phone)), 'text/plain');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid BusinessShortCode' });
  });

  it('answers malformed JSON with a Daraja-shaped 400', async () => {
    const r = await post(sim, '/mpesa/stkpush/v1/processrequest', token, '{"BusinessShortCode": "174379",');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: '400.002.02', requestId: expect.any(String), errorMessage: expect.any(String) });
  });

  it('accepts a well-formed push with string ids and ResponseCode "0"', async () => {
    const r = await push(sim, token, pushBody('254712000002', { Amount: '10' }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      MerchantRequestID: expect.stringMatching(/^\d{5}-\d{8}-1$/),
      CheckoutRequestID: expect.stringMatching(/^ws_CO_\d{17}712000002$/),
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
  });
});

describe('STK outcomes and callbacks', () => {
  useSimulator();

  it('success: the query is pending while the prompt is open, the callback has the documented success shape, then the query says "0"', async () => {
    const accepted = await push(sim, token, pushBody('254708374149', { Amount: 1234 }));
    expect(accepted.status).toBe(200);
    const id = accepted.body.CheckoutRequestID as string;

    const pending = await query(sim, token, id);
    expect(pending.status).toBe(500);
    expect(pending.body).toEqual({
      requestId: id,
      errorCode: '500.001.1001',
      errorMessage: 'The transaction is being processed',
    });

    await waitFor(() => receivedFor(id).length === 1);
    const got = receivedFor(id)[0]!;
    expect(got.path).toBe('/api/hooks/daraja/stk/s3cr3t');
    expect(got.contentType).toBe('application/json');
    const cb = (got.body as { Body: { stkCallback: Record<string, unknown> } }).Body.stkCallback;
    expect(cb).toMatchObject({
      MerchantRequestID: accepted.body.MerchantRequestID,
      CheckoutRequestID: id,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
    });
    const items = (cb.CallbackMetadata as { Item: { Name: string; Value?: unknown }[] }).Item;
    const byName = new Map(items.map((i) => [i.Name, i]));
    expect(byName.get('Amount')).toEqual({ Name: 'Amount', Value: 1234 });
    expect(byName.get('MpesaReceiptNumber')?.Value).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    expect(byName.get('Balance')).toEqual({ Name: 'Balance' });
    const date = byName.get('TransactionDate')?.Value;
    expect(typeof date).toBe('number');
    expect(String(date)).toMatch(/^20\d{12}$/);
    // Read as Nairobi time (UTC+3), it is within a minute of now.
    const [, y, mo, d, h, mi, se] = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(String(date))!.map(Number) as number[];
    const sent = Date.UTC(y!, mo! - 1, d!, h! - 3, mi!, se!);
    expect(Math.abs(sent - Date.now())).toBeLessThan(60_000);
    expect(byName.get('PhoneNumber')).toEqual({ Name: 'PhoneNumber', Value: 254708374149 });

    // A delivery is recorded once its POST has finished, a moment after the receiver saw it.
    await waitFor(() => sim.deliveries.some((d) => d.checkoutRequestId === id));
    const delivery = sim.deliveries.find((d) => d.checkoutRequestId === id)!;
    expect(delivery).toMatchObject({ status: 200, url: `http://127.0.0.1:${callbackPort}/api/hooks/daraja/stk/s3cr3t` });
    expect(delivery.error).toBeUndefined();
    expect(delivery.at).toBeInstanceOf(Date);
    expect(delivery.body).toEqual(got.body);

    const done = await query(sim, token, id);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successfully',
      MerchantRequestID: accepted.body.MerchantRequestID,
      CheckoutRequestID: id,
      ResultCode: '0',
      ResultDesc: 'The service request is processed successfully.',
    });
  });

  it('1032 (cancelled): the callback has no CallbackMetadata and the query says "1032"', async () => {
    const accepted = await push(sim, token, pushBody('254700000001'));
    const id = accepted.body.CheckoutRequestID as string;
    await waitFor(() => receivedFor(id).length === 1);
    const cb = (receivedFor(id)[0]!.body as { Body: { stkCallback: Record<string, unknown> } }).Body.stkCallback;
    expect(cb).toEqual({
      MerchantRequestID: accepted.body.MerchantRequestID,
      CheckoutRequestID: id,
      ResultCode: 1032,
      ResultDesc: 'Request cancelled by user',
    });
    expect('CallbackMetadata' in cb).toBe(false);
    const done = await query(sim, token, id);
    expect(done.body).toMatchObject({ ResultCode: '1032', ResultDesc: 'Request cancelled by user' });
  });

  it.each(SIMULATOR_OUTCOMES.filter((o) => o.callback === 'once' && o.resultCode !== 0 && o.resultCode !== 1032))(
    '$local → ResultCode $resultCode ($outcome)',
    async ({ msisdn, resultCode }) => {
      const id = (await push(sim, token, pushBody(msisdn))).body.CheckoutRequestID as string;
      await waitFor(() => receivedFor(id).length === 1);
      const cb = (receivedFor(id)[0]!.body as { Body: { stkCallback: Record<string, unknown> } }).Body.stkCallback;
      expect(cb.ResultCode).toBe(resultCode);
      expect(cb.CallbackMetadata).toBeUndefined();
      expect((await query(sim, token, id)).body.ResultCode).toBe(String(resultCode));
    },
  );

  it("'twice' delivers the same body twice", async () => {
    const id = (await push(sim, token, pushBody('254700000005'))).body.CheckoutRequestID as string;
    await waitFor(() => sim.deliveries.filter((d) => d.checkoutRequestId === id).length === 2);
    const mine = sim.deliveries.filter((d) => d.checkoutRequestId === id);
    expect(mine.map((d) => d.status)).toEqual([200, 200]);
    expect(mine[1]!.body).toEqual(mine[0]!.body);
    expect(mine[1]!.at.getTime() - mine[0]!.at.getTime()).toBeGreaterThanOrEqual(150);
    expect(receivedFor(id)).toHaveLength(2);
    await sleep(400);
    expect(sim.deliveries.filter((d) => d.checkoutRequestId === id)).toHaveLength(2);
  });
});

describe('STK locks, queries and failed deliveries', () => {
  useSimulator();

  it('\'never\' delivers nothing, but the query still answers "0" after the delay', async () => {
    const id = (await push(sim, token, pushBody('254700000006'))).body.CheckoutRequestID as string;
    expect((await query(sim, token, id)).status).toBe(500);
    await sleep(DELAY_MS + 300);
    const done = await query(sim, token, id);
    expect(done.status).toBe(200);
    expect(done.body.ResultCode).toBe('0');
    expect(sim.deliveries.filter((d) => d.checkoutRequestId === id)).toHaveLength(0);
    expect(receivedFor(id)).toHaveLength(0);
  });

  it('refuses a second push to a phone with an open prompt ("Unable to lock subscriber"), and accepts it once resolved', async () => {
    const phone = '254722000111';
    const first = await push(sim, token, pushBody(phone));
    expect(first.status).toBe(200);
    const second = await push(sim, token, pushBody(phone));
    expect(second.status).toBe(500);
    expect(second.body).toMatchObject({
      errorCode: '500.001.1001',
      errorMessage: 'Unable to lock subscriber, a transaction is already in process for the current subscriber',
    });
    const otherPhone = await push(sim, token, pushBody('254722000112'));
    expect(otherPhone.status).toBe(200);

    await waitFor(() => receivedFor(first.body.CheckoutRequestID as string).length === 1);
    const third = await push(sim, token, pushBody(phone));
    expect(third.status).toBe(200);
    expect(third.body.CheckoutRequestID).not.toBe(first.body.CheckoutRequestID);
  });

  it('answers an unknown CheckoutRequestID with 400.002.02 Invalid CheckoutRequestID', async () => {
    const r = await query(sim, token, 'ws_CO_01012024000000000712345678');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid CheckoutRequestID' });
  });

  it('records a failed delivery with its error and no status', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const id = (
      await push(sim, token, pushBody('254722000113', { CallBackURL: `http://127.0.0.1:${deadPort}/api/hooks/daraja/stk/x` }))
    ).body.CheckoutRequestID as string;
    await waitFor(() => sim.deliveries.some((d) => d.checkoutRequestId === id));
    const delivery = sim.deliveries.find((d) => d.checkoutRequestId === id)!;
    expect(delivery.status).toBeNull();
    expect(delivery.error).toMatch(/ECONNREFUSED/);
  });
});

describe('token expiry and shutdown', () => {
  let sim: DarajaSimulator | null = null;
  afterEach(async () => {
    await sim?.close();
    sim = null;
  });

  it('rejects an expired token with 404.001.03 (tokenTtlSeconds 1); older tokens stay valid until they expire', async () => {
    sim = await startDarajaSimulator({ ...BASE_OPTIONS, tokenTtlSeconds: 1 });
    const first = await getToken(sim);
    const second = await getToken(sim);
    expect(sim.tokensIssued).toBe(2);
    expect((await push(sim, first, pushBody('254712000201'))).status).toBe(200);
    expect((await push(sim, second, pushBody('254712000202'))).status).toBe(200);
    await sleep(1100);
    const r = await push(sim, first, pushBody('254712000203'));
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ errorCode: '404.001.03', errorMessage: 'Invalid Access Token' });
    const q = await post(sim, '/mpesa/stkpushquery/v1/query', second, { ...credentials(), CheckoutRequestID: 'x' });
    expect(q.status).toBe(404);
  });

  it('close() cancels pending callbacks and stops the server', async () => {
    sim = await startDarajaSimulator({ ...BASE_OPTIONS, callbackDelayMs: 200 });
    const token = await getToken(sim);
    const id = (await push(sim, token, pushBody('254712000301'))).body.CheckoutRequestID as string;
    const { url } = sim;
    await sim.close();
    await sim.close(); // idempotent
    sim = null;
    await sleep(400);
    expect(receivedFor(id)).toHaveLength(0);
    await expect(fetch(`${url}/oauth/v1/generate?grant_type=client_credentials`)).rejects.toThrow();
  });
});

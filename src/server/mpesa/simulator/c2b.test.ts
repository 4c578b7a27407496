import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payerFor } from './c2b.js';
import { type DarajaSimulator, type SimulatorOptions, startDarajaSimulator } from './index.js';

/**
 * The Daraja simulator's C2B over real HTTP: URL registration, the sandbox's simulate call, and the
 * validations and confirmations it POSTs to a small shop server started here on 127.0.0.1.
 */

const SHORTCODE = '174379';
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const KEY = 'test-key';
const SECRET = 'test-secret';

const BASE_OPTIONS: SimulatorOptions = {
  consumerKey: KEY,
  consumerSecret: SECRET,
  shortcode: SHORTCODE,
  passkey: PASSKEY,
  callbackDelayMs: 250,
};

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function reply(response: Response): Promise<Reply> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The deadline only bounds a failure: a passing wait returns as soon as the check holds.
async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await sleep(20);
  }
}

async function getToken(sim: DarajaSimulator): Promise<string> {
  const r = await reply(
    await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { headers: { authorization: basic(KEY, SECRET) } }),
  );
  expect(r.status).toBe(200);
  return r.body.access_token as string;
}

async function post(sim: DarajaSimulator, path: string, token: string | null, body: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return reply(await fetch(`${sim.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

describe('payerFor', () => {
  it('masks the payer for a v2 registration (and for none), and hashes it for v1', () => {
    const urls = { responseType: 'Completed' as const, confirmationUrl: 'http://x/c', validationUrl: 'http://x/v' };
    expect(payerFor({ version: 'v2', ...urls }, '254708374149')).toBe('2547 ***** 149');
    expect(payerFor(undefined, '254708374149')).toBe('2547 ***** 149');
    expect(payerFor({ version: 'v1', ...urls }, '254708374149')).toBe(createHash('sha256').update('254708374149').digest('hex'));
  });
});

// --- the shop's C2B URLs and its simulators ----------------------------------------------------

/** The shop's two C2B URLs: the validation answer is what each test sets; null answers nothing. */
let validationAnswer: unknown = { ResultCode: '0', ResultDesc: 'Accepted' };
const calls: { kind: 'validate' | 'confirm'; body: Record<string, string> }[] = [];
let shop: Server;
let shopUrl = '';
const sims: DarajaSimulator[] = [];

beforeAll(async () => {
  shop = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const kind = req.url?.endsWith('/validate') ? 'validate' : 'confirm';
      calls.push({ kind, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      if (kind === 'validate' && validationAnswer === null) return; // silent: M-Pesa's wait runs out
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(kind === 'validate' ? validationAnswer : { ResultCode: 0, ResultDesc: 'Success' }));
    });
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/api/hooks/daraja/c2b/s3cr3t`;
});
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
  calls.length = 0;
  validationAnswer = { ResultCode: '0', ResultDesc: 'Accepted' };
});
afterAll(async () => {
  shop.closeAllConnections();
  await new Promise<void>((r) => shop.close(() => r()));
});

async function simulator(options: Partial<SimulatorOptions> = {}) {
  const sim = await startDarajaSimulator({ ...BASE_OPTIONS, c2bValidationTimeoutMs: 300, ...options });
  sims.push(sim);
  return { sim, token: await getToken(sim) };
}
const register = (sim: DarajaSimulator, token: string, overrides: Record<string, unknown> = {}, version = 'v2') =>
  post(sim, `/mpesa/c2b/${version}/registerurl`, token, {
    ShortCode: SHORTCODE,
    ResponseType: 'Completed',
    ConfirmationURL: `${shopUrl}/confirm`,
    ValidationURL: `${shopUrl}/validate`,
    ...overrides,
  });
const pay = (sim: DarajaSimulator, token: string, overrides: Record<string, unknown> = {}) =>
  post(sim, '/mpesa/c2b/v2/simulate', token, {
    ShortCode: SHORTCODE,
    CommandID: 'CustomerPayBillOnline',
    Amount: '1500',
    Msisdn: '254708374149',
    BillRefNumber: 'K7MX4QPA',
    ...overrides,
  });

describe('C2B: registration and payments', () => {
  it('registers the URLs (the misspelt OriginatorCoversationID and all), and checks the fields Daraja checks', async () => {
    const { sim, token } = await simulator();
    const ok = await register(sim, token);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ResponseCode: '0', ResponseDescription: 'Success' });
    expect(typeof ok.body.OriginatorCoversationID).toBe('string');
    expect((await register(sim, token, { ResponseType: 'Canceled' })).body.errorMessage).toBe(
      'Bad Request - Invalid ResponseType',
    );
    expect((await register(sim, token, { ValidationURL: undefined })).body.errorMessage).toBe(
      'Bad Request - Invalid ValidationURL',
    );
    expect((await register(sim, null as unknown as string)).status).toBe(404);
    // The sandbox overwrites; production registers once.
    expect((await register(sim, token)).status).toBe(200);
    const live = await simulator({ c2bRegistration: 'production' });
    expect((await register(live.sim, live.token)).status).toBe(200);
    const again = await register(live.sim, live.token);
    expect(again).toEqual({
      status: 500,
      body: expect.objectContaining({ errorCode: '500.003.1001', errorMessage: 'Urls are already registered.' }),
    });
  });

  it('pays a Paybill from the phone: a receipt, then one confirmation with the account as typed and a masked number', async () => {
    const { sim, token } = await simulator();
    await register(sim, token);
    const ack = await pay(sim, token, { BillRefNumber: 'k7mx 4qpa' });
    expect(ack.body).toMatchObject({ ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' });
    await waitFor(() => calls.length === 1);
    const [confirmation] = calls;
    expect(confirmation?.kind).toBe('confirm');
    expect(confirmation?.body).toMatchObject({
      TransactionType: 'Pay Bill',
      TransAmount: '1500.00',
      BusinessShortCode: SHORTCODE,
      BillRefNumber: 'k7mx 4qpa',
      MSISDN: '2547 ***** 149',
      OrgAccountBalance: '1500.00',
    });
    expect(confirmation?.body.TransID).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    expect(confirmation?.body.TransTime).toMatch(/^\d{14}$/);
    expect(sim.receipts).toEqual([
      expect.objectContaining({ receipt: confirmation?.body.TransID, amount: 1500, via: 'c2b', account: 'k7mx 4qpa' }),
    ]);
  });

  it('sends a v1 registration the payer as a SHA-256 hash, and a till payment no account number', async () => {
    const { sim, token } = await simulator();
    await register(sim, token, {}, 'v1');
    await pay(sim, token, { CommandID: 'CustomerBuyGoodsOnline', BillRefNumber: 'IGNORED' });
    await waitFor(() => calls.length === 1);
    expect(calls[0]?.body).toMatchObject({ TransactionType: 'Buy Goods', BillRefNumber: '' });
    expect(calls[0]?.body.MSISDN).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('C2B: validation, faults and refusals', () => {
  it('asks the ValidationURL first when validation is on: a C2B00012 refusal moves no money and confirms nothing', async () => {
    const { sim, token } = await simulator({ c2bValidation: true });
    await register(sim, token);
    validationAnswer = { ResultCode: 'C2B00012', ResultDesc: 'Rejected' };
    await pay(sim, token, { BillRefNumber: 'NOSUCH' });
    await waitFor(() => sim.c2bDeliveries.length === 1);
    expect(calls.map((call) => call.kind)).toEqual(['validate']);
    expect(calls[0]?.body.OrgAccountBalance).toBe('');
    expect(sim.receipts).toEqual([]);

    validationAnswer = { ResultCode: '0', ResultDesc: 'Accepted', ThirdPartyTransID: 'order-42' };
    await pay(sim, token);
    await waitFor(() => calls.length === 3);
    expect(calls.slice(1).map((call) => call.kind)).toEqual(['validate', 'confirm']);
    expect(calls[2]?.body.ThirdPartyTransID).toBe('order-42');
    expect(sim.receipts).toHaveLength(1);
  });

  it('lets the registered ResponseType decide when the validation answer does not come in time', async () => {
    const { sim, token } = await simulator({ c2bValidation: true });
    validationAnswer = null;
    await register(sim, token, { ResponseType: 'Cancelled' });
    await pay(sim, token);
    await waitFor(() => sim.c2bDeliveries.length === 1);
    expect(sim.c2bDeliveries[0]?.error).toBe('timeout after 300 ms');
    expect(sim.receipts).toEqual([]);

    await register(sim, token, { ResponseType: 'Completed' });
    await pay(sim, token);
    await waitFor(() => sim.c2bDeliveries.length === 3);
    expect(sim.c2bDeliveries.map((delivery) => delivery.kind)).toEqual(['validation', 'validation', 'confirmation']);
    expect(sim.receipts).toHaveLength(1);
  });

  it('confirms twice or never for the fault numbers, and takes the money without telling anyone when nothing is registered', async () => {
    const { sim, token } = await simulator();
    await pay(sim, token);
    await waitFor(() => sim.receipts.length === 1);
    expect(calls).toEqual([]);

    await register(sim, token);
    await pay(sim, token, { Msisdn: '254700000005' });
    await waitFor(() => calls.length === 2);
    expect(calls[0]?.body.TransID).toBe(calls[1]?.body.TransID);
    await pay(sim, token, { Msisdn: '254700000006' });
    await waitFor(() => sim.receipts.length === 3);
    expect(sim.c2bDeliveries).toHaveLength(2);
  });

  it('refuses a payment Daraja would refuse', async () => {
    const { sim, token } = await simulator();
    expect((await pay(sim, token, { CommandID: 'PayBill' })).body.errorMessage).toBe('Bad Request - Invalid CommandID');
    expect((await pay(sim, token, { Amount: '10.50' })).body.errorMessage).toBe('Bad Request - Invalid Amount');
    expect((await pay(sim, token, { Msisdn: '0708374149' })).body.errorMessage).toBe('Bad Request - Invalid Msisdn');
    expect((await pay(sim, token, { BillRefNumber: 'X'.repeat(21) })).body.errorMessage).toBe(
      'Bad Request - Invalid BillRefNumber',
    );
    expect(sim.receipts).toEqual([]);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_KINDS, type HookSecretKind, hookSecret } from '../../src/server/lib/hook-secrets.js';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import { CALLBACK_KINDS } from '../../src/server/payments/initiator.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { startShopSimulator } from '../support/simulator.js';

/**
 * Daraja's hooks: each kind of callback (STK, C2B, Reversal, Transaction Status) opens only with
 * its own secret, derived from MPESA_CALLBACK_SECRET; no secret ever reaches the log (the URLs
 * show [redacted]); and a callback is kept whatever its body, empty or not JSON.
 */

type LogLine = Record<string, unknown> & { msg?: string; reqId?: string; req?: { url?: string }; hook?: string };

const raw: string[] = [];
let simulator: DarajaSimulator;
let shop: TestShop;
let admin: ApiClient;
let secrets: Record<HookSecretKind, string>;

beforeAll(async () => {
  simulator = await startShopSimulator({ callbackDelayMs: 100, resultDelayMs: 100 });
  shop = await startTestShop(
    {
      LOG_LEVEL: 'info',
      MPESA_ENV: 'simulator',
      MPESA_SIMULATOR_URL: simulator.url,
      MPESA_RECONCILE_INTERVAL_MS: '3600000',
    },
    { logStream: { write: (line: string) => void raw.push(...line.split('\n').filter((l) => l.trim() !== '')) } },
  );
  admin = await shop.admin();
  const secretOf = shop.mpesa.hookSecret;
  secrets = { stk: secretOf('stk'), c2b: secretOf('c2b'), rev: secretOf('rev'), ts: secretOf('ts') };
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await simulator?.close();
});

const lines = (): LogLine[] => raw.map((line) => JSON.parse(line) as LogLine);
const ofRequest = (reqId: string) => lines().filter((l) => l.reqId === reqId);

/** Daraja (or anyone) calling a hook: no cookie, no XSRF token; the body sent as given. */
async function callHook(path: string, init: { body?: string; contentType?: string; reqId?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.contentType) headers['content-type'] = init.contentType;
  if (init.reqId) headers['x-request-id'] = init.reqId;
  const res = await fetch(`${shop.url}${path}`, { method: 'POST', headers, ...(init.body !== undefined && { body: init.body }) });
  return { status: res.status, body: (await res.json()) as unknown };
}
const json = (value: unknown) => ({ body: JSON.stringify(value), contentType: 'application/json' });

interface StoredCallback {
  kind: string;
  body: string;
  outcome: string | null;
  subject_id: string | null;
}
async function storedWhere(condition: ReturnType<typeof sql>): Promise<StoredCallback[]> {
  const result = (await shop.database.db.execute(
    sql`SELECT kind, body, outcome, subject_id FROM mpesa_callbacks WHERE ${condition} ORDER BY created_at`,
  )) as unknown as { rows: StoredCallback[] };
  return result.rows;
}
const storedAbout = (subjectId: string) => storedWhere(sql`subject_id = ${subjectId}`);
const storedContaining = (text: string) => storedWhere(sql`position(${text} in body) > 0`);

async function unpaidOrder(): Promise<{ shopper: ApiClient; order: Order; due: number }> {
  const product = await createProduct(admin, { price: 640, countInStock: 20 });
  const shopper = await shop.shopper('Hook Shopper');
  const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
  return { shopper, order, due: Math.ceil(order.totalPrice) };
}
const paymentOf = async (shopper: ApiClient, orderId: string) =>
  (await shopper.get<PaymentStatus>(`/api/orders/${orderId}/payment`)).body;

/** A Daraja C2B confirmation, every field a string as Daraja sends them. */
function confirmation(transId: string, account: string, amount: number) {
  return {
    TransactionType: 'Pay Bill',
    TransID: transId,
    TransTime: '20261125143512',
    TransAmount: String(amount),
    BusinessShortCode: '174379',
    BillRefNumber: account,
    MSISDN: '2547 ***** 149',
    FirstName: 'AMINA',
  };
}
const stkResult = (checkoutRequestId: string) => ({
  Body: {
    stkCallback: { MerchantRequestID: 'm-1', CheckoutRequestID: checkoutRequestId, ResultCode: 1032, ResultDesc: 'Cancelled' },
  },
});
const ACK = { ResultCode: 0, ResultDesc: 'Accepted' };

describe('a secret for each kind of callback', () => {
  it('derives four distinct secrets from MPESA_CALLBACK_SECRET in one place, none of them it', () => {
    const master = shop.mpesa.callbackSecret();
    for (const kind of HOOK_KINDS) {
      expect(secrets[kind]).toBe(hookSecret(master, kind));
      expect(secrets[kind]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(secrets[kind].includes(master)).toBe(false);
    }
    expect(new Set(Object.values(secrets)).size).toBe(4);
    expect(hookSecret(`${master}x`, 'stk')).not.toBe(secrets.stk);
  });

  it('gives Daraja URLs with their own kind’s secret: STK CallBackURL, C2B URLs, Result and QueueTimeOut URLs', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const sent = await shopper.post('/api/orders/stkpush', { orderId: order._id, phoneNumber: '0708374149', Amount: due });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await expect.poll(async () => (await paymentOf(shopper, order._id)).isPaid, { timeout: 15_000 }).toBe(true);
    const stk = simulator.deliveries.at(-1);
    expect(stk?.url).toBe(`${shop.url}/api/hooks/daraja/stk/${secrets.stk}`);
    expect(stk?.status).toBe(200);

    // The demo's Paybill payment: the simulator calls the URLs the shop registered at start.
    const paybill = await unpaidOrder();
    const paid = await paybill.shopper.post(`/api/orders/${paybill.order._id}/simulate-paybill`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(202);
    await expect.poll(async () => (await paymentOf(paybill.shopper, paybill.order._id)).isPaid, { timeout: 15_000 }).toBe(true);
    const c2b = simulator.c2bDeliveries.filter((d) => d.kind === 'confirmation').at(-1);
    expect(c2b?.url).toBe(`${shop.url}/api/hooks/daraja/c2b/${secrets.c2b}/confirm`);
    expect(c2b?.status).toBe(200);

    const id = randomUUID();
    const hookUrl = shop.mpesa.deps.initiator.hookUrl;
    expect(hookUrl('rev', id, 'result')).toBe(`${shop.url}/api/hooks/daraja/rev/${secrets.rev}/${id}/result`);
    expect(hookUrl('rev', id, 'timeout')).toBe(`${shop.url}/api/hooks/daraja/rev/${secrets.rev}/${id}/timeout`);
    expect(hookUrl('ts', id, 'result')).toBe(`${shop.url}/api/hooks/daraja/ts/${secrets.ts}/${id}/result`);
    expect(hookUrl('ts', id, 'timeout')).toBe(`${shop.url}/api/hooks/daraja/ts/${secrets.ts}/${id}/timeout`);
  });

  it('acts on no hook called with another kind’s secret, and keeps nothing of it', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const others = (kind: HookSecretKind) => HOOK_KINDS.filter((k) => k !== kind).map((k) => secrets[k]);

    // A Paybill confirmation for the order, sent with the STK, Reversal and Status secrets.
    for (const [i, secret] of others('c2b').entries()) {
      const transId = `TWRONG${i}${randomBytes(2).toString('hex').toUpperCase()}`;
      const res = await callHook(`/api/hooks/daraja/c2b/${secret}/confirm`, json(confirmation(transId, order.orderNumber, due)));
      expect(res).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: 'Success' } });
      expect(await storedContaining(transId)).toEqual([]);
    }
    expect((await paymentOf(shopper, order._id)).isPaid).toBe(false);
    // Validation asked with another kind's secret is refused as an unknown account, as any wrong secret is.
    const asked = await callHook(
      `/api/hooks/daraja/c2b/${secrets.stk}/validate`,
      json(confirmation('TASK1', order.orderNumber, due)),
    );
    expect((asked.body as { ResultCode: string }).ResultCode).toBe('C2B00012');

    // An STK result with the C2B secret, and each Result and timeout notice with the others' secrets.
    const checkoutRequestId = `ws_CO_WRONGKIND${randomBytes(4).toString('hex')}`;
    for (const secret of others('stk')) {
      expect(await callHook(`/api/hooks/daraja/stk/${secret}`, json(stkResult(checkoutRequestId)))).toEqual({
        status: 200,
        body: ACK,
      });
    }
    expect(await storedContaining(checkoutRequestId)).toEqual([]);
    for (const kind of ['rev', 'ts'] as const) {
      for (const what of ['result', 'timeout'] as const) {
        const id = randomUUID();
        for (const secret of others(kind)) {
          const res = await callHook(`/api/hooks/daraja/${kind}/${secret}/${id}/${what}`, json({ Result: { ResultCode: 0 } }));
          expect(res).toEqual({ status: 200, body: ACK });
        }
        expect(await storedAbout(id)).toEqual([]);
      }
    }
    expect(lines().filter((l) => l.msg === 'M-Pesa call with a wrong secret ignored').length).toBeGreaterThanOrEqual(13);

    // The same confirmation with the C2B secret is the real thing.
    const transId = `TRIGHT${randomBytes(3).toString('hex').toUpperCase()}`;
    const res = await callHook(
      `/api/hooks/daraja/c2b/${secrets.c2b}/confirm`,
      json(confirmation(transId, order.orderNumber, due)),
    );
    expect(res.status).toBe(200);
    expect((await storedContaining(transId)).map((r) => r.kind)).toEqual(['c2b_confirmation']);
  });

  it('keeps, never acts on, a call to a URL made with MPESA_CALLBACK_SECRET itself (from before each kind had its own)', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const master = shop.mpesa.callbackSecret();
    const transId = `TOLD${randomBytes(3).toString('hex').toUpperCase()}`;
    const res = await callHook(`/api/hooks/daraja/c2b/${master}/confirm`, json(confirmation(transId, order.orderNumber, due)));
    expect(res).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: 'Success' } });
    expect(await storedContaining(transId)).toEqual([
      expect.objectContaining({ kind: 'c2b_confirmation', outcome: 'old_secret' }),
    ]);
    expect((await paymentOf(shopper, order._id)).isPaid).toBe(false);
    const id = randomUUID();
    expect(await callHook(`/api/hooks/daraja/ts/${master}/${id}/timeout`)).toEqual({ status: 200, body: ACK });
    expect(await storedAbout(id)).toEqual([{ kind: 'status_timeout', body: '', outcome: 'old_secret', subject_id: id }]);
  });
});

describe('every body kept', () => {
  const bodies: [string, { body?: string; contentType?: string }][] = [
    ['no body and no content type', {}],
    ['an empty JSON body', { body: '', contentType: 'application/json' }],
    ['a body that is not JSON', { body: 'queue timeout <b>', contentType: 'application/json' }],
    ['plain text', { body: 'timed out', contentType: 'text/plain' }],
    ['a cut-off JSON body', { body: '{"Result":', contentType: 'application/json; charset=utf-8' }],
  ];

  it('answers a queue-timeout notice 200 with the acknowledgement and stores it, whatever its body', async () => {
    for (const kind of ['rev', 'ts'] as const) {
      for (const [what, init] of bodies) {
        const id = randomUUID();
        const res = await callHook(`/api/hooks/daraja/${kind}/${secrets[kind]}/${id}/timeout`, init);
        expect([kind, what, res]).toEqual([kind, what, { status: 200, body: ACK }]);
        const stored = await storedAbout(id);
        expect([kind, what, stored.map((r) => [r.kind, r.body])]).toEqual([
          kind,
          what,
          [[CALLBACK_KINDS[kind].timeout, init.body ?? '']],
        ]);
      }
    }
  });

  it('keeps a Result, an STK result and a Paybill confirmation that are not JSON too, acting on none', async () => {
    for (const kind of ['rev', 'ts'] as const) {
      const id = randomUUID();
      expect(
        await callHook(`/api/hooks/daraja/${kind}/${secrets[kind]}/${id}/result`, { body: '<html>', contentType: 'text/html' }),
      ).toEqual({
        status: 200,
        body: ACK,
      });
      expect((await storedAbout(id)).map((r) => [r.kind, r.body, r.outcome])).toEqual([
        [CALLBACK_KINDS[kind].result, '<html>', 'not_a_result'],
      ]);
    }
    const stkBody = `{"Body":{"stkCallback":"cut-${randomBytes(4).toString('hex')}`;
    expect(await callHook(`/api/hooks/daraja/stk/${secrets.stk}`, { body: stkBody, contentType: 'application/json' })).toEqual({
      status: 200,
      body: ACK,
    });
    expect((await storedContaining(stkBody)).map((r) => [r.kind, r.outcome])).toEqual([['stk', 'not_stk_result']]);
    const c2bBody = `TransID=T${randomBytes(4).toString('hex')}&TransAmount=10`;
    const confirmed = await callHook(`/api/hooks/daraja/c2b/${secrets.c2b}/confirm`, {
      body: c2bBody,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(confirmed.status).toBe(200);
    expect((await storedContaining(c2bBody)).map((r) => [r.kind, r.outcome])).toEqual([['c2b_confirmation', 'not_c2b_payment']]);
  });
});

describe('no secret in the log', () => {
  it('logs every hook’s URL with [redacted] for its secret, and no secret anywhere', async () => {
    const id = randomUUID();
    const run = `hooks-${Date.now()}`;
    const calls: [string, string, string][] = [
      ['stk', `/api/hooks/daraja/stk/${secrets.stk}`, '/api/hooks/daraja/stk/[redacted]'],
      ['c2b confirm', `/api/hooks/daraja/c2b/${secrets.c2b}/confirm`, '/api/hooks/daraja/c2b/[redacted]/confirm'],
      ['c2b validate', `/api/hooks/daraja/c2b/${secrets.c2b}/validate`, '/api/hooks/daraja/c2b/[redacted]/validate'],
      ['rev result', `/api/hooks/daraja/rev/${secrets.rev}/${id}/result`, `/api/hooks/daraja/rev/[redacted]/${id}/result`],
      ['rev timeout', `/api/hooks/daraja/rev/${secrets.rev}/${id}/timeout`, `/api/hooks/daraja/rev/[redacted]/${id}/timeout`],
      ['ts result', `/api/hooks/daraja/ts/${secrets.ts}/${id}/result`, `/api/hooks/daraja/ts/[redacted]/${id}/result`],
      ['ts timeout', `/api/hooks/daraja/ts/${secrets.ts}/${id}/timeout`, `/api/hooks/daraja/ts/[redacted]/${id}/timeout`],
      // Another kind's secret, the old shared one, a trailing slash and a query: all redacted the same.
      ['stk with the c2b secret', `/api/hooks/daraja/stk/${secrets.c2b}`, '/api/hooks/daraja/stk/[redacted]'],
      [
        'ts with the shared secret',
        `/api/hooks/daraja/ts/${shop.mpesa.callbackSecret()}/${id}/result`,
        `/api/hooks/daraja/ts/[redacted]/${id}/result`,
      ],
      [
        'stk with a slash and a query',
        `/api/hooks/daraja/stk/${secrets.stk}/?from=daraja`,
        '/api/hooks/daraja/stk/[redacted]/?from=daraja',
      ],
    ];
    for (const [what, path] of calls) {
      const res = await callHook(path, { ...json({ Result: { ResultCode: 1 } }), reqId: `${run}-${what.replaceAll(' ', '_')}` });
      expect([what, res.status]).toEqual([what, 200]);
    }
    // A body too large for the hook is refused before the route runs: its URL is still redacted.
    const tooLarge = await callHook(`/api/hooks/daraja/stk/${secrets.stk}`, {
      body: 'x'.repeat(300 * 1024),
      contentType: 'application/json',
      reqId: `${run}-too_large`,
    });
    expect(tooLarge.status).toBe(413);
    // The password reset's token, in the API call and in the page the mail links to.
    const resetToken = randomBytes(24).toString('hex');
    const reset = await shop.client().request('POST', `/api/users/reset-password/${resetToken}`, {
      json: { password: 'a-new-password-1' },
      headers: { 'x-request-id': `${run}-reset_api` },
    });
    expect(reset.status).toBeGreaterThanOrEqual(400);
    expect(reset.status).toBeLessThan(500);
    await fetch(`${shop.url}/reset-password/${resetToken}`, { headers: { 'x-request-id': `${run}-reset_page` } });

    const urlOf = (reqId: string) => ofRequest(reqId).find((l) => l.msg === 'incoming request')?.req?.url;
    await expect.poll(() => urlOf(`${run}-reset_page`)).toBe('/reset-password/[redacted]');
    for (const [what, , logged] of calls) expect([what, urlOf(`${run}-${what.replaceAll(' ', '_')}`)]).toEqual([what, logged]);
    expect(urlOf(`${run}-too_large`)).toBe('/api/hooks/daraja/stk/[redacted]');
    expect(urlOf(`${run}-reset_api`)).toBe('/api/users/reset-password/[redacted]');
    // Each hook's request completed, and its lines are all there to search.
    for (const [what] of calls) {
      expect([what, ofRequest(`${run}-${what.replaceAll(' ', '_')}`).some((l) => l.msg === 'request completed')]).toEqual([
        what,
        true,
      ]);
    }

    const searched: [string, string][] = [
      ['MPESA_CALLBACK_SECRET', shop.mpesa.callbackSecret()],
      ...HOOK_KINDS.map((kind): [string, string] => [`the ${kind} secret`, secrets[kind]]),
      ['the reset token', resetToken],
    ];
    const leaks = raw.flatMap((line) =>
      searched.filter(([, secret]) => line.includes(secret)).map(([what]) => `${what}: ${line}`),
    );
    expect(leaks).toEqual([]);
    expect(raw.filter((line) => line.includes('[redacted]')).length).toBeGreaterThanOrEqual(calls.length + 3);
    console.log(`hooks: ${raw.length} log lines searched for ${searched.length} secrets, ${leaks.length} leaks`);
  });
});

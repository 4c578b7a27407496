import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCKED_SUBSCRIBER_MESSAGE } from '../../src/server/mpesa/daraja-errors.js';
import type { Order, OrderPage } from '../../src/shared/schemas/orders.js';
import type { PaymentStatus, StkPushResponse } from '../../src/shared/schemas/payments.js';
import type { ApiClient, ApiResponse, ErrorResponse } from '../support/client.js';
import { createProduct, expectClientError, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';

/**
 * M-Pesa payments end to end over real HTTP: the shop's Daraja client talks to the local Daraja
 * simulator, which answers by phone number and posts its callbacks back to the shop.
 */

const SIMULATOR_DELAY_MS = 300;
const RECONCILE_AFTER_MS = 400;

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await startTestShop({
    MPESA_ENV: 'simulator',
    MPESA_SIMULATOR_DELAY_MS: String(SIMULATOR_DELAY_MS),
    MPESA_RECONCILE_AFTER_MS: String(RECONCILE_AFTER_MS),
    // The tests run the reconciler themselves, so its timing is theirs.
    MPESA_RECONCILE_INTERVAL_MS: '3600000',
    RATE_LIMIT_STKPUSH_MAX: '1000',
  });
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

/** A shopper with a fresh unpaid order. */
async function shopperWithOrder(price = 1234.5): Promise<{ shopper: ApiClient; order: Order; due: number }> {
  const product = await createProduct(admin, { price, countInStock: 50 });
  const shopper = await shop.shopper('Mpesa Payer');
  const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
  return { shopper, order, due: Math.ceil(order.totalPrice) };
}

function pay(client: ApiClient, order: Order, phoneNumber: string, Amount = Math.ceil(order.totalPrice)) {
  return client.post<StkPushResponse>('/api/orders/stkpush', { orderId: order._id, phoneNumber, Amount });
}

/**
 * Sends a prompt once the simulator has closed the one an earlier test left on the same phone (it
 * holds one open prompt per phone, and on a busy machine its timer may not have fired yet).
 */
async function whenPhoneFree<T>(send: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  let res = await send();
  const locked = () => res.status === 400 && JSON.stringify(res.body).includes(LOCKED_SUBSCRIBER_MESSAGE);
  await expect
    .poll(
      async () => {
        if (locked()) res = await send();
        return locked();
      },
      { timeout: 10_000 },
    )
    .toBe(false);
  return res;
}

async function status(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  const res = await client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Waits until the latest prompt of the order has left `pending`. */
async function settled(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  await expect
    .poll(async () => (await status(client, orderId)).lastAttempt?.status, { timeout: 5000, interval: 100 })
    .not.toBe('pending');
  return status(client, orderId);
}

/** The STK callbacks the shop has stored and handled for a prompt (each is stored before anything else). */
async function handledCallbacks(checkoutRequestId: string): Promise<number> {
  const result = (await shop.database.db.execute(
    sql`SELECT count(*)::int AS n FROM mpesa_callbacks WHERE kind = 'stk' AND processed_at IS NOT NULL AND body LIKE ${`%${checkoutRequestId}%`}`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]?.n ?? 0;
}

async function attemptsOf(orderId: string) {
  const result = (await shop.database.db.execute(
    sql`SELECT status, result_code, mpesa_receipt, settled_by FROM payment_attempts WHERE order_id = ${orderId} ORDER BY created_at`,
  )) as unknown as {
    rows: { status: string; result_code: string | null; mpesa_receipt: string | null; settled_by: string | null }[];
  };
  return result.rows;
}

describe('paying an order with M-Pesa', () => {
  it('sends the prompt, and the success callback marks the order paid with its receipt', async () => {
    const { shopper, order, due } = await shopperWithOrder(1234.5);
    expect(due).toBe(Math.ceil(order.totalPrice));
    const res = await pay(shopper, order, '0708374149');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.msg).toContain('0708 *** 149');
    expect(res.body.msg).toContain(`Ksh. ${due.toLocaleString('en-KE')}.00`);
    expect(res.body.checkoutRequestId).toMatch(/^ws_CO_/);

    const waiting = await status(shopper, order._id);
    expect(waiting).toMatchObject({ isPaid: false, amountDue: due, lastAttempt: { status: 'pending', phone: '0708 *** 149' } });
    // The fallback when the prompt does not come: the shop's Paybill, the order number as account.
    expect(waiting.orderNumber).toBe(order.orderNumber);
    expect(waiting.paybill).toEqual({ businessNumber: '174379', accountNumber: order.orderNumber, amount: due });
    expect(waiting.till).toBeUndefined();

    const done = await settled(shopper, order._id);
    expect(done.isPaid).toBe(true);
    expect(done.paybill).toBeNull();
    expect(done.receipt).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    expect(done.lastAttempt).toMatchObject({ status: 'paid', receipt: done.receipt, amount: due, reason: null });
    const paidOrder = (await shopper.get<Order>(`/api/orders/${order._id}`)).body;
    expect(paidOrder).toMatchObject({ isPaid: true, mpesaReceipt: done.receipt });
    expect(paidOrder.paidAt).not.toBeNull();
    // The admin's list shows it paid too.
    const listed = (await admin.get<OrderPage>('/api/orders?isPaid=true')).body.orders.find((o) => o._id === order._id);
    expect(listed?.paidAt).toBe(paidOrder.paidAt);
  });

  it('accepts every common way of writing the number', async () => {
    for (const phone of ['+254708374149', '254 708 374 149', '0708-374-149']) {
      const { shopper, order } = await shopperWithOrder();
      expect((await pay(shopper, order, phone)).status, phone).toBe(200);
      expect((await settled(shopper, order._id)).isPaid).toBe(true);
    }
  });

  it('marks the order paid once when the callback arrives twice', async () => {
    const { shopper, order } = await shopperWithOrder();
    const sent = await pay(shopper, order, '0700000005');
    expect(sent.status).toBe(200);
    const first = await settled(shopper, order._id);
    expect(first.isPaid).toBe(true);
    await expect.poll(() => handledCallbacks(sent.body.checkoutRequestId), { timeout: 10_000 }).toBe(2);
    const after = await status(shopper, order._id);
    expect(after.paidAt).toBe(first.paidAt);
    expect(after.receipt).toBe(first.receipt);
    expect(await attemptsOf(order._id)).toEqual([
      { status: 'paid', result_code: '0', mpesa_receipt: first.receipt, settled_by: 'callback' },
    ]);
  });

  it.each([
    ['0700000001', 'failed', '1032', 'You cancelled the M-Pesa prompt.'],
    ['0700000002', 'timed_out', '1037', 'timed out'],
    ['0700000003', 'failed', '2001', 'The M-Pesa PIN was wrong.'],
    ['0700000004', 'failed', '1', 'Your M-Pesa balance was not enough'],
  ])('leaves the order unpaid with the reason when %s answers', async (phone, state, code, reason) => {
    const { shopper, order } = await shopperWithOrder();
    expect((await pay(shopper, order, phone)).status).toBe(200);
    const result = await settled(shopper, order._id);
    expect(result.isPaid).toBe(false);
    expect(result.lastAttempt).toMatchObject({ status: state, resultCode: code });
    expect(result.lastAttempt?.reason).toContain(reason);
    expect((await shopper.get<Order>(`/api/orders/${order._id}`)).body.isPaid).toBe(false);
    // The shopper can try again at once, and pay.
    expect((await pay(shopper, order, '0708374149')).status).toBe(200);
    expect((await settled(shopper, order._id)).isPaid).toBe(true);
  });

  it('settles a prompt whose callback never comes with the reconciler’s status query', async () => {
    const { shopper, order } = await shopperWithOrder();
    expect((await whenPhoneFree(() => pay(shopper, order, '0700000006'))).status).toBe(200);
    // The wait is the test: the simulator sends no callback, and the prompt becomes the reconciler's.
    await sleep(Math.max(SIMULATOR_DELAY_MS, RECONCILE_AFTER_MS) + 200);
    expect((await status(shopper, order._id)).lastAttempt?.status).toBe('pending');
    const run = await shop.mpesa.reconcileNow();
    expect(run.settled).toBe(1);
    const done = await status(shopper, order._id);
    expect(done).toMatchObject({ isPaid: true, lastAttempt: { status: 'paid' } });
    expect(await attemptsOf(order._id)).toEqual([{ status: 'paid', result_code: '0', mpesa_receipt: null, settled_by: 'query' }]);
  });

  it('queries each waiting prompt once even when reconcilers run at the same time', async () => {
    const { shopper, order } = await shopperWithOrder();
    await whenPhoneFree(() => pay(shopper, order, '0700000006'));
    // The wait is the test: the simulator sends no callback, and the prompt becomes the reconciler's.
    await sleep(Math.max(SIMULATOR_DELAY_MS, RECONCILE_AFTER_MS) + 200);
    const runs = await Promise.all([shop.mpesa.reconcileNow(), shop.mpesa.reconcileNow(), shop.mpesa.reconcileNow()]);
    expect(runs.reduce((n, r) => n + r.settled, 0)).toBe(1);
    expect((await status(shopper, order._id)).isPaid).toBe(true);
  });
});

/** A success callback as Daraja sends it, for the simulator's callback-less 0700000006. */
function callbackBody(checkoutRequestId: string, amount: number, receipt = 'SKF0RGED01') {
  return {
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: checkoutRequestId,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: amount },
            { Name: 'MpesaReceiptNumber', Value: receipt },
            { Name: 'Balance' },
            { Name: 'TransactionDate', Value: 20261121093041 },
            { Name: 'PhoneNumber', Value: 254700000006 },
          ],
        },
      },
    },
  };
}

/** Daraja (or a forger) calling the hook: no cookie, no XSRF header. */
function postHook(token: string, body: unknown) {
  return fetch(`${shop.url}/api/hooks/daraja/stk/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

// PGlite is one connection: its statements never interleave, so this race needs PostgreSQL.
describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL: a callback racing the push’s own answer', () => {
  it('pays the order when the answer is recorded while the callback waits for the prompt’s row', async () => {
    const { shopper, order, due } = await shopperWithOrder();
    // 0700000006 pays without a callback: the test sends the callback itself, at the moment it chooses.
    const sent = await whenPhoneFree(() => pay(shopper, order, '0700000006'));
    const { checkoutRequestId } = sent.body;
    // Daraja's status query confirms a success callback, so wait until the simulator's prompt is paid.
    await expect
      .poll(async () => (await shop.mpesa.deps.daraja.stkQuery(checkoutRequestId)).state, { timeout: 5000, interval: 50 })
      .toBe('completed');
    // Back to the moment before the push's answer was recorded: the prompt has no CheckoutRequestID yet.
    await shop.database.db.execute(
      sql`UPDATE payment_attempts SET checkout_request_id = NULL, merchant_request_id = NULL WHERE order_id = ${order._id}`,
    );

    // The answer's UPDATE, begun and not yet committed, holds the prompt's row.
    const answer = new pg.Client({ connectionString: shop.config.databaseUrl });
    await answer.connect();
    try {
      await answer.query('BEGIN');
      await answer.query('UPDATE payment_attempts SET checkout_request_id = $1 WHERE order_id = $2', [
        checkoutRequestId,
        order._id,
      ]);
      const callback = postHook(shop.mpesa.hookSecret('stk'), callbackBody(checkoutRequestId, due, 'SKRACE0001'));
      // The callback has found no prompt by its CheckoutRequestID and now waits for the row lock.
      await expect
        .poll(
          async () =>
            (
              await answer.query<{ n: number }>(
                'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))',
              )
            ).rows[0]?.n,
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1);
      await answer.query('COMMIT');
      expect((await callback).status).toBe(200);
    } finally {
      await answer.end();
    }

    expect(await status(shopper, order._id)).toMatchObject({ isPaid: true, receipt: 'SKRACE0001' });
    expect(await attemptsOf(order._id)).toEqual([
      { status: 'paid', result_code: '0', mpesa_receipt: 'SKRACE0001', settled_by: 'callback' },
    ]);
    const ledger = (await shop.database.db.execute(
      sql`SELECT status, exception FROM mpesa_payments WHERE receipt = 'SKRACE0001'`,
    )) as unknown as { rows: { status: string; exception: string | null }[] };
    expect(ledger.rows).toEqual([{ status: 'credited', exception: null }]);
  });
});

describe('callbacks that must change nothing', () => {
  it('ignores a wrong secret, an unknown CheckoutRequestID and a wrong amount; accepts the genuine one', async () => {
    const { shopper, order, due } = await shopperWithOrder();
    const { checkoutRequestId } = (await whenPhoneFree(() => pay(shopper, order, '0700000006'))).body; // no callback will come from the simulator
    const secret = shop.mpesa.hookSecret('stk');

    const wrongSecret = await postHook('not-the-secret', callbackBody(checkoutRequestId, due));
    expect(wrongSecret.status).toBe(200);
    expect(await wrongSecret.json()).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    expect((await postHook(secret, callbackBody('ws_CO_000000000000000000000000', due))).status).toBe(200);
    expect((await postHook(secret, callbackBody(checkoutRequestId, 1))).status).toBe(200);
    expect((await postHook(secret, { hello: 'world' })).status).toBe(200);
    const untouched = await status(shopper, order._id);
    expect(untouched).toMatchObject({ isPaid: false, lastAttempt: { status: 'pending' } });

    // The same callback with the right secret and amount is the real thing. It pays once Daraja's
    // status query agrees, which it does when the simulator's prompt has been answered.
    expect((await postHook(secret, callbackBody(checkoutRequestId, due, 'SKGENUINE1'))).status).toBe(200);
    await expect
      .poll(
        async () => {
          await shop.mpesa.reconcileNow();
          return status(shopper, order._id);
        },
        { timeout: 5000, interval: 100 },
      )
      .toMatchObject({ isPaid: true, receipt: 'SKGENUINE1' });
    // Replaying it, or reusing its receipt for another order, credits nothing more.
    const other = await shopperWithOrder();
    const otherCheckout = (await whenPhoneFree(() => pay(other.shopper, other.order, '0700000006'))).body.checkoutRequestId;
    await postHook(secret, callbackBody(otherCheckout, other.due, 'SKGENUINE1'));
    expect((await status(other.shopper, other.order._id)).isPaid).toBe(false);
  });
});

describe('who may pay, and what', () => {
  it('refuses another user and guests, asks M-Pesa for what is due whatever Amount is sent, never reveals someone else’s payment', async () => {
    const { shopper, order, due } = await shopperWithOrder(999.99);
    const stranger = await shop.shopper('Stranger');
    expectClientError(await pay(stranger, order, '0708374149'), 404, 'Order not found');
    expectClientError(await stranger.get(`/api/orders/${order._id}/payment`), 404);
    expectClientError(await pay(shop.client(), order, '0708374149'), 401);
    expectClientError(await shop.client().get(`/api/orders/${order._id}/payment`), 401);
    expect((await admin.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).status).toBe(200);

    // A tampered Amount changes nothing: the prompt asks M-Pesa for what is still due.
    const tampered = await pay(shopper, order, '0708374149', 1);
    expect(tampered.status, JSON.stringify(tampered.body)).toBe(200);
    expect((await status(shopper, order._id)).lastAttempt).toMatchObject({ amount: due });
  });

  it.each(['0812345678', '12345', '+44 7700 900123', 'not a phone', '2547083741490'])(
    'refuses the phone number %s',
    async (phone) => {
      const { shopper, order } = await shopperWithOrder();
      expectClientError(await pay(shopper, order, phone), 400, 'Safaricom number');
    },
  );

  it('refuses a paid order, and a second prompt while one is waiting', async () => {
    const { shopper, order } = await shopperWithOrder();
    expect((await whenPhoneFree(() => pay(shopper, order, '0700000006'))).status).toBe(200);
    expectClientError(await pay(shopper, order, '0708374149'), 429, 'less than a minute ago');
    await admin.put(`/api/orders/${order._id}`);
    expectClientError(await pay(shopper, order, '0708374149'), 400, 'already paid');
  });

  it.each([
    [{}, 'Enter the M-Pesa phone number'],
    [{ phoneNumber: '0708374149', Amount: 'ten' }, 'Amount must be a number'],
    [{ orderId: 'x', phoneNumber: '0708374149', Amount: 10 }, 'Not a valid id'],
    [{ orderId: '00000000-0000-4000-8000-000000000000', phoneNumber: '0708374149', Amount: 'ten' }, 'Amount must be a number'],
    [{ orderId: '00000000-0000-4000-8000-000000000000', Amount: 10 }, 'phone number'],
  ])('refuses the malformed body %j', async (body, msg) => {
    const shopper = await shop.shopper();
    expectClientError(await shopper.post('/api/orders/stkpush', body), 400, msg);
  });
});

describe('the specification’s payload: phoneNumber and Amount, no order id', () => {
  /** An order of one unit at this price, placed by the shopper (2699 makes a total of 3203.85). */
  async function order(shopper: ApiClient, price: number): Promise<Order> {
    const product = await createProduct(admin, { price, countInStock: 50 });
    const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
    expect(placed.status).toBe(201);
    return placed.body as Order;
  }
  const prompt = (client: ApiClient, phoneNumber: string, Amount: unknown) =>
    client.post<StkPushResponse>('/api/orders/stkpush', { phoneNumber, Amount });

  it('pays the caller’s most recent unpaid order the Amount asks for, given with its cents or in whole shillings', async () => {
    const shopper = await shop.shopper('Spec Payer');
    const older = await order(shopper, 2699);
    const other = await order(shopper, 1234.5);
    const newest = await order(shopper, 2699);
    expect(newest.totalPrice).toBe(3203.85);

    // The order's total as the client has it: the newest order of that total, charged Ksh 3,204.
    const res = await whenPhoneFree(() => prompt(shopper, '0700000006', 3203.85));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.msg).toContain('Ksh. 3,204.00');
    expect((await status(shopper, newest._id)).lastAttempt).toMatchObject({ status: 'pending', amount: 3204 });
    expect((await status(shopper, older._id)).lastAttempt).toBeNull();

    // Whole shillings as M-Pesa charges them, sent as text as a form would.
    // A number of its own: the simulator holds one open prompt per phone, and earlier tests use 0708374149.
    const due = Math.ceil(other.totalPrice);
    expect((await prompt(shopper, '0722000302', String(due))).status).toBe(200);
    expect(await settled(shopper, other._id)).toMatchObject({ isPaid: true, lastAttempt: { amount: due } });
    expect((await status(shopper, older._id)).lastAttempt).toBeNull();

    // Paid now, so that amount designates no order any more.
    expectClientError(
      await prompt(shopper, '0708374149', due),
      400,
      `None of your unpaid orders comes to Ksh. ${due.toLocaleString('en-KE')}.00`,
    );
  });

  it('answers a clear 400 when no unpaid order of the caller comes to the Amount, and sends nothing', async () => {
    const shopper = await shop.shopper('Unmatched Payer');
    const mine = await order(shopper, 2699);
    // Another shopper's order of the same total is never theirs to pay.
    const stranger = await shop.shopper('Stranger');
    for (const [client, amount] of [
      [stranger, 3204],
      [shopper, 3203],
      [shopper, 3204.5],
      [shopper, 3203.851],
      [shopper, 0],
      [shopper, -3204],
    ] as const) {
      const res = await prompt(client, '0708374149', amount);
      expectClientError(res, 400, 'None of your unpaid orders comes to');
      expect((res.body as unknown as ErrorResponse).errors[0]!.path).toBe('Amount');
    }
    expect((await status(shopper, mine._id)).lastAttempt).toBeNull();
  });

  it('keeps the order id’s rules when one is sent, and accepts the total with its cents there too', async () => {
    const shopper = await shop.shopper('Id Payer');
    const mine = await order(shopper, 2699);
    const newer = await order(shopper, 2699);
    const res = await pay(shopper, mine, '0708374149', 3203.85);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The named order is paid, not the newest one of the same total.
    expect(await settled(shopper, mine._id)).toMatchObject({ isPaid: true, lastAttempt: { amount: 3204 } });
    expect((await status(shopper, newer._id)).lastAttempt).toBeNull();
    // With the order named, the prompt asks for what is due on it, whatever Amount says.
    expect((await pay(shopper, newer, '0708374149', 3204.01)).status).toBe(200);
    expect((await status(shopper, newer._id)).lastAttempt).toMatchObject({ amount: 3204 });
  });
});

describe('prompts per shopper', () => {
  let limited: TestShop;
  beforeAll(async () => {
    limited = await startTestShop({
      MPESA_SIMULATOR_DELAY_MS: '100',
      RATE_LIMIT_STKPUSH_MAX: '2',
      MPESA_RECONCILE_INTERVAL_MS: '3600000',
    });
  });
  afterAll(() => limited?.stop());

  it('answers 429 past the limit, across different orders', async () => {
    const owner = await limited.admin();
    const product = await createProduct(owner, { price: 100, countInStock: 10 });
    const shopper = await limited.shopper();
    const orders = await Promise.all(
      [1, 2, 3].map(async () => (await placeOrder(shopper, [{ _id: product._id, qty: 1 }], NAIROBI_ADDRESS)).body as Order),
    );
    expect((await pay(shopper, orders[0]!, '0708374149')).status).toBe(200);
    expect((await pay(shopper, orders[1]!, '0711111111')).status).toBe(200);
    expectClientError(await pay(shopper, orders[2]!, '0708374149'), 429, 'Too many attempts');
  });
});

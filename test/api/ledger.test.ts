import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPage, LedgerPayment, LedgerSummary, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { startShopSimulator } from '../support/simulator.js';

/**
 * The payment ledger's rules over real HTTP, each on the path that used to lose money: a lost
 * push answer, a success after the give-up time, the status query settling first, two paid
 * prompts, a payment for a deleted order, an admin's entries, and a forged callback.
 */

const CALLBACK_DELAY_MS = 200;
const GIVE_UP_AFTER_MS = 800;
const LATE_CALLBACK_MS = 2500;

let simulator: DarajaSimulator;
let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  simulator = await startShopSimulator({
    callbackDelayMs: CALLBACK_DELAY_MS,
    slowAnswerMs: 2500,
    lateCallbackMs: LATE_CALLBACK_MS,
  });
  shop = await startTestShop({
    MPESA_ENV: 'simulator',
    MPESA_SIMULATOR_URL: simulator.url,
    MPESA_HTTP_TIMEOUT_MS: '1000',
    MPESA_RECONCILE_AFTER_MS: '300',
    MPESA_RECONCILE_INTERVAL_MS: '100',
    MPESA_GIVE_UP_AFTER_MS: String(GIVE_UP_AFTER_MS),
    MPESA_PROMPT_COOLDOWN_MS: '0',
    MPESA_RECEIPT_WAIT_MS: '20000',
    RATE_LIMIT_STKPUSH_MAX: '100000',
  });
  admin = await shop.admin();
}, 120_000);
afterAll(async () => {
  await shop?.stop();
  await simulator?.close();
});

/** A shopper with an unpaid order for one unit at `price` (Ksh 501.93 is due as Ksh 502). */
async function shopperWithOrder(price = 420.5) {
  const product = await createProduct(admin, { price, countInStock: 100 });
  const shopper = await shop.shopper('Ledger Payer');
  const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  const order = placed.body as Order;
  return { shopper, order, due: Math.ceil(order.totalPrice) };
}

function pay(client: ApiClient, order: Order, phoneNumber: string) {
  return client.post<{ msg: string }>('/api/orders/stkpush', {
    orderId: order._id,
    phoneNumber,
    Amount: Math.ceil(order.totalPrice),
  });
}

async function status(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  const res = await client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

function waitFor<T>(read: () => Promise<T>, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

async function ledgerOf(orderId: string): Promise<LedgerPayment[]> {
  return (await status(admin, orderId)).payments;
}

async function listLedger(filter: string): Promise<LedgerPayment[]> {
  const res = await admin.get<LedgerPage>(`/api/admin/payments?status=${filter}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.payments;
}

async function paidMails(orderId: string): Promise<string[]> {
  const result = (await shop.database.db.execute(
    sql`SELECT text_body FROM mail_queue WHERE kind = 'order_paid' AND text_body LIKE ${`%${orderId}%`}`,
  )) as unknown as { rows: { text_body: string }[] };
  return result.rows.map((r) => r.text_body);
}

describe('the ledger keeps every payment', () => {
  it('a lost push answer stays unknown, is told honestly, and its callback still pays the order', async () => {
    const { shopper, order } = await shopperWithOrder();
    const res = await pay(shopper, order, '0700000007');
    expectClientError(res, 502, 'The prompt may still reach your phone');
    const afterAnswer = await status(shopper, order._id);
    // Never "failed": the prompt may be on the phone, and the callback is matched by phone and amount.
    expect(['unknown', 'paid']).toContain(afterAnswer.lastAttempt?.status);
    await waitFor(async () => (await status(shopper, order._id)).isPaid).toBe(true);
    const [payment] = await ledgerOf(order._id);
    const issued = simulator.receipts.find((r) => r.phone === '254700000007' && r.amount === Math.ceil(order.totalPrice));
    expect(payment).toMatchObject({ receipt: issued?.receipt, source: 'stk_callback', status: 'credited', exception: null });
    expect((await status(shopper, order._id)).receipt).toBe(issued?.receipt);
  });

  it('a lost push answer whose callback comes after the give-up time still pays the order', async () => {
    const { shopper, order, due } = await shopperWithOrder(377);
    const sentAt = Date.now();
    expectClientError(await pay(shopper, order, '0700000015'), 502, 'The prompt may still reach your phone');
    await waitFor(async () => (await status(shopper, order._id)).isPaid).toBe(true);
    const issued = simulator.receipts.find((r) => r.phone === '254700000015' && r.amount === due);
    // The callback came past the give-up time, carrying a CheckoutRequestID the shop never saw.
    const callback = simulator.deliveries.find((d) => d.checkoutRequestId === issued?.checkoutRequestId);
    expect(callback && callback.at.getTime() - sentAt).toBeGreaterThan(GIVE_UP_AFTER_MS);
    const [payment] = await ledgerOf(order._id);
    expect(payment).toMatchObject({ receipt: issued?.receipt, source: 'stk_callback', status: 'credited', exception: null });
    expect((await status(shopper, order._id)).lastAttempt?.status).toBe('paid');
    expect((await listLedger('unmatched')).map((p) => p.receipt)).not.toContain(issued?.receipt);
  });

  it('a callback two open prompts fit is kept unmatched, then goes to its order once its prompt is known', async () => {
    const earlier = await shopperWithOrder(388);
    const { shopper, order, due } = await shopperWithOrder(388);
    expect(earlier.due).toBe(due);
    // What a shop instance that died mid-push leaves: a prompt from the same phone for the same
    // amount, sent, its answer never stored, given up as unknown.
    await shop.database.db.execute(sql`
      INSERT INTO payment_attempts (order_id, phone, amount, status, result_code, created_at)
      VALUES (${earlier.order._id}, '254700000009', ${due}, 'unknown', 'lost_answer', now() - interval '1 minute')`);
    // Daraja calls back before it answers the push: both prompts fit the callback.
    expect((await pay(shopper, order, '0700000009')).status).toBe(200);
    const issued = simulator.receipts.find((r) => r.phone === '254700000009' && r.amount === due);
    expect(issued).toBeDefined();
    // The callback itself, kept as it came, was recorded as an exception (unmatched), paying nothing.
    const callbacks = (await shop.database.db.execute(
      sql`SELECT outcome FROM mpesa_callbacks WHERE body LIKE ${`%${issued?.receipt}%`}`,
    )) as unknown as { rows: { outcome: string }[] };
    expect(callbacks.rows).toEqual([{ outcome: 'exception' }]);
    // The push's answer named the prompt; its status query puts the payment on its order.
    await waitFor(async () => (await status(shopper, order._id)).isPaid).toBe(true);
    const [payment] = await ledgerOf(order._id);
    expect(payment).toMatchObject({ receipt: issued?.receipt, status: 'credited', exception: null });
    expect((await listLedger('all')).filter((p) => p.receipt === issued?.receipt)).toHaveLength(1);
    expect((await status(shopper, order._id)).receipt).toBe(issued?.receipt);
    expect((await status(admin, earlier.order._id)).isPaid).toBe(false);
    expect((await listLedger('unmatched')).map((p) => p.receipt)).not.toContain(issued?.receipt);
    await waitFor(() => paidMails(order._id)).toHaveLength(1);
  });

  it('a success that comes after the prompt was given up still pays the order', async () => {
    const { shopper, order } = await shopperWithOrder();
    expect((await pay(shopper, order, '0700000008')).status).toBe(200);
    // 1037 first; past the give-up time the prompt is closed as failed.
    await waitFor(async () => (await status(shopper, order._id)).lastAttempt?.status).toBe('failed');
    expect((await status(shopper, order._id)).isPaid).toBe(false);
    await waitFor(async () => (await status(shopper, order._id)).isPaid).toBe(true);
    const [payment] = await ledgerOf(order._id);
    expect(payment).toMatchObject({ status: 'credited', exception: null });
    expect(payment?.receipt).toMatch(/^[A-Z0-9]{10}$/);
  });

  it('a success the status query learns first pays at once, then the callback brings the receipt and the mail', async () => {
    const { shopper, order } = await shopperWithOrder(501.93);
    expect(Math.ceil(order.totalPrice)).not.toBe(order.totalPrice);
    expect((await pay(shopper, order, '0700000011')).status).toBe(200);
    await waitFor(async () => (await status(shopper, order._id)).isPaid).toBe(true);
    const early = await ledgerOf(order._id);
    expect(early).toMatchObject([{ receipt: null, source: 'stk_query', status: 'credited', exception: 'receipt_missing' }]);
    expect((await listLedger('exception')).map((p) => p._id)).toContain(early[0]?._id);
    // No "payment received" without its receipt while the callback may still come.
    expect(await paidMails(order._id)).toEqual([]);

    await waitFor(async () => (await ledgerOf(order._id))[0]?.receipt ?? null).not.toBeNull();
    const [payment] = await ledgerOf(order._id);
    expect(payment).toMatchObject({ status: 'credited', exception: null, source: 'stk_query' });
    expect((await status(shopper, order._id)).receipt).toBe(payment?.receipt);
    await waitFor(() => paidMails(order._id)).toHaveLength(1);
    const [mail] = await paidMails(order._id);
    // What M-Pesa charged, whole shillings, never the total with its cents.
    expect(mail).toMatch(new RegExp(`Amount paid:\\s+Ksh\\. ${Math.ceil(order.totalPrice).toLocaleString('en-KE')}\\.00`));
    expect(mail).not.toContain(order.totalPrice.toFixed(2));
    expect(mail).toContain(payment?.receipt ?? 'no receipt');
    const shown = await status(shopper, order._id);
    expect(shown.amountPaid).toBe(Math.ceil(order.totalPrice));
    expect(shown.payments[0]?.phone).toBe('0700 *** 011');
  });

  it('two paid prompts on one order: the second is a double payment in front of the admin', async () => {
    const { shopper, order } = await shopperWithOrder();
    expect((await pay(shopper, order, '0700000008')).status).toBe(200);
    await waitFor(async () => (await status(shopper, order._id)).lastAttempt?.status).toMatch(/^(timed_out|failed)$/);
    expect((await pay(shopper, order, '0708374149')).status).toBe(200);
    await waitFor(async () => (await ledgerOf(order._id)).length, 20_000).toBe(2);
    const payments = await ledgerOf(order._id);
    expect(payments.map((p) => [p.status, p.exception])).toEqual([
      ['credited', null],
      ['exception', 'double_payment'],
    ]);
    const double = payments[1]!;
    expect((await listLedger('exception')).map((p) => p._id)).toContain(double._id);
    expect((await admin.get<LedgerSummary>('/api/admin/payments/summary')).body.openExceptions).toBeGreaterThan(0);
    const metrics = await (await fetch(`${shop.url}/metrics`)).text();
    expect(metrics).toMatch(/duka_payment_exceptions\{reason="double_payment"\} [1-9]/);

    expectClientError(await admin.post(`/api/admin/payments/${double._id}/resolve`, { note: '  ' }), 400, 'Write a note');
    expectClientError(await shopper.post(`/api/admin/payments/${double._id}/resolve`, { note: 'mine' }), 403);
    const resolved = await admin.post<LedgerPayment>(`/api/admin/payments/${double._id}/resolve`, {
      note: 'Refunded by M-Pesa reversal',
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'resolved', note: 'Refunded by M-Pesa reversal' });
    expectClientError(await admin.post(`/api/admin/payments/${double._id}/resolve`, { note: 'again' }), 409);
    expect((await listLedger('exception')).map((p) => p._id)).not.toContain(double._id);
  });

  it('a payment whose prompt is gone is kept unmatched, and the admin assigns it to an order', async () => {
    const gone = await shopperWithOrder(600);
    const target = await shopperWithOrder(500);
    // The prompt times out and is given up; the admin deletes the unpaid order (it has no payment
    // yet, so it may be), and then the customer's late payment arrives for a prompt that is gone.
    expect((await pay(gone.shopper, gone.order, '0700000008')).status).toBe(200);
    await waitFor(async () => (await status(gone.shopper, gone.order._id)).lastAttempt?.status).toBe('failed');
    expect((await admin.delete(`/api/orders/${gone.order._id}`)).status).toBe(200);
    await waitFor(async () => (await listLedger('unmatched')).filter((p) => p.amount === gone.due).length).toBe(1);
    const unmatched = (await listLedger('unmatched')).find((p) => p.amount === gone.due)!;
    expect(unmatched).toMatchObject({
      orderId: null,
      orderNumber: null,
      status: 'exception',
      exception: 'unmatched',
      phone: '254700000008',
    });

    expectClientError(
      await admin.post(`/api/admin/payments/${unmatched._id}/assign`, { orderId: '00000000-0000-4000-8000-000000000000' }),
      404,
    );
    expectClientError(await admin.post(`/api/admin/payments/${unmatched._id}/assign`, { orderId: 'nope' }), 400);
    const assigned = await admin.post<LedgerPayment>(`/api/admin/payments/${unmatched._id}/assign`, {
      orderId: target.order._id,
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    // It pays the cheaper order; the difference stays open for the merchant to refund.
    expect(assigned.body).toMatchObject({
      status: 'credited',
      exception: 'overpaid',
      orderId: target.order._id,
      orderNumber: target.order.orderNumber,
    });
    // The admin's list names the order by the number its customer knows.
    expect((await listLedger('all')).find((p) => p._id === unmatched._id)?.orderNumber).toBe(target.order.orderNumber);
    expect(await status(target.shopper, target.order._id)).toMatchObject({ isPaid: true, receipt: unmatched.receipt });
    expectClientError(await admin.post(`/api/admin/payments/${unmatched._id}/assign`, { orderId: target.order._id }), 409);
  });

  it('an admin records a payment from the statement; a repeated receipt or a short amount is caught', async () => {
    const { shopper, order, due } = await shopperWithOrder();
    const body = { orderId: order._id, receipt: ' tkl4a7k2qz ', amount: due, phone: '0712 345 678' };
    expectClientError(await shopper.post('/api/admin/payments', body), 403);
    expectClientError(await admin.post('/api/admin/payments', { ...body, receipt: 'short' }), 400, 'receipt');
    expectClientError(await admin.post('/api/admin/payments', { ...body, amount: -5 }), 400);
    const recorded = await admin.post<LedgerPayment>('/api/admin/payments', body);
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    expect(recorded.body).toMatchObject({ receipt: 'TKL4A7K2QZ', source: 'manual', status: 'credited', phone: '254712345678' });
    expect(await status(shopper, order._id)).toMatchObject({ isPaid: true, receipt: 'TKL4A7K2QZ' });
    expectClientError(await admin.post('/api/admin/payments', body), 409, 'already recorded');

    const other = await shopperWithOrder();
    const short = await admin.post<LedgerPayment>('/api/admin/payments', {
      orderId: other.order._id,
      receipt: 'TKL4A7K2QY',
      amount: other.due - 1,
    });
    expect(short.status).toBe(201);
    expect(short.body).toMatchObject({ status: 'exception', exception: 'amount_short' });
    expect((await status(other.shopper, other.order._id)).isPaid).toBe(false);

    // More than is due pays the order, and the difference stays in front of the merchant.
    const generous = await shopperWithOrder();
    const over = await admin.post<LedgerPayment>('/api/admin/payments', {
      orderId: generous.order._id,
      receipt: 'TKL4A7K2QW',
      amount: generous.due + 100,
    });
    expect(over.body).toMatchObject({ status: 'credited', exception: 'overpaid', amount: generous.due + 100 });
    expect(await status(generous.shopper, generous.order._id)).toMatchObject({ isPaid: true, amountPaid: generous.due + 100 });
    expect((await listLedger('exception')).map((p) => p._id)).toContain(over.body._id);
  });

  it('an admin records a payment against the order number the M-Pesa statement shows', async () => {
    const { shopper, order, due } = await shopperWithOrder();
    // Typed from the statement: lower case, a space in the middle.
    const typed = `${order.orderNumber.slice(0, 4).toLowerCase()} ${order.orderNumber.slice(4).toLowerCase()}`;
    const body = { orderNumber: typed, receipt: 'TKL4A7K2QN', amount: due };
    expectClientError(await admin.post('/api/admin/payments', { ...body, orderId: order._id }), 400, 'one of the two');
    expectClientError(await admin.post('/api/admin/payments', { receipt: 'TKL4A7K2QN', amount: due }), 400, 'one of the two');
    expectClientError(await admin.post('/api/admin/payments', { ...body, orderNumber: 'AFK785A0' }), 400, 'like AFK785AQ');
    const unknown = order.orderNumber === 'ZZZZZZZZ' ? 'YYYYYYYY' : 'ZZZZZZZZ';
    expectClientError(
      await admin.post('/api/admin/payments', { ...body, orderNumber: unknown }),
      404,
      `No order has the number ${unknown}`,
    );
    const recorded = await admin.post<LedgerPayment>('/api/admin/payments', body);
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    expect(recorded.body).toMatchObject({ orderId: order._id, orderNumber: order.orderNumber, status: 'credited' });
    expect(await status(shopper, order._id)).toMatchObject({ isPaid: true, receipt: 'TKL4A7K2QN' });
  });

  it('an order with a payment on it cannot be deleted; one without can', async () => {
    const paid = await shopperWithOrder();
    await admin.post('/api/admin/payments', { orderId: paid.order._id, receipt: 'TKL4A7K2QX', amount: paid.due });
    expectClientError(await admin.delete(`/api/orders/${paid.order._id}`), 409, 'cannot be deleted');
    expect(await ledgerOf(paid.order._id)).toHaveLength(1);
    const unpaid = await shopperWithOrder();
    expect((await admin.delete(`/api/orders/${unpaid.order._id}`)).status).toBe(200);
  });

  it('a forged success callback through the secret URL pays nothing: the status query does not confirm it', async () => {
    const { shopper, order, due } = await shopperWithOrder();
    expect((await pay(shopper, order, '0700000001')).status).toBe(200); // the shopper cancels
    await waitFor(async () => (await status(shopper, order._id)).lastAttempt?.status).toBe('failed');
    const [attempt] = (
      (await shop.database.db.execute(
        sql`SELECT checkout_request_id FROM payment_attempts WHERE order_id = ${order._id}`,
      )) as unknown as { rows: { checkout_request_id: string }[] }
    ).rows;
    const forged = {
      Body: {
        stkCallback: {
          MerchantRequestID: '1-1',
          CheckoutRequestID: attempt?.checkout_request_id,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: due },
              { Name: 'MpesaReceiptNumber', Value: 'TFORGED001' },
              { Name: 'TransactionDate', Value: 20261124101010 },
              { Name: 'PhoneNumber', Value: 254700000001 },
            ],
          },
        },
      },
    };
    const res = await fetch(`${shop.url}/api/hooks/daraja/stk/${shop.mpesa.hookSecret('stk')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(forged),
    });
    expect(res.status).toBe(200);
    const kept = (await listLedger('exception')).find((p) => p.receipt === 'TFORGED001');
    expect(kept).toMatchObject({ exception: 'unconfirmed', orderId: null, status: 'exception' });
    expect((await status(shopper, order._id)).isPaid).toBe(false);
  });
});

describe('callbacks are kept as sent', () => {
  it('stores a body exactly as it came, however deeply nested, and one that is not JSON', async () => {
    const url = `${shop.url}/api/hooks/daraja/stk/${shop.mpesa.hookSecret('stk')}`;
    const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const deep = `${'{"a":'.repeat(20_000)}null${'}'.repeat(20_000)}`;
    expect((await post(deep)).status).toBe(200);
    const stored = (await shop.database.db.execute(
      sql`SELECT body, outcome FROM mpesa_callbacks WHERE length(body) = ${deep.length}`,
    )) as unknown as { rows: { body: string; outcome: string }[] };
    expect(stored.rows).toEqual([{ body: deep, outcome: 'not_stk_result' }]);
    // Acknowledged and kept, like any body: an acknowledged callback is never lost.
    const broken = await post('{"Body":');
    expect(broken.status).toBe(200);
    const kept = (await shop.database.db.execute(
      sql`SELECT outcome FROM mpesa_callbacks WHERE body = ${'{"Body":'}`,
    )) as unknown as { rows: { outcome: string }[] };
    expect(kept.rows).toEqual([{ outcome: 'not_stk_result' }]);
  });
});

describe('MPESA_CALLBACK_ALLOWED_IPS', () => {
  it('keeps a callback from another address without acting on it', async () => {
    const guarded = await startTestShop({
      MPESA_ENV: 'simulator',
      MPESA_SIMULATOR_URL: simulator.url,
      MPESA_CALLBACK_ALLOWED_IPS: '196.201.214.200, 196.201.214.206',
      MPESA_RECONCILE_INTERVAL_MS: '3600000',
    });
    try {
      const guardedAdmin = await guarded.admin();
      const product = await createProduct(guardedAdmin, { price: 300, countInStock: 5 });
      const shopper = await guarded.shopper('Guarded');
      const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
      expect((await pay(shopper, order, '0708374149')).status).toBe(200);
      const count = async (outcome: string) =>
        (
          (await guarded.database.db.execute(
            sql`SELECT count(*)::int AS n FROM mpesa_callbacks WHERE outcome = ${outcome}`,
          )) as unknown as { rows: { n: number }[] }
        ).rows[0]?.n;
      await waitFor(() => count('refused_ip')).toBe(1);
      expect((await status(shopper, order._id)).isPaid).toBe(false);
    } finally {
      await guarded.stop();
    }
  }, 90_000); // starts a shop of its own
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPage, LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { startShopSimulator } from '../support/simulator.js';

/**
 * Refunds by M-Pesa Reversal and receipts recovered by Transaction Status, against the Daraja
 * simulator over real HTTP: the shop encrypts its initiator password with the simulator's key, the
 * simulator checks it, moves the simulated money back and POSTs its Results to the shop's URLs.
 * The simulator's payer numbers pick the faults (src/server/mpesa/simulator/outcomes.ts).
 */

const RESULT_WAIT_MS = 1500;
const MAX_ATTEMPTS = 3;
const PHONE = {
  plain: '0708374149',
  queryOnly: '0700000006',
  queueTimeoutOnce: '0700000012',
  noResult: '0700000013',
  insufficientOnce: '0700000014',
};
const SHORTCODE = '174379';

let simulator: DarajaSimulator;
let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  simulator = await startShopSimulator({ callbackDelayMs: 100, resultDelayMs: 100 });
  shop = await startTestShop({
    MPESA_ENV: 'simulator',
    MPESA_SIMULATOR_URL: simulator.url,
    MPESA_RECONCILE_AFTER_MS: '300',
    MPESA_RECONCILE_INTERVAL_MS: '150',
    MPESA_RESULT_WAIT_MS: String(RESULT_WAIT_MS),
    MPESA_REVERSAL_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    MPESA_RECEIPT_LOOKUP_AFTER_MS: '0',
  });
  admin = await shop.admin();
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await simulator?.close();
});

interface Paid {
  shopper: ApiClient;
  order: Order;
  due: number;
  payment: LedgerPayment;
}

async function statusOf(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  const res = await client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** An order paid from `phone`: by Paybill through the simulator, or by STK push. */
async function paidOrder(
  target: TestShop,
  targetAdmin: ApiClient,
  phone: string,
  via: 'paybill' | 'stk' = 'paybill',
): Promise<Paid> {
  const product = await createProduct(targetAdmin, { price: 750, countInStock: 50 });
  const shopper = await target.shopper('Refund Shopper');
  const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
  const due = Math.ceil(order.totalPrice);
  const paid =
    via === 'paybill'
      ? await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: phone })
      : await shopper.post('/api/orders/stkpush', { orderId: order._id, phoneNumber: phone, Amount: due });
  expect([200, 202], JSON.stringify(paid.body)).toContain(paid.status);
  await expect.poll(async () => (await statusOf(shopper, order._id)).isPaid, { timeout: 15_000 }).toBe(true);
  const payment = (await statusOf(targetAdmin, order._id)).payments[0] as LedgerPayment;
  return { shopper, order, due, payment };
}

async function ledgerPaymentOf(client: ApiClient, orderId: string): Promise<LedgerPayment> {
  return (await statusOf(client, orderId)).payments[0] as LedgerPayment;
}

const reversalsOf = (receipt: string | null) => simulator.reversals.filter((r) => r.transactionId === receipt);

describe('refunds by M-Pesa Reversal', () => {
  it('refunds a payment: 202 refund_pending, then refunded; the order is unpaid again and shows how to pay', async () => {
    const { shopper, order, due, payment } = await paidOrder(shop, admin, PHONE.plain);
    expect(payment.receipt).toMatch(/^[A-Z0-9]{10}$/);
    const balanceBefore = simulator.balanceOf(SHORTCODE);

    const res = await admin.post<LedgerPayment>(`/api/admin/payments/${payment._id}/refund`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ _id: payment._id, status: 'refund_pending', receipt: payment.receipt });
    expect(res.body.refund).toMatchObject({ completedAt: null, failureReason: null, failedAt: null });
    expect(Date.parse(res.body.refund?.requestedAt ?? '')).not.toBeNaN();

    await expect.poll(async () => (await ledgerPaymentOf(admin, order._id)).status, { timeout: 15_000 }).toBe('refunded');
    const status = await statusOf(shopper, order._id);
    expect(status).toMatchObject({ isPaid: false, paidAt: null, amountPaid: 0 });
    expect(status.paybill).toEqual({ businessNumber: SHORTCODE, accountNumber: order.orderNumber, amount: due });
    expect(Date.parse(status.refundedAt ?? '')).not.toBeNaN();
    expect(status.payments[0]?.refund?.completedAt).toBe(status.refundedAt);
    // The money really went back, once: the simulated M-Pesa reversed it and its balance fell.
    expect(reversalsOf(payment.receipt).map((r) => r.outcome)).toEqual(['reversed']);
    expect(simulator.balanceOf(SHORTCODE)).toBe(balanceBefore - due);
    // And the order listing agrees.
    const orderNow = await shopper.get<Order>(`/api/orders/${order._id}`);
    expect(orderNow.body).toMatchObject({ isPaid: false });

    // A second refund of the same payment is refused: it can never be sent twice.
    expectClientError(await admin.post(`/api/admin/payments/${payment._id}/refund`), 409, 'already refunded');
    expect(reversalsOf(payment.receipt)).toHaveLength(1);
  });

  it('sends exactly one Reversal for eight refund requests at once', async () => {
    const { order, payment } = await paidOrder(shop, admin, PHONE.plain);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => admin.post<LedgerPayment>(`/api/admin/payments/${payment._id}/refund`)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectClientError(refused, 409, /refund/);
    await expect.poll(async () => (await ledgerPaymentOf(admin, order._id)).status, { timeout: 15_000 }).toBe('refunded');
    expect(reversalsOf(payment.receipt)).toHaveLength(1);
  });

  it('puts a payment back when M-Pesa refuses the reversal, says why, and lets the admin refund again', async () => {
    const { shopper, order, payment } = await paidOrder(shop, admin, PHONE.insufficientOnce);
    expect((await admin.post(`/api/admin/payments/${payment._id}/refund`)).status).toBe(202);
    await expect
      .poll(async () => (await ledgerPaymentOf(admin, order._id)).refund?.failureReason ?? null, { timeout: 15_000 })
      .toMatch(/not enough money in the shop’s M-Pesa account/);
    const failed = await ledgerPaymentOf(admin, order._id);
    expect(failed.status).toBe('credited');
    expect(Date.parse(failed.refund?.failedAt ?? '')).not.toBeNaN();
    expect(failed.refund?.completedAt).toBeNull();
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, refundedAt: null });

    const again = await admin.post<LedgerPayment>(`/api/admin/payments/${payment._id}/refund`);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    // A new request: its own time, no failure yet.
    expect(again.body.refund).toMatchObject({ failureReason: null, failedAt: null, completedAt: null });
    await expect.poll(async () => (await ledgerPaymentOf(admin, order._id)).status, { timeout: 15_000 }).toBe('refunded');
    expect(reversalsOf(payment.receipt).map((r) => r.outcome)).toEqual(['failed', 'reversed']);
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
  });

  it('sends a reversal again after M-Pesa’s queue timeout, and it is refunded', async () => {
    const { order, payment } = await paidOrder(shop, admin, PHONE.queueTimeoutOnce);
    expect((await admin.post(`/api/admin/payments/${payment._id}/refund`)).status).toBe(202);
    await expect.poll(async () => (await ledgerPaymentOf(admin, order._id)).status, { timeout: 20_000 }).toBe('refunded');
    expect(reversalsOf(payment.receipt).map((r) => r.outcome)).toEqual(['queue_timeout', 'reversed']);
    expect(simulator.resultDeliveries.some((d) => d.api === 'reversal' && d.to === 'timeout' && d.status === 200)).toBe(true);
  });

  it('lists a refund that M-Pesa never answers as refund_unanswered, after a bounded number of retries', async () => {
    const { order, payment } = await paidOrder(shop, admin, PHONE.noResult);
    expect((await admin.post(`/api/admin/payments/${payment._id}/refund`)).status).toBe(202);
    await expect
      .poll(async () => (await ledgerPaymentOf(admin, order._id)).exception, { timeout: 30_000 })
      .toBe('refund_unanswered');
    const listed = await admin.get<LedgerPage>('/api/admin/payments?status=exception');
    expect(listed.body.payments.find((p) => p._id === payment._id)).toMatchObject({
      status: 'refund_pending',
      exception: 'refund_unanswered',
    });
    expect(reversalsOf(payment.receipt)).toHaveLength(MAX_ATTEMPTS);
    // Not answered is not failed: no second refund until someone knows where the money is.
    expectClientError(await admin.post(`/api/admin/payments/${payment._id}/refund`), 409);
    expect((await admin.get<{ openExceptions: number }>('/api/admin/payments/summary')).body.openExceptions).toBeGreaterThan(0);
  });

  it('closes an unanswered refund from the statement: the money went back (refunded) or did not (refundable again)', async () => {
    const [wentBack, stayed] = await Promise.all([
      paidOrder(shop, admin, PHONE.noResult),
      paidOrder(shop, admin, PHONE.noResult),
    ]);
    for (const { payment } of [wentBack, stayed]) {
      expect((await admin.post(`/api/admin/payments/${payment._id}/refund`)).status).toBe(202);
    }
    for (const { order } of [wentBack, stayed]) {
      await expect
        .poll(async () => (await ledgerPaymentOf(admin, order._id)).exception, { timeout: 30_000 })
        .toBe('refund_unanswered');
    }
    const resolve = (id: string, body: object) => admin.post<LedgerPayment>(`/api/admin/payments/${id}/resolve`, body);
    // A note alone cannot close it: the merchant must say where the money is.
    expectClientError(await resolve(wentBack.payment._id, { note: 'Checked' }), 400, /refunded true .* or false/);
    expectClientError(await resolve(wentBack.payment._id, { note: 'Checked', refunded: 'yes' }), 400, /true or false/);

    const refunded = await resolve(wentBack.payment._id, { note: 'Reversal on the statement', refunded: true });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'refunded', exception: null, note: 'Reversal on the statement' });
    expect(Date.parse(refunded.body.refund?.completedAt ?? '')).not.toBeNaN();
    expect(await statusOf(wentBack.shopper, wentBack.order._id)).toMatchObject({ isPaid: false, amountPaid: 0 });
    expectClientError(await admin.post(`/api/admin/payments/${wentBack.payment._id}/refund`), 409, 'already refunded');
    // Said once, it cannot be said again.
    expectClientError(await resolve(wentBack.payment._id, { note: 'Again', refunded: false }), 409);

    const notRefunded = await resolve(stayed.payment._id, { note: 'No reversal on the statement', refunded: false });
    expect(notRefunded.status, JSON.stringify(notRefunded.body)).toBe(200);
    expect(notRefunded.body).toMatchObject({ status: 'credited', exception: null, note: 'No reversal on the statement' });
    expect(notRefunded.body.refund?.failureReason).toMatch(/statement shows no reversal/);
    expect(await statusOf(stayed.shopper, stayed.order._id)).toMatchObject({ isPaid: true, refundedAt: null });
    const listed = await admin.get<LedgerPage>('/api/admin/payments?status=exception');
    expect(listed.body.payments.map((p) => p._id)).not.toContain(stayed.payment._id);
    expect(listed.body.payments.map((p) => p._id)).not.toContain(wentBack.payment._id);
    // The refund is no longer open, so the merchant may ask for it again.
    expect((await admin.post(`/api/admin/payments/${stayed.payment._id}/refund`)).status).toBe(202);
  });

  it('refuses to close with refunded a payment whose refund is not unanswered', async () => {
    const { payment } = await paidOrder(shop, admin, PHONE.plain);
    expectClientError(
      await admin.post(`/api/admin/payments/${payment._id}/resolve`, { note: 'x', refunded: true }),
      409,
      /Only an unanswered refund/,
    );
    expect((await ledgerPaymentOf(admin, payment.orderId ?? '')).status).toBe('credited');
  });

  it('answers 404 for an unknown payment, and refuses shoppers', async () => {
    expectClientError(await admin.post('/api/admin/payments/0b6f7c1e-3a52-4d7e-9f1a-2c4b5d6e7f80/refund'), 404);
    const { payment, shopper } = await paidOrder(shop, admin, PHONE.plain);
    expect((await shopper.post(`/api/admin/payments/${payment._id}/refund`)).status).toBe(403);
    const noXsrf = await admin.request('POST', `/api/admin/payments/${payment._id}/refund`, { xsrf: false });
    expect(noXsrf.status).toBe(403);
    expect(reversalsOf(payment.receipt)).toHaveLength(0);
  });
});

describe('receipts recovered by Transaction Status', () => {
  it('fills in the receipt of a payment settled by the status query alone, and clears the exception', async () => {
    const { order } = await paidOrder(shop, admin, PHONE.queryOnly, 'stk');
    await expect
      .poll(async () => (await ledgerPaymentOf(admin, order._id)).receipt, { timeout: 20_000 })
      .toMatch(/^[A-Z0-9]{10}$/);
    const payment = await ledgerPaymentOf(admin, order._id);
    expect(payment).toMatchObject({ source: 'stk_query', status: 'credited', exception: null });
    // The receipt is the one the simulated M-Pesa issued for that prompt.
    expect(simulator.receipts.some((r) => r.receipt === payment.receipt && r.via === 'stk')).toBe(true);
    expect(simulator.resultDeliveries.some((d) => d.api === 'status' && d.status === 200)).toBe(true);
  });
});

describe('without initiator credentials', () => {
  let plain: TestShop;
  let plainAdmin: ApiClient;

  beforeAll(async () => {
    // A sandbox-mode shop (no default initiator) talking to the simulator.
    const port = await freePort();
    plain = await startTestShop({
      MPESA_ENV: 'sandbox',
      MPESA_BASE_URL: simulator.url,
      MPESA_CONSUMER_KEY: 'duka-simulator-key',
      MPESA_CONSUMER_SECRET: 'duka-simulator-secret',
      MPESA_C2B_REGISTER: 'true',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      MPESA_RECONCILE_AFTER_MS: '300',
      MPESA_RECONCILE_INTERVAL_MS: '150',
      MPESA_RECEIPT_LOOKUP_AFTER_MS: '0',
    });
    plainAdmin = await plain.admin();
  }, 60_000);
  afterAll(() => plain?.stop());

  it('refuses a refund with 503 naming the settings, and sends nothing', async () => {
    const { shopper, order, payment } = await paidOrder(plain, plainAdmin, PHONE.plain, 'stk');
    expectClientError(
      await plainAdmin.post(`/api/admin/payments/${payment._id}/refund`),
      503,
      /MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD/,
    );
    expect(reversalsOf(payment.receipt)).toHaveLength(0);
    expect((await statusOf(shopper, order._id)).payments[0]).toMatchObject({ status: 'credited', refund: null });
  });

  it('keeps a missing receipt listed for the admin, and refuses to refund the payment until its receipt is known', async () => {
    const { order } = await paidOrder(plain, plainAdmin, PHONE.queryOnly, 'stk');
    const lookupsBefore = simulator.resultDeliveries.filter((d) => d.api === 'status').length;
    // Several reconciler passes, each of which would look the receipt up if it could.
    for (let pass = 0; pass < 3; pass++) await plain.mpesa.reconcileNow();
    const payment = (await statusOf(plainAdmin, order._id)).payments[0] as LedgerPayment;
    expect(payment).toMatchObject({ receipt: null, exception: 'receipt_missing', status: 'credited' });
    const listed = await plainAdmin.get<LedgerPage>('/api/admin/payments?status=exception');
    expect(listed.body.payments.map((p) => p._id)).toContain(payment._id);
    expect(simulator.resultDeliveries.filter((d) => d.api === 'status')).toHaveLength(lookupsBefore);
    expectClientError(await plainAdmin.post(`/api/admin/payments/${payment._id}/refund`), 409, 'no M-Pesa receipt yet');
  });
});

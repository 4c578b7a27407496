import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import { MAX_CALLBACK_TRIES } from '../../src/server/payments/callbacks.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { readOutbox } from '../support/outbox.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { payByPaybillCommand, startShopSimulator } from '../support/simulator.js';

/**
 * The paths an admin or an attacker really takes with the money, each one a way the shop used to
 * lose it: resolving then refunding, refunding one of two payments, part payments under a prompt,
 * forged reversal and status Results, callbacks that never succeed, and what a shopper is shown.
 * One rule decides every case: an order is paid exactly when the money held for it covers it.
 */

let simulator: DarajaSimulator;
let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  simulator = await startShopSimulator({ callbackDelayMs: 100, resultDelayMs: 100 });
  shop = await startTestShop({
    MPESA_ENV: 'simulator',
    MPESA_SIMULATOR_URL: simulator.url,
    // Prompts are settled by their callbacks here, never by the reconciler's query first.
    MPESA_RECONCILE_AFTER_MS: '10000',
    MPESA_RECONCILE_INTERVAL_MS: '100',
    MPESA_PROMPT_COOLDOWN_MS: '0',
    RATE_LIMIT_STKPUSH_MAX: '100000',
  });
  admin = await shop.admin();
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await simulator?.close();
});

async function unpaidOrder(price: number): Promise<{ shopper: ApiClient; order: Order; due: number }> {
  const product = await createProduct(admin, { price, countInStock: 50 });
  const shopper = await shop.shopper('Money Shopper');
  const placed = await placeOrder(shopper, [{ _id: product._id, qty: 1 }]);
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  const order = placed.body as Order;
  return { shopper, order, due: Math.ceil(order.totalPrice) };
}

async function statusOf(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  const res = await client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 50 });

/** Pays by Paybill from the simulated phone, as a shopper does from the M-Pesa menu, and waits until M-Pesa's word is in. */
async function payByPaybill(order: Order, amount: number): Promise<LedgerPayment> {
  await payByPaybillCommand(simulator.url, { account: order.orderNumber, amount, phone: '0708374149' });
  const issued = simulator.receipts.filter((r) => r.account === order.orderNumber).at(-1);
  expect(issued).toBeDefined();
  let payment: LedgerPayment | undefined;
  await poll(async () => {
    payment = (await statusOf(admin, order._id)).payments.find((p) => p.receipt === issued?.receipt);
    return payment?.detail === null;
  }).toBe(true);
  return payment as LedgerPayment;
}

async function payByPrompt(shopper: ApiClient, order: Order): Promise<void> {
  const res = await shopper.post('/api/orders/stkpush', { orderId: order._id, phoneNumber: '0708374149', Amount: 1 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function refund(payment: LedgerPayment, orderId: string): Promise<void> {
  const res = await admin.post<LedgerPayment>(`/api/admin/payments/${payment._id}/refund`);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await poll(async () => (await statusOf(admin, orderId)).payments.find((p) => p._id === payment._id)?.status).toBe('refunded');
}

describe('one rule: an order is paid exactly when the money held for it covers it', () => {
  it('resolving an overpayment changes nothing; refunding it then unpays the order, and no money is lost', async () => {
    const { shopper, order, due } = await unpaidOrder(2300);
    const overpaid = await payByPaybill(order, due + 100);
    expect(overpaid).toMatchObject({ exception: 'overpaid', status: 'credited' });
    const resolved = await admin.post<LedgerPayment>(`/api/admin/payments/${overpaid._id}/resolve`, { note: 'Kept as credit' });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    // The merchant's decision is recorded; the money still counts.
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, amountPaid: due + 100 });
    await refund(overpaid, order._id);
    // The money went back: the order is not paid by money the shop no longer holds.
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: false, amountPaid: 0 });
    expect((await statusOf(shopper, order._id)).paybill?.amount).toBe(due);
  });

  it('an order paid by prompt and again by Paybill stays paid when the prompt’s payment is refunded', async () => {
    const { shopper, order, due } = await unpaidOrder(1800);
    await payByPrompt(shopper, order);
    await poll(async () => (await statusOf(shopper, order._id)).isPaid).toBe(true);
    const byPrompt = (await statusOf(admin, order._id)).payments[0] as LedgerPayment;
    // A validation would refuse it, but with validation off M-Pesa takes a second payment.
    const byPaybill = await payByPaybill(order, due);
    expect(byPaybill).toMatchObject({ exception: 'double_payment' });
    await refund(byPrompt, order._id);
    // The Paybill money still covers the order: it becomes the payment that pays it.
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, amountPaid: due, receipt: byPaybill.receipt });
    expect((await statusOf(admin, order._id)).payments.find((p) => p._id === byPaybill._id)).toMatchObject({
      status: 'credited',
      exception: null,
    });
  });

  it('after a Paybill part payment the prompt asks for what is still due, and pays the order exactly', async () => {
    const { shopper, order, due } = await unpaidOrder(3000);
    await payByPaybill(order, 1000);
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: false, amountPaid: 1000 });
    expect((await statusOf(shopper, order._id)).paybill?.amount).toBe(due - 1000);
    // The specification's client sends the order's total: the prompt still asks for the rest.
    const res = await shopper.post('/api/orders/stkpush', { orderId: order._id, phoneNumber: '0708374149', Amount: due });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await statusOf(shopper, order._id)).lastAttempt?.amount).toBe(due - 1000);
    await poll(async () => (await statusOf(shopper, order._id)).isPaid).toBe(true);
    const payments = (await statusOf(admin, order._id)).payments;
    expect(payments.map((p) => p.exception)).toEqual([null, null]);
    expect((await statusOf(shopper, order._id)).amountPaid).toBe(due);
  });

  it('a prompt paid on top of a Paybill part payment that came meanwhile is flagged overpaid', async () => {
    const { shopper, order, due } = await unpaidOrder(1200);
    // 0700000006: the simulator takes the money but its callback is late (here: posted below).
    const pushed = await shopper.post<{ checkoutRequestId: string }>('/api/orders/stkpush', {
      orderId: order._id,
      phoneNumber: '0700000006',
      Amount: due,
    });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    expect((await statusOf(shopper, order._id)).lastAttempt?.amount).toBe(due);
    // The part payment lands while the prompt is on the phone.
    await payByPaybill(order, 200);
    const issued = simulator.receipts.find((r) => r.checkoutRequestId === pushed.body.checkoutRequestId);
    expect(issued).toBeDefined();
    const callback = await fetch(`${shop.url}/api/hooks/daraja/stk/${shop.mpesa.hookSecret('stk')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        Body: {
          stkCallback: {
            MerchantRequestID: 'late',
            CheckoutRequestID: pushed.body.checkoutRequestId,
            ResultCode: 0,
            ResultDesc: 'The service request is processed successfully.',
            CallbackMetadata: {
              Item: [
                { Name: 'Amount', Value: due },
                { Name: 'MpesaReceiptNumber', Value: issued?.receipt },
                { Name: 'PhoneNumber', Value: 254700000006 },
              ],
            },
          },
        },
      }),
    });
    expect(callback.status).toBe(200);
    await poll(async () => (await statusOf(shopper, order._id)).isPaid).toBe(true);
    const byPrompt = (await statusOf(admin, order._id)).payments.find((p) => p.receipt === issued?.receipt);
    expect(byPrompt).toMatchObject({ status: 'credited', exception: 'overpaid', amount: due });
    expect((await statusOf(shopper, order._id)).amountPaid).toBe(due + 200);
  });

  it('an admin’s "Mark As Paid" is a manual payment without a receipt, and the order is paid by the same rule', async () => {
    const { shopper, order, due } = await unpaidOrder(900);
    const marked = await admin.put<Order>(`/api/orders/${order._id}`);
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(marked.body.isPaid).toBe(true);
    const [payment] = (await statusOf(admin, order._id)).payments;
    expect(payment).toMatchObject({ source: 'manual', receipt: null, amount: due, status: 'credited', exception: null });
    expectClientError(await admin.put(`/api/orders/${order._id}`), 400, 'Order is already paid');
    expect((await statusOf(shopper, order._id)).isPaid).toBe(true);
  });
});

describe('Results the shop did not ask for change nothing', () => {
  /** Posts a Result to a hook as a forger who knows its secret would. */
  async function postResult(kind: 'rev' | 'ts', subjectId: string, body: unknown) {
    const res = await fetch(`${shop.url}/api/hooks/daraja/${kind}/${shop.mpesa.hookSecret(kind)}/${subjectId}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  }

  it('a reversal Result with another ConversationID is stored and ignored: the payment is not refunded', async () => {
    const { shopper, order } = await unpaidOrder(1500);
    await payByPrompt(shopper, order);
    await poll(async () => (await statusOf(shopper, order._id)).isPaid).toBe(true);
    const [payment] = (await statusOf(admin, order._id)).payments;
    // A refund whose own Result is delayed: the reversal to this number never answers (simulator fault).
    await shop.database.db.execute(sql`
      INSERT INTO mpesa_refunds (payment_id, previous_status, amount_cents, attempts, last_sent_at)
      VALUES (${payment?._id}, 'credited', ${Math.round((payment?.amount ?? 0) * 100)}, 1, now())`);
    await shop.database.db.execute(sql`UPDATE mpesa_payments SET status = 'refund_pending' WHERE id = ${payment?._id}`);
    const [refundRow] = (
      (await shop.database.db.execute(sql`SELECT id FROM mpesa_refunds WHERE payment_id = ${payment?._id}`)) as unknown as {
        rows: { id: string }[];
      }
    ).rows;
    await postResult('rev', refundRow?.id ?? '', {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: 'forged-originator',
        ConversationID: 'AG_FORGED',
        TransactionID: 'TKS8C4YR2N',
        ResultParameters: { ResultParameter: [{ Key: 'OriginalTransactionID', Value: payment?.receipt }] },
      },
    });
    const outcomes = (await shop.database.db.execute(
      sql`SELECT outcome FROM mpesa_callbacks WHERE kind = 'reversal_result' AND subject_id = ${refundRow?.id}`,
    )) as unknown as { rows: { outcome: string | null }[] };
    expect(outcomes.rows).toEqual([{ outcome: 'uncorrelated' }]);
    expect((await statusOf(admin, order._id)).payments[0]?.status).toBe('refund_pending');
    expect((await statusOf(shopper, order._id)).isPaid).toBe(true);
  });

  it('a status Result with another ConversationID does not confirm a Paybill payment', async () => {
    const { shopper, order, due } = await unpaidOrder(1100);
    // An invented receipt: M-Pesa holds nothing, so its own answer refuses it.
    const forged = `TF${Date.now().toString(36).toUpperCase().slice(-8)}`;
    await fetch(`${shop.url}/api/hooks/daraja/c2b/${shop.mpesa.hookSecret('c2b')}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        TransactionType: 'Pay Bill',
        TransID: forged,
        TransTime: '20261125143512',
        TransAmount: String(due),
        BusinessShortCode: '174379',
        BillRefNumber: order.orderNumber,
        MSISDN: '2547 ***** 149',
      }),
    });
    const payment = (await statusOf(admin, order._id)).payments.find((p) => p.receipt === forged);
    expect(payment).toMatchObject({ exception: 'unconfirmed' });
    // The forger answers the shop's Transaction Status themselves, as M-Pesa would for a real receipt.
    await postResult('ts', payment?._id ?? '', {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: 'forged-originator',
        ConversationID: 'AG_FORGED_TS',
        TransactionID: 'TKR0000000',
        ResultParameters: {
          ResultParameter: [
            { Key: 'CreditPartyName', Value: '174379 - Duka Demo Shop' },
            { Key: 'TransactionStatus', Value: 'Completed' },
            { Key: 'Amount', Value: due },
            { Key: 'ReceiptNo', Value: forged },
          ],
        },
      },
    });
    await poll(async () => (await statusOf(admin, order._id)).payments.find((p) => p.receipt === forged)?.detail).toBe(
      'M-Pesa knows no transaction with this receipt.',
    );
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: false, amountPaid: 0 });
  });
});

describe('stored callbacks that keep failing', () => {
  let retrying: TestShop;
  beforeAll(async () => {
    retrying = await startTestShop({
      MPESA_ENV: 'simulator',
      MPESA_SIMULATOR_URL: simulator.url,
      // The backoff starts at this wait and doubles with each try.
      MPESA_RECONCILE_AFTER_MS: '20',
      MPESA_RECONCILE_INTERVAL_MS: '50',
      // The simulator's Paybill confirmations stay with the first shop.
      MPESA_C2B_REGISTER: 'false',
    });
  });
  afterAll(() => retrying?.stop());

  const confirmation = (transId: string, amount: number, account: string) =>
    JSON.stringify({
      TransactionType: 'Pay Bill',
      TransID: transId,
      TransTime: '20261125143512',
      TransAmount: `${amount}.00`,
      BusinessShortCode: '174379',
      BillRefNumber: account,
      MSISDN: '2547 ***** 149',
    });

  it('are retried with backoff, parked after a bounded number of tries, and never hold up the others', async () => {
    const db = retrying.database.db;
    // A fault the database itself raises on every try: ten confirmations whose receipts the
    // ledger refuses, stored before a good one (the reconciler takes ten at a time, oldest first).
    await db.execute(
      sql`ALTER TABLE mpesa_payments ADD CONSTRAINT poison_receipts CHECK (receipt IS NULL OR receipt NOT LIKE 'PZ%')`,
    );
    try {
      for (let i = 0; i < 10; i++) {
        await db.execute(
          sql`INSERT INTO mpesa_callbacks (kind, body, created_at) VALUES ('c2b_confirmation', ${confirmation(`PZ0000000${i}`, 100, 'NOSUCH99')}, now() - interval '1 minute')`,
        );
      }
      const retryAdmin = await retrying.admin();
      const product = await createProduct(retryAdmin, { price: 700, countInStock: 5 });
      const shopper = await retrying.shopper('Retry Shopper');
      const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
      const due = Math.ceil(order.totalPrice);
      const issued = await fetch(`${simulator.url}/__sim/c2b/silent-payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: due }),
      }).then((r) => r.json() as Promise<{ TransID: string }>);
      // A good confirmation stored but not acted on (the shop instance that took it died first).
      await db.execute(
        sql`INSERT INTO mpesa_callbacks (kind, body) VALUES ('c2b_confirmation', ${confirmation(issued.TransID, due, order.orderNumber)})`,
      );
      await poll(async () => (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.isPaid).toBe(true);
      const poisoned = async () =>
        (
          (await db.execute(
            sql`SELECT outcome, attempts FROM mpesa_callbacks WHERE body LIKE '%"PZ0%' ORDER BY attempts`,
          )) as unknown as { rows: { outcome: string | null; attempts: number }[] }
        ).rows;
      await poll(async () => (await poisoned()).filter((row) => row.outcome === 'parked').length).toBe(10);
      expect(new Set((await poisoned()).map((row) => row.attempts))).toEqual(new Set([MAX_CALLBACK_TRIES]));
    } finally {
      await db.execute(sql`ALTER TABLE mpesa_payments DROP CONSTRAINT IF EXISTS poison_receipts`);
    }
  });
});

describe('the shopper sees the shopper’s view', () => {
  it('never shows the merchant’s note or the ledger’s exception codes, in answers or mails', async () => {
    const { shopper, order, due } = await unpaidOrder(1600);
    const overpaid = await payByPaybill(order, due + 50);
    const note = 'Internal: customer is a reseller, keep the 50 as credit';
    expect((await admin.post(`/api/admin/payments/${overpaid._id}/resolve`, { note })).status).toBe(200);
    const mine = await statusOf(shopper, order._id);
    expect(mine.payments[0]).toMatchObject({ note: null, exception: null, detail: null, recordedAmount: null });
    expect(JSON.stringify(mine)).not.toContain('reseller');
    expect(JSON.stringify(mine)).not.toContain('overpaid');
    const theirs = await statusOf(admin, order._id);
    expect(theirs.payments[0]).toMatchObject({ note, exception: 'overpaid' });
    const mails = await readOutbox(shop.config.dataDir);
    const toShopper = mails.filter((mail) => mail.includes(shopper.user?.email ?? '\u0000'));
    expect(toShopper.length).toBeGreaterThan(0);
    for (const mail of toShopper) {
      expect(mail).not.toContain('reseller');
      expect(mail).not.toMatch(/overpaid|double_payment|unconfirmed/);
    }
  });
});

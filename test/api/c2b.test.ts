import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';

/**
 * Lipa na M-Pesa by Paybill and Till (C2B). The test plays Daraja: it posts confirmations and
 * validation requests, shaped as Daraja sends them, to the URLs the shop registers, over real
 * HTTP, with the shop's callback secret in the path.
 */

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await startTestShop({ MPESA_ENV: 'simulator', MPESA_RECONCILE_INTERVAL_MS: '3600000' });
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

const receipt = () => `TK${randomBytes(4).toString('hex').toUpperCase()}`;

/** A Daraja C2B notice, every field a string as Daraja sends them. */
function notice(fields: { TransID: string; TransAmount: string; BillRefNumber: string; BusinessShortCode?: string }) {
  return {
    TransactionType: 'Pay Bill',
    TransTime: '20261125143512',
    BusinessShortCode: '174379',
    InvoiceNumber: '',
    OrgAccountBalance: '',
    ThirdPartyTransID: '',
    MSISDN: '2547 ***** 149',
    FirstName: 'AMINA',
    MiddleName: '',
    LastName: '',
    ...fields,
  };
}

async function post(target: TestShop, path: string, body: unknown, token = target.mpesa.callbackSecret()) {
  const res = await fetch(`${target.url}/api/hooks/daraja/c2b/${token}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { ResultCode: string | number; ResultDesc: string } };
}

async function unpaidOrder(price = 1000): Promise<{ shopper: ApiClient; order: Order; due: number }> {
  const product = await createProduct(admin, { price, countInStock: 20 });
  const shopper = await shop.shopper('Paybill Payer');
  const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
  return { shopper, order, due: Math.ceil(order.totalPrice) };
}

async function statusOf(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  const res = await client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
  expect(res.status).toBe(200);
  return res.body;
}

async function ledgerEntry(transId: string): Promise<LedgerPayment | undefined> {
  const page = await admin.get<{ payments: LedgerPayment[] }>('/api/admin/payments?status=all');
  return page.body.payments.find((p) => p.receipt === transId);
}

describe('Paybill confirmations', () => {
  it('credits the order the account number names, however it was typed, and the order is paid', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const id = receipt();
    const typed = ` ${order.orderNumber.toLowerCase().slice(0, 4)} ${order.orderNumber.toLowerCase().slice(4)} `;
    const answer = await post(shop, 'confirm', notice({ TransID: id, TransAmount: `${due}.00`, BillRefNumber: typed }));
    expect(answer).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: 'Success' } });
    const status = await statusOf(shopper, order._id);
    expect(status).toMatchObject({ isPaid: true, receipt: id, amountPaid: due, paybill: null });
    expect(await ledgerEntry(id)).toMatchObject({
      source: 'c2b',
      orderId: order._id,
      status: 'credited',
      exception: null,
      amount: due,
    });
  });

  it('adds up part payments and pays the order once they cover what is due', async () => {
    const { shopper, order, due } = await unpaidOrder(2000);
    const first = Math.floor(due / 3);
    await post(shop, 'confirm', notice({ TransID: receipt(), TransAmount: String(first), BillRefNumber: order.orderNumber }));
    const partly = await statusOf(shopper, order._id);
    expect(partly).toMatchObject({ isPaid: false, amountPaid: first });
    expect(partly.paybill).toEqual({ businessNumber: '174379', accountNumber: order.orderNumber, amount: due - first });
    const last = receipt();
    await post(shop, 'confirm', notice({ TransID: last, TransAmount: String(due - first), BillRefNumber: order.orderNumber }));
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, receipt: last, amountPaid: due, paybill: null });
  });

  it('pays the order with an overpayment and flags it for a refund', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const id = receipt();
    await post(shop, 'confirm', notice({ TransID: id, TransAmount: String(due + 500), BillRefNumber: order.orderNumber }));
    expect((await statusOf(shopper, order._id)).isPaid).toBe(true);
    expect(await ledgerEntry(id)).toMatchObject({ status: 'credited', exception: 'overpaid', amount: due + 500 });
  });

  it('keeps a payment to an unknown account number as unmatched, for the admin to assign', async () => {
    const id = receipt();
    const answer = await post(shop, 'confirm', notice({ TransID: id, TransAmount: '750', BillRefNumber: 'NOSUCH99' }));
    expect(answer.body.ResultCode).toBe(0);
    expect(await ledgerEntry(id)).toMatchObject({ orderId: null, status: 'exception', exception: 'unmatched', amount: 750 });
    // The admin finds the order and assigns it: 750 covers the Ksh 675 due (500 + 100 delivery + 15 % tax).
    const { shopper, order, due } = await unpaidOrder(500);
    expect(due).toBe(675);
    const entry = await ledgerEntry(id);
    const assigned = await admin.post(`/api/admin/payments/${entry?._id}/assign`, { orderId: order._id });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect((await statusOf(shopper, order._id)).isPaid).toBe(true);
  });

  it('records a confirmation sent twice once', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const id = receipt();
    const body = notice({ TransID: id, TransAmount: String(due), BillRefNumber: order.orderNumber });
    await post(shop, 'confirm', body);
    await post(shop, 'confirm', body);
    const status = await statusOf(shopper, order._id);
    expect(status.payments.filter((p) => p.receipt === id)).toHaveLength(1);
    expect(status.amountPaid).toBe(due);
  });

  it('ignores a confirmation with a wrong secret', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const forged = await post(
      shop,
      'confirm',
      notice({ TransID: receipt(), TransAmount: String(due), BillRefNumber: order.orderNumber }),
      'wrong',
    );
    expect(forged.status).toBe(200);
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
  });
});

describe('Paybill validation (when Safaricom has enabled it for the shortcode)', () => {
  it('accepts an account number that names an order and refuses an unknown one with C2B00012', async () => {
    const { order, due } = await unpaidOrder();
    const known = await post(
      shop,
      'validate',
      notice({ TransID: receipt(), TransAmount: String(due), BillRefNumber: order.orderNumber.toLowerCase() }),
    );
    expect(known).toEqual({ status: 200, body: { ResultCode: '0', ResultDesc: 'Accepted' } });
    const unknown = await post(
      shop,
      'validate',
      notice({ TransID: receipt(), TransAmount: '100', BillRefNumber: 'WRONG-NUMBER' }),
    );
    expect(unknown).toEqual({ status: 200, body: { ResultCode: 'C2B00012', ResultDesc: 'Rejected' } });
    // A validation alone never pays anything: only the confirmation moves money.
    expect((await admin.get<Order>(`/api/orders/${order._id}`)).body.isPaid).toBe(false);
  });
});

describe('a Till shop', () => {
  let till: TestShop;
  beforeAll(async () => {
    till = await startTestShop({ MPESA_ENV: 'simulator', MPESA_TRANSACTION_TYPE: 'till', MPESA_TILL_NUMBER: '5123456' });
  });
  afterAll(() => till?.stop());

  it('shows the till number, accepts till payments at validation and keeps them unmatched', async () => {
    const tillAdmin = await till.admin();
    const product = await createProduct(tillAdmin, { price: 400, countInStock: 5 });
    const shopper = await till.shopper();
    const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
    const due = Math.ceil(order.totalPrice);
    const status = (await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body;
    expect(status.till).toEqual({ tillNumber: '5123456', amount: due });
    expect(status.paybill).toBeUndefined();

    const body = notice({ TransID: receipt(), TransAmount: String(due), BillRefNumber: '', BusinessShortCode: '5123456' });
    expect((await post(till, 'validate', { ...body, TransactionType: 'Buy Goods' })).body.ResultCode).toBe('0');
    await post(till, 'confirm', { ...body, TransactionType: 'Buy Goods' });
    const ledger = await tillAdmin.get<{ payments: LedgerPayment[] }>('/api/admin/payments?status=unmatched');
    expect(ledger.body.payments.find((p) => p.receipt === body.TransID)).toMatchObject({ exception: 'unmatched', amount: due });
  });
});

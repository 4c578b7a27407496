import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { typescriptProcess } from '../support/node-process.js';
import { freePort } from '../support/ports.js';
import { buildTestApp, startTestShop, type TestShop } from '../support/shop.js';
import { payByPaybillCommand } from '../support/simulator.js';

/**
 * Lipa na M-Pesa by Paybill and Till (C2B). The test plays Daraja: it posts confirmations and
 * validation requests, shaped as Daraja sends them, to the URLs the shop registers, over real
 * HTTP, with the shop's callback secret in the path.
 */

let shop: TestShop;
let admin: ApiClient;
/** Where the shop's own simulator listens, for the simulator's CLI. */
let simulatorUrl: string;

beforeAll(async () => {
  const simulatorPort = await freePort();
  simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
  shop = await startTestShop({
    MPESA_ENV: 'simulator',
    MPESA_RECONCILE_INTERVAL_MS: '3600000',
    MPESA_SIMULATOR_PORT: String(simulatorPort),
  });
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

  it('a payment to a mistyped account number is assigned by the order number the admin reads off the statement', async () => {
    const { shopper, order, due } = await unpaidOrder(500);
    const id = receipt();
    // One character off: no such order, so the payment is kept unmatched.
    const mistyped = `${order.orderNumber.slice(0, 7)}${order.orderNumber.endsWith('Z') ? 'Y' : 'Z'}`;
    await post(shop, 'confirm', notice({ TransID: id, TransAmount: String(due), BillRefNumber: mistyped }));
    const entry = await ledgerEntry(id);
    expect(entry).toMatchObject({ orderId: null, exception: 'unmatched' });
    const assign = (body: object) => admin.post<LedgerPayment>(`/api/admin/payments/${entry?._id}/assign`, body);
    expectClientError(await assign({}), 400, 'one of the two');
    expectClientError(await assign({ orderId: order._id, orderNumber: order.orderNumber }), 400, 'one of the two');
    expectClientError(await assign({ orderNumber: mistyped }), 404, `No order has the number ${mistyped}`);
    const assigned = await assign({
      orderNumber: `${order.orderNumber.slice(0, 4)}-${order.orderNumber.slice(4).toLowerCase()}`,
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body).toMatchObject({
      orderId: order._id,
      orderNumber: order.orderNumber,
      status: 'credited',
      exception: null,
    });
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, receipt: id });
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

describe('a demo shop pays by Paybill through its simulator', () => {
  /** The order's payment status, polled until `done` says so (the confirmation comes by HTTP). */
  async function statusOnce(client: ApiClient, orderId: string, done: (status: PaymentStatus) => boolean) {
    let status = await statusOf(client, orderId);
    const settled = async () => {
      status = await statusOf(client, orderId);
      return done(status);
    };
    await expect.poll(settled, { timeout: 10_000 }).toBe(true);
    return status;
  }

  it('registered its C2B URLs at start: the simulated payment is confirmed to the shop and pays the order', async () => {
    const { shopper, order, due } = await unpaidOrder(1250);
    expect((await statusOf(shopper, order._id)).paybillSimulator).toBe(true);
    const sent = await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: '0712345678' });
    expect(sent).toMatchObject({
      status: 202,
      body: { msg: `Paybill payment of ${formatKsh(due)} sent from the simulated phone` },
    });
    const paid = await statusOnce(shopper, order._id, (status) => status.isPaid);
    expect(paid).toMatchObject({ isPaid: true, amountPaid: due, paybill: null, paybillSimulator: false });
    expect(paid.receipt).toMatch(/^[A-Z][A-Z0-9]{9}$/);
    expect(await ledgerEntry(paid.receipt ?? '')).toMatchObject({ source: 'c2b', status: 'credited', amount: due });
  });

  it('pays once when M-Pesa confirms the same payment twice', async () => {
    const { shopper, order, due } = await unpaidOrder(800);
    // 0700000005 is the simulator's "confirmation sent twice".
    expect((await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: '0700000005' })).status).toBe(202);
    const paid = await statusOnce(shopper, order._id, (status) => status.isPaid);
    // Whenever the simulator's second copy lands, one more copy now changes nothing either.
    const copy = notice({ TransID: paid.receipt ?? '', TransAmount: `${due}.00`, BillRefNumber: order.orderNumber });
    expect((await post(shop, 'confirm', copy)).status).toBe(200);
    const ledger = await admin.get<{ payments: LedgerPayment[] }>('/api/admin/payments?status=all');
    expect(ledger.body.payments.filter((p) => p.receipt === paid.receipt)).toHaveLength(1);
    expect((await statusOf(shopper, order._id)).amountPaid).toBe(due);
  });

  it("pays from the simulator's command line, as the README shows, with the order number as the account", async () => {
    const { shopper, order, due } = await unpaidOrder(640);
    const printed = await payByPaybillCommand(simulatorUrl, {
      account: order.orderNumber.toLowerCase(),
      amount: due,
      phone: '0712345678',
    });
    expect(printed).toContain(`Paid Ksh ${due} from 254712345678 to Paybill 174379, account ${order.orderNumber.toLowerCase()}`);
    const paid = await statusOnce(shopper, order._id, (status) => status.isPaid);
    expect(paid).toMatchObject({ isPaid: true, amountPaid: due });
    // A bad amount is refused before anything is paid.
    const refused = await promisify(execFile)(
      process.execPath,
      typescriptProcess('src/server/mpesa/simulator/cli.ts', 'pay', '--url', simulatorUrl, '--account', 'X', '--amount', '12.50'),
    ).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('--amount must be whole shillings') });
  });

  it('answers 502 with what to do, not 500, when the simulator does not answer', async () => {
    const unreachable = await buildTestApp({
      MPESA_ENV: 'simulator',
      MPESA_RECONCILE_INTERVAL_MS: '3600000',
      // A port nothing listens on: the shop shares a simulator that is not running.
      MPESA_SIMULATOR_URL: `http://127.0.0.1:${await freePort()}`,
    });
    try {
      const product = await createProduct(await unreachable.admin(), { price: 500, countInStock: 5 });
      const shopper = await unreachable.shopper('Offline Simulator');
      const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
      const sent = await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: '0712345678' });
      expectClientError(sent, 502, /simulator did not answer.*try again/);
      expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
    } finally {
      await unreachable.stop();
    }
  });

  it('refuses a paid order, a bad phone and another shopper, and places no payment', async () => {
    const { shopper, order } = await unpaidOrder(300);
    expectClientError(
      await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: '12345' }),
      400,
      /Enter a Safaricom number/,
    );
    const stranger = await shop.shopper('Stranger');
    expectClientError(await stranger.post(`/api/orders/${order._id}/simulate-paybill`, {}), 404);
    expectClientError(await shop.client().post(`/api/orders/${order._id}/simulate-paybill`, {}), 401);
    expect(await shopper.put(`/api/orders/${order._id}`).then((r) => r.status)).toBe(403);
    await admin.put(`/api/orders/${order._id}`);
    expectClientError(await shopper.post(`/api/orders/${order._id}/simulate-paybill`, {}), 400, 'This order is already paid');
    expect((await statusOf(shopper, order._id)).payments).toEqual([]);
  });

  it('is not offered by a shop that talks to Safaricom', async () => {
    const live = await startTestShop({
      MPESA_ENV: 'sandbox',
      MPESA_BASE_URL: 'http://127.0.0.1:9',
      MPESA_CONSUMER_KEY: 'unused-key',
      MPESA_CONSUMER_SECRET: 'unused-secret',
    });
    try {
      const liveAdmin = await live.admin();
      const product = await createProduct(liveAdmin, { price: 100, countInStock: 2 });
      const shopper = await live.shopper();
      const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }])).body as Order;
      expect((await shopper.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body.paybillSimulator).toBe(false);
      expectClientError(
        await shopper.post(`/api/orders/${order._id}/simulate-paybill`, {}),
        404,
        'Paybill payments are simulated only in a demo shop (MPESA_ENV=simulator)',
      );
    } finally {
      await live.stop();
    }
  });
});

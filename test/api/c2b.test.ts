import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWAITING_CONFIRMATION } from '../../src/server/domain/payments/ledger.js';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, expectClientError, placeOrder } from '../support/fixtures.js';
import { typescriptProcess } from '../support/node-process.js';
import { waitForMailAbout } from '../support/outbox.js';
import { freePort } from '../support/ports.js';
import { buildTestApp, startTestShop, type TestShop } from '../support/shop.js';
import { payByPaybillCommand } from '../support/simulator.js';

/**
 * Lipa na M-Pesa by Paybill and Till (C2B). The test plays Daraja: it posts confirmations and
 * validation requests, shaped as Daraja sends them, to the URLs the shop registers, over real
 * HTTP, with the secret of C2B calls in the path.
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

/** A receipt M-Pesa never issued: what a forger invents. */
const inventedReceipt = () => `TK${randomBytes(4).toString('hex').toUpperCase()}`;

/**
 * M-Pesa takes a Paybill payment and tells nobody yet (the simulator's test control): the test
 * then posts the confirmation itself, so that the shop's Transaction Status finds real money.
 */
async function mpesaHolds(amount: number, options: { shortcode?: string; url?: string } = {}): Promise<string> {
  const res = await fetch(`${options.url ?? simulatorUrl}/__sim/c2b/silent-payment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount, shortcode: options.shortcode ?? '174379' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { TransID: string }).TransID;
}

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

async function post(target: TestShop, path: string, body: unknown, token = target.mpesa.hookSecret('c2b')) {
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

async function ledgerEntry(transId: string, target: ApiClient = admin): Promise<LedgerPayment | undefined> {
  const page = await target.get<{ payments: LedgerPayment[] }>('/api/admin/payments?status=all');
  return page.body.payments.find((p) => p.receipt === transId);
}

/** The ledger's entry for a receipt once M-Pesa's Transaction Status has been heard (it comes by HTTP). */
async function settledEntry(transId: string, target: ApiClient = admin): Promise<LedgerPayment> {
  let entry: LedgerPayment | undefined;
  await expect
    .poll(
      async () => {
        entry = await ledgerEntry(transId, target);
        return entry !== undefined && entry.detail !== AWAITING_CONFIRMATION;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return entry as LedgerPayment;
}

describe('Paybill confirmations', () => {
  it('credits the order the account number names, however it was typed, once M-Pesa confirms the receipt', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const id = await mpesaHolds(due);
    const typed = ` ${order.orderNumber.toLowerCase().slice(0, 4)} ${order.orderNumber.toLowerCase().slice(4)} `;
    const answer = await post(shop, 'confirm', notice({ TransID: id, TransAmount: `${due}.00`, BillRefNumber: typed }));
    expect(answer).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: 'Success' } });
    // Until M-Pesa's Transaction Status answers, the payment is in the ledger and pays nothing.
    const waiting = await ledgerEntry(id);
    if (waiting?.detail === AWAITING_CONFIRMATION) {
      expect(waiting).toMatchObject({ exception: 'unconfirmed', orderId: order._id });
      expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
    }
    expect(await settledEntry(id)).toMatchObject({
      source: 'c2b',
      orderId: order._id,
      status: 'credited',
      exception: null,
      amount: due,
    });
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, receipt: id, amountPaid: due, paybill: null });
  });

  it('never credits a forged confirmation: an invented receipt stays unconfirmed and pays nothing', async () => {
    const { shopper, order, due } = await unpaidOrder(21_000);
    const forged = inventedReceipt();
    await post(shop, 'confirm', notice({ TransID: forged, TransAmount: String(due), BillRefNumber: order.orderNumber }));
    const entry = await settledEntry(forged);
    expect(entry).toMatchObject({ status: 'exception', exception: 'unconfirmed', orderId: order._id, amount: due });
    expect(entry.detail).toBe('M-Pesa knows no transaction with this receipt.');
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: false, amountPaid: 0 });
    // Nothing M-Pesa did not confirm is sent back either.
    expectClientError(await admin.post(`/api/admin/payments/${entry._id}/refund`, {}), 409, /not confirmed/);
  });

  it('never credits a confirmation naming another shortcode, even for a real receipt', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const elsewhere = await mpesaHolds(due, { shortcode: '600999' });
    await post(
      shop,
      'confirm',
      notice({ TransID: elsewhere, TransAmount: String(due), BillRefNumber: order.orderNumber, BusinessShortCode: '600999' }),
    );
    const entry = await ledgerEntry(elsewhere);
    expect(entry).toMatchObject({ exception: 'other_shortcode', status: 'exception' });
    expect(entry?.detail).toContain('600999');
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
    // Nor does an admin make it count: it is not the shop's money to assign or refund.
    expectClientError(await admin.post(`/api/admin/payments/${entry?._id}/assign`, { orderId: order._id }), 409);
    expectClientError(await admin.post(`/api/admin/payments/${entry?._id}/refund`, {}), 409);
  });

  it('never credits a real receipt whose confirmation claims more than M-Pesa holds', async () => {
    const { shopper, order, due } = await unpaidOrder(3000);
    const small = await mpesaHolds(10);
    await post(shop, 'confirm', notice({ TransID: small, TransAmount: String(due), BillRefNumber: order.orderNumber }));
    const entry = await settledEntry(small);
    // The ledger keeps what M-Pesa holds, not what the confirmation claimed.
    expect(entry).toMatchObject({ exception: 'unconfirmed', amount: 10 });
    expect(entry.detail).toBe(`M-Pesa says Ksh 10 was paid; the confirmation said Ksh ${due}.`);
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
    // An admin who finds the receipt on the statement and assigns it puts M-Pesa's Ksh 10 on the order.
    expect((await admin.post(`/api/admin/payments/${entry._id}/assign`, { orderId: order._id })).status).toBe(200);
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: false, amountPaid: 10 });
  });

  it('reads TransAmount as M-Pesa may write it: "1,500.00" and " 1500 "', async () => {
    const { shopper, order } = await unpaidOrder(2700);
    const first = await mpesaHolds(1500);
    await post(shop, 'confirm', notice({ TransID: first, TransAmount: '1,500.00', BillRefNumber: order.orderNumber }));
    expect(await settledEntry(first)).toMatchObject({ amount: 1500, status: 'credited', exception: null });
    const second = await mpesaHolds(1500);
    await post(shop, 'confirm', notice({ TransID: second, TransAmount: ' 1500 ', BillRefNumber: order.orderNumber }));
    expect(await settledEntry(second)).toMatchObject({ amount: 1500 });
    expect(await statusOf(shopper, order._id)).toMatchObject({ amountPaid: 3000 });
  });

  it('keeps a zero, negative or unreadable amount in the ledger with its raw text, paying nothing, and alerts the merchant', async () => {
    const { shopper, order } = await unpaidOrder();
    expect((await admin.put('/api/admin/settings', { alertEmail: 'owner@example.com' })).status).toBe(200);
    const ids: string[] = [];
    for (const written of ['0', '-500', 'abc']) {
      const id = inventedReceipt();
      ids.push(id);
      const answer = await post(shop, 'confirm', notice({ TransID: id, TransAmount: written, BillRefNumber: order.orderNumber }));
      expect(answer.status).toBe(200);
      const entry = await ledgerEntry(id);
      expect(entry).toMatchObject({ exception: 'bad_amount', status: 'exception', amount: 0, orderId: order._id });
      expect(entry?.detail).toContain(JSON.stringify(written));
    }
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
    const alert = await waitForMailAbout(
      shop.config.dataDir,
      'owner@example.com',
      new RegExp(`Payment needs attention.*${ids[2]}`),
    );
    expect(alert).toContain('could not be read');
    expect((await admin.put('/api/admin/settings', { alertEmail: '' })).status).toBe(200);
  });

  it('adds up part payments and pays the order once they cover what is due', async () => {
    const { shopper, order, due } = await unpaidOrder(2000);
    const first = Math.floor(due / 3);
    const firstId = await mpesaHolds(first);
    await post(shop, 'confirm', notice({ TransID: firstId, TransAmount: String(first), BillRefNumber: order.orderNumber }));
    await settledEntry(firstId);
    const partly = await statusOf(shopper, order._id);
    expect(partly).toMatchObject({ isPaid: false, amountPaid: first });
    expect(partly.paybill).toEqual({ businessNumber: '174379', accountNumber: order.orderNumber, amount: due - first });
    const last = await mpesaHolds(due - first);
    await post(shop, 'confirm', notice({ TransID: last, TransAmount: String(due - first), BillRefNumber: order.orderNumber }));
    await settledEntry(last);
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, amountPaid: due, paybill: null });
  });

  it('pays the order with an overpayment and flags it for a refund', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const id = await mpesaHolds(due + 500);
    await post(shop, 'confirm', notice({ TransID: id, TransAmount: String(due + 500), BillRefNumber: order.orderNumber }));
    expect(await settledEntry(id)).toMatchObject({ status: 'credited', exception: 'overpaid', amount: due + 500 });
    expect((await statusOf(shopper, order._id)).isPaid).toBe(true);
  });

  it('a payment to a mistyped account number is assigned by the order number the admin reads off the statement', async () => {
    const { shopper, order, due } = await unpaidOrder(500);
    const id = await mpesaHolds(due);
    // One character off: no such order, so the payment is kept unmatched.
    const mistyped = `${order.orderNumber.slice(0, 7)}${order.orderNumber.endsWith('Z') ? 'Y' : 'Z'}`;
    await post(shop, 'confirm', notice({ TransID: id, TransAmount: String(due), BillRefNumber: mistyped }));
    const entry = await settledEntry(id);
    expect(entry).toMatchObject({ orderId: null, exception: 'unmatched' });
    const assign = (body: object) => admin.post<LedgerPayment>(`/api/admin/payments/${entry._id}/assign`, body);
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
    const id = await mpesaHolds(750);
    const answer = await post(shop, 'confirm', notice({ TransID: id, TransAmount: '750', BillRefNumber: 'NOSUCH99' }));
    expect(answer.body.ResultCode).toBe(0);
    expect(await settledEntry(id)).toMatchObject({ orderId: null, status: 'exception', exception: 'unmatched', amount: 750 });
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
    const id = await mpesaHolds(due);
    const body = notice({ TransID: id, TransAmount: String(due), BillRefNumber: order.orderNumber });
    await post(shop, 'confirm', body);
    await post(shop, 'confirm', body);
    await settledEntry(id);
    const status = await statusOf(shopper, order._id);
    expect(status.payments.filter((p) => p.receipt === id)).toHaveLength(1);
    expect(status.amountPaid).toBe(due);
  });

  it('compares an admin’s record with M-Pesa’s word: M-Pesa’s amount wins, both are shown, a refund asks for M-Pesa’s', async () => {
    const { shopper, order, due } = await unpaidOrder(3000);
    const id = await mpesaHolds(due);
    // The admin mistypes the amount from the statement: a part payment, by their record.
    const recorded = await admin.post<LedgerPayment>('/api/admin/payments', {
      receipt: id,
      amount: due - 300,
      orderNumber: order.orderNumber,
    });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
    // M-Pesa's own confirmation follows: it is not a duplicate to ignore.
    await post(shop, 'confirm', notice({ TransID: id, TransAmount: String(due), BillRefNumber: order.orderNumber }));
    const entry = await settledEntry(id);
    expect(entry).toMatchObject({ amount: due, recordedAmount: due - 300, exception: 'amount_mismatch', source: 'manual' });
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: true, amountPaid: due });
    // A refund asks M-Pesa for what M-Pesa holds: the simulator reverses only a transaction's whole
    // amount, so the admin's figure would be refused.
    expect((await admin.post(`/api/admin/payments/${entry._id}/refund`, {})).status).toBe(202);
    await expect.poll(async () => (await ledgerEntry(id))?.status, { timeout: 10_000 }).toBe('refunded');
    expect(await statusOf(shopper, order._id)).toMatchObject({ isPaid: false, amountPaid: 0 });
  });

  it('ignores a confirmation with a wrong secret', async () => {
    const { shopper, order, due } = await unpaidOrder();
    const forged = await post(
      shop,
      'confirm',
      notice({ TransID: inventedReceipt(), TransAmount: String(due), BillRefNumber: order.orderNumber }),
      'wrong',
    );
    expect(forged.status).toBe(200);
    expect((await statusOf(shopper, order._id)).isPaid).toBe(false);
  });
});

describe('Paybill validation (when Safaricom has enabled it for the shortcode)', () => {
  it('accepts what an order still needs, part payments included, and refuses unknown accounts with C2B00012', async () => {
    const { order, due } = await unpaidOrder();
    const validate = (amount: string, account: string) =>
      post(shop, 'validate', notice({ TransID: inventedReceipt(), TransAmount: amount, BillRefNumber: account }));
    expect(await validate(String(due), order.orderNumber.toLowerCase())).toEqual({
      status: 200,
      body: { ResultCode: '0', ResultDesc: 'Accepted' },
    });
    expect((await validate('100', order.orderNumber)).body.ResultCode).toBe('0');
    expect((await validate(String(due + 1), order.orderNumber)).body.ResultCode).toBe('C2B00013');
    expect((await validate('0', order.orderNumber)).body.ResultCode).toBe('C2B00013');
    expect(await validate('100', 'WRONG-NUMBER')).toEqual({
      status: 200,
      body: { ResultCode: 'C2B00012', ResultDesc: 'Rejected' },
    });
    // A validation alone never pays anything: only the confirmation moves money.
    expect((await admin.get<Order>(`/api/orders/${order._id}`)).body.isPaid).toBe(false);
  });

  it('refuses a payment for an order already paid', async () => {
    const { order, due } = await unpaidOrder();
    expect((await admin.put(`/api/orders/${order._id}`)).status).toBe(200);
    const answer = await post(
      shop,
      'validate',
      notice({ TransID: inventedReceipt(), TransAmount: String(due), BillRefNumber: order.orderNumber }),
    );
    expect(answer.body).toEqual({ ResultCode: 'C2B00016', ResultDesc: 'Rejected' });
  });
});

describe('a Till shop', () => {
  let till: TestShop;
  let tillSimulatorUrl: string;
  beforeAll(async () => {
    tillSimulatorUrl = `http://127.0.0.1:${await freePort()}`;
    till = await startTestShop({
      MPESA_ENV: 'simulator',
      MPESA_TRANSACTION_TYPE: 'till',
      MPESA_TILL_NUMBER: '5123456',
      MPESA_SIMULATOR_PORT: new URL(tillSimulatorUrl).port,
    });
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

    const transId = await mpesaHolds(due, { shortcode: '5123456', url: tillSimulatorUrl });
    const body = notice({ TransID: transId, TransAmount: String(due), BillRefNumber: '', BusinessShortCode: '5123456' });
    expect((await post(till, 'validate', { ...body, TransactionType: 'Buy Goods' })).body.ResultCode).toBe('0');
    await post(till, 'confirm', { ...body, TransactionType: 'Buy Goods' });
    expect(await settledEntry(transId, tillAdmin)).toMatchObject({ exception: 'unmatched', amount: due });
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
    // The admin's "Mark As Paid" is the one payment: manual, without a receipt.
    expect((await statusOf(shopper, order._id)).payments).toMatchObject([{ source: 'manual', receipt: null }]);
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

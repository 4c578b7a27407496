import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import { webDistDir } from '../../src/server/paths.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerFilter, LedgerPage, LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { Product } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';
import { startShopSimulator } from '../support/simulator.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  DESKTOP,
  newVisitor,
  PHONE,
  screenshotBoth,
  sharedBrowser,
  signIn,
  signInDirectly,
} from './support/browser.js';

/**
 * The merchant's side of the M-Pesa ledger (issue 14), in the browser: a real double payment and a
 * real unmatched payment, produced through the shop's Daraja simulator, handled by an admin on
 * /admin/payments. The simulator is started here so its timings suit the faults it plays:
 * - 0700000008: the prompt first reports 1037 (timed out), then the customer pays after all and the
 *   success callback comes `lateCallbackMs` later;
 * - 0700000007: Daraja holds its answer to the push for `slowAnswerMs`, past the shop's
 *   MPESA_HTTP_TIMEOUT_MS, while the prompt goes on and is paid `callbackDelayMs` after the push;
 * - 0708374149: paid, callback once.
 */
const SIMULATOR = { callbackDelayMs: 4000, lateCallbackMs: 4000, slowAnswerMs: 6000 };
/**
 * The shop gives up on a Daraja request after this long (the lost answer of 0700000007), 2.5 s
 * before that prompt's callback, in which the test deletes the order. Every other call must answer within it: 500 ms was too short for
 * the simulator on a loaded 2-core machine, and a push or a simulated Paybill payment failed.
 */
const HTTP_TIMEOUT_MS = 1500;
/**
 * How long a simulated payment or refund may take to settle: a Paybill payment is confirmed by a
 * Transaction Status round trip, and CI once took over 20 s for it with four test files beside.
 */
const SETTLED_WITHIN_MS = 45_000;
/** Each case waits for several simulated prompts and callbacks, more than the default 30 s allows on a busy machine. */
const CASE_TIMEOUT_MS = 150_000;
/** How long the browser may take to show what is expected, on a machine shared with other work. */
const SHOWN = { timeout: 10_000 };

const DOUBLE_PAYMENT_REASON = 'Paid twice: this order was already paid. Refund or keep as credit.';
const UNMATCHED_REASON = 'No order matched this payment. Assign it to an order.';

let simulator: DarajaSimulator;
let shop: TestShop;
let browser: Browser;
let admin: ApiClient;
let product: Product;

beforeAll(async () => {
  simulator = await startShopSimulator({
    ...SIMULATOR,
  });
  [shop, browser] = await Promise.all([
    startTestShop({
      WEB_DIR: webDistDir,
      MPESA_SIMULATOR_URL: simulator.url,
      MPESA_HTTP_TIMEOUT_MS: String(HTTP_TIMEOUT_MS),
      // A second prompt is allowed at once after a 1037, as M-Pesa allows it.
      MPESA_PROMPT_COOLDOWN_MS: '0',
      MPESA_RECONCILE_AFTER_MS: '1000',
      MPESA_RECONCILE_INTERVAL_MS: '300',
      // A Reversal with no Result is given up on after one request and a second: the unanswered refund.
      MPESA_RESULT_WAIT_MS: '1000',
      MPESA_REVERSAL_MAX_ATTEMPTS: '1',
    }),
    sharedBrowser(),
  ]);
  admin = await shop.admin();
  // 850.55 a unit: one costs Ksh 1,079 through M-Pesa, two Ksh 2,057 (shipping, 15% tax, rounded up).
  product = await createProduct(admin, { name: 'Sufuria Set', price: 850.55, countInStock: 100 });
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
  await simulator?.close();
});

const due = (order: Order) => Math.ceil(order.totalPrice);

async function orderOf(shopper: ApiClient, qty: number): Promise<Order> {
  const placed = await placeOrder(shopper, [{ _id: product._id, qty }]);
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  return placed.body as Order;
}

function pay(shopper: ApiClient, order: Order, phoneNumber: string) {
  return shopper.post<{ msg: string }>('/api/orders/stkpush', { orderId: order._id, phoneNumber, Amount: due(order) });
}

async function paymentStatus(client: ApiClient, orderId: string): Promise<PaymentStatus> {
  const res = await client.get<PaymentStatus>(`/api/orders/${orderId}/payment`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function ledger(status: LedgerFilter): Promise<LedgerPayment[]> {
  const res = await admin.get<LedgerPage>(`/api/admin/payments?status=${status}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.payments;
}

/** The receipts the simulated M-Pesa issued to one phone: money that moved. */
const receiptsOf = (msisdn: string) => simulator.receipts.filter((r) => r.phone === msisdn).map((r) => r.receipt);

/** The ledger card of one payment, found by its receipt. */
const cardOf = (page: Page, receipt: string): Locator => page.getByTestId('ledger-payment').filter({ hasText: receipt });

/**
 * At 360 px: nothing scrolls sideways, and no card (or list item) is wider than the screen or has
 * content wider than itself.
 */
async function expectPhoneLayout(page: Page, what: string, boxes = '[data-testid="ledger-payment"], .list-group-item') {
  const original = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(PHONE);
  // One frame after the resize, so the layout measured is the phone's.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const layout = await page.evaluate((selector) => {
    const overflowing = [...document.querySelectorAll<HTMLElement>(selector)]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth || el.scrollWidth > el.clientWidth)
      .map(
        (el) => `${el.className}: right ${Math.round(el.getBoundingClientRect().right)}, ${el.scrollWidth} > ${el.clientWidth}`,
      );
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      boxes: document.querySelectorAll(selector).length,
      overflowing,
    };
  }, boxes);
  expect(layout.boxes, `${what}: nothing to measure`).toBeGreaterThan(0);
  expect(layout.scrollWidth, `${what} scrolls sideways at 360 px`).toBeLessThanOrEqual(layout.innerWidth);
  expect(layout.overflowing, `${what}: boxes wider than the screen or their content`).toEqual([]);
  await page.setViewportSize(original);
}

describe('an admin deals with M-Pesa payment exceptions on /admin/payments', () => {
  it('sees a double payment in the menu and the Exceptions list, resolves it with a note, and the order lists both payments', {
    timeout: CASE_TIMEOUT_MS,
  }, async () => {
    // A shopper's first prompt times out (1037), so they pay again with another phone; then the
    // first prompt is paid after all. Both payments are real: the order was paid twice.
    const shopper = await shop.shopper('Wanjiru Mara Mbili');
    const order = await orderOf(shopper, 1);
    const first = await pay(shopper, order, '0700000008');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await expect
      .poll(async () => (await paymentStatus(shopper, order._id)).lastAttempt?.status, { timeout: SETTLED_WITHIN_MS })
      .toBe('timed_out');
    const second = await pay(shopper, order, '0708374149');
    expect(second.status, JSON.stringify(second.body)).toBe(200);

    // Both land in the ledger with their receipts: whichever came first pays the order, the
    // other is a double payment.
    await expect
      .poll(
        async () => {
          const { payments } = await paymentStatus(admin, order._id);
          return payments.map((p) => `${p.status} ${p.exception} ${p.receipt === null ? 'no receipt' : 'receipt'}`).sort();
        },
        { timeout: SETTLED_WITHIN_MS, interval: 200 },
      )
      .toEqual(['credited null receipt', 'exception double_payment receipt']);
    const { payments, isPaid } = await paymentStatus(admin, order._id);
    expect(isPaid).toBe(true);
    // Every receipt the simulator issued for these prompts is in the ledger, once.
    const issued = [...receiptsOf('254700000008'), ...receiptsOf('254708374149')].sort();
    expect(payments.map((p) => p.receipt).sort()).toEqual(issued);
    const double = payments.find((p) => p.exception === 'double_payment')!;
    const credited = payments.find((p) => p.status === 'credited')!;
    expect(double.amount).toBe(due(order));
    expect((await ledger('exception')).map((p) => p._id)).toEqual([double._id]);

    // The admin signs in and sees one open exception on the Payments menu item.
    const { page, problems, context } = await newVisitor(browser, shop);
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Shop Admin' }).click();
    const menuItem = page.getByRole('link', { name: /^Payments/ });
    await expect.poll(() => menuItem.locator('.badge').textContent(), SHOWN).toBe('1 open exception');
    expect(await menuItem.locator('.badge').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Payments 1 open exception', exact: true }).count()).toBe(1);
    await menuItem.click();
    await page.waitForURL((url) => url.pathname === '/admin/payments');
    await expect.poll(() => page.getByRole('heading', { name: 'Payments', level: 1 }).isVisible(), SHOWN).toBe(true);
    // All payments: both receipts of the order.
    await expect.poll(() => cardOf(page, double.receipt!).count(), SHOWN).toBe(1);
    expect(await cardOf(page, credited.receipt!).count()).toBe(1);
    // On a desktop the manual-entry form is open above the ledger.
    expect(await page.getByRole('form', { name: 'Record M-Pesa payment' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Record a payment from the statement' }).isVisible()).toBe(false);

    await page.getByRole('link', { name: 'Exceptions' }).click();
    await page.waitForURL((url) => url.searchParams.get('status') === 'exception');
    const busy = page.locator('[aria-busy="true"]');
    await expect
      .poll(async () => (await busy.count()) === 0 && (await page.getByTestId('ledger-payment').count()), SHOWN)
      .toBe(1);
    const card = cardOf(page, double.receipt!);
    expect(await card.getByText(DOUBLE_PAYMENT_REASON).isVisible()).toBe(true);
    expect(await card.getByText('Exception', { exact: true }).isVisible()).toBe(true);
    // The order is named by the short number its customer knows, and the link opens it.
    const orderLink = card.getByRole('link', { name: order.orderNumber, exact: true });
    expect(await orderLink.isVisible()).toBe(true);
    expect(await orderLink.getAttribute('href')).toBe(`/order/${order._id}`);
    expect(await card.getByText('254700000008').or(card.getByText('254708374149')).count()).toBe(1);
    // A double payment is not unmatched: it can be resolved, not assigned.
    expect(await card.getByRole('button', { name: 'Assign to order' }).count()).toBe(0);
    await expectPhoneLayout(page, '/admin/payments?status=exception');
    await screenshotBoth(page, 'admin-payments-double');

    const note = 'Refunded Ksh 1,079 by M-Pesa reversal to the second phone.';
    await card.getByRole('button', { name: 'Resolve' }).click();
    await card.getByLabel('Note').fill(note);
    await card.getByRole('button', { name: 'Mark resolved' }).click();
    await expect.poll(() => page.getByText('Exception resolved').first().isVisible(), SHOWN).toBe(true);
    // Resolved, it leaves the open exceptions, and the menu's count goes.
    await expect.poll(() => page.getByText('No exceptions: every payment is accounted for.').isVisible(), SHOWN).toBe(true);
    await page.getByRole('link', { name: 'All', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/admin/payments' && !url.searchParams.has('status'));
    const resolved = cardOf(page, double.receipt!);
    await expect.poll(() => resolved.getByText('Resolved', { exact: true }).isVisible(), SHOWN).toBe(true);
    expect(await resolved.getByText(note).isVisible()).toBe(true);
    expect(await resolved.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
    await screenshotBoth(page, 'admin-payments-resolved');
    await page.getByRole('button', { name: 'Shop Admin' }).click();
    await expect.poll(() => menuItem.isVisible(), SHOWN).toBe(true);
    await expect.poll(() => menuItem.locator('.badge').count(), SHOWN).toBe(0);
    await page.keyboard.press('Escape');

    const stored = (await ledger('all')).find((p) => p._id === double._id)!;
    expect(stored.status).toBe('resolved');
    expect(stored.note).toBe(note);

    // The order page lists both payments with their receipts, the resolved one with its note.
    await page.goto(`/order/${order._id}`);
    const list = page.getByRole('region', { name: 'Payments' });
    await expect.poll(() => list.getByRole('listitem').count(), SHOWN).toBe(2);
    const doubleItem = list.getByRole('listitem').filter({ hasText: double.receipt! });
    const creditedItem = list.getByRole('listitem').filter({ hasText: credited.receipt! });
    expect(await creditedItem.getByText('Credited', { exact: true }).isVisible()).toBe(true);
    expect(await doubleItem.getByText('Resolved', { exact: true }).isVisible()).toBe(true);
    expect(await doubleItem.getByText(note).isVisible()).toBe(true);
    expect(await page.getByText(`M-Pesa receipt ${credited.receipt}`).isVisible()).toBe(true);
    await expectPhoneLayout(page, 'the double-paid order page');
    await screenshotBoth(page, 'admin-payments-order-paid-twice');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('assigns an unmatched payment to an unpaid order, which then shows Paid with the receipt', {
    timeout: CASE_TIMEOUT_MS,
  }, async () => {
    // Order A is paid from a phone whose push answer is lost (the shop times out); the admin
    // deletes order A before the callback comes, so the payment matches no prompt.
    const shopper = await shop.shopper('Otieno Bila Oda');
    const orderA = await orderOf(shopper, 2);
    const orderB = await orderOf(shopper, 1);
    expect(due(orderB)).toBeLessThanOrEqual(due(orderA));
    const lost = await pay(shopper, orderA, '0700000007');
    expect(lost.status, JSON.stringify(lost.body)).toBe(502);
    expect(JSON.stringify(lost.body)).toContain('M-Pesa did not answer in time');
    expect((await paymentStatus(shopper, orderA._id)).lastAttempt?.status).toBe('unknown');
    const deleted = await admin.delete(`/api/orders/${orderA._id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    // If the callback had been quicker than the delete, order A would be paid and the delete refused.
    expect(receiptsOf('254700000007'), 'the prompt was paid before order A was deleted').toEqual([]);

    await expect.poll(() => receiptsOf('254700000007').length, { timeout: SETTLED_WITHIN_MS }).toBe(1);
    const receipt = receiptsOf('254700000007')[0]!;
    await expect
      .poll(async () => (await ledger('unmatched')).find((p) => p.receipt === receipt)?.exception ?? null, {
        timeout: SETTLED_WITHIN_MS,
        interval: 200,
      })
      .toBe('unmatched');
    const unmatched = (await ledger('unmatched')).find((p) => p.receipt === receipt)!;
    expect(unmatched.orderId).toBeNull();
    expect(unmatched.amount).toBe(due(orderA));
    expect((await paymentStatus(admin, orderB._id)).isPaid).toBe(false);

    // On a phone, the admin finds it under Unmatched and gives it order B.
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto('/admin/payments');
    await page.getByRole('link', { name: 'Unmatched' }).click();
    await page.waitForURL((url) => url.searchParams.get('status') === 'unmatched');
    // The list shows the previous filter's cards, dimmed and busy, until the new page arrives.
    const busy = page.locator('[aria-busy="true"]');
    await expect
      .poll(async () => (await busy.count()) === 0 && (await page.getByTestId('ledger-payment').count()), SHOWN)
      .toBe(1);
    const card = cardOf(page, receipt);
    expect(await card.count()).toBe(1);
    // On a phone the ledger comes first: the manual-entry form waits behind a button, and the
    // payment's card starts on the first screen.
    const recordForm = page.getByRole('form', { name: 'Record M-Pesa payment' });
    const recordButton = page.getByRole('button', { name: 'Record a payment from the statement' });
    expect(await recordForm.isVisible()).toBe(false);
    expect(await recordButton.getAttribute('aria-expanded')).toBe('false');
    expect((await card.boundingBox())!.y).toBeLessThan(PHONE.height);
    await recordButton.click();
    await expect.poll(() => recordForm.isVisible(), SHOWN).toBe(true);
    expect(await recordButton.getAttribute('aria-expanded')).toBe('true');
    await recordButton.click();
    await expect.poll(() => recordForm.isVisible(), SHOWN).toBe(false);
    expect(await card.getByText(UNMATCHED_REASON).isVisible()).toBe(true);
    expect(await card.getByText('No order', { exact: true }).isVisible()).toBe(true);
    await expectPhoneLayout(page, '/admin/payments?status=unmatched');
    await screenshotBoth(page, 'admin-payments-unmatched');

    await card.getByRole('button', { name: 'Assign to order' }).click();
    // As the merchant reads it off the M-Pesa statement: the order number, in lower case.
    await card.getByLabel('Order ID or number').fill(orderB.orderNumber.toLowerCase());
    await expectPhoneLayout(page, 'the assign form');
    await screenshotBoth(page, 'admin-payments-assign-form');
    await card.getByRole('button', { name: 'Assign', exact: true }).click();
    await expect.poll(() => page.getByText('Payment assigned: it pays the order').first().isVisible(), SHOWN).toBe(true);
    await expect.poll(() => page.getByText('No unmatched payments.').isVisible(), SHOWN).toBe(true);

    // Order B is paid by that payment, with its receipt, on the order page.
    await page.goto(`/order/${orderB._id}`);
    await expect.poll(() => page.getByText(/^Paid on \d{4}-\d{2}-\d{2}$/).isVisible(), SHOWN).toBe(true);
    expect(await page.getByText(`M-Pesa receipt ${receipt}`).isVisible()).toBe(true);
    expect(await page.getByText('Not Paid').count()).toBe(0);
    const list = page.getByRole('region', { name: 'Payments' });
    const item = list.getByRole('listitem').filter({ hasText: receipt });
    await expect.poll(() => item.count(), SHOWN).toBe(1);
    expect(await item.getByText('Credited', { exact: true }).isVisible()).toBe(true);
    await expectPhoneLayout(page, 'the order paid by an assigned payment');
    await screenshotBoth(page, 'admin-payments-order-assigned');
    expect(problems).toEqual([]);
    await context.close();

    // The shopper's own view agrees.
    const paid = (await shopper.get<Order>(`/api/orders/${orderB._id}`)).body;
    expect(paid.isPaid).toBe(true);
    expect(paid.mpesaReceipt).toBe(receipt);
    const status = await paymentStatus(shopper, orderB._id);
    expect(status.payments.map((p) => [p.receipt, p.status])).toEqual([[receipt, 'credited']]);
    expect(status.amountPaid).toBe(due(orderA));
  });

  it('closes an unanswered refund from the M-Pesa statement, on a phone', { timeout: CASE_TIMEOUT_MS }, async () => {
    // Paid by Paybill from the simulator's number whose Reversal is never answered.
    const shopper = await shop.shopper('Njeri Bila Jibu');
    const order = await orderOf(shopper, 1);
    const paid = await shopper.post(`/api/orders/${order._id}/simulate-paybill`, { phoneNumber: '0700000013' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(202);
    await expect.poll(async () => (await paymentStatus(shopper, order._id)).isPaid, { timeout: SETTLED_WITHIN_MS }).toBe(true);
    const payment = (await paymentStatus(admin, order._id)).payments[0] as LedgerPayment;
    expect((await admin.post(`/api/admin/payments/${payment._id}/refund`)).status).toBe(202);
    await expect
      .poll(async () => (await ledger('exception')).find((p) => p._id === payment._id)?.exception, { timeout: SETTLED_WITHIN_MS })
      .toBe('refund_unanswered');

    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto('/admin/payments?status=exception');
    const card = cardOf(page, payment.receipt!);
    await expect.poll(() => card.getByText('Refund pending', { exact: true }).isVisible(), SHOWN).toBe(true);
    await card.getByRole('button', { name: 'Resolve' }).click();
    // No plain "Mark resolved": the merchant says what the statement shows.
    expect(await card.getByRole('button', { name: 'Mark resolved' }).count()).toBe(0);
    await card.getByLabel('Note').fill('Reversal SKR7 on the statement, 26 Nov.');
    await expectPhoneLayout(page, 'the unanswered refund form');
    await screenshotBoth(page, 'admin-payments-unanswered-refund');
    await page.setViewportSize(ADMIN_PHONE);
    await card.getByRole('button', { name: 'Statement shows the reversal' }).click();
    await expect.poll(() => page.getByText('Marked as refunded').first().isVisible(), SHOWN).toBe(true);

    // Refunded: out of the exceptions, and the order is unpaid again.
    await page.getByRole('link', { name: 'All', exact: true }).click();
    const refunded = cardOf(page, payment.receipt!);
    await expect.poll(() => refunded.getByText('Refunded', { exact: true }).isVisible(), SHOWN).toBe(true);
    expect(await refunded.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    await screenshotBoth(page, 'admin-payments-unanswered-refund-closed');
    expect((await paymentStatus(shopper, order._id)).isPaid).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });
});

import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webDistDir } from '../../src/server/paths.js';
import { nairobiDay } from '../../src/shared/dates.js';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { LedgerPayment, PaymentStatus } from '../../src/shared/schemas/payments.js';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';
import { payByPaybillCommand } from '../support/simulator.js';
import {
  closeVisitors,
  expectPageTopUncovered,
  newVisitor,
  PHONE,
  screenshotBoth,
  sharedBrowser,
  signIn,
} from './support/browser.js';

/**
 * Paying an order with M-Pesa from the order page, against the shop's own Daraja simulator, which
 * answers by phone number (0708374149 pays, 0700000001 cancels). Its answer comes a few seconds
 * after the prompt, long enough to see the order page wait for it and then change by itself.
 */
const SIMULATOR_DELAY_MS = 4000;
const SETTLED_WITHIN_MS = 20_000;
/** Each case waits for one or two simulated prompts, more than the default 30 s on a busy machine allows for. */
const CASE_TIMEOUT_MS = 90_000;

let shop: TestShop;
let browser: Browser;
let productId: string;
/** The shop's own simulator listens here, for its command line. */
let simulatorPort: number;

beforeAll(async () => {
  simulatorPort = await freePort();
  if (!fs.existsSync(path.join(webDistDir, 'index.html'))) {
    throw new Error('dist/web is not built: the global setup of the tests builds it (npm run build:web)');
  }
  [shop, browser] = await Promise.all([
    startTestShop({
      WEB_DIR: webDistDir,
      MPESA_SIMULATOR_DELAY_MS: String(SIMULATOR_DELAY_MS),
      MPESA_SIMULATOR_PORT: String(simulatorPort),
    }),
    sharedBrowser(),
  ]);
  const catalogue = (await shop.client().get<ProductPage>('/api/products')).body;
  const inStock = catalogue.products.find((p) => p.countInStock >= 5);
  if (!inStock) throw new Error('the demo catalogue has no product in stock');
  productId = inStock._id;
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/** A new shopper with an order placed through the API, signed in on a phone-sized browser. */
async function shopperWithOrder() {
  const shopper: ApiClient = await shop.shopper('Njeri Wambui');
  const placed = await placeOrder(shopper, [{ _id: productId, qty: 1 }]);
  expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  const visitor = await newVisitor(browser, shop, PHONE);
  await signIn(visitor.page, shopper.user!.email, 'shopper-pass-1');
  return { shopper, order: placed.body as Order, ...visitor };
}

/** Fills the M-Pesa number, sends the prompt, and checks the toast and the way home (docs/product-rules.md: Screens, API). */
async function payWith(page: Page, phone: string, masked: string) {
  await page.getByLabel('M-Pesa phone number').fill(phone);
  await page.getByRole('button', { name: 'Pay with M-Pesa' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await expect.poll(() => page.getByText(`We sent an M-Pesa prompt to ${masked}.`).first().isVisible()).toBe(true);
  // The toast stays for 5 s: meanwhile the phone's cart, menu and search, and the payment
  // banner's links, are still there to tap.
  await page.getByTestId('payment-banner').waitFor();
  await expectPageTopUncovered(page);
}

const waitingText = 'Waiting for M-Pesa confirmation…';
const receiptPattern = /M-Pesa receipt [A-Z0-9]{10}/;

describe('a shopper pays an order with M-Pesa', () => {
  it('sends the prompt, goes home, then sees the order wait and turn paid with its receipt', {
    timeout: CASE_TIMEOUT_MS,
  }, async () => {
    const { shopper, order, page, problems, context } = await shopperWithOrder();
    await page.goto(`/order/${order._id}`);

    const phoneField = page.getByLabel('M-Pesa phone number');
    await expect.poll(() => phoneField.inputValue()).toBe(NAIROBI_ADDRESS.phoneNumber);
    expect(await phoneField.getAttribute('type')).toBe('tel');
    expect(await phoneField.getAttribute('inputmode')).toBe('numeric');
    expect(await phoneField.getAttribute('autocomplete')).toBe('tel');
    const amount = Math.ceil(order.totalPrice);
    expect(await page.getByText(`You will pay ${formatKsh(amount)}`).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Not Paid').isVisible()).toBe(true);

    await payWith(page, '0708374149', '0708 *** 149');

    // Back on the order while the prompt is open: the page waits, then changes without a reload.
    await page.goto(`/order/${order._id}`);
    await expect.poll(() => page.getByText(waitingText).isVisible()).toBe(true);
    // The visitor asked for less motion (newVisitor): the waiting spinner is a still ring.
    const spinner = page.locator('.spinner-border').first();
    await spinner.waitFor();
    expect(await spinner.evaluate((ring) => ring.getAnimations().filter((a) => a.playState === 'running').length)).toBe(0);
    expect(await page.getByText('0708 *** 149').first().isVisible()).toBe(true);
    expect(await page.locator('[aria-live="polite"]').getByText(waitingText).count()).toBe(1);
    await screenshotBoth(page, 'order-paying');

    await expect.poll(() => page.getByText(receiptPattern).isVisible(), { timeout: SETTLED_WITHIN_MS }).toBe(true);
    const paid = (await shopper.get<Order>(`/api/orders/${order._id}`)).body;
    expect(paid.isPaid).toBe(true);
    expect(paid.mpesaReceipt).toMatch(/^[A-Z0-9]{10}$/);
    const paidDay = nairobiDay(paid.paidAt);
    expect(paidDay).toBe(nairobiDay(new Date()));
    expect(await page.getByText(`Paid on ${paidDay}`).isVisible()).toBe(true);
    expect(await page.getByText(`M-Pesa receipt ${paid.mpesaReceipt}`).isVisible()).toBe(true);
    expect(await page.getByText('Not Paid').count()).toBe(0);
    expect(await page.getByText(waitingText).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Pay with M-Pesa' }).count()).toBe(0);
    await screenshotBoth(page, 'order-paid');
    expect(problems).toEqual([]);
    await context.close();

    // The admin's order list shows the day it was paid in the PAID column.
    const admin = await newVisitor(browser, shop);
    await signIn(admin.page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.page.goto('/admin/orderlist');
    const row = admin.page.getByRole('row').filter({ hasText: order.orderNumber });
    await expect.poll(() => row.count()).toBe(1);
    const headers = await admin.page.getByRole('columnheader').allInnerTexts();
    const paidColumn = headers.findIndex((text) => text.trim() === 'PAID');
    expect(paidColumn).toBeGreaterThan(0);
    expect((await row.getByRole('cell').nth(paidColumn).innerText()).trim()).toBe(paidDay);
    expect(admin.problems).toEqual([]);
    await admin.context.close();
  });

  it('shows why a cancelled prompt failed, keeps the form, and a second try pays', { timeout: CASE_TIMEOUT_MS }, async () => {
    const { order, page, problems, context } = await shopperWithOrder();
    await page.goto(`/order/${order._id}`);
    await expect.poll(() => page.getByLabel('M-Pesa phone number').isVisible()).toBe(true);

    // A number M-Pesa cannot prompt: the shared rule's message (the server's own) shows, and the page stays.
    await page.getByLabel('M-Pesa phone number').fill('12345');
    await page.getByRole('button', { name: 'Pay with M-Pesa' }).click();
    await expect.poll(() => page.getByText('Enter a Safaricom number').first().isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`/order/${order._id}`);

    await payWith(page, '0700000001', '0700 *** 001');
    await page.goto(`/order/${order._id}`);
    const reason = page.getByText('You cancelled the M-Pesa prompt.');
    await expect.poll(() => reason.isVisible(), { timeout: SETTLED_WITHIN_MS }).toBe(true);
    expect(await page.getByText('Not Paid').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Pay with M-Pesa' }).isEnabled()).toBe(true);
    await screenshotBoth(page, 'order-payment-failed');

    await payWith(page, '0708374149', '0708 *** 149');
    await page.goto(`/order/${order._id}`);
    await expect.poll(() => page.getByText(receiptPattern).isVisible(), { timeout: SETTLED_WITHIN_MS }).toBe(true);
    await expect.poll(() => page.getByText(/^Paid on \d{4}-\d{2}-\d{2}$/).isVisible()).toBe(true);
    expect(await reason.count()).toBe(0);
    // The only console noise allowed is the refused prompt's 400 response.
    expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
    await context.close();
  });
});

describe('the payment banner after Pay with M-Pesa', () => {
  it('follows the prompt on every page: waiting, then paid with the receipt, until dismissed', {
    timeout: CASE_TIMEOUT_MS,
  }, async () => {
    const { order, page, problems, context } = await shopperWithOrder();
    await page.goto(`/order/${order._id}`);
    await payWith(page, '0708374149', '0708 *** 149');
    const banner = page.getByTestId('payment-banner');
    await expect.poll(() => banner.textContent()).toContain('Waiting for M-Pesa…');
    expect(await banner.getByRole('link', { name: `Order ${order.orderNumber}` }).isVisible()).toBe(true);
    await screenshotBoth(page, 'payment-banner-waiting');
    await expect.poll(() => banner.textContent(), { timeout: SETTLED_WITHIN_MS }).toMatch(/Paid — receipt [A-Z0-9]{10}\./);
    // It stays while the shopper browses, and after a reload.
    await page.goto('/cart');
    await page.reload();
    await expect.poll(() => banner.textContent()).toMatch(/Paid — receipt [A-Z0-9]{10}/);
    await screenshotBoth(page, 'payment-banner-paid');
    await banner.getByRole('button', { name: 'Dismiss the payment banner' }).click();
    await expect.poll(() => banner.count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Shopping Cart' }).isVisible()).toBe(true);
    expect(await banner.count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("says why a prompt failed and leads back to the order, where it gives way to the order's own status", {
    timeout: CASE_TIMEOUT_MS,
  }, async () => {
    const { order, page, problems, context } = await shopperWithOrder();
    await page.goto(`/order/${order._id}`);
    await payWith(page, '0700000001', '0700 *** 001');
    const banner = page.getByTestId('payment-banner');
    await expect
      .poll(() => banner.textContent(), { timeout: SETTLED_WITHIN_MS })
      .toContain('The M-Pesa payment did not go through. You cancelled the M-Pesa prompt.');
    await screenshotBoth(page, 'payment-banner-failed');
    await banner.getByRole('link', { name: `Back to order ${order.orderNumber}` }).click();
    await page.waitForURL(`**/order/${order._id}`);
    // The order page's own words (in main: the banner says them too, and stays until the
    // navigation commits), and with them the banner gone.
    await expect.poll(() => page.locator('main').getByText('You cancelled the M-Pesa prompt.').isVisible()).toBe(true);
    expect(await banner.count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('a shopper whose prompt never came pays by Paybill (demo shop)', () => {
  it('shows the Paybill details; the simulated Paybill payment turns the order paid with its receipt, without a reload', {
    timeout: CASE_TIMEOUT_MS,
  }, async () => {
    const { shopper, order, page, problems, context } = await shopperWithOrder();
    await page.goto(`/order/${order._id}`);
    const due = Math.ceil(order.totalPrice);
    await expect.poll(() => page.getByRole('heading', { name: 'Or pay with M-Pesa Paybill' }).isVisible()).toBe(true);
    expect(await page.getByText(order.orderNumber, { exact: true }).count()).toBeGreaterThan(0);
    expect(await page.getByText(formatKsh(due)).count()).toBeGreaterThan(0);
    await screenshotBoth(page, 'order-paybill');

    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    await page.getByRole('button', { name: 'Simulate a Paybill payment' }).click();
    await expect
      .poll(() => page.getByText(`Paybill payment of ${formatKsh(due)} sent from the simulated phone`).isVisible())
      .toBe(true);
    await expect.poll(() => page.getByText(receiptPattern).first().isVisible(), { timeout: SETTLED_WITHIN_MS }).toBe(true);
    const paid = (await shopper.get<Order>(`/api/orders/${order._id}`)).body;
    expect(paid.isPaid).toBe(true);
    expect(await page.getByText(`M-Pesa receipt ${paid.mpesaReceipt}`).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Or pay with M-Pesa Paybill' }).count()).toBe(0);
    expect(navigations).toEqual([]);
    await screenshotBoth(page, 'order-paid-by-paybill');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('pays twice by Paybill; the admin refunds the second payment, then the first, and the order is unpaid again and says so', {
    timeout: CASE_TIMEOUT_MS * 2,
  }, async () => {
    const { shopper, order, page, problems, context } = await shopperWithOrder();
    const due = Math.ceil(order.totalPrice);
    const simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
    // The ledger's exception codes are the merchant's: read as the admin sees them.
    const adminApi = await shop.admin();
    const statusOf = async () => (await adminApi.get<PaymentStatus>(`/api/orders/${order._id}/payment`)).body;
    // The shopper pays from the M-Pesa menu, and again from another phone: the second is a double payment.
    await payByPaybillCommand(simulatorUrl, { account: order.orderNumber, amount: due, phone: '0712345678' });
    await expect.poll(async () => (await statusOf()).isPaid, { timeout: SETTLED_WITHIN_MS }).toBe(true);
    await payByPaybillCommand(simulatorUrl, { account: order.orderNumber, amount: due, phone: '0722000111' });
    await expect
      .poll(async () => (await statusOf()).payments.map((p) => p.exception ?? p.status).sort(), { timeout: SETTLED_WITHIN_MS })
      .toEqual(['credited', 'double_payment']);
    const { payments } = await statusOf();
    const first = payments.find((p) => p.status === 'credited') as LedgerPayment;
    const second = payments.find((p) => p.exception === 'double_payment') as LedgerPayment;

    // The admin refunds the double payment from the Payments screen, on a phone.
    const admin = await newVisitor(browser, shop, PHONE);
    await signIn(admin.page, ADMIN_EMAIL, ADMIN_PASSWORD);
    const refund = async (receipt: string) => {
      await admin.page.goto('/admin/payments');
      const card = admin.page.getByTestId('ledger-payment').filter({ hasText: receipt });
      await card.getByRole('button', { name: 'Refund' }).click();
      const dialog = admin.page.getByRole('dialog');
      await expect.poll(() => dialog.getByText(`(receipt ${receipt})`, { exact: false }).isVisible()).toBe(true);
      await dialog.getByRole('button', { name: 'Refund' }).click();
      await expect.poll(() => admin.page.getByText('Refund sent to M-Pesa').first().isVisible()).toBe(true);
      // M-Pesa's result comes by callback; the screen follows it without a reload.
      await expect.poll(() => card.getByText(/^Refunded on /).isVisible(), { timeout: SETTLED_WITHIN_MS }).toBe(true);
      expect(await card.getByText('Refunded', { exact: true }).isVisible()).toBe(true);
      expect(await card.getByRole('button', { name: 'Refund' }).count()).toBe(0);
      return card;
    };
    await refund(second.receipt as string);
    await screenshotBoth(admin.page, 'admin-payments-refunded');
    // One refund of two: the order is still paid by the first payment.
    expect((await shopper.get<Order>(`/api/orders/${order._id}`)).body.isPaid).toBe(true);

    // The first payment refunded too: nothing pays the order any more.
    await refund(first.receipt as string);
    const after = await statusOf();
    expect(after.isPaid).toBe(false);
    expect(after.refundedAt).not.toBeNull();
    expect(after.paybill?.amount).toBe(due);
    expect(after.payments.map((p) => p.status)).toEqual(['refunded', 'refunded']);

    // The shopper's order page says so, and offers the ways to pay again.
    await page.goto(`/order/${order._id}`);
    await expect.poll(() => page.getByText(/^Refunded on \d{4}-\d{2}-\d{2}/).isVisible()).toBe(true);
    expect(await page.getByText('Not Paid', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Or pay with M-Pesa Paybill' }).isVisible()).toBe(true);
    await screenshotBoth(page, 'order-refunded');
    expect([...problems, ...admin.problems]).toEqual([]);
    await Promise.all([context.close(), admin.context.close()]);
  });
});

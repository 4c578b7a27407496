import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOP_NAME } from '../../src/shared/constants.js';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  expectNoSidewaysScroll,
  newVisitor,
  screenshot,
  screenshotBoth,
  sharedBrowser,
  signIn,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

/** The dashboard, the lists' Export CSV and the packing slip, on a 360 × 740 phone. */
const PHONE = ADMIN_PHONE;

let shop: TestShop;
let browser: Browser;
let admin: ApiClient;
let paidOrder: Order;
let unpaidOrder: Order;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  admin = await shop.admin();
  const buyer = await shop.shopper('Njeri Wambui');
  const products = (await admin.get<ProductPage>('/api/products?keyword=jerrycan')).body.products;
  const jerrycan = products[0]!;
  const address = { ...NAIROBI_ADDRESS, ward: 'Kilimani', sub_county: 'Dagoretti North', phoneNumber: '0722000111' };
  paidOrder = (await placeOrder(buyer, [{ _id: jerrycan._id, qty: 3 }], address)).body;
  unpaidOrder = (await placeOrder(buyer, [{ _id: jerrycan._id, qty: 1 }], address)).body;
  const paid = await admin.put<Order>(`/api/orders/${paidOrder._id}`);
  expect(paid.status).toBe(200);
  paidOrder = paid.body;
  // One unpaid order from two days ago, and an M-Pesa payment matching no order.
  await shop.database.db.execute(sql`UPDATE orders SET created_at = now() - interval '2 days' WHERE id = ${unpaidOrder._id}`);
  await shop.database.db.execute(sql`
    INSERT INTO mpesa_payments (receipt, amount_cents, phone, source, status, exception)
    VALUES ('SLIPEXC001', 50000, '254700000001', 'c2b', 'exception', 'unmatched')`);
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

async function heading(page: Page, name: string) {
  await expect.poll(() => page.getByRole('heading', { name, exact: true }).isVisible()).toBe(true);
}

describe('the admin dashboard on a phone', () => {
  it('is the Admin menu’s first item and shows sales, what needs doing, low stock and the chart', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.locator('#user-menu').click();
    const firstAdminItem = page.locator('[aria-labelledby="user-menu"] .dropdown-header + a.dropdown-item');
    await expect.poll(() => firstAdminItem.textContent()).toBe('Dashboard');
    await firstAdminItem.click();
    await page.waitForURL((url) => url.pathname === '/admin');
    await heading(page, 'Dashboard');

    const today = page.locator('.card', { has: page.getByRole('heading', { name: 'Today' }) });
    await expect.poll(() => today.textContent()).toContain(formatKsh(paidOrder.totalPrice));
    expect(await today.textContent()).toContain('1 paid order');
    const card = (title: string) => page.locator('.card', { has: page.getByRole('heading', { name: title }) });
    expect(await card('To deliver').locator('.h3').textContent()).toBe('1');
    expect(await card('Unpaid after a day').locator('.h3').textContent()).toBe('1');
    expect(await card('Payment exceptions').locator('.h3').textContent()).toBe('1');
    // The demo catalogue has products out of stock.
    expect(await page.getByRole('list', { name: 'Low-stock products' }).getByText('Out of stock').count()).toBeGreaterThan(0);
    const chart = page.getByTestId('sales-chart');
    await expect.poll(() => chart.locator('canvas').count()).toBe(1);
    const box = await chart.boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'admin-dashboard');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('leads from "to deliver" to the filtered order list, whose Export CSV downloads those orders', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto('/admin');
    await heading(page, 'Dashboard');
    await page.getByRole('link', { name: 'Orders to deliver' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/orderlist');
    const url = new URL(page.url());
    expect(url.searchParams.get('isPaid')).toBe('true');
    expect(url.searchParams.get('isDelivered')).toBe('false');
    const list = page.getByRole('list', { name: 'Orders' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
    expect(await list.getByRole('listitem').first().textContent()).toContain(paidOrder.orderNumber);
    expect(await page.getByRole('button', { name: 'To deliver' }).getAttribute('aria-pressed')).toBe('true');

    const exportLink = page.getByRole('link', { name: 'Export CSV' });
    expect(await exportLink.getAttribute('href')).toBe('/api/admin/exports/orders.csv?isPaid=true&isDelivered=false');
    const [download] = await Promise.all([page.waitForEvent('download'), exportLink.click()]);
    expect(download.suggestedFilename()).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv).toContain(paidOrder.orderNumber);
    expect(csv).not.toContain(unpaidOrder.orderNumber);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'admin-orders-export');

    // "Unpaid after a day" shows the old unpaid order, with the moment it filters by.
    await page.goto('/admin');
    await heading(page, 'Dashboard');
    await page.getByRole('link', { name: 'Unpaid orders' }).click();
    await page.waitForURL((u) => u.searchParams.get('isPaid') === 'false' && u.searchParams.has('to'));
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
    expect(await list.getByRole('listitem').first().textContent()).toContain(unpaidOrder.orderNumber);
    expect(await page.getByText(/^Placed up to \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/).isVisible()).toBe(true);

    await page.goto('/admin');
    await heading(page, 'Dashboard');
    await page.getByRole('link', { name: 'Open exceptions' }).click();
    await page.waitForURL((u) => u.pathname === '/admin/payments' && u.searchParams.get('status') === 'exception');
    const paymentsExport = page.getByRole('link', { name: 'Export CSV' });
    expect(await paymentsExport.getAttribute('href')).toBe('/api/admin/exports/payments.csv?status=exception');
    await expect.poll(() => page.getByText('SLIPEXC001').count()).toBeGreaterThan(0);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'admin-payments-export');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('prints a packing slip from the order page: on screen, on an 80 and a 58 mm roll, and on A4', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`/order/${paidOrder._id}`);
    await page.getByRole('link', { name: 'Packing slip' }).click();
    await page.waitForURL((url) => url.pathname === `/admin/order/${paidOrder._id}/slip`);
    const slip = page.getByRole('article', { name: 'Packing slip' });
    await expect.poll(() => slip.isVisible()).toBe(true);
    const text = (await slip.textContent()) ?? '';
    for (const expected of [SHOP_NAME, paidOrder.orderNumber, 'Njeri Wambui', 'Kilimani', 'Dagoretti North', '0722000111']) {
      expect(text).toContain(expected);
    }
    const line = slip.getByRole('row').filter({ hasText: paidOrder.orderItems[0]!.name });
    expect(await line.getByRole('cell').first().textContent()).toBe('3');
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'packing-slip');

    // In print, only the slip: the shop's header, the paper choice and the Print button are gone.
    await page.emulateMedia({ media: 'print' });
    for (const [paper, widthPx] of [
      ['80 mm', 302],
      ['58 mm', 219],
    ] as const) {
      await page.emulateMedia({ media: 'screen' });
      await page.getByText(paper, { exact: true }).click();
      await page.emulateMedia({ media: 'print' });
      await page.setViewportSize({ width: widthPx, height: 700 });
      expect(await page.locator('#root header').first().isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
      const box = await slip.boundingBox();
      expect(box!.width).toBeLessThanOrEqual(widthPx);
      await expectNoSidewaysScroll(page);
      await screenshot(page, `packing-slip-print-${paper.replace(' ', '')}`);
    }
    await page.emulateMedia({ media: 'screen' });
    await page.getByText('A4', { exact: true }).click();
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ preferCSSPageSize: true });
    const dir = path.resolve('test-results', 'screenshots');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'packing-slip-a4.pdf'), pdf);
    // The slip fits on one page.
    expect(pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});

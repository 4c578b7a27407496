import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  screenshotBoth,
  sharedBrowser,
  signIn,
  startWebShop,
} from './support/browser.js';

/**
 * A merchant's round of the shop with nothing but a 360 × 740 phone, starting at the dashboard:
 * the paid order waiting to go out is found and marked delivered; a new product is a draft the
 * storefront never shows until it is filled in; the delivery fee changes and the cart follows it;
 * the orders go to the accountant as CSV. Each admin screen on the way is photographed at both
 * widths and must not scroll sideways.
 */

let shop: TestShop;
let browser: Browser;
let api: ApiClient;
let toDeliver: Order;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  api = await shop.admin();
  const buyer = await shop.shopper('Wanjiru Kamau');
  const jerrycan = (await api.get<ProductPage>('/api/products?keyword=jerrycan')).body.products[0];
  if (!jerrycan) throw new Error('the demo catalogue has no jerrycan');
  const placed = (await placeOrder(buyer, [{ _id: jerrycan._id, qty: 2 }], NAIROBI_ADDRESS)).body as Order;
  toDeliver = (await api.put<Order>(`/api/orders/${placed._id}`)).body;
  expect(toDeliver.isPaid).toBe(true);
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

async function heading(page: Page, name: string) {
  await expect.poll(() => page.getByRole('heading', { name, exact: true }).isVisible()).toBe(true);
}

/** Confirms a ConfirmDialog by its button label. */
async function confirm(page: Page, label: string) {
  await page.getByRole('dialog').getByRole('button', { name: label }).click();
  await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
}

describe('running the shop from a phone', () => {
  it('delivers the paid order from the dashboard, publishes a new product, changes the delivery fee and exports the orders', {
    timeout: 120_000,
  }, async () => {
    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);

    // The dashboard says one order waits to go out, and leads to it.
    await page.goto('/admin');
    await heading(page, 'Dashboard');
    const waiting = page.locator('.card', { has: page.getByRole('heading', { name: 'To deliver' }) });
    await expect.poll(() => waiting.locator('.h3').textContent()).toBe('1');
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'journey-dashboard');
    await page.getByRole('link', { name: 'Orders to deliver' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/orderlist' && url.searchParams.get('isDelivered') === 'false');
    const list = page.getByRole('list', { name: 'Orders' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'journey-orders-to-deliver');
    await list.getByRole('link', { name: `Details of order ${toDeliver.orderNumber}` }).click();
    await page.waitForURL(`**/order/${toDeliver._id}`);
    await page.getByRole('button', { name: 'Mark As Delivered' }).click();
    await expect.poll(() => page.getByText(/^Delivered on \d{4}-\d{2}-\d{2}/).isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'journey-order-delivered');
    await page.goto('/admin');
    await expect.poll(() => waiting.locator('.h3').textContent()).toBe('0');

    // A new product is a draft: the storefront neither shows nor lists it.
    await page.goto('/admin/productlist');
    await heading(page, 'Products');
    await page.getByRole('button', { name: 'Create Product' }).click();
    await confirm(page, 'Create');
    await page.waitForURL(/\/admin\/product\/[0-9a-f-]{36}\/edit$/);
    const productId = page.url().split('/').at(-2) ?? '';
    const guest = shop.client();
    expect((await guest.get(`/api/products/${productId}`)).status).toBe(404);
    expect((await guest.get<ProductPage>('/api/products?keyword=Sample')).body.products).toEqual([]);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'journey-product-draft');

    // Filled in with a name, a price and its own photo, it is on the storefront.
    const photo = await sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 20, g: 110, b: 60 } } })
      .png()
      .toBuffer();
    await page.getByLabel('Upload image').setInputFiles({ name: 'kikapu.png', mimeType: 'image/png', buffer: photo });
    await expect.poll(() => page.getByLabel('Image URL').inputValue()).toMatch(/^\/uploads\/[0-9a-f]{24}\.webp$/);
    await page.getByLabel('Name', { exact: true }).fill('Woven Kikapu Basket');
    await page.getByLabel('Price').fill('1200');
    await page.getByLabel('Count In Stock').fill('12');
    await page.getByLabel('Category').fill('Kitchen & Home');
    await page.getByLabel('Description').fill('Sisal basket woven in Machakos.');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByText('Product Updated.').isVisible()).toBe(true);
    expect((await guest.get(`/api/products/${productId}`)).status).toBe(200);
    await page.goto(`/products/${productId}`);
    await heading(page, 'Woven Kikapu Basket');

    // The delivery fee goes up; the cart charges the new fee.
    await page.goto('/admin/settings');
    await expect.poll(() => page.getByLabel('Delivery fee').inputValue()).toBe('100');
    await page.getByLabel('Delivery fee').fill('300');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByText('Settings updated.').isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'journey-settings');
    await page.goto(`/products/${productId}`);
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    await expect.poll(() => page.getByTestId('cart-shipping').textContent()).toContain(`Shipping${formatKsh(300)}`);

    // The accountant's copy: the orders as CSV, the delivered one among them.
    await page.goto('/admin/orderlist');
    await heading(page, 'Orders');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = fs.readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv).toContain(toDeliver.orderNumber);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'journey-orders');

    expect(problems).toEqual([]);
    await context.close();
  });
});

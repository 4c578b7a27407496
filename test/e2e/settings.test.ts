import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKsh } from '../../src/shared/money.js';
import { orderTotals } from '../../src/shared/pricing.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { Product } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  expectNoSidewaysScroll,
  fillShippingForm,
  newVisitor,
  screenshotBoth,
  sharedBrowser,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

/** The phone the issue names: the settings must be usable on it. */
const PHONE = ADMIN_PHONE;

let shop: TestShop;
let browser: Browser;
let api: ApiClient;
let product: Product;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  api = await shop.admin();
  product = await createProduct(api, { name: 'Jiko Charcoal Stove', price: 1800, countInStock: 30 });
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/** Opens the folded phone menu, then a link of the admin's own menu. */
async function adminMenu(page: Page, item: string) {
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Shop Admin' }).click();
  await page.getByRole('link', { name: item, exact: true }).click();
}

describe('shop settings on a phone', () => {
  it('an admin changes the delivery fee and the shop name; the cart, the header and the new order follow', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);

    await page.goto(`/products/${product._id}`);
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    const shipping = page.getByTestId('cart-shipping');
    await expect.poll(() => shipping.textContent()).toContain(`Shipping${formatKsh(100)}`);
    expect(await shipping.textContent()).toContain(`Add more than ${formatKsh(5000 - 1800)} for free delivery`);

    await adminMenu(page, 'Settings');
    await page.waitForURL('**/admin/settings');
    await expect.poll(() => page.getByLabel('Delivery fee').inputValue()).toBe('100');
    expect(await page.getByLabel('Tax').inputValue()).toBe('15');
    expect(await page.getByLabel('Free delivery above').inputValue()).toBe('5000');
    expect(await page.getByLabel('Low-stock threshold').inputValue()).toBe('5');
    expect(await page.getByLabel('Delivery fee').getAttribute('inputmode')).toBe('decimal');
    expect(await page.getByLabel('Contact phone').getAttribute('type')).toBe('tel');

    // The server's own rules, checked before anything is sent: a refused form changes nothing.
    await page.getByLabel('Tax').fill('101');
    await page.getByLabel('Delivery fee').fill('-5');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByText('Tax percent must be at most 100').first().isVisible()).toBe(true);
    expect(await page.getByText('Delivery fee cannot be negative').first().isVisible()).toBe(true);
    expect((await api.get<{ taxPercent: number }>('/api/admin/settings')).body.taxPercent).toBe(15);

    await page.getByLabel('Tax').fill('16');
    await page.getByLabel('Delivery fee').fill('250');
    await page.getByLabel('Shop name').fill('Soko Bora');
    await page.getByLabel('Contact phone').fill('0712 345 678');
    await page.getByLabel('Send merchant alerts to').fill('owner@example.com');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByText('Settings updated.').isVisible()).toBe(true);
    await expect.poll(() => page.locator('header .navbar-brand').textContent()).toBe('Soko Bora');
    await expect.poll(() => page.title()).toBe('Shop Settings | Soko Bora');
    expect(await page.locator('footer').textContent()).toContain('0712 345 678');
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'admin-settings');

    // Back to the cart without reloading (on a phone the cart is in the header, outside the menu):
    // the shipping follows the new fee at once.
    await page.locator('header').getByRole('link', { name: /Cart/ }).click();
    await page.waitForURL('**/cart');
    await expect.poll(() => shipping.textContent()).toContain(`Shipping${formatKsh(250)}`);
    // The phone's menu, opened for Settings, stays folded; the screenshots wait for it.
    await expect.poll(() => page.locator('#main-nav').isVisible()).toBe(false);
    expect(await page.locator('footer').textContent()).toContain('Soko Bora');
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'cart-with-settings');

    // The place-order summary shows what the server will charge, and the order has it.
    await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
    await page.waitForURL('**/shipping');
    await fillShippingForm(page, {
      county: 'Nairobi',
      phoneNumber: '0711223344',
      postalCode: '00100',
      sub_county: 'Westlands',
      ward: 'Parklands',
    });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/place-order');
    const totals = orderTotals([{ price: 1800, qty: 1 }], { taxPercent: 16, shippingFee: 250, freeShippingThreshold: 5000 });
    expect(totals).toEqual({ itemsPrice: 1800, shippingPrice: 250, taxPrice: 288, totalPrice: 2338 });
    await expect.poll(() => page.getByText(formatKsh(totals.totalPrice)).first().isVisible()).toBe(true);
    for (const label of ['Items', 'Shipping', 'Tax', 'Total']) {
      expect(await page.getByText(label, { exact: true }).count(), label).toBeGreaterThan(0);
    }
    expect(await page.getByText(formatKsh(250)).count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Place Order' }).click();
    await page.waitForURL(/\/order\/[0-9a-f-]{36}$/);
    const orderId = page.url().split('/').pop() ?? '';
    const order = (await api.get<Order>(`/api/orders/${orderId}`)).body;
    expect(order).toMatchObject(totals);
    expect(problems).toEqual([]);
    await context.close();
  });
});

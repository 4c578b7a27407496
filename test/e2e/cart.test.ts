import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKsh } from '../../src/shared/money.js';
import type { Product } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import { appTookOver, closeVisitors, newVisitor, PHONE, screenshotBoth, sharedBrowser, startWebShop } from './support/browser.js';

let shop: TestShop;
let browser: Browser;
let admin: ApiClient;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  admin = await shop.admin();
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

async function addToCart(page: Page, product: Product, qty: number): Promise<void> {
  await page.goto(`/products/${product._id}`);
  // The page arrives drawn by the server: a choice made before the app takes it over is not the app's.
  await appTookOver(page);
  await page.getByLabel('Qty').selectOption(String(qty));
  await page.getByRole('button', { name: 'Add To Cart' }).click();
  await page.waitForURL('**/cart');
}

/** The cart line of a product, found by its remove button's name. */
const line = (page: Page, name: string) =>
  page.locator('.list-group-item').filter({ has: page.getByRole('button', { name: `Remove ${name}` }) });

describe('a cart kept in the browser for days', () => {
  it("shows today's price and stock when it is opened again, and takes out what the shop no longer sells", async () => {
    const [kettle, lamp, stool] = await Promise.all([
      createProduct(admin, { name: 'Cart Kettle', price: 1000, countInStock: 5 }),
      createProduct(admin, { name: 'Cart Lamp', price: 500, countInStock: 4 }),
      createProduct(admin, { name: 'Cart Stool', price: 700, countInStock: 3 }),
    ]);
    const { page, problems } = await newVisitor(browser, shop, PHONE);
    await addToCart(page, kettle, 1);
    await addToCart(page, lamp, 3);
    await addToCart(page, stool, 1);
    await expect.poll(() => page.getByText('Subtotal (5) items').isVisible()).toBe(true);

    // Meanwhile the merchant raises the kettle's price, sells all but one lamp, and removes the stool.
    expect((await admin.put(`/api/products/${kettle._id}`, { price: 1200 })).status).toBe(200);
    expect((await admin.put(`/api/products/${lamp._id}`, { countInStock: 1 })).status).toBe(200);
    expect((await admin.delete(`/api/products/${stool._id}`)).status).toBe(200);

    await page.goto('/cart');
    await expect.poll(() => line(page, 'Cart Kettle').innerText()).toContain(formatKsh(1200));
    expect(await line(page, 'Cart Kettle').innerText()).toContain(`was ${formatKsh(1000)}`);
    await expect.poll(() => page.getByLabel('Quantity for Cart Lamp').inputValue()).toBe('1');
    await expect.poll(() => page.getByText('No longer sold, so taken out of your cart: Cart Stool').isVisible()).toBe(true);
    expect(await line(page, 'Cart Stool').count()).toBe(0);
    await expect.poll(() => page.getByText('Subtotal (2) items').isVisible()).toBe(true);
    await expect
      .poll(() =>
        page
          .getByText(formatKsh(1200 + 500))
          .first()
          .isVisible(),
      )
      .toBe(true);
    await screenshotBoth(page, 'cart-refreshed');

    // Sold out since: the line stays and says why.
    expect((await admin.put(`/api/products/${lamp._id}`, { countInStock: 0 })).status).toBe(200);
    await page.reload();
    await expect.poll(() => line(page, 'Cart Lamp').innerText()).toContain('Out of Stock');

    // What the cart now holds is what the browser keeps.
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('cart') ?? '{}'));
    expect(stored.cartItems.map((item: { name: string; price: number }) => [item.name, item.price])).toEqual([
      ['Cart Kettle', 1200],
      ['Cart Lamp', 500],
    ]);
    expect(problems).toEqual([]);
  });
});

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKsh } from '../../src/shared/money.js';
import type { Product } from '../../src/shared/schemas/products.js';
import { createProduct, NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  expectNoSidewaysScroll,
  newVisitor,
  screenshot,
  sharedBrowser,
  signIn,
  startWebShop,
} from './support/browser.js';

/**
 * A repeat shopper's whole purchase on a 360 × 740 phone, never leaving the thumb's reach: search
 * from the header, open a category, sort by price, add to cart from the sticky bar, see what is
 * left for free delivery, check out with the address of the last order already filled in, pay,
 * and watch the banner on the home page turn to Paid with the receipt.
 */

/** A category of this test's own, so the demo catalogue's counts do not matter. */
const CATEGORY = 'Beach Wraps';
/** Well under the free-delivery threshold, so the cart offers the hint. */
const PRICES = [1450, 650, 980];
const SETTLED_WITHIN_MS = 20_000;

let shop: TestShop;
let browser: Browser;
let kikois: Product[];

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  const admin = await shop.admin();
  kikois = [];
  for (const [i, price] of PRICES.entries()) {
    kikois.push(await createProduct(admin, { name: `Kikoi Wrap ${i + 1}`, category: CATEGORY, price, countInStock: 10 }));
  }
}, 90_000);
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

async function pricesOnScreen(page: Page): Promise<string[]> {
  return page.locator('.product-card-price').allTextContents();
}

describe('a repeat shopper buys on a phone', () => {
  it('searches, opens a category, sorts by price, buys from the sticky bar with the saved address, pays, and sees Paid on /', {
    timeout: 150_000,
  }, async () => {
    // Their first order, placed earlier from another device: the server keeps its address.
    const shopper = await shop.shopper('Achieng Odhiambo');
    const earlier = await placeOrder(shopper, [{ _id: kikois[0]!._id, qty: 1 }], NAIROBI_ADDRESS);
    expect(earlier.status).toBe(201);
    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
    await signIn(page, shopper.user!.email, 'shopper-pass-1');

    // Search from the header, which a phone shows without opening the menu.
    const search = page.getByRole('searchbox', { name: 'Search the shop' }).or(page.getByLabel('Search the shop'));
    expect(await search.isVisible()).toBe(true);
    await search.fill('kikoi');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL('**/search/kikoi');
    for (const kikoi of kikois)
      await expect.poll(() => page.getByRole('link', { name: kikoi.name }).first().isVisible()).toBe(true);

    // The category from the bar, sorted by price.
    const bar = page.getByRole('navigation', { name: 'Categories' });
    await bar.getByRole('link', { name: `${CATEGORY} ${PRICES.length} products` }).click();
    await page.waitForURL(`**/category/${encodeURIComponent(CATEGORY)}`);
    await page.getByLabel('Sort by').selectOption({ label: 'Price: low to high' });
    await page.waitForURL(`**/category/${encodeURIComponent(CATEGORY)}?sort=price_asc`);
    const ascending = [...PRICES].sort((a, b) => a - b);
    await expect.poll(() => pricesOnScreen(page)).toEqual(ascending.map((p) => formatKsh(p)));
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'journey-category-sorted');

    // The cheapest, added from the bar at the bottom of the product page.
    const cheapest = kikois[PRICES.indexOf(ascending[0]!)]!;
    await page.getByRole('link', { name: cheapest.name }).first().click();
    await page.waitForURL(`**/products/${cheapest._id}`);
    const buyBar = page.getByRole('region', { name: 'Buy' });
    await expect.poll(() => buyBar.isVisible()).toBe(true);
    const barBox = await buyBar.boundingBox();
    expect(barBox && barBox.y + barBox.height).toBeLessThanOrEqual(ADMIN_PHONE.height + 1);
    await screenshot(page, 'journey-product-buy-bar');
    await buyBar.getByRole('button', { name: /Add To Cart/ }).click();
    await page.waitForURL('**/cart');

    // The cart says how far free delivery is.
    await expect.poll(() => page.getByText(/^Add more than Ksh\. [\d,.]+ for free delivery$/).isVisible()).toBe(true);
    await screenshot(page, 'journey-cart');
    await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
    await page.waitForURL('**/shipping');

    // This browser never saw the address: it comes from the last order, on the server.
    await expect.poll(() => page.getByLabel('County', { exact: true }).inputValue()).toBe(NAIROBI_ADDRESS.county);
    expect(await page.getByLabel('Phone Number').inputValue()).toBe(NAIROBI_ADDRESS.phoneNumber);
    expect(await page.getByLabel('Ward').inputValue()).toBe(NAIROBI_ADDRESS.ward);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/place-order');
    await expect.poll(() => page.getByRole('button', { name: 'Place Order' }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Place Order' }).click();
    await page.waitForURL('**/order/*');

    // Pay: the shop sends the shopper home, and the banner follows the payment there.
    await expect.poll(() => page.getByRole('button', { name: 'Pay with M-Pesa' }).isVisible()).toBe(true);
    await page.getByLabel('M-Pesa phone number').fill('0708374149');
    await page.getByRole('button', { name: 'Pay with M-Pesa' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    const banner = page.getByTestId('payment-banner');
    await expect.poll(() => banner.textContent()).toContain('Waiting for M-Pesa…');
    await expect.poll(() => banner.textContent(), { timeout: SETTLED_WITHIN_MS }).toMatch(/Paid — receipt [A-Z0-9]{10}/);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'journey-paid-banner');
    expect(problems).toEqual([]);
    await context.close();
  });
});

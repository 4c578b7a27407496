import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import { NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  fillShippingForm,
  newVisitor,
  sharedBrowser,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

/**
 * Every control a shopper touches on a 360 px phone is at least 44 px tall (WCAG 2.5.5), screen by
 * screen through the purchase. Left out, as WCAG 2.5.8 leaves them out: links inside a sentence,
 * and a product card's title, whose link stretches over the whole card.
 */

const MIN_TARGET_PX = 44;

let shop: TestShop;
let browser: Browser;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/** The visible controls on the page shorter than a thumb, described for the failure message. */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate((min) => {
    const controls = [...document.querySelectorAll<HTMLElement>('a, button, input, select, textarea')];
    return controls.flatMap((control) => {
      const box = control.getBoundingClientRect();
      const style = getComputedStyle(control);
      if (box.width <= 1 || box.height === 0 || style.visibility === 'hidden' || control.closest('[aria-hidden="true"]'))
        return [];
      if (control.classList.contains('stretched-link')) return [];
      const text = control.textContent?.trim() ?? '';
      const inSentence =
        control.tagName === 'A' &&
        style.display === 'inline' &&
        (control.parentElement?.textContent?.trim().length ?? 0) > text.length + 3;
      if (inSentence || box.height >= min) return [];
      const name = text || control.getAttribute('aria-label') || control.getAttribute('name') || control.id;
      return [`${control.tagName.toLowerCase()} "${name.slice(0, 40)}" ${Math.round(box.width)}×${Math.round(box.height)}`];
    });
  }, MIN_TARGET_PX);
}

describe('tap targets on a 360 px phone', () => {
  it('are at least 44 px tall on every screen of a purchase, signed out and in', async () => {
    const catalogue = (await shop.client().get<ProductPage>('/api/products')).body;
    const product = catalogue.products.find((p) => p.countInStock > 0);
    if (!product) throw new Error('the demo catalogue has nothing in stock');
    const shopper = await shop.shopper('Thumb Shopper');
    const order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }], NAIROBI_ADDRESS)).body as Order;
    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);

    const found: Record<string, string[]> = {};
    const measure = async (screen: string) => {
      found[screen] = await smallTargets(page);
    };
    const open = async (path: string, ready: () => Promise<boolean>) => {
      await page.goto(path);
      await expect.poll(ready).toBe(true);
      await measure(path);
    };

    await open('/', () => page.getByRole('heading', { name: 'Latest Products' }).isVisible());
    await open('/page/2', () => page.getByRole('heading', { name: 'Latest Products' }).isVisible());
    // A category with a sort and a price range: the chips, the sort, the price fields and Apply.
    await open(
      `/category/${encodeURIComponent(product.category)}?sort=price_asc&minPrice=1`,
      async () =>
        (await page.getByLabel('Sort by').inputValue()) === 'price_asc' && (await page.locator('.product-card').count()) > 0,
    );
    await open(`/products/${product._id}`, () => page.getByRole('heading', { name: product.name }).isVisible());
    await open('/login', () => page.getByRole('button', { name: 'Sign In' }).isVisible());
    await open('/register', () => page.getByRole('button', { name: 'Sign Up' }).isVisible());

    await signInDirectly(page, shopper.user?.email ?? '', 'shopper-pass-1');
    await page.goto(`/products/${product._id}`);
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    await expect.poll(() => page.getByRole('button', { name: 'Proceed To Checkout' }).isEnabled()).toBe(true);
    await measure('/cart');
    await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
    await page.waitForURL('**/shipping');
    await fillShippingForm(page, NAIROBI_ADDRESS);
    await measure('/shipping');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/place-order');
    await expect.poll(() => page.getByRole('button', { name: 'Place Order' }).isEnabled()).toBe(true);
    await measure('/place-order');
    await open(`/order/${order._id}`, () => page.getByRole('button', { name: 'Pay with M-Pesa' }).isVisible());
    await open('/profile', () => page.getByRole('button', { name: 'Update' }).isVisible());

    expect(Object.keys(found)).toHaveLength(11);
    expect(Object.entries(found).filter(([, small]) => small.length > 0)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import type { PublicUser } from '../../src/shared/schemas/users.js';
import { NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  DESKTOP,
  fillShippingForm,
  navigateInApp,
  newVisitor,
  sharedBrowser,
  signIn,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

/**
 * axe-core on every screen of the shop, storefront and admin, at a 360 px phone and a 1280 px
 * desktop: no serious or critical violation of WCAG 2.x A/AA or axe's best practices. Each screen
 * is checked once its content is on screen, since an empty loading state passes anything.
 */

const axeSource: string = createRequire(import.meta.url)('axe-core').source;

interface Finding {
  screen: string;
  rule: string;
  impact: string;
  targets: string[];
}

let shop: TestShop;
let browser: Browser;
let product: ProductPage['products'][number];
let order: Order;
let shopperEmail: string;
let shopperId: string;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  const catalogue = (await shop.client().get<ProductPage>('/api/products')).body;
  const inStock = catalogue.products.find((p) => p.countInStock > 0);
  if (!inStock) throw new Error('the demo catalogue has nothing in stock');
  product = inStock;
  const shopper = await shop.shopper('Akinyi Otieno');
  shopperEmail = shopper.user?.email ?? '';
  order = (await placeOrder(shopper, [{ _id: product._id, qty: 1 }], NAIROBI_ADDRESS)).body as Order;
  const users = (await (await shop.admin()).get<PublicUser[]>('/api/users')).body;
  const found = users.find((user) => user.email === shopperEmail);
  if (!found) throw new Error('the new shopper is not in the user list');
  shopperId = found._id;
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/** Runs axe on the page as it is and returns its serious and critical violations. */
async function audit(page: Page, screen: string): Promise<Finding[]> {
  // Evaluated over the DevTools protocol, which the shop's CSP (script-src 'self') rightly does not allow a page to do.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      rule: v.id,
      impact: v.impact ?? 'unknown',
      targets: v.nodes.slice(0, 3).map((node) => node.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ screen, ...v }));
}

/** Every screen, in the order a shopper and then the merchant meet them. */
async function auditEveryScreen(viewport: {
  width: number;
  height: number;
}): Promise<{ screens: string[]; findings: Finding[] }> {
  const shopperVisit = await newVisitor(browser, shop, viewport);
  let { page } = shopperVisit;
  const screens: string[] = [];
  const findings: Finding[] = [];
  const check = async (screen: string) => {
    screens.push(screen);
    findings.push(...(await audit(page, screen)));
  };
  /**
   * A visitor's first screen comes from the server; the next ones as the app moves between screens,
   * so the browser does not parse the app and axe (half a megabyte of script) again for each. A
   * screen is ready once it is at its address, its content is on screen and nothing still loads.
   */
  const visit = async (path: string, ready: () => Promise<boolean>) => {
    if (page.url() === 'about:blank') await page.goto(path);
    else await navigateInApp(page, path);
    const pathname = new URL(path, shop.url).pathname;
    await expect
      .poll(
        async () => new URL(page.url()).pathname === pathname && (await page.locator('.loader').count()) === 0 && (await ready()),
      )
      .toBe(true);
    await check(path);
  };
  const heading = (name: string) => () => page.getByRole('heading', { name, exact: true }).isVisible();

  await visit('/', heading('Latest Products'));
  await visit('/page/2', heading('Latest Products'));
  await visit(`/search/${encodeURIComponent(product.name.split(' ')[0] ?? 'a')}`, () =>
    page.locator('main a[href^="/products/"]').first().isVisible(),
  );
  await visit(`/products/${product._id}`, heading(product.name));
  await visit('/no-such-page', () =>
    page
      .locator('main')
      .getByText(/not found/i)
      .first()
      .isVisible(),
  );
  await visit('/login', () => page.getByRole('button', { name: 'Sign In' }).isVisible());
  await visit('/register', () => page.getByRole('button', { name: 'Sign Up' }).isVisible());
  await visit('/forgot-password', () => page.getByRole('button', { name: /send/i }).isVisible());
  await visit('/reset-password/not-a-real-token', () => page.locator('main form, main .alert').first().isVisible());

  await signInDirectly(page, shopperEmail, 'shopper-pass-1');
  await page.goto(`/products/${product._id}`);
  await page.getByRole('button', { name: 'Add To Cart' }).click();
  await page.waitForURL('**/cart');
  await expect.poll(() => page.getByRole('button', { name: 'Proceed To Checkout' }).isEnabled()).toBe(true);
  await check('/cart');
  await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
  await page.waitForURL('**/shipping');
  await fillShippingForm(page, NAIROBI_ADDRESS);
  await check('/shipping');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL('**/place-order');
  await expect.poll(() => page.getByRole('button', { name: 'Place Order' }).isEnabled()).toBe(true);
  await check('/place-order');
  await visit(`/order/${order._id}`, () => page.getByRole('button', { name: 'Pay with M-Pesa' }).isVisible());
  await visit('/profile', () => page.getByRole('button', { name: 'Update' }).isVisible());

  // The merchant, in a browser of their own.
  const adminVisit = await newVisitor(browser, shop, viewport);
  page = adminVisit.page;
  await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
  await visit('/admin', () => page.locator('main h1, main h2').first().isVisible());
  await visit('/admin/orderlist', heading('Orders'));
  await visit('/admin/productlist', heading('Products'));
  await visit(`/admin/product/${product._id}/edit`, heading('Edit Product'));
  await visit('/admin/userlist', heading('Users'));
  await visit(`/admin/user/${shopperId}`, heading('Edit User'));
  await visit('/admin/payments', () => page.locator('main h1').first().isVisible());
  await visit('/admin/mail', () => page.locator('main h1').first().isVisible());
  await visit('/admin/settings', () => page.locator('main h1').first().isVisible());
  await visit(`/admin/order/${order._id}/slip`, () => page.getByText(order.orderNumber).first().isVisible());

  expect([...shopperVisit.problems, ...adminVisit.problems]).toEqual([]);
  await Promise.all([shopperVisit.context.close(), adminVisit.context.close()]);
  return { screens, findings };
}

describe('accessibility (axe-core)', () => {
  for (const [name, viewport] of [
    ['a 360 px phone', ADMIN_PHONE],
    ['a 1280 px desktop', DESKTOP],
  ] as const) {
    it(`finds no serious or critical issue on any screen on ${name}`, { timeout: 180_000 }, async () => {
      const { screens, findings } = await auditEveryScreen(viewport);
      console.log(`axe at ${viewport.width} px: ${screens.length} screens, ${findings.length} serious or critical`);
      expect(findings).toEqual([]);
      expect(screens).toHaveLength(24);
    });
  }
});

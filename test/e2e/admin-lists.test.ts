import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { AdminProduct, ProductPage } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  closeVisitors,
  expectNoSidewaysScroll,
  newVisitor,
  screenshot,
  sharedBrowser,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

/** The admin's lists on a 360 px phone: cards, nothing off screen, actions that cannot apply disabled. */
const PHONE = ADMIN_PHONE;
const DESKTOP = { width: 1280, height: 800 };

let shop: TestShop;
let browser: Browser;
let api: ApiClient;
let paidOrder: Order;
let unpaidOrder: Order;
let draft: AdminProduct;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  api = await shop.admin();
  const buyer = await shop.shopper('Akinyi Mobile');
  const product = (await api.get<ProductPage>('/api/products?keyword=jerrycan')).body.products[0]!;
  unpaidOrder = (await placeOrder(buyer, [{ _id: product._id, qty: 1 }], NAIROBI_ADDRESS)).body as Order;
  paidOrder = (await placeOrder(buyer, [{ _id: product._id, qty: 2 }], NAIROBI_ADDRESS)).body as Order;
  expect((await api.put(`/api/orders/${paidOrder._id}`)).status).toBe(200);
  draft = (await api.post<AdminProduct>('/api/products')).body;
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

async function openList(page: Page, path: string, label: string) {
  await page.goto(path);
  await expect.poll(() => page.getByRole('heading', { name: label }).isVisible()).toBe(true);
}

describe('the admin lists on a phone', () => {
  it('shows orders as cards with every column and action, Mark As Paid disabled once paid, and filters "To deliver"', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await openList(page, '/admin/orderlist', 'Orders');
    const list = page.getByRole('list', { name: 'Orders' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2);
    expect(await page.locator('main table').count()).toBe(0);
    const paidCard = list.getByRole('listitem').filter({ hasText: paidOrder.orderNumber });
    for (const label of ['ID', 'USER', 'DATE', 'TOTAL', 'PAID', 'DELIVERED']) {
      expect(await paidCard.getByText(label, { exact: true }).isVisible()).toBe(true);
    }
    expect(await paidCard.getByText('Akinyi Mobile').isVisible()).toBe(true);
    expect(await paidCard.getByRole('button', { name: `Mark As Paid: order ${paidOrder.orderNumber}` }).isDisabled()).toBe(true);
    const unpaidCard = list.getByRole('listitem').filter({ hasText: unpaidOrder.orderNumber });
    expect(await unpaidCard.getByRole('button', { name: `Mark As Paid: order ${unpaidOrder.orderNumber}` }).isEnabled()).toBe(
      true,
    );
    expect(await unpaidCard.getByRole('link', { name: `Details of order ${unpaidOrder.orderNumber}` }).isVisible()).toBe(true);
    expect(await unpaidCard.getByRole('button', { name: `Delete order ${unpaidOrder.orderNumber}` }).isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'admin-list-orders');

    await page.getByRole('button', { name: 'To deliver' }).click();
    await page.waitForURL((url) => url.searchParams.get('isPaid') === 'true' && url.searchParams.get('isDelivered') === 'false');
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
    expect(await list.getByRole('listitem').first().textContent()).toContain(paidOrder.orderNumber);

    // Mark As Paid from the list: the card's button disables itself once the order is paid.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2);
    await unpaidCard.getByRole('button', { name: `Mark As Paid: order ${unpaidOrder.orderNumber}` }).click();
    await expect
      .poll(() => unpaidCard.getByRole('button', { name: `Mark As Paid: order ${unpaidOrder.orderNumber}` }).isDisabled())
      .toBe(true);
    // The button is disabled while the request is on its way too: wait for the server's answer.
    await expect.poll(async () => (await api.get<Order>(`/api/orders/${unpaidOrder._id}`)).body.isPaid).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows users as cards; the admin cannot delete their own account, others can be', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await openList(page, '/admin/userlist', 'Users');
    const list = page.getByRole('list', { name: 'Users' });
    await expect.poll(() => list.getByRole('listitem').count()).toBeGreaterThan(1);
    // Newest first: the shopper who just signed up leads the list.
    await expect.poll(() => list.getByRole('listitem').first().textContent()).toContain('Akinyi Mobile');
    expect(await page.getByRole('button', { name: 'Delete Akinyi Mobile' }).isEnabled()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'admin-list-users');
    // The admin finds their own account by email, with the list's search (the shop's own is in the header).
    const searchUsers = page.locator('main').getByRole('button', { name: 'Search' });
    await page.getByLabel('Search users').fill(ADMIN_EMAIL);
    await searchUsers.click();
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Delete Shop Admin' }).isDisabled()).toBe(true);
    expect(await page.getByText('You cannot delete your own account').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Edit Shop Admin' }).isVisible()).toBe(true);
    await page.getByLabel('Search users').fill('');
    await searchUsers.click();
    // The whole list is back before the filter is ticked: a tick while the cleared search redraws
    // the form was undone by it ("Clicking the checkbox did not change its state", in a bench run).
    await expect.poll(() => list.getByRole('listitem').count()).toBeGreaterThan(1);
    await page.getByLabel('Admins only').check();
    await expect.poll(() => list.getByRole('listitem').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows products as cards, the new draft first and marked Draft', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await openList(page, '/admin/productlist', 'Products');
    const first = page.getByRole('list', { name: 'Products' }).getByRole('listitem').first();
    await expect.poll(() => first.textContent()).toContain(draft._id);
    expect(await first.getByText('Draft', { exact: true }).isVisible()).toBe(true);
    expect(await first.getByRole('button', { name: 'Delete Sample name' }).isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshot(page, 'admin-list-products');
    // Its edit screen says why shoppers do not see it yet.
    await first.getByRole('link', { name: 'Edit Sample name' }).click();
    await page.waitForURL(`**/admin/product/${draft._id}/edit`);
    await expect.poll(() => page.getByText(/^Draft: shoppers cannot see this product/).isVisible()).toBe(true);
    // The storefront does not show it.
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Latest Products' }).isVisible()).toBe(true);
    expect(await page.getByText('Sample name').count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the admin lists on a desktop', () => {
  it("keep the specification's tables", async () => {
    const { page, problems, context } = await newVisitor(browser, shop, DESKTOP);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    const tables: [string, string, string[]][] = [
      ['/admin/orderlist', 'Orders', ['ID', 'USER', 'DATE', 'TOTAL', 'PAID', 'DELIVERED']],
      ['/admin/productlist', 'Products', ['ID', 'NAME', 'PRICE', 'CATEGORY']],
      ['/admin/userlist', 'Users', ['ID', 'NAME', 'EMAIL', 'ADMIN']],
    ];
    for (const [path, label, headers] of tables) {
      await openList(page, path, label);
      const table = page.getByRole('table', { name: label });
      await expect.poll(() => table.isVisible()).toBe(true);
      const shown = await table.locator('thead th').allInnerTexts();
      expect(shown.slice(0, headers.length)).toEqual(headers);
      await screenshot(page, `admin-list-${label.toLowerCase()}`);
    }
    await openList(page, `/admin/userlist?keyword=${encodeURIComponent(ADMIN_EMAIL)}`, 'Users');
    await expect.poll(() => page.getByRole('button', { name: 'Delete Shop Admin' }).isDisabled()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});

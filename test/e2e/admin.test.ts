import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nairobiDay } from '../../src/shared/dates.js';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { Product, ProductPage } from '../../src/shared/schemas/products.js';
import type { PublicUser } from '../../src/shared/schemas/users.js';
import type { ApiClient } from '../support/client.js';
import { NAIROBI_ADDRESS, placeOrder } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestShop } from '../support/shop.js';
import {
  closeVisitors,
  newVisitor,
  screenshotBoth,
  sharedBrowser,
  signIn,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

let shop: TestShop;
let browser: Browser;
let api: ApiClient;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  api = await shop.admin();
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/** Confirms a ConfirmDialog by its button label. */
async function confirm(page: Page, label: string) {
  await page.getByRole('dialog').getByRole('button', { name: label }).click();
  await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
}

describe('an admin manages the shop from the browser', () => {
  it('creates a product, uploads its image, edits price and stock, sees it on the storefront, deletes it', async () => {
    const { page, problems, context } = await newVisitor(browser, shop);
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Shop Admin' }).click();
    await page.getByRole('link', { name: 'Products', exact: true }).click();
    await page.waitForURL('**/admin/productlist');
    await expect.poll(() => page.getByRole('heading', { name: 'Products' }).isVisible()).toBe(true);
    await screenshotBoth(page, 'admin-products');

    await page.getByRole('button', { name: 'Create Product' }).click();
    await expect.poll(() => page.getByText('Are you sure you want to create a new product?').isVisible()).toBe(true);
    await confirm(page, 'Create');
    await page.waitForURL(/\/admin\/product\/[0-9a-f-]{36}\/edit$/);
    const productId = page.url().split('/').at(-2)!;

    const png = await sharp({ create: { width: 480, height: 480, channels: 3, background: { r: 230, g: 120, b: 30 } } })
      .png()
      .toBuffer();
    await page.getByLabel('Upload image').setInputFiles({ name: 'chapati-pan.png', mimeType: 'image/png', buffer: png });
    await expect.poll(() => page.getByLabel('Image URL').inputValue()).toMatch(/^\/uploads\/[0-9a-f]{24}\.webp$/);
    const imageUrl = await page.getByLabel('Image URL').inputValue();

    await page.getByLabel('Name', { exact: true }).fill('Cast Iron Chapati Pan');
    await page.getByLabel('Price').fill('1850.50');
    await page.getByLabel('Count In Stock').fill('7');
    await page.getByLabel('Category').fill('Kitchen & Home');
    await page.getByLabel('Description').fill('Heavy pan for soft, evenly browned chapati.');
    await screenshotBoth(page, 'admin-product-edit');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByText('Product Updated.').isVisible()).toBe(true);
    await page.waitForURL('**/admin/productlist');

    // The storefront shows the new product with its uploaded image, price and stock.
    await page.goto(`/products/${productId}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Cast Iron Chapati Pan' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText(formatKsh(1850.5)).first().isVisible()).toBe(true);
    expect(await page.getByLabel('Qty').locator('option').count()).toBe(7);
    // The photo comes in the width the page needs (?w=, src/shared/images.ts) of the uploaded
    // file; a srcset photo's naturalWidth is scaled by the chosen density, so the file is measured.
    const photo = page.locator(`img[src^="${imageUrl}?"]`).first();
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const chosen = await photo.evaluate((img: HTMLImageElement) => img.currentSrc);
    expect(chosen).toContain(`${imageUrl}?w=`);
    const served = await page.request.get(chosen);
    expect((await sharp(await served.body()).metadata()).width).toBe(480);

    // Edit price and stock again; the product page follows.
    await page.goto(`/admin/product/${productId}/edit`);
    await expect.poll(() => page.getByLabel('Price').inputValue()).toBe('1850.5');
    await page.getByLabel('Price').fill('1799');
    await page.getByLabel('Count In Stock').fill('0');
    await page.getByRole('button', { name: 'Update' }).click();
    await page.waitForURL('**/admin/productlist');
    await page.goto(`/products/${productId}`);
    await expect.poll(() => page.getByText('Out of Stock').first().isVisible()).toBe(true);
    await expect.poll(() => page.getByText(formatKsh(1799)).first().isVisible()).toBe(true);

    // Delete it from the admin list, found by search.
    await page.goto('/admin/productlist?keyword=chapati');
    await page.getByRole('button', { name: 'Delete Cast Iron Chapati Pan' }).click();
    await expect.poll(() => page.getByText('Are you sure you want to delete this product?').isVisible()).toBe(true);
    await confirm(page, 'Delete');
    await expect.poll(() => page.getByText('Product deleted').isVisible()).toBe(true);
    expect((await api.get(`/api/products/${productId}`)).status).toBe(404);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps product list pagination inside the admin', async () => {
    const { page, context } = await newVisitor(browser, shop);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto('/admin/productlist');
    await page.getByRole('link', { name: 'Page 2' }).click();
    await page.waitForURL('**/admin/productlist/page/2');
    const listed = (await api.get<ProductPage>('/api/products?pageNumber=2')).body.products[0]!;
    await expect.poll(() => page.getByText(listed.name).first().isVisible()).toBe(true);
    await context.close();
  });

  it('promotes a user to admin and demotes them', async () => {
    const shopper = await shop.shopper('Njeri Promoted');
    const { page, problems, context } = await newVisitor(browser, shop);
    await signInDirectly(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto('/admin/userlist');
    await expect.poll(() => page.getByRole('heading', { name: 'Users' }).isVisible()).toBe(true);
    await screenshotBoth(page, 'admin-users');
    await page.getByRole('link', { name: 'Edit Njeri Promoted' }).click();
    await page.waitForURL(`**/admin/user/${shopper.user!._id}`);
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(shopper.user!.email);
    await screenshotBoth(page, 'admin-user-edit');
    await page.getByLabel('Is Admin').check();
    await page.getByRole('button', { name: 'Update' }).click();
    await page.waitForURL('**/admin/userlist');
    await expect.poll(async () => (await api.get<PublicUser>(`/api/users/${shopper.user!._id}`)).body.isAdmin).toBe(true);
    // The promoted shopper's existing session is an admin's at once.
    expect((await shopper.get('/api/users')).status).toBe(200);

    await page.getByRole('link', { name: 'Edit Njeri Promoted' }).click();
    await expect.poll(() => page.getByLabel('Is Admin').isChecked()).toBe(true);
    await page.getByLabel('Is Admin').uncheck();
    await page.getByRole('button', { name: 'Update' }).click();
    await page.waitForURL('**/admin/userlist');
    await expect.poll(async () => (await api.get<PublicUser>(`/api/users/${shopper.user!._id}`)).body.isAdmin).toBe(false);
    expect((await shopper.get('/api/users')).status).toBe(403);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("marks a shopper's order paid and delivered; the shopper sees both dates; then deletes an order", async () => {
    const email = `buyer-${Date.now()}@example.com`;
    const buyer = shop.client();
    await buyer.signUp('Otieno Buyer', email, 'buyer-pass-1');
    const product = (await api.get<ProductPage>('/api/products?keyword=jerrycan')).body.products[0]!;
    const order = (await placeOrder(buyer, [{ _id: product._id, qty: 1 }], NAIROBI_ADDRESS)).body as Order;

    const admin = await newVisitor(browser, shop);
    await signIn(admin.page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await admin.page.goto('/admin/orderlist');
    await expect.poll(() => admin.page.getByRole('heading', { name: 'Orders' }).isVisible()).toBe(true);
    await screenshotBoth(admin.page, 'admin-orders');
    await admin.page.getByRole('link', { name: `Details of order ${order.orderNumber}` }).click();
    await admin.page.waitForURL(`**/order/${order._id}`);
    await admin.page.getByRole('button', { name: 'Mark As Paid' }).click();
    await expect.poll(() => admin.page.getByText(/^Paid on \d{4}-\d{2}-\d{2}/).isVisible()).toBe(true);
    await admin.page.getByRole('button', { name: 'Mark As Delivered' }).click();
    await expect.poll(() => admin.page.getByText(/^Delivered on \d{4}-\d{2}-\d{2}/).isVisible()).toBe(true);
    expect(await admin.page.getByRole('button', { name: /Mark As/ }).count()).toBe(0);
    await screenshotBoth(admin.page, 'admin-order-done');

    const shopper = await newVisitor(browser, shop);
    await signIn(shopper.page, email, 'buyer-pass-1');
    await shopper.page.goto(`/order/${order._id}`);
    const today = nairobiDay(new Date());
    await expect.poll(() => shopper.page.getByText(`Paid on ${today}`).isVisible()).toBe(true);
    await expect.poll(() => shopper.page.getByText(`Delivered on ${today}`).isVisible()).toBe(true);

    // Deleting another (undelivered) order from the admin list returns its stock.
    const second = (await placeOrder(buyer, [{ _id: product._id, qty: 2 }], NAIROBI_ADDRESS)).body as Order;
    const stockBefore = (await api.get<Product>(`/api/products/${product._id}`)).body.countInStock;
    await admin.page.goto('/admin/orderlist');
    await admin.page.getByRole('button', { name: `Delete order ${second.orderNumber}` }).click();
    await expect.poll(() => admin.page.getByText('Are you sure you want to delete this order?').isVisible()).toBe(true);
    await confirm(admin.page, 'Delete');
    await expect.poll(() => admin.page.getByText('Order deleted').isVisible()).toBe(true);
    expect((await api.get(`/api/orders/${second._id}`)).status).toBe(404);
    expect((await api.get<Product>(`/api/products/${product._id}`)).body.countInStock).toBe(stockBefore + 2);
    // The mails of these orders show in the admin's mail list.
    await admin.page.goto('/admin/mail');
    await expect.poll(() => admin.page.getByRole('heading', { name: 'Mail' }).isVisible()).toBe(true);
    await expect.poll(() => admin.page.getByRole('cell', { name: email }).count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => admin.page.getByText('Payment received').first().isVisible()).toBe(true);
    await screenshotBoth(admin.page, 'admin-mail');
    expect([...admin.problems, ...shopper.problems]).toEqual([]);
    await admin.context.close();
    await shopper.context.close();
  });
});

describe('admin screens refuse everyone else', () => {
  it('sends a guest and a shopper from every guarded admin route to /login', async () => {
    const shopper = await shop.shopper('Curious Shopper');
    const guarded = [
      '/admin/orderlist',
      '/admin/productlist',
      '/admin/productlist/page/2',
      '/admin/userlist',
      `/admin/product/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/edit`,
    ];
    const guest = await newVisitor(browser, shop);
    const signedIn = await newVisitor(browser, shop);
    await signIn(signedIn.page, shopper.user!.email, 'shopper-pass-1');
    for (const visitor of [guest, signedIn]) {
      for (const path of guarded) {
        await visitor.page.goto(path);
        await visitor.page.waitForURL((url) => url.pathname === '/login');
      }
    }
    await expect.poll(() => signedIn.page.getByText('This page is for admins.', { exact: false }).isVisible()).toBe(true);
    await guest.context.close();
    await signedIn.context.close();
  });

  it('shows a shopper no data on /admin/user/{id}, which sits outside the guard', async () => {
    const shopper = await shop.shopper('Nosy Shopper');
    const target = await shop.shopper('Private Person');
    const { page, context } = await newVisitor(browser, shop);
    await signInDirectly(page, shopper.user!.email, 'shopper-pass-1');
    await page.goto(`/admin/user/${target.user!._id}`);
    await expect.poll(() => page.getByText('This is for admins only').isVisible()).toBe(true);
    const body = await page.locator('main').innerText();
    expect(body).not.toContain(target.user!.email);
    expect(body).not.toContain('Private Person');
    expect(await page.getByLabel('Email').count()).toBe(0);
    await screenshotBoth(page, 'admin-user-refused');
    await context.close();
  });
});

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKsh } from '../../src/shared/money.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { ProductDetail } from '../../src/shared/schemas/products.js';
import type { ApiClient } from '../support/client.js';
import { createProduct } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import {
  appTookOver,
  closeVisitors,
  expectNoSidewaysScroll,
  fillShippingForm,
  newVisitor,
  PHONE,
  screenshotBoth,
  sharedBrowser,
  signInDirectly,
  startWebShop,
} from './support/browser.js';

let shop: TestShop;
let browser: Browser;
let admin: ApiClient;
let sneaker: ProductDetail;

const OPTIONS = [
  { name: 'Size', values: ['41', '42', '43'] },
  { name: 'Colour', values: ['Black', 'White'] },
];

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  admin = await shop.admin();
  const product = await createProduct(admin, { name: 'Court Sneaker', price: 3500, countInStock: 0, category: 'Shoes' });
  const variant = (size: string, colour: string, price: number, countInStock: number) => ({
    options: { Size: size, Colour: colour },
    price,
    countInStock,
  });
  const res = await admin.put<ProductDetail>(`/api/products/${product._id}/variants`, {
    options: OPTIONS,
    variants: [
      variant('41', 'Black', 3500, 0),
      variant('42', 'Black', 3500, 4),
      variant('42', 'White', 3600, 0),
      variant('43', 'Black', 3800, 2),
      variant('43', 'White', 3800, 5),
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  sneaker = res.body;
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

const sizeButton = (page: Page, value: string) => page.getByRole('button', { name: new RegExp(`^Size ${value}(,|$)`) });
const colourButton = (page: Page, value: string) => page.getByRole('button', { name: new RegExp(`^Colour ${value}(,|$)`) });
const addButton = (page: Page) => page.getByRole('button', { name: 'Add To Cart' });

async function openProduct(page: Page): Promise<void> {
  await page.goto(`/products/${sneaker._id}`);
  await appTookOver(page);
}

describe('a product sold in sizes and colours, on a phone', () => {
  it('chooses a size and colour, adds two variants of one shoe, checks out and pays', async () => {
    const shopper = await shop.shopper('Wanjiru Kamau');
    const { page, problems } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, shopper.user?.email ?? '', 'shopper-pass-1');
    await openProduct(page);

    // Before a choice: the lowest price, "from", and Add To Cart waits, saying why.
    await expect.poll(() => page.locator('.buy-bar').innerText()).toContain(`from ${formatKsh(3500)}`);
    expect(await addButton(page).isDisabled()).toBe(true);
    expect(await page.locator('.buy-bar').getByText('Choose a Size').isVisible()).toBe(true);
    // A size with nothing in stock is crossed out and cannot be chosen; each value is a 44 px target.
    expect(await sizeButton(page, '41').getAttribute('aria-label')).toBe('Size 41, out of stock');
    expect(await sizeButton(page, '41').isDisabled()).toBe(true);
    const box = await sizeButton(page, '42').boundingBox();
    expect(Math.min(box?.width ?? 0, box?.height ?? 0)).toBeGreaterThanOrEqual(44);
    await screenshotBoth(page, 'variant-unchosen');

    // Size 42: White has none in that size; Black is the one left to choose.
    await sizeButton(page, '42').click();
    expect(await colourButton(page, 'White').isDisabled()).toBe(true);
    expect(await page.locator('.buy-bar').getByText('Choose a Colour').isVisible()).toBe(true);
    await colourButton(page, 'Black').click();
    await expect.poll(() => addButton(page).isEnabled()).toBe(true);
    // Price and stock follow the choice: 4 in stock, so 1 to 4.
    expect(await page.locator('.buy-bar').innerText()).not.toContain('from');
    expect(await page.getByLabel('Qty').locator('option').count()).toBe(4);
    await screenshotBoth(page, 'variant-chosen');
    await page.getByLabel('Qty').selectOption('2');
    await addButton(page).click();
    await page.waitForURL('**/cart');

    // The same shoe in another size is another line.
    await openProduct(page);
    await sizeButton(page, '43').click();
    await colourButton(page, 'Black').click();
    await addButton(page).click();
    await page.waitForURL('**/cart');
    await expect.poll(() => page.getByText('Subtotal (3) items').isVisible()).toBe(true);
    expect(await page.getByText('Size 42 / Black', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText('Size 43 / Black', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByLabel('Quantity for Court Sneaker (Size 42 / Black)').inputValue()).toBe('2');
    await expect
      .poll(() =>
        page
          .getByText(formatKsh(3500 * 2 + 3800))
          .first()
          .isVisible(),
      )
      .toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'variant-cart');

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
    await page.getByRole('button', { name: 'Place Order' }).click();
    await page.waitForURL(/\/order\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByText('Size 43 / Black', { exact: true }).first().isVisible()).toBe(true);
    const orderId = page.url().split('/').pop() ?? '';
    const order = (await shopper.get<Order>(`/api/orders/${orderId}`)).body;
    expect(order.orderItems.map(({ variant, qty, price }) => [variant, qty, price])).toEqual([
      ['Size 42 / Black', 2, 3500],
      ['Size 43 / Black', 1, 3800],
    ]);

    // Paid with M-Pesa, through the simulator (0708374149 pays).
    await page.getByLabel('M-Pesa phone number').fill('0708374149');
    await page.getByRole('button', { name: 'Pay with M-Pesa' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await expect.poll(async () => (await shopper.get<Order>(`/api/orders/${orderId}`)).body.isPaid).toBe(true);
    await page.goto(`/order/${orderId}`);
    await expect.poll(() => page.getByText(/^Paid on \d{4}-\d{2}-\d{2}$/).isVisible()).toBe(true);
    await screenshotBoth(page, 'variant-order-paid');

    // Each variant gave its own stock.
    const after = (await shop.client().get<ProductDetail>(`/api/products/${sneaker._id}`)).body;
    const stock = Object.fromEntries(
      (after.variants ?? []).map((v) => [`${v.options.Size}/${v.options.Colour}`, v.countInStock]),
    );
    expect(stock).toMatchObject({ '42/Black': 2, '43/Black': 1, '43/White': 5 });
    expect(after.countInStock).toBe(8);
    expect(problems).toEqual([]);
  });
});

import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_RESULTS_CAP } from '../../src/shared/constants.js';
import { formatKsh } from '../../src/shared/money.js';
import { DEFAULT_PRICING, orderTotals } from '../../src/shared/pricing.js';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { Product, ProductPage } from '../../src/shared/schemas/products.js';
import { createProduct } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import {
  closeVisitors,
  DESKTOP,
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

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

let emailCount = 0;
const newEmail = () => `e2e-${Date.now()}-${++emailCount}@example.com`;

async function productNamed(fragment: string): Promise<Product> {
  const page = (await shop.client().get<ProductPage>(`/api/products?keyword=${encodeURIComponent(fragment)}`)).body;
  const product = page.products.find((p) => p.name.includes(fragment));
  if (!product) throw new Error(`no product named like ${fragment}`);
  return product;
}

describe('a shopper buys something, end to end', () => {
  it('browses, searches with a typo, adds to the cart, signs up, ships and places the order', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Latest Products' }).isVisible()).toBe(true);
    await expect.poll(() => page.locator('.carousel').count()).toBe(1);
    await screenshotBoth(page, 'home');

    // Search with a typo from the navigation bar, in view on the phone.
    await page.getByPlaceholder('Search Product...').fill('samsng');
    await page.getByPlaceholder('Search Product...').press('Enter');
    await page.waitForURL('**/search/samsng');
    await expect.poll(() => page.getByRole('link', { name: 'Go Back' }).isVisible()).toBe(true);
    expect(await page.locator('.carousel').count()).toBe(0);
    // The shopper is told what was searched instead of the typo.
    await expect
      .poll(() => page.getByText(/^Nothing matches “samsng”\. Results for “samsung”: \d+ products?$/).isVisible())
      .toBe(true);
    await screenshotBoth(page, 'search-close-spelling');
    const phone = await productNamed('Samsung Galaxy');
    await page.getByRole('link', { name: phone.name }).first().click();
    await page.waitForURL(`**/products/${phone._id}`);
    await expect.poll(() => page.getByText('In Stock').first().isVisible()).toBe(true);
    await screenshotBoth(page, 'product');

    await page.getByLabel('Qty').selectOption('2');
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    await expect.poll(() => page.getByRole('heading', { name: 'Shopping Cart' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Subtotal (2) items').isVisible()).toBe(true);
    await page.getByLabel(`Quantity for ${phone.name}`).selectOption('3');
    await expect.poll(() => page.getByText('Subtotal (3) items').isVisible()).toBe(true);
    await expect
      .poll(() =>
        page
          .getByText(formatKsh(phone.price * 3))
          .first()
          .isVisible(),
      )
      .toBe(true);
    expect(await page.locator('header').getByText('3', { exact: true }).count()).toBeGreaterThan(0);
    // Delivery, tax and total by the shared rules, before checkout (three phones: free delivery).
    const cartTotals = orderTotals([{ price: phone.price, qty: 3 }], DEFAULT_PRICING);
    expect(cartTotals.shippingPrice).toBe(0);
    await expect.poll(() => page.getByTestId('cart-shipping').textContent()).toContain('Free delivery');
    expect(await page.getByTestId('cart-tax').textContent()).toBe(`Tax${formatKsh(cartTotals.taxPrice)}`);
    expect(await page.getByTestId('cart-total').textContent()).toBe(`Total${formatKsh(cartTotals.totalPrice)}`);
    await screenshotBoth(page, 'cart');

    await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
    await page.waitForURL('**/login?redirect=/shipping');
    await screenshotBoth(page, 'login');
    await page.getByRole('link', { name: /Register/ }).click();
    await page.waitForURL('**/register?redirect=/shipping');
    await page.getByLabel('Name').fill('Achieng Otieno');
    await page.getByLabel('Email Address').fill(newEmail());
    await page.getByLabel('Password', { exact: true }).fill('achieng-pass-1');
    await page.getByLabel('Confirm Password').fill('achieng-pass-1');
    await screenshotBoth(page, 'register');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await page.waitForURL('**/shipping');

    await fillShippingForm(page, {
      county: 'Nairobi',
      phoneNumber: '0711223344',
      postalCode: '00100',
      sub_county: 'Westlands',
      ward: 'Parklands',
    });
    expect(await page.getByLabel('Phone Number').getAttribute('inputmode')).toBe('numeric');
    await screenshotBoth(page, 'shipping');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/place-order');
    await expect.poll(() => page.getByText('MPESA').first().isVisible()).toBe(true);
    const totals = orderTotals([{ price: phone.price, qty: 3 }], DEFAULT_PRICING);
    await expect.poll(() => page.getByText(formatKsh(totals.totalPrice)).first().isVisible()).toBe(true);
    await screenshotBoth(page, 'place-order');

    await page.getByRole('button', { name: 'Place Order' }).click();
    await page.waitForURL(/\/order\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByRole('heading', { name: 'Thank you for your order!' }).isVisible()).toBe(true);
    // On a phone the pay box comes before the order's details: paying is the next step.
    await page.setViewportSize(PHONE);
    const payButton = await page.getByRole('button', { name: 'Pay with M-Pesa' }).boundingBox();
    const shippingHeading = await page.getByRole('heading', { name: 'Shipping', exact: true }).boundingBox();
    expect(payButton?.y ?? Number.POSITIVE_INFINITY).toBeLessThan(shippingHeading?.y ?? 0);
    await page.setViewportSize(DESKTOP);
    await expect.poll(() => page.getByText('Not Paid').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Not Delivered').isVisible()).toBe(true);
    for (const amount of [totals.itemsPrice, totals.taxPrice, totals.totalPrice]) {
      expect(await page.getByText(formatKsh(amount)).count(), formatKsh(amount)).toBeGreaterThan(0);
    }
    await expect.poll(() => page.getByText('0711223344').first().isVisible()).toBe(true);
    await screenshotBoth(page, 'order');

    // The cart is empty after the order, and the order is in the profile's list.
    expect(await page.evaluate(() => localStorage.getItem('cart'))).toBeNull();
    const orderId = page.url().split('/').pop()!;
    await page.goto('/profile');
    await expect.poll(() => page.getByRole('cell', { name: orderId }).first().isVisible()).toBe(true);
    await screenshotBoth(page, 'profile');
    expect((await shop.client().get<Product>(`/api/products/${phone._id}`)).body.countInStock).toBe(phone.countInStock - 3);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('a shopper who has ordered before', () => {
  it('finds the shipping form filled in from their last order on a browser that has no address', async () => {
    const product = await productNamed('Ketepa');
    const shopper = await shop.shopper('Returning Shopper');
    const address = { county: 'Mombasa', phoneNumber: '0733445566', postalCode: '80100', sub_county: 'Nyali', ward: 'Kongowea' };
    expect(
      (await shopper.post('/api/orders', { orderItems: [{ _id: product._id, qty: 1 }], shippingAddress: address })).status,
    ).toBe(201);

    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, shopper.user?.email ?? '', 'shopper-pass-1');
    await page.goto(`/products/${product._id}`);
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
    await page.waitForURL('**/shipping');
    await expect.poll(() => page.getByLabel('County', { exact: true }).inputValue()).toBe('Mombasa');
    expect(
      await Promise.all(
        ['Phone Number', 'Postal Code', 'Sub County', 'Ward'].map((label) => page.getByLabel(label).inputValue()),
      ),
    ).toEqual(['0733445566', '80100', 'Nyali', 'Kongowea']);
    expect(await page.getByTestId('address-from-last-order').isVisible()).toBe(true);
    await screenshotBoth(page, 'shipping-from-last-order');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('placing an order over a connection that drops', () => {
  it('opens the order already placed when the first answer was lost, rather than placing a second', async () => {
    const product = await productNamed('Ketepa');
    const stockBefore = product.countInStock;
    const email = newEmail();
    const shopper = shop.client();
    await shopper.signUp('Dropped Connection', email, 'dropped-pass-1');
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await signInDirectly(page, email, 'dropped-pass-1');
    await page.goto(`/products/${product._id}`);
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    await page.getByRole('button', { name: 'Proceed To Checkout' }).click();
    await page.waitForURL('**/shipping');
    await fillShippingForm(page, {
      county: 'Kisumu',
      phoneNumber: '0722334455',
      postalCode: '40100',
      sub_county: 'Kisumu Central',
      ward: 'Milimani',
    });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/place-order');

    // The first Place Order reaches the shop, which places the order; its answer never arrives.
    const keys: string[] = [];
    let lostAnswer: Order | undefined;
    await page.route('**/api/orders', async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (lostAnswer) return route.continue();
      lostAnswer = (await (await route.fetch()).json()) as Order;
      return route.abort('connectionreset');
    });
    const placeOrder = page.getByRole('button', { name: 'Place Order' });
    await placeOrder.click();
    await expect.poll(() => lostAnswer?._id).toBeTruthy();
    await expect.poll(() => placeOrder.isEnabled()).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/place-order');

    // The shopper taps again: the same checkout, so the shop answers the order it placed.
    await placeOrder.click();
    await page.waitForURL(/\/order\/[0-9a-f-]{36}$/);
    expect(page.url()).toContain(`/order/${lostAnswer?._id}`);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const mine = (await shopper.get<Order[]>('/api/orders/myorders')).body;
    expect(mine.map((order) => order._id)).toEqual([lostAnswer?._id]);
    expect((await shop.client().get<Product>(`/api/products/${product._id}`)).body.countInStock).toBe(stockBefore - 1);
    expect(problems.filter((problem) => !problem.includes('ERR_CONNECTION_RESET'))).toEqual([]);
    await context.close();
  });
});

describe('reviews', () => {
  it('offers a guest sign-in instead of the form; a shopper reviews, sees the rating change and deletes it', async () => {
    const product = await productNamed('Mitre');
    const { page, problems, context } = await newVisitor(browser, shop);
    await page.goto(`/products/${product._id}`);
    await expect.poll(() => page.getByText('Please sign in to write a review').isVisible()).toBe(true);
    expect(await page.getByLabel('Comment').count()).toBe(0);

    const email = newEmail();
    await shop.client().signUp('Kamau Reviewer', email, 'kamau-pass-1');
    await page.goto(`/login?redirect=/products/${product._id}`);
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Password').fill('kamau-pass-1');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL(`**/products/${product._id}`);

    // No rating chosen: the client refuses with the specification's message.
    await page.getByLabel('Comment').fill('Holds its shape after a season of matches');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => page.getByText('Please select a review').isVisible()).toBe(true);

    await page.getByLabel('Rating').selectOption('1');
    await page.getByRole('button', { name: 'Submit' }).click();
    // The form resets after a successful submit (docs/product-rules.md, Validation); then the review is listed.
    await expect.poll(() => page.getByLabel('Comment').inputValue()).toBe('');
    await expect.poll(() => page.getByText('Holds its shape after a season of matches').isVisible()).toBe(true);
    const after = (await shop.client().get<Product>(`/api/products/${product._id}`)).body;
    expect(after.numReviews).toBe(product.numReviews + 1);
    expect(after.rating).toBeLessThan(product.rating);
    await expect.poll(() => page.getByText(`${after.numReviews} reviews`).first().isVisible()).toBe(true);
    // One review per shopper: the form stays, emptied, but closed until theirs is deleted.
    await expect.poll(() => page.getByText('You have reviewed this product.', { exact: false }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Submit' }).isDisabled()).toBe(true);
    await screenshotBoth(page, 'product-reviewed');

    // Deleting asks first; Cancel keeps the review.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByText('Holds its shape after a season of matches').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(await page.getByRole('dialog').getByText('Are you sure you want to delete this review?').isVisible()).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText('Holds its shape after a season of matches').count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: 'Submit' }).isEnabled()).toBe(true);
    expect((await shop.client().get<Product>(`/api/products/${product._id}`)).body.numReviews).toBe(product.numReviews);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('search results', () => {
  it('says "1,000+ products" when a keyword matches more than the search ranks, and the exact count otherwise', async () => {
    await shop.database.db.execute(sql`
      INSERT INTO products (user_id, name, image, category, description, price_cents, count_in_stock)
      SELECT (SELECT id FROM users WHERE is_admin LIMIT 1), 'Kikapu Basket ' || n, '/images/sample.webp', 'Baskets', 'Woven sisal', 90000, 3
      FROM generate_series(1, ${SEARCH_RESULTS_CAP + 50}) AS n`);
    await shop.catalogueChanges.committed({ products: [], listing: true });
    const { page, problems, context } = await newVisitor(browser, shop);

    await page.goto('/search/kikapu');
    await expect.poll(() => page.getByRole('heading', { name: 'Latest Products' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Results for “kikapu”: 1,000+ products').isVisible()).toBe(true);

    await page.goto('/search/ketepa');
    await expect.poll(() => page.getByText(/^Results for “ketepa”: (1 product|\d+ products)$/).isVisible()).toBe(true);
    expect(await page.getByText(/\+ products/).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the header on a 360 px phone', () => {
  it('shows the search and the cart with its count without opening the menu; only the account folds', async () => {
    const product = await productNamed('Ketepa');
    const { page, problems, context } = await newVisitor(browser, shop, PHONE);
    await page.goto(`/products/${product._id}`);
    // The drawn page works once the app has taken it over (it sets the title then): a choice made
    // before that is the server's HTML, which the app does not read.
    await page.waitForFunction((name) => document.title.startsWith(name), product.name);
    await page.getByLabel('Qty').selectOption('2');
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');

    const header = page.locator('header');
    const menu = header.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    const cart = header.getByRole('link', { name: 'Cart 2 items in cart', exact: true });
    await expect.poll(() => cart.isVisible()).toBe(true);
    expect(await cart.getByText('2', { exact: true }).isVisible()).toBe(true);
    const search = header.getByPlaceholder('Search Product...');
    const searchButton = header.getByRole('button', { name: 'Search', exact: true });
    expect(await search.isVisible()).toBe(true);
    expect(await searchButton.isVisible()).toBe(true);
    // The account is what folds: Sign In waits behind Menu.
    expect(await header.getByRole('link', { name: 'Sign In' }).isVisible()).toBe(false);

    // A thumb's targets: 44 px tall at least; the cart and Menu share the brand's row, the search is under it.
    const boxes = await Promise.all([cart, menu, search, searchButton].map((element) => element.boundingBox()));
    for (const box of boxes) expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    const [cartBox, menuBox, searchBox] = boxes;
    expect(Math.abs((cartBox?.y ?? 0) - (menuBox?.y ?? 100))).toBeLessThan(4);
    expect(searchBox?.y ?? 0).toBeGreaterThanOrEqual((menuBox?.y ?? 0) + (menuBox?.height ?? 0));
    await expectNoSidewaysScroll(page);

    // One item: the badge's hidden words agree with the count.
    await page.getByLabel(`Quantity for ${product.name}`).selectOption('1');
    await expect.poll(() => header.getByRole('link', { name: 'Cart 1 item in cart', exact: true }).isVisible()).toBe(true);

    await search.fill('ketepa');
    await search.press('Enter');
    await page.waitForURL('**/search/ketepa');
    await menu.click();
    await expect.poll(() => header.getByRole('link', { name: 'Sign In' }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the grid and the product page for a thumb', () => {
  /** How many cards share the first row of the listing at this width. */
  async function cardsInFirstRow(page: Page, width: number): Promise<number> {
    await page.setViewportSize({ width, height: 800 });
    const tops = await page
      .locator('.product-card')
      .evaluateAll((cards) => cards.map((card) => card.getBoundingClientRect().top));
    return tops.filter((top) => Math.abs(top - (tops[0] ?? 0)) < 1).length;
  }

  it('shows two compact cards a row on a phone, 2/3/4 at md/lg/xl, and a buy bar at the thumb on a product', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, { width: 360, height: 740 });
    await page.goto('/');
    await expect.poll(() => page.locator('.product-card').count()).toBeGreaterThan(4);
    expect(await cardsInFirstRow(page, 360)).toBe(2);
    expect(await cardsInFirstRow(page, 800)).toBe(2);
    expect(await cardsInFirstRow(page, 1000)).toBe(3);
    expect(await cardsInFirstRow(page, 1280)).toBe(4);
    await page.setViewportSize({ width: 360, height: 740 });
    // Each card: photo, name, rating with its count in words, price.
    const card = page.locator('.product-card').first();
    expect(await card.getByRole('img', { name: /Rated/ }).count()).toBe(1);
    expect(await card.getByText(/^(1 review|\d+ reviews)$/).isVisible()).toBe(true);
    expect(await card.getByText(/^Ksh\. /).isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);

    // The product page: price, quantity and Add To Cart in the first screenful, and still there further down.
    const product = await productNamed('Samsung Galaxy');
    await page.goto(`/products/${product._id}`);
    const bar = page.getByRole('region', { name: 'Buy' });
    const add = bar.getByRole('button', { name: 'Add To Cart' });
    await expect.poll(() => add.isVisible()).toBe(true);
    expect(await bar.getByText(formatKsh(product.price)).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Add To Cart' }).count()).toBe(1);
    const inView = async () => {
      const box = await add.boundingBox();
      return (box?.y ?? 9999) + (box?.height ?? 0) <= 740 && (box?.height ?? 0) >= 44;
    };
    expect(await inView()).toBe(true);
    await page.getByRole('heading', { name: 'Reviews' }).scrollIntoViewIfNeeded();
    expect(await inView()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'product-buy-bar');
    await bar.getByLabel('Qty').selectOption('2');
    await add.click();
    await page.waitForURL('**/cart');
    await expect.poll(() => page.getByText('Subtotal (2) items').isVisible()).toBe(true);

    // Out of stock: the bar keeps the price and a disabled Add To Cart, without a quantity.
    const soldOut = await createProduct(await shop.admin(), { name: 'Sold Out Sufuria', price: 950, countInStock: 0 });
    await page.goto(`/products/${soldOut._id}`);
    await expect.poll(() => page.getByText('Out of Stock').isVisible()).toBe(true);
    expect(await add.isDisabled()).toBe(true);
    expect(await page.getByLabel('Qty').count()).toBe(0);
    expect(await bar.getByText(formatKsh(950)).isVisible()).toBe(true);

    // From md up, the buy box holds them as before, and there is no bar.
    await page.setViewportSize(DESKTOP);
    await expect.poll(() => bar.count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add To Cart' }).isDisabled()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('session and navigation', () => {
  it('log out clears the cart and the user and goes to /login', async () => {
    const product = await productNamed('Ketepa');
    const email = newEmail();
    await shop.client().signUp('Logout Tester', email, 'logout-pass-1');
    const { page, problems, context } = await newVisitor(browser, shop);
    await page.goto('/login');
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Password').fill('logout-pass-1');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto(`/products/${product._id}`);
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    expect(await page.evaluate(() => localStorage.getItem('cart'))).not.toBeNull();

    await page.getByRole('button', { name: 'Logout Tester' }).click();
    await page.getByRole('button', { name: 'Log Out' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => [localStorage.getItem('cart'), localStorage.getItem('user')])).toEqual([null, null]);
    await expect.poll(() => page.getByRole('link', { name: 'Sign In' }).isVisible()).toBe(true);
    await page.goto('/cart');
    await expect.poll(() => page.getByText('Your cart is empty').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the 404 screen for an unknown path', async () => {
    const { page, problems, context } = await newVisitor(browser, shop);
    const response = await page.goto('/no/such/page');
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.getByText('404 Page Not Found').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('This page does not exist').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Go Back' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await screenshotBoth(page, 'not-found');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('sends a guest from checkout screens to sign in', async () => {
    const { page, context } = await newVisitor(browser, shop);
    await page.goto('/shipping');
    await page.waitForURL('**/login?redirect=/shipping');
    await context.close();
  });
});

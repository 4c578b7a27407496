import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../src/shared/schemas/orders.js';
import type { Product, ProductDetail, ProductPage } from '../../src/shared/schemas/products.js';
import { closeVisitors, sharedBrowser } from '../e2e/support/browser.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, NAIROBI_ADDRESS } from '../support/fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';
import { signInInBrowser, visible, type Watched, WEB_DIR, watchPage } from './web-helpers.js';

/**
 * Stored XSS rendered as text in every screen that shows what shoppers and admins typed, and
 * uploads that can never become a page. Upload content checks are in test/api/uploads.test.ts.
 *
 * STRESS=1 stores and browses 18 XSS payloads instead of 5.
 */

const STRESS = process.env.STRESS === '1';
/** Cases that browse many screens, or wait for M-Pesa, get more than the default 30 s on a busy machine. */
const BROWSER_CASE_TIMEOUT_MS = 90_000;

let web: TestShop;
let browser: Browser;

beforeAll(async () => {
  // Development mode over plain http, as on a laptop, serving the built app.
  [web, browser] = await Promise.all([startTestShop({ WEB_DIR, NODE_ENV: 'development' }), sharedBrowser()]);
});
afterAll(async () => {
  await closeVisitors(browser);
  await web?.stop();
});

// ------------------------------------------------------------------------------------------------
// Stored XSS
// ------------------------------------------------------------------------------------------------

/** Markup that runs script if a screen ever renders it as HTML instead of text. */
const BASIC_PAYLOADS = [
  '<img src=x onerror="window.__xss=1">',
  '<script>window.__xss=1</script>',
  '"><svg onload=window.__xss=1>',
  `<iframe srcdoc="<script>parent.__xss=1;alert('xss')</script>"></iframe>`,
  `<img src=x onerror=alert('xss')>`,
];
/** More of the classic vectors, for the full-size run. */
const MORE_PAYLOADS = [
  '<body onload=window.__xss=1>',
  '<details open ontoggle=window.__xss=1>',
  '<a href="javascript:window.__xss=1">click</a>',
  '<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>',
  `'';!--"<XSS>=&{()}`,
  '<input autofocus onfocus=window.__xss=1>',
  '<video><source onerror=window.__xss=1></video>',
  '<object data="javascript:window.__xss=1"></object>',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=1">',
  "{{constructor.constructor('window.__xss=1')()}}",
  '<marquee onstart=window.__xss=1>x</marquee>',
  '</textarea><script>window.__xss=1</script>',
  '<svg><animate onbegin=window.__xss=1 attributeName=x dur=1s>',
];
const PAYLOADS = STRESS ? [...BASIC_PAYLOADS, ...MORE_PAYLOADS] : BASIC_PAYLOADS;
const payload = (i: number) => PAYLOADS[i % PAYLOADS.length]!;

describe('stored XSS renders as text', () => {
  const products: Product[] = [];
  let order: Order;
  const shoppers: { client: ApiClient; email: string; name: string }[] = [];
  const CUSTOMER_PASSWORD = 'xss-shopper-pass';
  const comment = (i: number) => `Maoni ${i} ${payload(i + 3)}`;

  beforeAll(async () => {
    const admin = await web.admin();
    for (let i = 0; i < PAYLOADS.length; i++) {
      products.push(
        await createProduct(admin, {
          name: `Kikapu ${i} ${payload(i)}`,
          category: `Vikapu ${payload(i + 1)}`,
          description: `Handwoven. ${payload(i + 2)}`,
          price: 450,
          countInStock: 50,
        }),
      );
    }
    for (let i = 0; i < PAYLOADS.length; i++) {
      const client = web.client();
      const name = `Mteja ${i} ${payload(i)}`;
      const email = `xss-${i}-${Date.now()}@example.com`;
      await client.signUp(name, email, CUSTOMER_PASSWORD);
      const review = await client.post(`/api/products/${products[0]!._id}/reviews`, { rating: 4, comment: comment(i) });
      expect(review.status, JSON.stringify(review.body)).toBe(201);
      shoppers.push({ client, email, name });
    }
    const placed = await shoppers[0]!.client.post<Order>('/api/orders', {
      orderItems: products.map((p) => ({ _id: p._id, qty: 1 })),
      shippingAddress: {
        ...NAIROBI_ADDRESS,
        county: `Kaunti ${payload(0)}`,
        sub_county: `Kaunti ndogo ${payload(1)}`,
        ward: `Wadi ${payload(2)}`,
      },
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    order = placed.body;
    // The API stores and returns the text exactly as given: escaping is the screen's job.
    const stored = (await web.client().get<ProductDetail>(`/api/products/${products[0]!._id}`)).body;
    expect(stored.name).toBe(`Kikapu 0 ${payload(0)}`);
    expect(stored.reviews.map((r) => r.name)).toContain(shoppers[1]!.name);
  });

  /** The names of this test's products on the first page of a listing (12 to a page). */
  async function namesOnFirstPage(query: string): Promise<string[]> {
    const ids = new Set(products.map((p) => p._id));
    const page = (await web.client().get<ProductPage>(`/api/products${query}`)).body;
    const names = page.products.filter((p) => ids.has(p._id)).map((p) => p.name);
    expect(names.length).toBeGreaterThan(0);
    return names;
  }

  /**
   * The pages run with the CSP switched off (bypassCSP), so what is proved here is that the app
   * itself renders the text as text; the CSP tests above prove the second line of defence.
   */
  async function xssVisitor() {
    const context = await browser.newContext({ baseURL: web.url, bypassCSP: true });
    return watchPage(context);
  }

  /** No payload ran, none became an element, no dialog opened; each expected text is shown as text. */
  async function expectInert(watched: Watched, where: string, texts: string[]) {
    const { page } = watched;
    const missing: string[] = [];
    // The first text shows the screen has rendered; the rest come with it.
    for (const [i, text] of texts.entries()) {
      await visible(page.getByText(text, { exact: false }), `${where}: "${text}"`, i === 0 ? 10_000 : 2000).catch(() =>
        missing.push(text),
      );
    }
    await sleep(150); // the wait is the test: no payload may run within it
    const found = await page.evaluate(() => ({
      xss: window.__xss,
      // Markup from a payload: an on* attribute anywhere, a javascript: URL, or an element the app never uses.
      elements: [...document.querySelectorAll('*')]
        .filter(
          (el) =>
            [...el.attributes].some((a) => a.name.startsWith('on') || /^\s*javascript:/i.test(a.value)) ||
            el.matches('img[src="x"], iframe, object, embed, meta[http-equiv], marquee, math, video, details, xss'),
        )
        .map((el) => el.outerHTML.slice(0, 120)),
      inlineScripts: [...document.scripts].filter((s) => !s.src).length,
    }));
    expect(found, where).toEqual({ xss: undefined, elements: [], inlineScripts: 0 });
    expect(watched.dialogs, where).toEqual([]);
    expect(missing, `${where}: texts not shown as text`).toEqual([]);
    return 1;
  }

  it(
    'in the storefront, the product pages, the cart, the profile, the order and the header',
    async () => {
      const watched = await xssVisitor();
      const { page, context } = watched;
      let checked = 0;
      const customer = shoppers[0]!;
      await signInInBrowser(page, customer.email, CUSTOMER_PASSWORD);
      // The header's user menu (the signed-in shopper's name) and the home listing's product cards.
      await visible(page.locator('#user-menu'), 'user menu');
      expect(await page.locator('#user-menu').innerText()).toContain(customer.name);
      checked += await expectInert(watched, 'home', [customer.name, ...(await namesOnFirstPage(''))]);

      await page.goto('/search/Kikapu');
      checked += await expectInert(watched, 'search', await namesOnFirstPage('?keyword=Kikapu'));

      for (const [i, product] of products.entries()) {
        await page.goto(`/products/${product._id}`);
        const reviews = i === 0 ? [...shoppers.map((s) => s.name), ...shoppers.map((_, n) => comment(n))] : [];
        checked += await expectInert(watched, `product page ${i}`, [
          product.name,
          product.category,
          product.description,
          ...reviews,
        ]);
        expect(await page.title()).toContain(product.name);
      }

      await page.getByRole('button', { name: 'Add To Cart' }).click();
      await page.waitForURL('**/cart');
      checked += await expectInert(watched, 'cart', [products.at(-1)!.name]);

      await page.goto('/profile');
      await visible(page.getByRole('heading', { name: 'User Profile' }), 'profile');
      await expect.poll(() => page.getByLabel('Name').inputValue()).toBe(customer.name);
      checked += await expectInert(watched, 'profile', [customer.name]);

      await page.goto(`/order/${order._id}`);
      checked += await expectInert(watched, 'order page', [
        customer.name,
        `Kaunti ${payload(0)}`,
        `Kaunti ndogo ${payload(1)}`,
        `Wadi ${payload(2)}`,
        ...products.map((p) => p.name),
      ]);
      expect(watched.problems).toEqual([]);
      await context.close();
      console.log(`xss: ${PAYLOADS.length} payloads stored in 8 fields, ${checked} shopper screens checked in Chromium, 0 ran`);
    },
    BROWSER_CASE_TIMEOUT_MS,
  );

  it(
    'in the admin lists and edit screens',
    async () => {
      const watched = await xssVisitor();
      const { page, context } = watched;
      let checked = 0;
      await signInInBrowser(page, ADMIN_EMAIL, ADMIN_PASSWORD);

      const firstPage = await namesOnFirstPage('');
      await page.goto('/admin/productlist');
      checked += await expectInert(watched, 'admin products', [
        ...firstPage,
        ...products.filter((p) => firstPage.includes(p.name)).map((p) => p.category),
      ]);
      await page.goto('/admin/userlist');
      checked += await expectInert(
        watched,
        'admin users',
        shoppers.map((s) => s.name),
      );
      await page.goto('/admin/orderlist');
      checked += await expectInert(watched, 'admin orders', [shoppers[0]!.name]);
      await page.goto(`/order/${order._id}`);
      checked += await expectInert(watched, 'admin order page', [`Wadi ${payload(2)}`, products[1]!.name]);

      for (const product of products) {
        await page.goto(`/admin/product/${product._id}/edit`);
        await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe(product.name);
        expect(await page.getByLabel('Category').inputValue()).toBe(product.category);
        expect(await page.getByLabel('Description').inputValue()).toBe(product.description);
        checked += await expectInert(watched, 'admin product edit', []);
      }
      await page.goto(`/admin/user/${shoppers[1]!.client.user!._id}`);
      await expect.poll(() => page.getByLabel('Name').inputValue()).toBe(shoppers[1]!.name);
      checked += await expectInert(watched, 'admin user edit', []);

      expect(watched.problems).toEqual([]);
      await context.close();
      console.log(`xss: ${checked} admin screens checked in Chromium, 0 ran`);
    },
    BROWSER_CASE_TIMEOUT_MS,
  );
});

// ------------------------------------------------------------------------------------------------
// Uploaded files
// ------------------------------------------------------------------------------------------------

describe('uploaded files', () => {
  it('are served as images in a sandbox: an image carrying HTML never runs as a page', async () => {
    const admin = await web.admin();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 10, g: 120, b: 60 } } })
      .png()
      .toBuffer();
    // A real PNG with a page appended after its end: browsers that sniff could take it for HTML.
    const polyglot = Buffer.concat([
      png,
      Buffer.from(
        '<!doctype html><html><body><script>window.__xss=1;alert("upload")</script><svg onload=alert(1)></body></html>',
      ),
    ]);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(polyglot)], { type: 'text/html' }), 'page.html');
    const res = await admin.request<{ image: string }>('POST', '/api/uploads', { body: form });
    // It is a valid PNG, so it is taken; what matters is how it is served. It is re-encoded as
    // WebP, so the page after the picture's end is not even stored.
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.image).toMatch(/^\/uploads\/[0-9a-f]{24}\.webp$/);
    const served = await fetch(web.url + res.body.image, { headers: { accept: 'text/html' } });
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await served.clone().arrayBuffer()).includes('<script>')).toBe(false);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = served.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('sandbox');
    expect(csp).toContain("default-src 'none'");
    expect(served.headers.get('content-disposition') ?? 'inline').not.toMatch(/html|svg/i);

    const context = await browser.newContext({ baseURL: web.url });
    const watched = await watchPage(context);
    await watched.page.goto(res.body.image);
    await sleep(300); // the wait is the test: the image may not run as a page within it
    const seen = await watched.page.evaluate(() => ({
      type: document.contentType,
      xss: window.__xss,
      scripts: document.scripts.length,
    }));
    expect(seen).toEqual({ type: 'image/webp', xss: undefined, scripts: 0 });
    expect(watched.dialogs).toEqual([]);
    await context.close();
  });
});

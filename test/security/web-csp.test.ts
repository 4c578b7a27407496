import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import { closeVisitors, sharedBrowser } from '../e2e/support/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestShop, type TestShop } from '../support/shop.js';
import { signInInBrowser, visible, WEB_DIR, watchPage } from './web-helpers.js';

/**
 * The content security policy in Chromium, on the development shop serving the built app: every
 * main screen works under it with no violation reported, and it blocks inline script, inline event
 * handlers, javascript: URLs and strings run as code, reporting each.
 */

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

describe('content security policy in Chromium', () => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await browser.newContext({ baseURL: web.url });
  });
  afterAll(() => context?.close());

  it(
    'every main screen works under the CSP with no violation reported',
    async () => {
      const watched = await watchPage(context);
      const { page } = watched;
      const violations: string[] = [];
      const catalogue = (await web.client().get<ProductPage>('/api/products')).body;
      const product = catalogue.products.find((p) => p.countInStock > 0)!;
      let screens = 0;

      /** Opens a screen, waits until it shows `ready`, then takes the violations its document saw. */
      const screen = async (path: string, ready: (p: Page) => Locator) => {
        await page.goto(path);
        await visible(ready(page), `${path} rendered`);
        // Images load lazily and styles apply after render: give late violations a moment to arrive.
        await page.waitForLoadState('load');
        await sleep(150); // the wait is the test: no violation may come within it
        violations.push(...(await watched.cspViolations()).map((v) => `${path}: ${v}`));
        screens += 1;
      };

      await screen('/', (p) => p.getByRole('heading', { name: 'Latest Products' }));
      await screen(`/products/${product._id}`, (p) => p.getByRole('heading', { name: product.name }));
      await page.getByRole('button', { name: 'Add To Cart' }).click();
      await page.waitForURL('**/cart');
      await screen('/cart', (p) => p.getByRole('heading', { name: 'Shopping Cart' }));
      await screen('/search/samsng', (p) => p.getByRole('link', { name: 'Go Back' }));
      await screen('/login', (p) => p.getByRole('heading', { name: 'Sign In' }));
      await screen('/register', (p) => p.getByRole('heading', { name: 'Sign Up' }));
      await screen('/forgot-password', (p) => p.getByRole('heading', { name: 'Forgot Password' }));
      await screen('/no/such/page', (p) => p.getByRole('heading', { name: '404 Page Not Found' }));

      await signInInBrowser(page, ADMIN_EMAIL, ADMIN_PASSWORD);
      await screen('/profile', (p) => p.getByRole('heading', { name: 'User Profile' }));
      await screen('/admin/productlist', (p) => p.getByRole('heading', { name: 'Products' }));
      await screen(`/admin/product/${product._id}/edit`, (p) => p.getByRole('heading', { name: 'Edit Product' }));
      await screen('/admin/userlist', (p) => p.getByRole('heading', { name: 'Users' }));
      await screen('/admin/orderlist', (p) => p.getByRole('heading', { name: 'Orders' }));
      await screen('/shipping', (p) => p.getByLabel('Ward'));

      expect(violations).toEqual([]);
      expect(watched.problems).toEqual([]);
      console.log(`csp: ${screens} screens browsed in Chromium, ${violations.length} violations`);
    },
    BROWSER_CASE_TIMEOUT_MS,
  );

  it('blocks inline script, inline event handlers and javascript: URLs, and reports each', async () => {
    const watched = await watchPage(context);
    const { page } = watched;
    await page.goto('/');
    await visible(page.getByRole('heading', { name: 'Latest Products' }), 'home rendered');
    expect(await watched.cspViolations()).toEqual([]);

    /** Runs `attempt` in the page and waits for the violation it must cause, as an event and on the console. */
    const expectBlocked = async (attempt: () => void, violation: string) => {
      const [events, reports] = [(await watched.cspEvents()).length, watched.cspConsole.length];
      await page.evaluate(attempt);
      await expect
        .poll(async () => (await watched.cspEvents()).slice(events).some((v) => v.startsWith(violation)), { message: violation })
        .toBe(true);
      await expect.poll(() => watched.cspConsole.length, { message: `${violation} on the console` }).toBeGreaterThan(reports);
      blocked += 1;
    };
    let blocked = 0;
    await expectBlocked(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = "script element"';
      document.body.append(script);
    }, 'script-src-elem inline');
    await expectBlocked(() => {
      const img = document.createElement('img');
      img.setAttribute('onerror', 'window.__inlineRan = "event handler"');
      img.src = '/images/does-not-exist.webp';
      document.body.append(img);
    }, 'script-src-attr inline');
    await expectBlocked(() => {
      const link = document.createElement('a');
      link.href = 'javascript:window.__inlineRan = "javascript url"';
      link.textContent = 'go';
      document.body.append(link);
      link.click();
    }, 'script-src-elem inline');
    // Strings run as code by the page's own scripts (eval, string timers) are refused too.
    await expectBlocked(() => {
      window.setTimeout('window.__inlineRan = "string timer"', 0);
    }, 'script-src eval');
    await sleep(200); // the wait is the test: nothing blocked may run late
    expect(await page.evaluate(() => window.__inlineRan)).toBeUndefined();
    expect(watched.dialogs).toEqual([]);
    console.log(`csp: ${blocked} kinds of inline script tried in Chromium, ${blocked} blocked and reported`);
    await page.close();
  });

  it('applies to the API documentation page too, which still works', async () => {
    const watched = await watchPage(context);
    const { page } = watched;
    await page.goto('/api/docs');
    await visible(page.getByText('/api/products/{id}'), 'Swagger UI rendered');
    await sleep(200); // the wait is the test: no violation may come within it
    expect(await watched.cspViolations()).toEqual([]);
    await page.close();
  });
});

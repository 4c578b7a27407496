import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestShop } from '../support/shop.js';
import { closeVisitors, newVisitor, sharedBrowser, startWebShop } from './support/browser.js';

let shop: TestShop;
let browser: Browser;

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/**
 * `redirect` values as an attacker writes them in a link, percent-encoded or raw. Every one must
 * leave the shopper on the shop's home page, never on another site.
 */
const PAYLOADS = [
  '/%09/evil.example',
  '/%0A/evil.example',
  '/%0D%0A/evil.example',
  '/\t/evil.example',
  '//evil.example',
  '/%2F/evil.example',
  '%2F%2Fevil.example',
  '/\\evil.example',
  '/%5Cevil.example',
  '%5C%5Cevil.example',
  'https://evil.example/',
  'https:%2F%2Fevil.example',
  '/%252F%252Fevil.example',
  'javascript:alert(document.domain)',
];

/** Every request the page makes that is not to the shop. */
function offSite(page: Page, origin: string): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:')) seen.push(url);
  });
  return seen;
}

describe('sign-in redirects stay on the shop, in Chromium', () => {
  it('sends a signed-in shopper home for every foreign target', async () => {
    const email = `redirect-${Date.now()}@example.com`;
    await shop.client().signUp('Redirect Tester', email, 'redirect-pass-1');
    const { page, problems, context } = await newVisitor(browser, shop);
    const origin = new URL(shop.url).origin;
    const away = offSite(page, origin);

    await page.goto('/login');
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Password').fill('redirect-pass-1');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL((url) => url.pathname === '/');

    for (const payload of PAYLOADS) {
      for (const screen of ['login', 'register']) {
        await page.goto(`/${screen}?redirect=${payload}`);
        // Signed in, the screen moves on to its target at once.
        await page.waitForURL((url) => url.pathname !== `/${screen}`, { timeout: 10_000 }).catch(() => {});
        const landed = new URL(page.url());
        expect(landed.origin, `${screen} ${payload}`).toBe(origin);
        expect(landed.pathname, `${screen} ${payload}`).toBe('/');
      }
    }
    expect(away).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('still follows a path of this shop, and refuses a foreign one right after signing in', async () => {
    const email = `redirect-form-${Date.now()}@example.com`;
    await shop.client().signUp('Redirect Form', email, 'redirect-pass-2');
    const { page, context } = await newVisitor(browser, shop);
    const origin = new URL(shop.url).origin;
    const away = offSite(page, origin);

    await page.goto('/login?redirect=/%09/evil.example');
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Password').fill('redirect-pass-2');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(new URL(page.url()).origin).toBe(origin);

    await page.goto('/login?redirect=/cart');
    await page.waitForURL((url) => url.pathname === '/cart');
    expect(away).toEqual([]);
    await context.close();
  });
});

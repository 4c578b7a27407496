import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webDistDir } from '../../src/server/paths.js';
import { startTestShop, type TestShop } from '../support/shop.js';
import { resetLink, TestSmtpServer } from '../support/smtp.js';
import { closeVisitors, newVisitor, screenshotBoth, sharedBrowser } from './support/browser.js';

let smtp: TestSmtpServer;
let shop: TestShop;
let browser: Browser;

beforeAll(async () => {
  smtp = new TestSmtpServer();
  await smtp.start();
  [shop, browser] = await Promise.all([
    startTestShop({ WEB_DIR: webDistDir, SMTP_URL: smtp.url, MAIL_POLL_INTERVAL_MS: '200' }),
    sharedBrowser(),
  ]);
});
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
  await smtp?.stop();
});

// Five password hashes or checks and a dozen page loads: on a loaded CI machine this takes over 30 s.
const JOURNEY_TIMEOUT_MS = 90_000;

describe('forgotten password, in the browser', () => {
  it(
    'forgot password → the mail → the link → a new password → sign in',
    async () => {
      const email = `forgetful-${Date.now()}@example.com`;
      await shop.client().signUp('Forgetful Shopper', email, 'old-password-1');
      const { page, problems, context } = await newVisitor(browser, shop);

      await page.goto('/login');
      await page.getByRole('link', { name: /Forgot password/ }).click();
      await page.waitForURL('**/forgot-password');
      // The router keeps the sign-in screen, which has an Email Address field too, until the new
      // screen's code has loaded: wait for the new screen, or the address goes into the old one.
      await expect.poll(() => page.getByRole('heading', { name: 'Forgot Password' }).isVisible()).toBe(true);
      await page.getByLabel('Email Address').fill(email);
      await screenshotBoth(page, 'forgot-password');
      await page.getByRole('button', { name: 'Send Reset Link' }).click();
      await page.waitForURL((url) => url.pathname === '/');

      // The link in the mail points at PUBLIC_URL; the shop under test listens elsewhere.
      const link = new URL(resetLink(await smtp.waitFor(email)));
      await page.goto(link.pathname);
      await page.getByLabel('New Password').fill('mismatch-1');
      await page.getByLabel('Confirm Password').fill('mismatch-2');
      await page.getByRole('button', { name: /Reset/ }).click();
      await expect.poll(() => page.getByText('Passwords do not match').isVisible()).toBe(true);
      await page.getByLabel('New Password').fill('brand-new-pass-1');
      await page.getByLabel('Confirm Password').fill('brand-new-pass-1');
      await screenshotBoth(page, 'reset-password');
      await page.getByRole('button', { name: /Reset/ }).click();
      await page.waitForURL('**/login');
      await expect.poll(() => page.getByRole('button', { name: 'Sign In' }).isVisible()).toBe(true);

      await page.getByLabel('Email Address').fill(email);
      await page.getByLabel('Password').fill('old-password-1');
      await page.getByRole('button', { name: 'Sign In' }).click();
      await expect.poll(() => page.getByText('Invalid email or password').isVisible()).toBe(true);
      await page.getByLabel('Password').fill('brand-new-pass-1');
      await page.getByRole('button', { name: 'Sign In' }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await expect.poll(() => page.getByRole('button', { name: 'Forgetful Shopper' }).isVisible()).toBe(true);

      // The link is spent.
      await page.goto(link.pathname);
      await page.getByLabel('New Password').fill('another-pass-1');
      await page.getByLabel('Confirm Password').fill('another-pass-1');
      await page.getByRole('button', { name: /Reset/ }).click();
      await expect
        .poll(() =>
          page
            .getByText(/invalid or has expired/)
            .first()
            .isVisible(),
        )
        .toBe(true);
      expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
      await context.close();
    },
    JOURNEY_TIMEOUT_MS,
  );
});

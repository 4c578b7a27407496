import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { webDistDir } from '../../../src/server/paths.js';
import type { ShippingAddress } from '../../../src/shared/schemas/orders.js';
import { LIVE_ATTRIBUTE } from '../../../src/web/app/live-marker.js';
import { CHROMIUM_FLAGS, chromiumPath } from '../../../tools/chromium.js';
import { startTestShop, type TestShop } from '../../support/shop.js';

export { chromiumPath };

let shared: Promise<Browser> | undefined;

/**
 * The worker's one Chromium. A worker runs its files one after another (vitest.config.ts), and a
 * browser of their own cost each file about a CPU-second to start: they share one, each with its
 * own visitors (newVisitor), and close those when they end (closeVisitors). Playwright kills the
 * browsers it launched when the worker exits. One that crashed is replaced for the next file.
 */
export function sharedBrowser(): Promise<Browser> {
  shared ??= chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS }).then(
    (browser) => {
      browser.on('disconnected', () => {
        shared = undefined;
      });
      return browser;
    },
    (error: unknown) => {
      shared = undefined;
      throw error;
    },
  );
  return shared;
}

/** Closes every visitor a file opened in the shared browser, which stays up for the next file. */
export async function closeVisitors(browser: Browser | undefined): Promise<void> {
  await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
}

/** A shop on a fresh embedded database, serving the production build of the web app. */
export async function startWebShop(): Promise<TestShop> {
  // The browser's build and the server's renderer of first screens (.ssr), both from
  // npm run build:web, which vitest's global setup runs.
  for (const file of ['index.html', '.ssr/entry-server.js']) {
    if (!fs.existsSync(path.join(webDistDir, file))) {
      throw new Error(`dist/web/${file} is not built: the global setup of the tests builds it (npm run build:web)`);
    }
  }
  return startTestShop({ WEB_DIR: webDistDir });
}

/** Far above any step's time on a busy machine, and half the test's own limit. */
const STEP_TIMEOUT_MS = 15_000;

export const PHONE = { width: 360, height: 800 };
/** The admin's phone, as the admin journeys are specified: 360 × 740. */
export const ADMIN_PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };

/**
 * A new browser context, like a new visitor, with every page error and CSP violation recorded.
 * The visitor has asked for less motion (the app's styles.css then stills its spinners and the
 * toasts' bounce): a spinning ring has Chromium draw a new frame 60 times a second, several
 * CPU-seconds over a file's journeys, and only one test looks at motion (that it stops).
 */
export async function newVisitor(browser: Browser, shop: TestShop, viewport = DESKTOP) {
  const context: BrowserContext = await browser.newContext({ baseURL: shop.url, viewport, reducedMotion: 'reduce' });
  // A step that waits for something that never comes fails by name, well before the test's own
  // time limit, instead of as an anonymous "test timed out".
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page: Page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (
      message.type() === 'error' &&
      !/Failed to load resource: the server responded with a status of (401|403|404)/.test(message.text())
    ) {
      problems.push(`console: ${message.text()}`);
    }
  });
  return { context, page, problems };
}

const shotsDir = path.resolve('test-results', 'screenshots');
/**
 * Screenshots are for people to look at, and no test compares them: they are taken only when asked
 * for (`npm run screenshots`). Encoding a full page costs Chromium and the test about half a second
 * of CPU, and the journeys take dozens.
 */
const TAKE_SCREENSHOTS = process.env.SCREENSHOTS === '1';

/** Saves a full-page screenshot in test-results/screenshots, when screenshots are asked for. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!TAKE_SCREENSHOTS) return;
  fs.mkdirSync(shotsDir, { recursive: true });
  const { width } = page.viewportSize() ?? DESKTOP;
  await page.screenshot({ path: path.join(shotsDir, `${name}-${width}.png`), fullPage: true });
}

/** Screenshots of the current screen at phone and desktop widths. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  if (!TAKE_SCREENSHOTS) return;
  const original = page.viewportSize() ?? DESKTOP;
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    // The page has laid out again at the new width once two frames have been drawn.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await screenshot(page, name);
  }
  await page.setViewportSize(original);
}

/** Waits for the app to have taken over the server's HTML of the page: its code runs from then on. */
export async function appTookOver(page: Page): Promise<void> {
  await page.locator(`html[${LIVE_ATTRIBUTE}="live"]`).waitFor({ state: 'attached' });
}

/**
 * Moves to `path` as the app's own links do, without loading a new document: a history entry, and
 * the popstate event the router follows. For tests that visit many screens in a row, where a new
 * document each time would have the browser parse the app (and whatever the test injected) again.
 * It waits for the app to have taken the page over: before that, the router would only see the
 * new address when it starts, over the server's HTML of the old one.
 */
export async function navigateInApp(page: Page, path: string): Promise<void> {
  await appTookOver(page);
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate', { state: null }));
  }, path);
}

/**
 * Signs in through the sign-in screen and waits for the home page to be on screen: the address
 * changes before the app has rendered the new page, and a tap in between lands on the old one.
 */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL((url) => url.pathname === '/');
  await page.getByRole('heading', { name: 'Latest Products', level: 1 }).waitFor();
}

/**
 * Signs in as the sign-in screen does, without drawing it or the home page after it: from a small
 * document of the shop's origin that is not the app, the screen's own call (whose session cookie
 * the browser keeps), and the signed-in user kept in the browser's storage as the app keeps it
 * (`user`, src/web/lib/storage.ts). For tests whose next step opens a page of their own; the
 * journeys that use signIn test the sign-in screen. Two page loads fewer for each.
 */
export async function signInDirectly(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/favicon.svg');
  const status = await page.evaluate(
    async (credentials) => {
      const answer = await fetch('/api/users/auth', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(credentials),
      });
      if (answer.ok) {
        const { _id, name, email, isAdmin } = (await answer.json()) as {
          _id: string;
          name: string;
          email: string;
          isAdmin: boolean;
        };
        localStorage.setItem('user', JSON.stringify({ _id, name, email, isAdmin }));
      }
      return answer.status;
    },
    { email, password },
  );
  expect(status, `sign-in of ${email}`).toBe(200);
}

/**
 * Nothing wider than the viewport: no sideways scrolling, no control past the right edge. A
 * control in a row that scrolls sideways by itself (the category chips) is reached by scrolling
 * that row, so there it is the row that must stay within the viewport.
 */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
  const outside = await page.evaluate(() => {
    const scrollingRow = (element: Element): Element | undefined => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const overflow = getComputedStyle(parent).overflowX;
        if (overflow === 'auto' || overflow === 'scroll') return parent;
      }
      return undefined;
    };
    return [...document.querySelectorAll('main button, main a, main dd')]
      .map((element) => (scrollingRow(element) ?? element).getBoundingClientRect())
      .filter((box) => box.width > 0 && (box.left < 0 || box.right > window.innerWidth)).length;
  });
  expect(outside).toBe(0);
}

/**
 * Every control at the top of the page on screen (the header's cart, menu and search box, the
 * payment banner's links) can be tapped: a tap at its centre lands on it, not on a toast or
 * anything else drawn over it.
 */
export async function expectPageTopUncovered(page: Page): Promise<void> {
  const covered = await page.evaluate(() =>
    [...document.querySelectorAll(':is(header, [data-testid="payment-banner"]) :is(a, button, input)')]
      .filter((control) => {
        const box = control.getBoundingClientRect();
        if (box.width === 0 || box.height === 0 || box.bottom <= 0 || box.top >= window.innerHeight) return false;
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return !hit || !control.contains(hit);
      })
      .map((control) => control.outerHTML.slice(0, 100)),
  );
  expect(covered).toEqual([]);
}

/** Fills the shipping form's five fields (the shopper is on /shipping). */
export async function fillShippingForm(page: Page, address: ShippingAddress): Promise<void> {
  await page.getByLabel('County', { exact: true }).fill(address.county);
  await page.getByLabel('Phone Number').fill(address.phoneNumber);
  await page.getByLabel('Postal Code').fill(address.postalCode);
  await page.getByLabel('Sub County').fill(address.sub_county);
  await page.getByLabel('Ward').fill(address.ward);
}

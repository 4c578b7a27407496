import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../src/shared/schemas/products.js';
import { createProduct } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import {
  ADMIN_PHONE,
  appTookOver,
  closeVisitors,
  expectNoSidewaysScroll,
  newVisitor,
  screenshotBoth,
  sharedBrowser,
  startWebShop,
} from './support/browser.js';

/**
 * Browsing on a 360 × 740 phone: a category from the bar, sorted by price, narrowed to a price
 * range, paged with its filters kept, and the header's search kept to the category until All.
 */

const LAMPS = 'Lamps';
/** 14 lamps: more than a page. */
const LAMP_PRICES = [700, 300, 1300, 100, 900, 500, 1100, 1400, 200, 1200, 600, 1000, 800, 400];
const SOLAR_DESK_LAMP_PRICE = 3100;

let shop: TestShop;
let browser: Browser;
let lamps: Product[];

beforeAll(async () => {
  [shop, browser] = await Promise.all([startWebShop(), sharedBrowser()]);
  const admin = await shop.admin();
  // A desk lamp of another category, dearer than all of them: found when the search leaves Lamps.
  // Made first, so the lamps are the newest products.
  await createProduct(admin, { name: 'Solar Desk Lamp', category: 'Solar', price: SOLAR_DESK_LAMP_PRICE });
  lamps = [];
  for (const [i, price] of LAMP_PRICES.entries()) {
    lamps.push(await createProduct(admin, { name: `Desk Lamp ${i + 1}`, category: LAMPS, price, countInStock: i % 4 }));
  }
}, 120_000);
afterAll(async () => {
  await closeVisitors(browser);
  await shop?.stop();
});

/** The prices of the cards on screen, in their order. */
async function pricesOnScreen(page: Page): Promise<number[]> {
  const texts = await page.locator('.product-card-price').allTextContents();
  // "Ksh. 1,300.00" is 1300.
  return texts.map((text) => Number(/\d[\d,]*(\.\d+)?/.exec(text)?.[0].replaceAll(',', '') ?? Number.NaN));
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

describe('browsing by category, sort and price on a phone', () => {
  it('opens a category from the bar, sorts by price, narrows the price, pages with the filters kept', async () => {
    const { page, problems } = await newVisitor(browser, shop, ADMIN_PHONE);
    await page.goto('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Latest Products' }).isVisible()).toBe(true);
    await expect.poll(() => page.locator('.carousel').count()).toBe(1);
    const bar = page.getByRole('navigation', { name: 'Categories' });
    await expect.poll(() => bar.getByRole('link', { name: 'All' }).getAttribute('aria-current')).toBe('page');
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'browse-home');

    // The chip row scrolls on its own: the page does not.
    const chips = bar.locator('.category-chips');
    expect(await chips.evaluate((row) => row.scrollWidth > row.clientWidth)).toBe(true);
    await chips.evaluate((row) => row.scrollBy({ left: 1000 }));
    await expect.poll(() => chips.evaluate((row) => row.scrollLeft)).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.scrollX)).toBe(0);
    await expectNoSidewaysScroll(page);

    await bar.getByRole('link', { name: `${LAMPS} ${LAMP_PRICES.length} products` }).click();
    await page.waitForURL(`**/category/${LAMPS}`);
    await expect.poll(() => page.getByText(`${LAMPS} · ${LAMP_PRICES.length} products`).isVisible()).toBe(true);
    expect(await bar.getByRole('link', { name: new RegExp(`^${LAMPS} \\d`) }).getAttribute('aria-current')).toBe('page');
    expect(await page.locator('.carousel').count()).toBe(0);
    await expect.poll(() => page.locator('.product-card').count()).toBe(12);

    await page.getByLabel('Sort by').selectOption({ label: 'Price: low to high' });
    await page.waitForURL(`**/category/${LAMPS}?sort=price_asc`);
    await expect.poll(() => pricesOnScreen(page)).toEqual(sorted(LAMP_PRICES).slice(0, 12));

    await page.getByLabel('Minimum price (Ksh)').fill('200');
    await page.getByLabel('Maximum price (Ksh)').fill('1400');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(`**/category/${LAMPS}?sort=price_asc&minPrice=200&maxPrice=1400`);
    const inRange = sorted(LAMP_PRICES).filter((p) => p >= 200 && p <= 1400);
    await expect.poll(() => pricesOnScreen(page)).toEqual(inRange.slice(0, 12));
    await expect.poll(() => page.getByText(`${LAMPS} · Ksh 200–1,400 · ${inRange.length} products`).isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'browse-category-filtered');

    // The second page keeps the category, the sort and the range, and so does a reload.
    await page.getByRole('link', { name: 'Page 2' }).click();
    await page.waitForURL(`**/category/${LAMPS}/page/2?sort=price_asc&minPrice=200&maxPrice=1400`);
    await expect.poll(() => pricesOnScreen(page)).toEqual(inRange.slice(12));
    await page.reload();
    await expect.poll(() => pricesOnScreen(page)).toEqual(inRange.slice(12));
    expect(await page.getByLabel('Sort by').inputValue()).toBe('price_asc');
    expect(await page.getByLabel('Minimum price (Ksh)').inputValue()).toBe('200');

    // High to low, back on page 1.
    await page.getByLabel('Sort by').selectOption({ label: 'Price: high to low' });
    await page.waitForURL(`**/category/${LAMPS}?sort=price_desc&minPrice=200&maxPrice=1400`);
    await expect.poll(() => pricesOnScreen(page)).toEqual([...inRange].reverse().slice(0, 12));

    // Nothing in range: a clear message and a way out.
    await page.getByLabel('Minimum price (Ksh)').fill('5000');
    await page.getByLabel('Maximum price (Ksh)').fill('6000');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.getByText('No products match these filters.').isVisible()).toBe(true);
    await expectNoSidewaysScroll(page);
    await screenshotBoth(page, 'browse-empty');
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.pathname === `/category/${LAMPS}` && url.search === '');
    await expect.poll(() => page.locator('.product-card').count()).toBe(12);

    // The header's search, from a category page, searches in that category; the sort works there too.
    await page.getByPlaceholder('Search Product...').fill('desk lamp');
    await page.getByPlaceholder('Search Product...').press('Enter');
    await page.waitForURL((url) => url.pathname === '/search/desk%20lamp' && url.search === `?category=${LAMPS}`);
    await expect.poll(() => page.getByRole('link', { name: 'Go Back' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText(`Results for “desk lamp”: ${LAMPS} · 14 products`).isVisible()).toBe(true);
    expect(await bar.getByRole('link', { name: `${LAMPS} 14 products` }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByLabel('Sort by').inputValue()).toBe('');
    await page.getByLabel('Sort by').selectOption({ label: 'Price: high to low' });
    await page.waitForURL((url) => url.search === `?category=${LAMPS}&sort=price_desc`);
    // Polled whole: until the new answer arrives, the best-match cards are still on screen.
    const dearestFirst = (dearest: number) => async () => {
      const found = await pricesOnScreen(page);
      return found.length === 12 && found[0] === dearest && found.every((price, i) => i === 0 || found[i - 1]! >= price);
    };
    // Only the desk lamps: the dearest is 1,400.
    await expect.poll(dearestFirst(1400)).toBe(true);
    await screenshotBoth(page, 'browse-search-in-category');

    // Searching all categories keeps the sort: the solar desk lamp (another category, Ksh 3,100) now comes first.
    await page.getByRole('link', { name: 'Search all categories' }).click();
    await page.waitForURL((url) => url.pathname === '/search/desk%20lamp' && url.search === '?sort=price_desc');
    await expect.poll(dearestFirst(SOLAR_DESK_LAMP_PRICE)).toBe(true);
    expect(await page.getByRole('link', { name: 'Search all categories' }).count()).toBe(0);

    // Nothing in the category: it says so, with the way to every category.
    await page.goto(`/search/kettle?category=${LAMPS}`);
    await expect.poll(() => page.getByText(`No products in “${LAMPS}” match “kettle”.`).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Search every category' }).click();
    await page.waitForURL((url) => url.pathname === '/search/kettle' && url.search === '');
    expect(problems).toEqual([]);
  }, 180_000);

  it('the home page without filters is the plain listing, and a wrong filter in the address is left out', async () => {
    const { page, problems } = await newVisitor(browser, shop, ADMIN_PHONE);
    await page.goto('/?sort=cheapest&minPrice=-5');
    await expect.poll(() => page.locator('.product-card').count()).toBe(12);
    expect(await page.locator('.carousel').count()).toBe(1);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('newest');
    const newestFirst = [...lamps]
      .reverse()
      .slice(0, 12)
      .map((p) => p.price);
    await expect.poll(() => pricesOnScreen(page)).toEqual(newestFirst);
    expect(problems).toEqual([]);
  });

  it('turns the top products by itself, but not for a visitor who asks for less motion', async () => {
    const { page, problems } = await newVisitor(browser, shop, ADMIN_PHONE);
    // The page's timers run on a clock the test moves: seconds of the carousel's time, at once.
    await page.clock.install();
    await page.goto('/');
    await appTookOver(page);
    const activeSlide = () => page.locator('.carousel-item.active a').getAttribute('href');
    await expect.poll(() => page.locator('.carousel-item').count()).toBeGreaterThan(1);
    const first = await activeSlide();
    await page.clock.runFor(20_000);
    expect(await activeSlide()).toBe(first);

    // The same visitor turns her system's setting off: the slides turn every six seconds.
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await page.clock.runFor(7_000);
    await expect.poll(activeSlide).not.toBe(first);
    expect(problems).toEqual([]);
  });

  it('a category whose name holds a slash or an ampersand opens from its encoded address', async () => {
    const admin = await shop.admin();
    const radio = await createProduct(admin, { name: 'Pocket Radio', category: 'TV/Audio & Sound', price: 1999 });
    const { page, problems } = await newVisitor(browser, shop, ADMIN_PHONE);
    await page.goto(`/category/${encodeURIComponent('tv/audio & sound')}`);
    await expect.poll(() => page.getByText('TV/Audio & Sound · 1 product').isVisible()).toBe(true);
    expect(await page.locator('.product-card').allTextContents()).toEqual([expect.stringContaining(radio.name)]);
    const chip = page.getByRole('navigation', { name: 'Categories' }).getByRole('link', { name: /^TV\/Audio & Sound 1 product/ });
    expect(await chip.getAttribute('aria-current')).toBe('page');
    expect(await chip.getAttribute('href')).toBe(`/category/${encodeURIComponent('TV/Audio & Sound')}`);
    expect(problems).toEqual([]);
  });
});

/** The app's entry script, which a drawn page asks for only once its photo is on screen. */
const APP_ENTRY = /\/assets\/index-[\w-]+\.js$/;

/**
 * Holds back every photo the page asks for until `release`: a drawn page's app waits for its
 * photo (src/web/after-photo.ts), so until then the page is the server's HTML alone.
 */
async function holdPhotos(page: Page): Promise<{ requested: Promise<void>; release: () => Promise<void> }> {
  const held: Route[] = [];
  let holding = true;
  let asked = () => {};
  const requested = new Promise<void>((resolve) => {
    asked = resolve;
  });
  await page.route('**/images/**', (route) => {
    if (!holding) return route.continue();
    held.push(route);
    asked();
  });
  const release = async () => {
    holding = false;
    await Promise.all(held.map((route) => route.continue()));
  };
  return { requested, release };
}

describe('the first screen, drawn by the server', () => {
  it('shows the home page and a product page before any JavaScript runs', async () => {
    const context = await browser.newContext({ baseURL: shop.url, viewport: ADMIN_PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto('/');
    expect(await page.getByRole('heading', { name: 'Latest Products', level: 1 }).isVisible()).toBe(true);
    const card = page.locator('.product-card').first();
    const name = (await card.locator('.product-card-name').innerText()).trim();
    expect(name.length).toBeGreaterThan(0);
    // Its link is a real address: the product page arrives drawn too.
    await card.locator('a.stretched-link').click();
    await page.waitForURL(/\/products\//);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(name);
    expect(await page.getByRole('button', { name: 'Add To Cart' }).isVisible()).toBe(true);
    await context.close();
  });

  it("asks for the app's code only once the page's photo has loaded, or at the visitor's first key or touch", async () => {
    const lamp = lamps[2] as Product;
    for (const start of ['photo', 'key'] as const) {
      const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
      const photos = await holdPhotos(page);
      const asked: string[] = [];
      page.on('request', (request) => asked.push(request.url()));
      // Module scripts have run by DOMContentLoaded: the page's loader is waiting for the photo.
      await page.goto(`/products/${lamp._id}`, { waitUntil: 'domcontentloaded' });
      await photos.requested;
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(lamp.name);
      expect(asked.filter((url) => APP_ENTRY.test(url))).toEqual([]);

      const appRequested = page.waitForRequest(APP_ENTRY);
      if (start === 'key') await page.keyboard.press('Shift');
      else await photos.release();
      await appRequested;
      // The app takes the page over and sets its title.
      await page.waitForFunction((name) => document.title.startsWith(name), lamp.name);
      if (start === 'key') await photos.release();
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('searches from the header before the app has taken the page over, or with no JavaScript at all', async () => {
    // No JavaScript: the browser submits the form, and the server sends it to the search's address.
    const plain = await browser.newContext({ baseURL: shop.url, viewport: ADMIN_PHONE, javaScriptEnabled: false });
    const plainPage = await plain.newPage();
    await plainPage.goto('/');
    await plainPage.getByPlaceholder('Search Product...').fill('  desk lamp ');
    await plainPage.getByPlaceholder('Search Product...').press('Enter');
    await plainPage.waitForURL((url) => url.pathname === '/search/desk%20lamp' && url.search === '');
    await plain.close();

    // The app on its way (the photo held back): the search lands on its results, whichever runs it.
    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
    const photos = await holdPhotos(page);
    await page.goto('/', { waitUntil: 'domcontentloaded' });
    await photos.requested;
    await page.getByPlaceholder('Search Product...').fill('Desk Lamp 1');
    await page.getByPlaceholder('Search Product...').press('Enter');
    await page.waitForURL('**/search/Desk%20Lamp%201');
    await photos.release();
    await expect.poll(() => page.locator('.product-card-name').first().textContent()).toMatch(/^Desk Lamp 1/);
    expect(problems).toEqual([]);
    await context.close();

    // Typed before the app took the page over, sent after: the app searches what the box shows,
    // though it never saw those keys.
    const slow = await newVisitor(browser, shop, ADMIN_PHONE);
    const held = await holdPhotos(slow.page);
    await slow.page.goto('/', { waitUntil: 'domcontentloaded' });
    await held.requested;
    const box = slow.page.getByPlaceholder('Search Product...');
    await box.fill('Desk Lamp 2');
    const appRequested = slow.page.waitForRequest(APP_ENTRY);
    await held.release();
    await appRequested;
    // Taken over: the app sets the title.
    await slow.page.waitForFunction(() => document.title !== 'Duka');
    expect(await box.inputValue()).toBe('Desk Lamp 2');
    await box.press('Enter');
    await slow.page.waitForURL('**/search/Desk%20Lamp%202');
    await expect.poll(() => slow.page.locator('.product-card-name').first().textContent()).toMatch(/^Desk Lamp 2/);
    // The box follows the address: empty at home, the search again on the way back.
    await slow.page.locator('header .navbar-brand').click();
    await slow.page.waitForURL((url) => url.pathname === '/');
    await expect.poll(() => box.inputValue()).toBe('');
    await slow.page.goBack();
    await slow.page.waitForURL('**/search/Desk%20Lamp%202');
    await expect.poll(() => box.inputValue()).toBe('Desk Lamp 2');
    expect(slow.problems).toEqual([]);
    await slow.context.close();
  });

  it('keeps where a visitor scrolled the category chips before the app took the home page over', async () => {
    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
    const photos = await holdPhotos(page);
    await page.goto('/', { waitUntil: 'domcontentloaded' });
    await photos.requested;
    const chips = page.locator('.category-chips');
    expect(await chips.evaluate((row) => row.scrollWidth > row.clientWidth)).toBe(true);
    await chips.evaluate((row) => row.scrollBy({ left: 1000 }));
    const scrolled = await chips.evaluate((row) => row.scrollLeft);
    expect(scrolled).toBeGreaterThan(0);
    const appRequested = page.waitForRequest(APP_ENTRY);
    await photos.release();
    await appRequested;
    // Taken over (the app sets the title), the row is where the visitor left it.
    await page.waitForFunction(() => document.title !== 'Duka');
    await page.waitForLoadState('networkidle');
    expect(await chips.evaluate((row) => row.scrollLeft)).toBe(scrolled);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("is taken over by the app as it is, not drawn again, and then works: a new visitor's cart", async () => {
    const { page, problems, context } = await newVisitor(browser, shop, ADMIN_PHONE);
    // The heading as parsed from the server's HTML, before the app's code runs.
    await page.addInitScript(() => {
      document.addEventListener('readystatechange', () => {
        if (document.readyState === 'interactive') {
          (window as unknown as { drawnHeading: Element | null }).drawnHeading = document.querySelector('main h1');
        }
      });
    });
    // In stock (the lamps' stock runs 0, 1, 2, 3, …).
    const lamp = lamps[1] as Product;
    await page.goto(`/products/${lamp._id}`);
    // The app sets the title once it has rendered (the server's HTML keeps the build's own).
    await page.waitForFunction((name) => document.title.startsWith(name), lamp.name);
    const sameHeading = await page.evaluate(() => {
      const drawn = (window as unknown as { drawnHeading: Element | null }).drawnHeading;
      return drawn?.isConnected && drawn === document.querySelector('main h1');
    });
    expect(sameHeading).toBe(true);
    // Taken over, it works: the cart (a screen the browser draws) gets the lamp.
    await page.getByRole('button', { name: 'Add To Cart' }).click();
    await page.waitForURL('**/cart');
    await expect.poll(() => page.getByRole('link', { name: lamp.name }).first().isVisible()).toBe(true);
    // Back home with a cart: the page is drawn by the app over the server's, with no mismatch.
    await page.goto('/');
    await expect.poll(() => page.locator('.header-cart .badge').innerText()).toBe('1');
    expect(problems).toEqual([]);
    await context.close();
  });
});

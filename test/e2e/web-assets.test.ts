import fs from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { webDistDir } from '../../src/server/paths.js';
import { formatKsh } from '../../src/shared/money.js';
import { createProduct } from '../support/fixtures.js';
import type { TestShop } from '../support/shop.js';
import { startWebShop } from './support/browser.js';

/**
 * How the built app is served (src/server/plugins/shop/web.ts): hashed assets precompressed at build
 * time and cached for a year, the page itself never cached, plain bytes for a client that
 * accepts no encoding, and pages that name what their first render needs.
 */
let shop: TestShop;

beforeAll(async () => {
  shop = await startWebShop();
});

afterAll(async () => {
  await shop?.stop();
});

/** The entry script and stylesheet named in the built index.html. */
function entryAssets(): { script: string; style: string } {
  const html = fs.readFileSync(path.join(webDistDir, 'index.html'), 'utf8');
  const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const style = /<link rel="stylesheet" crossorigin href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
  if (!script || !style) throw new Error('index.html names no entry script or stylesheet');
  return { script, style };
}

/** Text as React writes it into HTML. */
const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');

const onDisk = (asset: string) => fs.readFileSync(path.join(webDistDir, asset));

async function get(url: string, acceptEncoding: string, headers: Record<string, string> = {}) {
  // undici's fetch would decode the body itself; the raw bytes show what went over the wire.
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(new URL(url, shop.url), { headers: { 'accept-encoding': acceptEncoding, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('the built app on the wire', () => {
  it('sends the entry script as brotli, then gzip, then plain, each the same bytes, cached for a year', async () => {
    const { script } = entryAssets();
    const original = onDisk(script);

    const br = await get(script, 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.body).equals(original)).toBe(true);
    // The point of it: a phone downloads a fraction of the script.
    expect(br.body.length).toBeLessThan(original.length / 3);

    const gz = await get(script, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(original)).toBe(true);

    const plain = await get(script, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(original)).toBe(true);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('sends the stylesheet compressed too', async () => {
    const { style } = entryAssets();
    const res = await get(style, 'br');
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/text\/css/);
    expect(zlib.brotliDecompressSync(res.body).equals(onDisk(style))).toBe(true);
  });

  it('never lets a browser cache the page itself, at / or at an app route', async () => {
    for (const page of ['/', '/cart', '/products/anything']) {
      const res = await get(page, 'br, gzip');
      expect(res.status, page).toBe(200);
      expect(res.headers['cache-control'], page).toBe('no-cache');
      expect(res.headers['content-type'], page).toMatch(/text\/html/);
    }
  });

  it("sends the search form, submitted before the app runs, to the search's address", async () => {
    const cases = [
      ['/search?q=samsng', '/search/samsng'],
      ['/search?q=+TV%2FAudio+&category=Phones+%26+Tablets', '/search/TV%2FAudio?category=Phones+%26+Tablets'],
      ['/search?q=tv&category=', '/search/tv'],
      ['/search?q=+++', '/'],
      ['/search', '/'],
    ];
    for (const [submitted, target] of cases) {
      const res = await get(submitted as string, 'br, gzip');
      expect(res.status, submitted).toBe(303);
      expect(res.headers.location, submitted).toBe(target);
    }
  });

  it('answers 404 for a missing asset rather than the page', async () => {
    const res = await get('/assets/missing-0000.js', 'br, gzip');
    expect(res.status).toBe(404);
  });

  /** The JSON a page carries in its data template, decoded as a browser would. */
  function pageData(html: string): Record<string, unknown> {
    const text = /<template id="duka-initial-data">([^<]*)<\/template>/.exec(html)?.[1];
    if (text === undefined) throw new Error('the page carries no data');
    const decoded = text.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    return JSON.parse(decoded) as Record<string, unknown>;
  }

  it('gives the home page its listing and top products, and preloads the first photo', async () => {
    const html = (await get('/', 'identity')).body.toString('utf8');
    const data = pageData(html) as { products: { products: { image: string }[] }; top: unknown[] };
    const listing = await shop.client().get<{ products: { image: string }[] }>('/api/products');
    expect(data.products).toEqual(listing.body);
    expect(Array.isArray(data.top)).toBe(true);
    const first = listing.body.products[0]?.image;
    expect(html).toContain(`<link rel="preload" as="image" href="${first}?w=640" imagesrcset="${first}?w=320 320w`);
  });

  /** What the page carries inside #root: the first screen the server drew, or nothing. */
  const rootOf = (html: string) => /<div id="root">([\s\S]*)<\/div>\s*<\/body>/.exec(html)?.[1] ?? '';

  it('draws the home page for a new visitor: its heading and first products are in the HTML', async () => {
    const listing = await shop.client().get<{ products: { name: string; price: number }[] }>('/api/products');
    const html = rootOf((await get('/', 'identity')).body.toString('utf8'));
    expect(html).toMatch(/<h1[^>]*>Latest Products<\/h1>/);
    for (const product of listing.body.products.slice(0, 4)) expect(html).toContain(escapeHtml(product.name));
    expect(html).toContain('Sign In');
    // A signed-in visitor sees their own header, and a query its own listing: the browser draws those.
    expect(rootOf((await get('/', 'identity', { cookie: 'duka_session=anything' })).body.toString('utf8'))).toBe('');
    expect(rootOf((await get('/?sort=price-asc', 'identity')).body.toString('utf8'))).toBe('');
    // Pages the server has no data for are drawn in the browser.
    expect(rootOf((await get('/cart', 'identity')).body.toString('utf8'))).toBe('');
  });

  it("names a product page's screen code and data, and keeps a hostile product name inert", async () => {
    const admin = await shop.admin();
    const hostile = '</template><script>window.__xss=1</script><img src=x onerror=alert(1)>';
    const product = await createProduct(admin, { name: hostile });
    const html = (await get(`/products/${product._id}`, 'identity')).body.toString('utf8');
    expect(html).not.toContain('<script>window.__xss');
    expect(html).not.toContain('<img src=x');
    expect((pageData(html) as { product: { name: string } }).product.name).toBe(hostile);
    // The drawn page's one script is the loader that asks for the app's code, the product screen's
    // chunk with it, once the photo is on screen; none of that code is named for the parser.
    expect(html).toMatch(
      /<script type="module" crossorigin src="\/assets\/after-photo-[\w-]+\.js" data-modules="\/assets\/index-[\w-]+\.js [^"]*\/assets\/product-screen-[\w-]+\.js[^"]*" data-entry-imports="\d+"><\/script>/,
    );
    expect(html).not.toContain('rel="modulepreload"');
    expect(html).not.toMatch(/<script[^>]*src="\/assets\/index-/);
    // Undrawn (a signed-in visitor's page), the app's code and the screen's are named in the head,
    // to download at once.
    const undrawn = (await get(`/products/${product._id}`, 'identity', { cookie: 'duka_session=anything' })).body.toString(
      'utf8',
    );
    expect(undrawn).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(undrawn).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/product-screen-[\w-]+\.js">/);
    expect(undrawn).not.toContain('after-photo');
    // Drawn too, with the name as text: React escapes it.
    expect(rootOf(html)).toContain(`<h1 class="h3">${escapeHtml(hostile)}</h1>`);
    // An unknown product: the page still works, with nothing to carry and nothing drawn.
    const missing = (await get('/products/00000000-0000-4000-8000-000000000000', 'identity')).body.toString('utf8');
    expect(missing).not.toContain('duka-initial-data');
    expect(rootOf(missing)).toBe('');
  });

  it('sends a page in every encoding with the same content, and a new page at once when its data changes', async () => {
    const admin = await shop.admin();
    const product = await createProduct(admin, { name: 'Page cache probe', price: 321 });
    const pagePath = `/products/${product._id}`;
    const decoded = async (encoding: string) => {
      const res = await get(pagePath, encoding);
      expect(res.headers['content-encoding']).toBe(encoding === 'identity' ? undefined : encoding);
      const body =
        encoding === 'br' ? zlib.brotliDecompressSync(res.body) : encoding === 'gzip' ? zlib.gunzipSync(res.body) : res.body;
      return { html: body.toString('utf8'), etag: String(res.headers.etag) };
    };
    const [br, gz, plain] = [await decoded('br'), await decoded('gzip'), await decoded('identity')];
    expect(br.html).toBe(plain.html);
    expect(gz.html).toBe(plain.html);
    expect(new Set([br.etag, gz.etag, plain.etag]).size).toBe(3);
    // Served again: the very same bytes (made once), and the same tags.
    expect((await decoded('br')).etag).toBe(br.etag);
    expect((pageData(br.html) as { product: { price: number } }).product.price).toBe(321);

    expect((await admin.put(`/api/products/${product._id}`, { price: 654 })).status).toBe(200);
    const after = await decoded('br');
    expect(after.etag).not.toBe(br.etag);
    expect((pageData(after.html) as { product: { price: number } }).product.price).toBe(654);
    // Drawn or not, the page never shows the old price.
    expect(rootOf(br.html)).toContain(formatKsh(321));
    expect(after.html).not.toContain(formatKsh(321));
  });

  it('draws an address at most once a second: a page whose data changed sooner comes undrawn with its new data', async () => {
    const admin = await shop.admin();
    const product = await createProduct(admin, { name: 'Redraw probe', price: 400 });
    const pagePath = `/products/${product._id}`;
    const page = async () => (await get(pagePath, 'identity')).body.toString('utf8');
    const price = (html: string) => (pageData(html) as { product: { price: number } }).product.price;
    // The clock stands still while the price changes (Date only: timers and I/O run as ever).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const first = await page();
      expect(rootOf(first)).toContain(formatKsh(400));
      expect((await admin.put(pagePath.replace('/products/', '/api/products/'), { price: 500 })).status).toBe(200);
      const soon = await page();
      expect(price(soon)).toBe(500);
      expect(rootOf(soon)).toBe('');
      // Asked again at once: the same undrawn page, made once.
      expect(await page()).toBe(soon);
      vi.setSystemTime(Date.now() + 1_000);
      const later = await page();
      expect(price(later)).toBe(500);
      expect(rootOf(later)).toContain(formatKsh(500));
      expect(rootOf(later)).not.toContain(formatKsh(400));
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the build manifest and the first-screen renderer to the server', async () => {
    const res = await get('/.vite/manifest.json', 'identity');
    expect(res.body.toString('utf8')).not.toContain('"isEntry"');
    const renderer = await get('/.ssr/entry-server.js', 'identity');
    expect(renderer.body.toString('utf8')).not.toContain('renderFirstScreen');
  });
});

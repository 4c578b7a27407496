import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { and, eq } from 'drizzle-orm';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { images } from '../../src/server/db/schema.js';
import { importLegacyUploads } from '../../src/server/domain/images.js';
import { demoImagesDir } from '../../src/server/paths.js';
import { IMAGE_WIDTHS } from '../../src/shared/images.js';
import type { ApiClient } from '../support/client.js';
import { expectClientError } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';

/**
 * Product images served by the shop (src/shared/images.ts): uploads from the database, the demo
 * images from their folder, each at its full size or at ?w=320|640|1280 as a WebP never enlarged.
 */

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await startTestShop();
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

/** A picture with detail in it (flat colour would make every WebP tiny), of the given size. */
function photo(width: number, height: number): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7 + ((i / 3 / width) | 0) * 13) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

async function upload(content: Buffer): Promise<string> {
  const form = new FormData();
  form.set('image', new Blob([new Uint8Array(content)]), 'photo.jpg');
  const res = await admin.request<{ image: string; msg: string }>('POST', '/api/uploads', { body: form });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.image;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

async function webpSize(body: Buffer) {
  const meta = await sharp(body).metadata();
  expect(meta.format).toBe('webp');
  return { width: meta.width, height: meta.height };
}

/** A PNG whose header claims width × height but holds almost no data: a decompression bomb's shape. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('uploaded images', () => {
  it('are upright, stripped of EXIF and GPS, and served at the full size and at every width', async () => {
    // A phone photo: stored sideways with EXIF orientation 6, carrying the owner's name and a GPS position.
    const source = await photo(2400, 1200)
      .withMetadata({ orientation: 6 })
      .withExifMerge({
        IFD0: { Artist: 'Wanjiku Kamau', ImageDescription: 'taken-at-home' },
        IFD3: { GPSLatitudeRef: 'S', GPSLatitude: '1/1 17/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '36/1 49/1 0/1' },
      })
      .jpeg({ quality: 70 })
      .toBuffer();
    const sourceMeta = await sharp(source).metadata();
    expect(sourceMeta.orientation).toBe(6);
    expect(sourceMeta.exif?.includes('Wanjiku Kamau')).toBe(true);

    const image = await upload(source);
    expect(image).toMatch(/^\/uploads\/[0-9a-f]{24}\.webp$/);
    // Upright it is 1200 × 2400: narrower than the 1600 cap, so the full image keeps that width.
    const expected: Record<string, { width: number; height: number }> = {
      '': { width: 1200, height: 2400 },
      '?w=320': { width: 320, height: 640 },
      '?w=640': { width: 640, height: 1280 },
      '?w=1280': { width: 1200, height: 2400 },
    };
    for (const [query, size] of Object.entries(expected)) {
      const res = await get(shop.url + image + query);
      expect(res.status, query).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(await webpSize(res.body), query).toEqual(size);
      const meta = await sharp(res.body).metadata();
      expect({ exif: meta.exif, xmp: meta.xmp, icc: meta.icc, iptc: meta.iptc, orientation: meta.orientation }, query).toEqual({
        exif: undefined,
        xmp: undefined,
        icc: undefined,
        iptc: undefined,
        orientation: undefined,
      });
      expect(res.body.includes('Wanjiku'), query).toBe(false);
      expect(res.body.includes('Exif'), query).toBe(false);
    }
  });

  it('are at most 1600 px wide', async () => {
    const image = await upload(await photo(3200, 400).png().toBuffer());
    expect(await webpSize((await get(shop.url + image)).body)).toEqual({ width: 1600, height: 200 });
    expect(await webpSize((await get(`${shop.url + image}?w=1280`)).body)).toEqual({ width: 1280, height: 160 });
  });

  it('are never enlarged: a small picture is served at its own size for every width', async () => {
    const image = await upload(await photo(200, 100).png().toBuffer());
    for (const query of ['', ...IMAGE_WIDTHS.map((w) => `?w=${w}`)]) {
      expect(await webpSize((await get(shop.url + image + query)).body), query).toEqual({ width: 200, height: 100 });
    }
  });

  it('are cached for a year with a strong ETag, and answer 304 when the browser has them', async () => {
    const image = await upload(await photo(800, 600).jpeg().toBuffer());
    const etags = new Set<string>();
    for (const query of ['', '?w=320', '?w=640']) {
      const first = await get(shop.url + image + query);
      expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(first.headers.get('content-security-policy')).toBe("default-src 'none'; img-src 'self'; sandbox");
      expect(first.headers.get('x-content-type-options')).toBe('nosniff');
      // A fetch without cookies, like a CDN's: nothing per-visitor that would keep it from being cached.
      expect(first.headers.get('set-cookie')).toBeNull();
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
      etags.add(etag);
      const again = await get(shop.url + image + query, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.get('etag')).toBe(etag);
      const among = await get(shop.url + image + query, { 'if-none-match': `"other", ${etag}` });
      expect(among.status).toBe(304);
      const stale = await get(shop.url + image + query, { 'if-none-match': '"something-else"' });
      expect(stale.status).toBe(200);
      expect(stale.body.equals(first.body)).toBe(true);
    }
    // Each width is its own representation.
    expect(etags.size).toBe(3);
  });

  it('are served from memory once requested: no database query for a hot image', async () => {
    const image = await upload(await photo(400, 300).png().toBuffer());
    const first = await get(`${shop.url + image}?w=320`);
    expect(first.status).toBe(200);
    // Removing the rows would make any query miss; the cached copy still answers.
    await shop.database.db.delete(images).where(and(eq(images.path, image), eq(images.width, 320)));
    const second = await get(`${shop.url + image}?w=320`);
    expect(second.status).toBe(200);
    expect(second.body.equals(first.body)).toBe(true);
    // A width never requested before goes to the database, which now has no such row.
    expect((await get(`${shop.url + image}?w=640`)).status).toBe(200);
    await shop.database.db.delete(images).where(eq(images.path, image));
    expect((await get(`${shop.url + image}?w=1280`)).status).toBe(404);
  });

  it('answer 400 to a width that is not one of 320, 640, 1280, and 404 to an unknown image', async () => {
    const image = await upload(await photo(100, 100).png().toBuffer());
    for (const query of ['?w=100', '?w=321', '?w=0', '?w=', '?w=abc', '?w=320&w=640', '?w=-320', '?w=3200000000', '?w=320.0']) {
      const res = await admin.get(image + query);
      expectClientError(res, 400, 'w must be one of 320, 640, 1280');
    }
    expectClientError(await admin.get('/uploads/0123456789abcdef01234567.webp'), 404);
    expectClientError(await admin.get('/uploads/0123456789abcdef01234567.webp?w=320'), 404);
    // The stored address is the whole path: another extension or case is another (unknown) image.
    expectClientError(await admin.get(image.replace('.webp', '.png')), 404);
    expectClientError(await admin.get(image.toUpperCase().replace('/UPLOADS/', '/uploads/')), 404);
    // Whole dot segments (/uploads/..) are resolved by the client before sending; these reach the shop as names.
    for (const probe of [
      '/uploads/..%2f..%2fpackage.json',
      '/uploads/..%5c..%5cpackage.json',
      '/uploads/.env',
      '/images/..%2f..%2fpackage.json',
      '/images/..%2fdemo-images%2fsample.webp',
      '/images/%2e%2e%2f%2e%2e%2fpackage.json',
      '/images/sample.webp%00.png',
    ]) {
      const res = await get(shop.url + probe);
      expect(res.status, probe).toBe(404);
      expect(JSON.parse(res.body.toString()).errors[0].msg, probe).toEqual(expect.any(String));
    }
  });

  it('refuse a decompression bomb and a damaged file with 4xx, not 500', async () => {
    const bomb = pngHeaderOnly(60_000, 60_000);
    expect((await sharp(bomb, { limitInputPixels: false }).metadata()).width).toBe(60_000);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(bomb)]), 'bomb.png');
    expectClientError(await admin.request('POST', '/api/uploads', { body: form }), 413, 'megapixels');

    const whole = await photo(600, 600).png().toBuffer();
    const damaged = whole.subarray(0, Math.floor(whole.length / 2));
    const damagedForm = new FormData();
    damagedForm.set('image', new Blob([new Uint8Array(damaged)]), 'half.png');
    expectClientError(await admin.request('POST', '/api/uploads', { body: damagedForm }), 400, 'damaged or incomplete');
    expect((await shop.client().get('/api/health')).status).toBe(200);
  });

  // Two shops on one database are only possible on PostgreSQL (a PGlite database belongs to one process).
  describe.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
    it('are visible from every instance: uploaded through one, served by another', async () => {
      const other = await startTestShop({ DATABASE_URL: shop.config.databaseUrl ?? '' });
      try {
        const otherAdmin = await other.admin();
        const form = new FormData();
        form.set('image', new Blob([new Uint8Array(await photo(900, 450).jpeg().toBuffer())]), 'x.jpg');
        const res = await otherAdmin.request<{ image: string }>('POST', '/api/uploads', { body: form });
        expect(res.status).toBe(201);
        for (const query of ['', ...IMAGE_WIDTHS.map((w) => `?w=${w}`)]) {
          const here = await get(shop.url + res.body.image + query);
          const there = await get(other.url + res.body.image + query);
          expect(here.status, query).toBe(200);
          expect(here.body.equals(there.body), query).toBe(true);
          // The ETag comes from the content, so a browser's copy validates against any instance.
          expect(here.headers.get('etag')).toBe(there.headers.get('etag'));
        }
        expect(await webpSize((await get(`${shop.url + res.body.image}?w=320`)).body)).toEqual({ width: 320, height: 160 });
      } finally {
        await other.stop();
      }
    });
  });
});

describe('uploads left in DATA_DIR/uploads by an earlier version', () => {
  let dataDir: string;
  let legacy: TestShop | undefined;
  const OLD_NAME = '0123456789abcdef01234567.jpg';

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'duka-legacy-'));
    await fs.mkdir(path.join(dataDir, 'uploads'));
    const old = await photo(1000, 500)
      .withExifMerge({ IFD0: { Artist: 'Old Upload Owner' } })
      .jpeg()
      .toBuffer();
    await fs.writeFile(path.join(dataDir, 'uploads', OLD_NAME), old);
    // Files that cannot be imported must not stop the shop from starting.
    await fs.writeFile(path.join(dataDir, 'uploads', 'broken.png'), 'not an image');
    await fs.writeFile(path.join(dataDir, 'uploads', '.DS_Store'), 'junk');
    legacy = await startTestShop({ DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await legacy?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('are imported at start-up and served at their old address, as WebP at every width', async () => {
    const url = `${legacy!.url}/uploads/${OLD_NAME}`;
    const full = await get(url);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('image/webp');
    expect(await webpSize(full.body)).toEqual({ width: 1000, height: 500 });
    expect(full.body.includes('Old Upload Owner')).toBe(false);
    expect(await webpSize((await get(`${url}?w=320`)).body)).toEqual({ width: 320, height: 160 });
    expectClientError(await legacy!.client().get('/uploads/broken.png'), 404);
  });

  it('are imported once: running the import again adds nothing', async () => {
    const db = legacy!.database.db;
    const before = await db.select({ path: images.path, width: images.width }).from(images);
    expect(
      before
        .filter((r) => r.path === `/uploads/${OLD_NAME}`)
        .map((r) => r.width)
        .sort((a, b) => a - b),
    ).toEqual([0, ...IMAGE_WIDTHS]);
    const log = { info: () => {}, warn: () => {} };
    expect(await importLegacyUploads(db, path.join(dataDir, 'uploads'), log)).toBe(0);
    expect(await db.select({ path: images.path }).from(images)).toHaveLength(before.length);
  });
});

describe('demo images', () => {
  it('are served as they are, and as a WebP of each width never enlarged', async () => {
    const name = 'akala-tyre-sandals.webp';
    const original = await fs.readFile(path.join(demoImagesDir, name));
    const own = await sharp(original).metadata();
    const full = await get(`${shop.url}/images/${name}`);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('image/webp');
    expect(full.body.equals(original)).toBe(true);
    const sizes: string[] = [`original ${own.width}px: ${original.length} B`];
    for (const w of IMAGE_WIDTHS) {
      const res = await get(`${shop.url}/images/${name}?w=${w}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('cache-control')).toBe('public, max-age=2592000');
      expect(res.headers.get('set-cookie')).toBeNull();
      const size = await webpSize(res.body);
      expect(size.width).toBe(Math.min(w, own.width ?? 0));
      sizes.push(`w=${w}: ${size.width}px ${res.body.length} B`);
      const etag = res.headers.get('etag') ?? '';
      expect((await get(`${shop.url}/images/${name}?w=${w}`, { 'if-none-match': etag })).status).toBe(304);
    }
    console.log(`demo image ${name}: ${sizes.join(', ')}`);
  });

  it('/images/sample.webp?w=320 is a 320-wide WebP', async () => {
    const res = await get(`${shop.url}/images/sample.webp?w=320`);
    expect(res.status).toBe(200);
    expect(await webpSize(res.body)).toEqual({ width: 320, height: 320 });
  });

  it('answer 400 to a bad width and 404 to an unknown name', async () => {
    expectClientError(await admin.get('/images/sample.webp?w=500'), 400, 'w must be one of');
    expectClientError(await admin.get('/images/no-such-picture.webp'), 404);
    expectClientError(await admin.get('/images/no-such-picture.webp?w=320'), 404);
  });
});

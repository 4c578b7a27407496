import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES } from '../../src/shared/constants.js';
import type { ApiClient } from '../support/client.js';
import { expectClientError } from '../support/fixtures.js';
import { startTestShop, type TestShop } from '../support/shop.js';

let shop: TestShop;
let admin: ApiClient;

beforeAll(async () => {
  shop = await startTestShop();
  admin = await shop.admin();
});
afterAll(() => shop?.stop());

function imageOf(format: 'png' | 'jpeg' | 'webp', size = 32): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .toFormat(format)
    .toBuffer();
}

function upload(
  client: ApiClient,
  content: Buffer | string,
  filename: string,
  field = 'image',
  type = 'application/octet-stream',
) {
  const form = new FormData();
  form.set(field, new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type }), filename);
  return client.request<{ image: string; msg: string }>('POST', '/api/uploads', { body: form });
}

describe('image uploads', () => {
  it.each(['png', 'jpeg', 'webp'] as const)('stores a %s image as WebP and serves it back with safe headers', async (format) => {
    const content = await imageOf(format);
    const res = await upload(admin, content, `photo.${format}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ image: expect.stringMatching(/^\/uploads\/[0-9a-f]{24}\.webp$/), msg: 'Image uploaded' });
    const served = await fetch(shop.url + res.body.image);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'webp', width: 32, height: 32 });
  });

  it('decides the type by content: a PNG named .txt is accepted, a script named .jpg is not', async () => {
    expect((await upload(admin, await imageOf('png'), 'notes.txt', 'image', 'text/plain')).status).toBe(201);
    expectClientError(
      await upload(admin, '<script>alert(1)</script>', 'cat.jpg', 'image', 'image/jpeg'),
      415,
      'JPEG, PNG or WebP',
    );
    expectClientError(
      await upload(
        admin,
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        'x.svg',
        'image',
        'image/svg+xml',
      ),
      415,
    );
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    expectClientError(await upload(admin, gif, 'x.gif', 'image', 'image/gif'), 415);
    // A JPEG header followed by junk is not an image either.
    expectClientError(
      await upload(admin, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 1)]), 'x.jpg'),
      415,
    );
  });

  it('refuses files over 5 MB with 413', async () => {
    const big = Buffer.concat([await imageOf('png'), Buffer.alloc(MAX_UPLOAD_BYTES + 1024, 0)]);
    expectClientError(await upload(admin, big, 'big.png'), 413, 'too large');
  });

  it('refuses a missing file, a wrong field and a non-multipart body', async () => {
    expectClientError(await upload(admin, await imageOf('png'), 'x.png', 'photo'), 400, 'field "image"');
    const empty = new FormData();
    empty.set('note', 'no file');
    expectClientError(await admin.request('POST', '/api/uploads', { body: empty }), 400);
    expectClientError(await admin.post('/api/uploads', { image: 'x' }), 415);
    expectClientError(await upload(admin, Buffer.alloc(0), 'empty.png'), 400);
  });

  it('refuses a truncated multipart body without hanging', async () => {
    const boundary = '----dukaBoundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n`;
    const res = await admin.request('POST', '/api/uploads', {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('is for admins only', async () => {
    const content = await imageOf('png');
    expectClientError(await upload(shop.client(), content, 'x.png'), 401);
    expectClientError(await upload(await shop.shopper(), content, 'x.png'), 403);
  });

  it('serves the demo catalogue images that ship with the project', async () => {
    const res = await fetch(`${shop.url}/images/sample.webp`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    for (const probe of ['/uploads/..%2f..%2fpackage.json', '/images/..%2f..%2fpackage.json']) {
      const res = await fetch(shop.url + probe);
      expect(res.status, probe).toBe(404);
      expect(await res.text()).not.toContain('"dependencies"');
    }
    // Dot segments are resolved before the request is sent; whatever answers is never the file.
    expect(await (await fetch(`${shop.url}/uploads/%2e%2e/%2e%2e/package.json`)).text()).not.toContain('"dependencies"');
  });
});

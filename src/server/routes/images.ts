import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import { IMAGE_WIDTHS } from '../../shared/images.js';
import type { Db } from '../db/client.js';
import { isSafeImageName, loadUploadedImage, MAX_INPUT_PIXELS, WEBP } from '../domain/images.js';
import { badRequest, notFound } from '../errors.js';
import { sendConditional } from '../http/conditional.js';

export interface ImageRoutesOptions {
  db: Db;
  /** The demo catalogue's images, served at /images/<name>. */
  demoImagesDir: string;
  /** Upper bound of the encoded images kept in memory, in bytes. */
  cacheBytes?: number;
}

interface Served {
  content: Buffer;
  contentType: string;
  etag: string;
}

/** Uploads have random names and are never changed, so any copy anywhere is right forever. */
const UPLOAD_CACHE = 'public, max-age=31536000, immutable';
/**
 * Demo images change only with a new release of the shop, under the same names, so they are not
 * immutable: a month spares phones from fetching them again, and the ETag makes the check after
 * that a 304 unless the release changed the picture.
 */
const DEMO_CACHE = 'public, max-age=2592000';
/** Uploads are only ever WebP written by the shop; the sandbox keeps even a crafted file inert. */
const UPLOAD_CSP = "default-src 'none'; img-src 'self'; sandbox";
const CONTENT_TYPES: Record<string, string> = { '.webp': WEBP, '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };
const WEBP_QUALITY = 80;

function served(content: Buffer, contentType: string): Served {
  const etag = `"${createHash('sha256').update(content).digest('base64url').slice(0, 32)}"`;
  return { content, contentType, etag };
}

/** 0 without `?w` (the image itself), else one of IMAGE_WIDTHS; anything else is a 400. */
function requestedWidth(query: unknown): number {
  const w = (query as Record<string, unknown> | undefined)?.w;
  if (w === undefined) return 0;
  const width = typeof w === 'string' && /^\d{1,5}$/.test(w) ? Number(w) : Number.NaN;
  if (!(IMAGE_WIDTHS as readonly number[]).includes(width)) throw badRequest(`w must be one of ${IMAGE_WIDTHS.join(', ')}`, 'w');
  return width;
}

function send(request: FastifyRequest, reply: FastifyReply, image: Served, cacheControl: string) {
  reply.header('cache-control', cacheControl).type(image.contentType);
  return sendConditional(request, reply, image.etag, () => image.content);
}

/**
 * Product images: uploads from the database, demo images from the folder that ships with the
 * shop, each at its full size or resized to one of IMAGE_WIDTHS. Encoded images are kept in an
 * LRU bounded by bytes, so a popular image costs no query and no resize after its first request.
 * Not in the OpenAPI document: these are files, not API calls.
 */
const imageRoutes: FastifyPluginAsync<ImageRoutesOptions> = async (app, { db, demoImagesDir, cacheBytes = 64 * 1024 * 1024 }) => {
  const cache = new LRUCache<string, Served>({ maxSize: cacheBytes, sizeCalculation: (v) => v.content.length + 200 });
  /** Requests for an image that is being loaded wait for that load rather than repeat it. */
  const loading = new Map<string, Promise<Served | undefined>>();

  async function cached(key: string, load: () => Promise<Served | undefined>): Promise<Served | undefined> {
    const hit = cache.get(key);
    if (hit) return hit;
    let pending = loading.get(key);
    if (!pending) {
      pending = load().finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    const image = await pending;
    // A missing image is not remembered: another instance may store it a moment later.
    if (image && image.content.length <= cacheBytes / 8) cache.set(key, image);
    return image;
  }

  // A response that sets a cookie is not stored by shared caches (and must not be: the XSRF cookie
  // handed to a first-time visitor is theirs alone), so images never hand one out.
  const options = { schema: { hide: true }, config: { xsrfCookie: false } };

  // Only the files present at start-up are ever served, so no name can reach outside the folder.
  const demoNames = new Set(
    (await fs.readdir(demoImagesDir).catch(() => [])).filter(
      (name) => isSafeImageName(name) && CONTENT_TYPES[path.extname(name)],
    ),
  );

  async function loadDemo(name: string, width: number): Promise<Served> {
    const original = await fs.readFile(path.join(demoImagesDir, name));
    const contentType = CONTENT_TYPES[path.extname(name)] ?? WEBP;
    if (width === 0) return served(original, contentType);
    const image = sharp(original, { limitInputPixels: MAX_INPUT_PIXELS });
    const { width: own = 0 } = await image.metadata();
    // Not enlarged, and a WebP already at that width is not re-encoded (which would only lose quality).
    if (width >= own && contentType === WEBP) return served(original, WEBP);
    const resized = await image.resize({ width, withoutEnlargement: true }).webp({ quality: WEBP_QUALITY }).toBuffer();
    return served(resized, WEBP);
  }

  app.get<{ Params: { name: string } }>('/images/:name', options, async (request, reply) => {
    const width = requestedWidth(request.query);
    const { name } = request.params;
    if (!demoNames.has(name)) throw notFound(`No such image: ${name.slice(0, 120)}`);
    const image = await cached(`/images/${name}?${width}`, () => loadDemo(name, width));
    if (!image) throw notFound(`No such image: ${name}`);
    return send(request, reply, image, DEMO_CACHE);
  });

  await app.register(async (uploads) => {
    uploads.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', UPLOAD_CSP);
    });
    uploads.get<{ Params: { name: string } }>('/uploads/:name', options, async (request, reply) => {
      const width = requestedWidth(request.query);
      const { name } = request.params;
      if (!isSafeImageName(name)) throw notFound(`No such image: ${name.slice(0, 120)}`);
      const imagePath = `/uploads/${name}`;
      const image = await cached(`${imagePath}?${width}`, async () => {
        const row = await loadUploadedImage(db, imagePath, width);
        return row && served(row.content, row.contentType);
      });
      if (!image) throw notFound(`No such image: ${name}`);
      return send(request, reply, image, UPLOAD_CACHE);
    });
  });
};

export default imageRoutes;

import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { IMAGE_WIDTHS } from '../../shared/images.js';
import type { Db } from '../db/client.js';
import { demoImageAtWidth, type ImageFile, isSafeImageName, loadUploadedImage, WEBP } from '../domain/images.js';
import { badRequest, notFound } from '../errors.js';
import { contentEtag, sendConditional } from '../http/conditional.js';

export interface ImageRoutesOptions {
  db: Db;
  /** The demo catalogue's images, served at /images/<name>. */
  demoImagesDir: string;
  /** Upper bound of the encoded images kept in memory, in bytes. */
  cacheBytes?: number;
}

interface Served extends ImageFile {
  etag: string;
}

interface Address {
  /** Where the image is served without `?w`: /images/<name> or /uploads/<name>. */
  path: string;
  name: string;
  width: number;
}

/** How a cache miss loads its image; undefined when there is no such image. */
type Load = () => Promise<ImageFile | undefined>;

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

/** 0 without `?w` (the image itself), else one of IMAGE_WIDTHS; anything else is a 400. */
function requestedWidth(query: unknown): number {
  const w = (query as Record<string, unknown> | undefined)?.w;
  if (w === undefined) return 0;
  const width = typeof w === 'string' && /^\d{1,5}$/.test(w) ? Number(w) : Number.NaN;
  if (!(IMAGE_WIDTHS as readonly number[]).includes(width)) throw badRequest(`w must be one of ${IMAGE_WIDTHS.join(', ')}`, 'w');
  return width;
}

/**
 * Product images: uploads from the database, demo images from the folder that ships with the
 * shop, each at its full size or resized to one of IMAGE_WIDTHS (domain/images.ts decides how).
 * Encoded images are kept in an LRU bounded by bytes, so a popular image costs no query and no
 * resize after its first request; concurrent requests for one image share its single load.
 * Not in the OpenAPI document: these are files, not API calls.
 */
const imageRoutes: FastifyPluginAsync<ImageRoutesOptions> = async (app, { db, demoImagesDir, cacheBytes = 64 * 1024 * 1024 }) => {
  const cache = new LRUCache<string, Served, Load>({
    maxSize: cacheBytes,
    // One image never takes more than an eighth of the cache; a larger one is served but not kept.
    maxEntrySize: Math.max(1, Math.floor(cacheBytes / 8)),
    sizeCalculation: (image) => image.content.length + 200,
    // Undefined (no such image) is not remembered: another instance may store it a moment later.
    fetchMethod: async (_key, _stale, { context: load }) => {
      const image = await load();
      return image && { ...image, etag: contentEtag(image.content) };
    },
  });

  /** Answers with the image at `address` (its path and width), loaded on a cache miss. */
  async function send(request: FastifyRequest, reply: FastifyReply, address: Address, load: Load, cacheControl: string) {
    const { path: imagePath, name, width } = address;
    const image = await cache.fetch(`${imagePath}?${width}`, { context: load });
    if (!image) throw notFound(`No such image: ${name}`);
    reply.header('cache-control', cacheControl).type(image.contentType);
    return sendConditional(request, reply, image.etag, () => image.content);
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

  app.get<{ Params: { name: string } }>('/images/:name', options, async (request, reply) => {
    const width = requestedWidth(request.query);
    const { name } = request.params;
    if (!demoNames.has(name)) throw notFound(`No such image: ${name.slice(0, 120)}`);
    const load = async () => {
      const content = await fs.readFile(path.join(demoImagesDir, name));
      return demoImageAtWidth({ content, contentType: CONTENT_TYPES[path.extname(name)] ?? WEBP }, width);
    };
    return send(request, reply, { path: `/images/${name}`, name, width }, load, DEMO_CACHE);
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
      return send(request, reply, { path: imagePath, name, width }, () => loadUploadedImage(db, imagePath, width), UPLOAD_CACHE);
    });
  });
};

export default imageRoutes;

import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { IMAGE_WIDTHS } from '../../shared/images.js';
import type { ImageFile } from '../domain/images.js';
import { badRequest, notFound } from '../errors.js';
import { contentEtag, sendConditional } from '../http/conditional.js';

interface Served extends ImageFile {
  etag: string;
}

export interface Address {
  /** Where the image is served without `?w`: /images/<name> or /uploads/<name>. */
  path: string;
  name: string;
  width: number;
}

/** How a cache miss loads its image; undefined when there is no such image. */
export type Load = () => Promise<ImageFile | undefined>;

/** The images of /images (images.ts) and /uploads (uploads.ts), from one cache. */
export interface ImageCache {
  /** Answers with the image at `address` (its path and width), loaded on a cache miss. */
  send(request: FastifyRequest, reply: FastifyReply, address: Address, load: Load, cacheControl: string): Promise<void>;
}

/** 0 without `?w` (the image itself), else one of IMAGE_WIDTHS; anything else is a 400. */
export function requestedWidth(query: unknown): number {
  const w = (query as Record<string, unknown> | undefined)?.w;
  if (w === undefined) return 0;
  const width = typeof w === 'string' && /^\d{1,5}$/.test(w) ? Number(w) : Number.NaN;
  if (!(IMAGE_WIDTHS as readonly number[]).includes(width)) throw badRequest(`w must be one of ${IMAGE_WIDTHS.join(', ')}`, 'w');
  return width;
}

// A response that sets a cookie is not stored by shared caches (and must not be: the XSRF cookie
// handed to a first-time visitor is theirs alone), so images never hand one out.
export const IMAGE_ROUTE_OPTIONS = { schema: { hide: true }, config: { xsrfCookie: false } };

/**
 * Encoded images are kept in an LRU bounded by bytes, so a popular image costs no query and no
 * resize after its first request; concurrent requests for one image share its single load.
 * `cacheBytes` is the upper bound of the encoded images kept in memory.
 */
export function imageCache(cacheBytes = 64 * 1024 * 1024): ImageCache {
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

  return {
    async send(request, reply, address, load, cacheControl) {
      const { path: imagePath, name, width } = address;
      const image = await cache.fetch(`${imagePath}?${width}`, { context: load });
      if (!image) throw notFound(`No such image: ${name}`);
      reply.header('cache-control', cacheControl).type(image.contentType);
      return sendConditional(request, reply, image.etag, () => image.content);
    },
  };
}

import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { demoImageAtWidth, isSafeImageName, WEBP } from '../domain/images.js';
import { notFound } from '../errors.js';
import { IMAGE_ROUTE_OPTIONS, type ImageCache, requestedWidth } from './image-cache.js';

export interface ImageRoutesOptions {
  /** The demo catalogue's images, served at /images/<name>. */
  demoImagesDir: string;
  images: ImageCache;
}

/**
 * Demo images change only with a new release of the shop, under the same names, so they are not
 * immutable: a month spares phones from fetching them again, and the ETag makes the check after
 * that a 304 unless the release changed the picture.
 */
const DEMO_CACHE = 'public, max-age=2592000';
const CONTENT_TYPES: Record<string, string> = { '.webp': WEBP, '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };

/**
 * The demo catalogue's product images, from the folder that ships with the shop, each at its full
 * size or resized to one of IMAGE_WIDTHS (domain/images.ts decides how). Uploaded images are
 * served by uploads.ts, through the same cache (image-cache.ts).
 * Not in the OpenAPI document: these are files, not API calls.
 */
const imageRoutes: FastifyPluginAsync<ImageRoutesOptions> = async (app, { demoImagesDir, images }) => {
  // Only the files present at start-up are ever served, so no name can reach outside the folder.
  const demoNames = new Set(
    (await fs.readdir(demoImagesDir).catch(() => [])).filter(
      (name) => isSafeImageName(name) && CONTENT_TYPES[path.extname(name)],
    ),
  );

  app.get<{ Params: { name: string } }>('/images/:name', IMAGE_ROUTE_OPTIONS, async (request, reply) => {
    const width = requestedWidth(request.query);
    const { name } = request.params;
    if (!demoNames.has(name)) throw notFound(`No such image: ${name.slice(0, 120)}`);
    const load = async () => {
      const content = await fs.readFile(path.join(demoImagesDir, name));
      return demoImageAtWidth({ content, contentType: CONTENT_TYPES[path.extname(name)] ?? WEBP }, width);
    };
    return images.send(request, reply, { path: `/images/${name}`, name, width }, load, DEMO_CACHE);
  });
};

export default imageRoutes;

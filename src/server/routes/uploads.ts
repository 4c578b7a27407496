import type { FastifyPluginAsync } from 'fastify';
import type { Db } from '../db/client.js';
import { isSafeImageName, loadUploadedImage } from '../domain/images.js';
import { notFound } from '../errors.js';
import { IMAGE_ROUTE_OPTIONS, type ImageCache, requestedWidth } from './image-cache.js';

/** Uploads have random names and are never changed, so any copy anywhere is right forever. */
const UPLOAD_CACHE = 'public, max-age=31536000, immutable';
/** Uploads are only ever WebP written by the shop; the sandbox keeps even a crafted file inert. */
const UPLOAD_CSP = "default-src 'none'; img-src 'self'; sandbox";

/**
 * The product images admins uploaded (POST /api/uploads, api/uploads.ts), from the database, each
 * at its full size or resized to one of IMAGE_WIDTHS, through the same cache as the demo images
 * (image-cache.ts). Not in the OpenAPI document: these are files, not API calls.
 */
const uploadedImageRoutes: FastifyPluginAsync<{ db: Db; images: ImageCache }> = async (app, { db, images }) => {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', UPLOAD_CSP);
  });
  app.get<{ Params: { name: string } }>('/uploads/:name', IMAGE_ROUTE_OPTIONS, async (request, reply) => {
    const width = requestedWidth(request.query);
    const { name } = request.params;
    if (!isSafeImageName(name)) throw notFound(`No such image: ${name.slice(0, 120)}`);
    const imagePath = `/uploads/${name}`;
    return images.send(
      request,
      reply,
      { path: imagePath, name, width },
      () => loadUploadedImage(db, imagePath, width),
      UPLOAD_CACHE,
    );
  });
};

export default uploadedImageRoutes;

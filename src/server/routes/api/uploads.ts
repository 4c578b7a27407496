import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants.js';
import { errorBody } from '../../../shared/schemas/common.js';
import { uploadResponse } from '../../../shared/schemas/products.js';
import type { Db } from '../../db/client.js';
import { storeUploadedImage } from '../../domain/images.js';
import { AppError, badRequest } from '../../errors.js';

/** Past this a request is cut off at once; below it an oversized file is read to the end and refused. */
const MAX_REQUEST_BYTES = 2 * MAX_UPLOAD_BYTES;
const TOO_LARGE = 'The image is too large: at most 5 MB';

const uploadRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  // An oversized file is discarded as it streams in and answered once the request has been read,
  // so the browser gets the 413 rather than a connection reset in the middle of its upload.
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 11 },
  });

  app.post('/api/uploads', {
    onRequest: [
      app.requireAdmin,
      async (request) => {
        if (Number(request.headers['content-length'] ?? 0) > MAX_REQUEST_BYTES) throw new AppError(413, TOO_LARGE, 'image');
      },
    ],
    schema: {
      tags: ['uploads'],
      summary:
        'Upload a product image (admin): multipart field "image", JPEG, PNG or WebP, at most 5 MB and 40 megapixels; stored as WebP',
      consumes: ['multipart/form-data'],
      response: { 201: uploadResponse, 400: errorBody, 401: errorBody, 403: errorBody, 413: errorBody, 415: errorBody },
    },
    handler: async (request, reply) => {
      if (!request.isMultipart()) throw new AppError(415, 'Send the image as multipart/form-data in the field "image"', 'image');
      const file = await request.file();
      if (file?.fieldname !== 'image') throw badRequest('Choose an image file to upload (field "image")', 'image');
      const content = await file.toBuffer();
      if (file.file.truncated) throw new AppError(413, TOO_LARGE, 'image');
      if (content.length === 0) throw badRequest('The uploaded file is empty', 'image');
      const image = await storeUploadedImage(db, content);
      return reply.status(201).send({ image, msg: 'Image uploaded' });
    },
  });
};

export default uploadRoutes;

import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { AppError } from '../errors.js';

const ACCEPTED_FORMATS = { jpeg: 'jpg', png: 'png', webp: 'webp' } as const;
type AcceptedFormat = keyof typeof ACCEPTED_FORMATS;

function isAccepted(format: string | undefined): format is AcceptedFormat {
  return format !== undefined && format in ACCEPTED_FORMATS;
}

/**
 * Stores an uploaded product image under a random name and returns the path it is served at.
 * The type is decided by decoding the file's content, never by its name or declared type, so
 * a script renamed to .jpg (or an SVG) is refused.
 */
export async function storeUploadedImage(uploadsDir: string, content: Buffer): Promise<string> {
  let format: string | undefined;
  try {
    format = (await sharp(content).metadata()).format;
  } catch {
    format = undefined;
  }
  if (!isAccepted(format)) {
    throw new AppError(415, 'Only JPEG, PNG or WebP images can be uploaded', 'image');
  }
  await fs.mkdir(uploadsDir, { recursive: true });
  const name = `${randomBytes(12).toString('hex')}.${ACCEPTED_FORMATS[format]}`;
  await fs.writeFile(path.join(uploadsDir, name), content, { flag: 'wx' });
  return `/uploads/${name}`;
}

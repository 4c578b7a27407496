import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, eq, inArray } from 'drizzle-orm';
import sharp, { type Metadata, type OutputInfo, type Sharp } from 'sharp';
import { IMAGE_WIDTHS } from '../../shared/images.js';
import type { Db } from '../db/client.js';
import { images } from '../db/schema.js';
import { AppError } from '../errors.js';

const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp']);

/** The full image is at most this wide: wider than any IMAGE_WIDTHS, and a fraction of a phone photo's bytes. */
export const FULL_IMAGE_MAX_WIDTH = 1600;
/**
 * Decoding allocates width × height × channels bytes whatever the file's size, so a tiny PNG of
 * 60000 × 60000 would take gigabytes. 40 megapixels still takes any phone photo under 5 MB.
 */
export const MAX_INPUT_PIXELS = 40_000_000;
/** Every WebP the shop makes (uploads, resized demo images, the demo images themselves). */
export const WEBP_QUALITY = 80;
export const WEBP = 'image/webp';

/**
 * The one resize policy: to `width` (none: as it is), never enlarged, encoded as WebP at
 * WEBP_QUALITY without metadata.
 */
export function toWebp(image: Sharp, width?: number): Promise<Buffer> {
  const sized = width ? image.resize({ width, withoutEnlargement: true }) : image;
  return sized.webp({ quality: WEBP_QUALITY }).toBuffer();
}

/** Names the shop gives (and gave) uploads: no separators, no dot segments, nothing to escape. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9]+)?$/;
export function isSafeImageName(name: string): boolean {
  return name.length <= 120 && SAFE_NAME.test(name);
}

/** One stored form of an image: width 0 is the full image. */
export interface EncodedImage {
  width: number;
  content: Buffer;
}

const unsupported = () => new AppError(415, 'Only JPEG, PNG or WebP images can be uploaded', 'image');

/**
 * Turns an uploaded file into the WebPs the shop serves: the full image and one per IMAGE_WIDTHS.
 * The type is decided by decoding the file's content, never by its name or declared type, so a
 * script renamed to .jpg (or an SVG) is refused. The picture is turned upright by its EXIF
 * orientation and re-encoded without any metadata, so a phone photo's GPS position never leaves.
 */
export async function encodeImage(content: Buffer): Promise<EncodedImage[]> {
  let meta: Metadata;
  try {
    // Without a limit here, so a bomb is told apart from a file that is not an image at all.
    meta = await sharp(content, { limitInputPixels: false }).metadata();
  } catch {
    throw unsupported();
  }
  if (!meta.format || !ACCEPTED_FORMATS.has(meta.format)) throw unsupported();
  // metadata() reads only the header, so the pixel bomb is caught here before anything is decoded;
  // limitInputPixels below is the decoder's own guard against a header that lies.
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_INPUT_PIXELS) {
    throw new AppError(413, `The image has too many pixels: at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels`, 'image');
  }

  let full: { data: Buffer; info: OutputInfo };
  try {
    // Decoded once at the full size; every width is made from these pixels.
    full = await sharp(content, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: FULL_IMAGE_MAX_WIDTH, withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new AppError(400, 'The image could not be read: it is damaged or incomplete', 'image');
  }
  const { width, height, channels } = full.info;
  const raw = { raw: { width, height, channels } } as const;
  const fullWebp = await toWebp(sharp(full.data, raw));
  const encoded: EncodedImage[] = [{ width: 0, content: fullWebp }];
  for (const w of IMAGE_WIDTHS) {
    // A width at or above the image's own is the full image itself, not a second encoding of it.
    const content = w >= width ? fullWebp : await toWebp(sharp(full.data, raw), w);
    encoded.push({ width: w, content });
  }
  return encoded;
}

/** An image as served: its bytes and their type. */
export interface ImageFile {
  content: Buffer;
  contentType: string;
}

/**
 * A demo image (a file shipped with the shop) at `width` (0: the file itself), by the same policy
 * as uploads. A WebP already no wider than asked is served as it is: re-encoding would only lose
 * quality.
 */
export async function demoImageAtWidth(original: ImageFile, width: number): Promise<ImageFile> {
  if (width === 0) return original;
  const image = sharp(original.content, { limitInputPixels: MAX_INPUT_PIXELS });
  const { width: own = 0 } = await image.metadata();
  if (width >= own && original.contentType === WEBP) return original;
  return { content: await toWebp(image, width), contentType: WEBP };
}

function rowsOf(imagePath: string, encoded: EncodedImage[]) {
  return encoded.map(({ width, content }) => ({ path: imagePath, width, contentType: WEBP, content }));
}

/**
 * Stores an uploaded product image under a random name and returns the path it is served at.
 * All its widths go in with one INSERT, so no instance ever sees some widths without the others.
 */
export async function storeUploadedImage(db: Db, content: Buffer): Promise<string> {
  const encoded = await encodeImage(content);
  const imagePath = `/uploads/${randomBytes(12).toString('hex')}.webp`;
  await db.insert(images).values(rowsOf(imagePath, encoded));
  return imagePath;
}

/** One stored form of an upload, or undefined when there is no such image. */
export async function loadUploadedImage(db: Db, imagePath: string, width: number): Promise<ImageFile | undefined> {
  const [row] = await db
    .select({ content: images.content, contentType: images.contentType })
    .from(images)
    .where(and(eq(images.path, imagePath), eq(images.width, width)));
  return row;
}

interface ImportLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Earlier versions kept uploads as files in DATA_DIR/uploads. Each such file not yet in the
 * table is imported under its old address (/uploads/<file name>), so products keep their
 * pictures. Safe to run at every start and by several instances at once: stored paths are
 * skipped and a concurrent insert of the same path is ignored. The files are left in place.
 */
export async function importLegacyUploads(db: Db, dir: string, log: ImportLog): Promise<number> {
  let names: string[];
  try {
    names = (await fs.readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() && isSafeImageName(e.name))
      .map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let imported = 0;
  const CHUNK = 500;
  for (let i = 0; i < names.length; i += CHUNK) {
    const paths = names.slice(i, i + CHUNK).map((name) => `/uploads/${name}`);
    const stored = await db
      .select({ path: images.path })
      .from(images)
      .where(and(inArray(images.path, paths), eq(images.width, 0)));
    const have = new Set(stored.map((r) => r.path));
    for (const imagePath of paths) {
      if (have.has(imagePath)) continue;
      const file = path.join(dir, imagePath.slice('/uploads/'.length));
      try {
        const encoded = await encodeImage(await fs.readFile(file));
        await db.insert(images).values(rowsOf(imagePath, encoded)).onConflictDoNothing();
        imported += 1;
      } catch (error) {
        // One unreadable file must not keep the shop from starting; it is tried again next start.
        if (!(error instanceof AppError)) throw error;
        log.warn({ file, reason: error.message }, 'an old upload could not be imported');
      }
    }
  }
  if (imported > 0) log.info({ imported, from: dir }, 'imported old uploads into the database');
  return imported;
}

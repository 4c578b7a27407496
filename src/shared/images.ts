/**
 * Product images are served in a few widths so a phone never downloads a desktop-sized picture.
 * Every image the shop itself serves (the demo images under /images/, uploads under /uploads/)
 * answers `?w=<width>` for each width below with a WebP resized to that width (never enlarged).
 * Any other image address (an external URL an admin typed) is used as it is.
 */
export const IMAGE_WIDTHS = [320, 640, 1280] as const;
export type ImageWidth = (typeof IMAGE_WIDTHS)[number];

const SHOP_IMAGE = /^\/(images|uploads)\/[^/?#]+$/;

/** Whether the shop serves this image itself, and so can resize it. */
export function isShopImage(image: string): boolean {
  return SHOP_IMAGE.test(image);
}

/** The address of one width of an image (the image itself when the shop cannot resize it). */
export function imageUrl(image: string, width: ImageWidth): string {
  return isShopImage(image) ? `${image}?w=${width}` : image;
}

/** A `srcset` of every width, or undefined for an image the shop cannot resize. */
export function imageSrcSet(image: string): string | undefined {
  if (!isShopImage(image)) return undefined;
  return IMAGE_WIDTHS.map((width) => `${image}?w=${width} ${width}w`).join(', ');
}

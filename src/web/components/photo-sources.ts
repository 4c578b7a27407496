import { type ImageWidth, imageSrcSet, imageUrl } from '../../shared/images';

/**
 * The src, srcset and sizes of a product photo: the browser picks the smallest width that fills
 * `sizes` (the photo's width on screen) at the screen's pixel density. `fallback` is the width for
 * the plain src, used only by a browser without srcset.
 */
export function photoSources(image: string, sizes: string, fallback: ImageWidth = 640) {
  const srcSet = imageSrcSet(image);
  return { src: imageUrl(image, fallback), srcSet, sizes: srcSet ? sizes : undefined };
}

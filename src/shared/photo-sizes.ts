/**
 * How wide each product photo is on screen, as `sizes` attributes: the browser picks the width
 * of the `srcset` (src/shared/images.ts) that fills it at the screen's density. The server's
 * preload hints for a page (src/server/plugins/shop/web.ts) must give the same sizes as the page's
 * <img>, or the browser downloads the photo twice.
 */

/**
 * A listing card: on a phone the photo is at most 14rem tall and kept square (catalog.css), so
 * 224px; from md up one of 2, 3 or 4 columns of Bootstrap's containers.
 */
export const CARD_PHOTO_SIZES =
  '(min-width: 1400px) 306px, (min-width: 1200px) 261px, (min-width: 992px) 298px, (min-width: 768px) 336px, 224px';

/** A carousel slide: 8rem on a phone, 16rem from md up, less its 0.5rem padding. */
export const SLIDE_PHOTO_SIZES = '(min-width: 768px) 240px, 112px';

/** The product page: the whole width on a phone, 5 of 12 columns from md up, less its 1rem padding. */
export const DETAIL_PHOTO_SIZES =
  '(min-width: 1400px) 494px, (min-width: 1200px) 419px, (min-width: 992px) 344px, (min-width: 768px) 244px, calc(100vw - 56px)';

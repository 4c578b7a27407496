import { describe, expect, it } from 'vitest';
import { manifest, sourcesOf, staticClosure } from './support/build.js';

/**
 * What a shopper arriving from a shared link downloads before the product page or the cart shows:
 * the entry script and the screen's static imports. Each extra file is a request on a phone's
 * mobile data before the first paint, so the storefront's first screens write Bootstrap's list
 * group and select as markup, and the review's delete dialog (Bootstrap's modal) loads only for
 * someone who may delete a review.
 */
const NOT_ON_FIRST_SCREENS = [
  /react-bootstrap\/esm\/(ListGroup|ListGroupItem|Nav|NavItem|Form|FormSelect|Modal)\.js$/,
  /@restart\/ui\/esm\/Modal\.js$/,
  /src\/web\/components\/ConfirmDialog\.tsx$/,
];

describe('the storefront’s first screens in the build', () => {
  const chunks = manifest();

  for (const screen of ['features/products/product-screen.tsx', 'features/cart/cart-screen.tsx']) {
    it(`${screen} and the entry script carry no list-group, form or dialog code`, () => {
      const loaded = new Set([...staticClosure(chunks, 'index.html'), ...staticClosure(chunks, screen)]);
      expect(loaded.has(screen)).toBe(true);
      const sources = [...loaded].flatMap((key) => sourcesOf(chunks[key]?.file ?? ''));
      expect(sources.some((source) => source.endsWith(`src/web/${screen}`))).toBe(true);
      expect(sources.filter((source) => NOT_ON_FIRST_SCREENS.some((pattern) => pattern.test(source)))).toEqual([]);
    });
  }

  it('loads the review delete dialog when it is wanted, from a chunk of its own', () => {
    // The admin's screens import the dialog too, so it is a shared chunk, named after it.
    const dialog = Object.entries(chunks).filter(
      ([key, chunk]) =>
        key.endsWith('.js') && sourcesOf(chunk.file).some((source) => source.endsWith('src/web/components/confirm-dialog.tsx')),
    );
    expect(dialog).toHaveLength(1);
    expect(chunks['features/products/product-screen.tsx']?.dynamicImports).toContain(dialog[0]?.[0]);
  });
});

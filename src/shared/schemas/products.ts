import { z } from 'zod';
import { CATEGORY_MAX_LENGTH, PRODUCT_SORTS, PRODUCTS_PAGE_SIZE } from '../constants.js';
import { formInteger, kshAmount, pageNumberParam, requiredText } from './common.js';

/**
 * A review as every product answer carries it (docs/product-rules.md, Data: a Product has `reviews (list)`): enough
 * for a client to count and show them, and small, since listings hold one list per card. The
 * product detail carries the whole reviews.
 */
export const reviewSummary = z.object({
  _id: z.string(),
  name: z.string(),
  rating: z.number(),
});
export type ReviewSummary = z.infer<typeof reviewSummary>;

export const review = reviewSummary.extend({
  comment: z.string(),
  /** The author's id; null once the author's account is deleted. */
  user: z.string().nullable(),
  createdAt: z.string(),
});
export type Review = z.infer<typeof review>;

/** An option of a product (Size, Colour) and its values, in the merchant's order. */
export const productOption = z.object({ name: z.string(), values: z.array(z.string()) });
export type ProductOption = z.infer<typeof productOption>;

/** A variant's choice of each option: option name → value ({Size: "42", Colour: "Black"}). */
export const variantOptions = z.record(z.string(), z.string());
export type VariantOptions = z.infer<typeof variantOptions>;

/** A combination of a product's options that is sold, with its own price and stock (docs/product-rules.md, Variants). */
export const productVariant = z.object({
  _id: z.string(),
  options: variantOptions,
  price: z.number(),
  countInStock: z.number(),
  sku: z.string().nullable(),
  image: z.string().nullable(),
});
export type ProductVariant = z.infer<typeof productVariant>;

export const product = z.object({
  _id: z.string(),
  name: z.string(),
  image: z.string(),
  price: z.number(),
  description: z.string(),
  category: z.string(),
  countInStock: z.number(),
  rating: z.number(),
  numReviews: z.number(),
  /** Oldest first; its length is always numReviews. */
  reviews: z.array(reviewSummary),
  createdAt: z.string(),
  updatedAt: z.string(),
  /**
   * Only for a product sold in variants: its options and its variants, by the options' value
   * order. `price` is then the lowest variant price and `countInStock` the variants' total.
   */
  options: z.array(productOption).optional(),
  variants: z.array(productVariant).optional(),
});
export type Product = z.infer<typeof product>;

/** A product as the admin sees it: whether it is still a draft, which the storefront never shows. */
export const adminProduct = product.extend({ isDraft: z.boolean() });
export type AdminProduct = z.infer<typeof adminProduct>;

/** The detail view carries the whole reviews. */
export const productDetail = product.extend({ reviews: z.array(review) });
export type ProductDetail = z.infer<typeof productDetail>;

/** The detail as an admin reads it: `isDraft` says whether the storefront shows it yet. */
export const adminProductDetail = productDetail.extend({ isDraft: z.boolean().optional() });

export const productPage = z.object({
  products: z.array(product),
  page: z.number(),
  pages: z.number(),
  /** How many products match, across all pages; SEARCH_RESULTS_CAP at most (see countCapped). */
  count: z.number(),
  /** True when a search found more matches than it ranks: count is then the cap, and more match. */
  countCapped: z.boolean(),
  pageSize: z.literal(PRODUCTS_PAGE_SIZE),
  /**
   * Only when the keyword matched nothing as written and close spellings did: for each word of the
   * keyword, the catalogue's words spelt like it whose products are listed ("samsng": [["samsung"]]).
   */
  closeTo: z.array(z.array(z.string())).optional(),
});
export type ProductPage = z.infer<typeof productPage>;

/**
 * GET /api/products as a signed-in admin gets its first page of the whole list: the drafts on top,
 * marked, then the storefront's page (docs/product-drafts.md). Everyone else gets productPage.
 */
export const storefrontPage = productPage.extend({ products: z.array(product.extend({ isDraft: z.boolean().optional() })) });
export type StorefrontPage = z.infer<typeof storefrontPage>;

/** The admin's product list: every product, drafts too, newest first. */
export const adminProductPage = z.object({
  products: z.array(adminProduct),
  page: z.number(),
  pages: z.number(),
  count: z.number(),
  pageSize: z.literal(PRODUCTS_PAGE_SIZE),
});
export type AdminProductPage = z.infer<typeof adminProductPage>;

export const productListQuery = z.object({
  pageNumber: pageNumberParam,
  keyword: z.string().trim().max(100, { error: 'Search at most 100 characters' }).default(''),
});
export type ProductListQuery = z.infer<typeof productListQuery>;

/** A price bound of the storefront's listing, in Ksh like `price`; empty means none. */
function priceBound(name: string) {
  return z.preprocess((v) => (v === '' ? undefined : v), kshAmount(name).optional());
}

/**
 * The storefront's listing: the admin's parameters, and a category, an order and a price range,
 * which all combine with each other and with the keyword (docs/product-rules.md, API).
 */
export const storefrontListQuery = productListQuery
  .extend({
    category: z
      .string()
      .trim()
      .max(CATEGORY_MAX_LENGTH, { error: `category must be at most ${CATEGORY_MAX_LENGTH} characters` })
      .default(''),
    sort: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.enum(PRODUCT_SORTS, { error: `sort must be one of ${PRODUCT_SORTS.join(', ')}` }).optional(),
    ),
    minPrice: priceBound('minPrice'),
    maxPrice: priceBound('maxPrice'),
  })
  .refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, {
    error: 'minPrice cannot be more than maxPrice',
    path: ['minPrice'],
  });
export type StorefrontListQuery = z.infer<typeof storefrontListQuery>;

/** A category of the storefront and how many products it has. */
export const categoryCount = z.object({ name: z.string(), count: z.number() });
export type CategoryCount = z.infer<typeof categoryCount>;

/** An image of this shop: one name under /uploads/ (uploaded) or /images/ (the demo catalogue). */
const SHOP_IMAGE_PATH = /^\/(uploads|images)\/[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** A ".." path segment, plain or percent-encoded ("%2e%2e", ".%2E"). */
const PARENT_SEGMENT = /(^|[/\\])(\.|%2e){2}([/\\?#]|$)/i;

function isImageRef(value: string): boolean {
  if (PARENT_SEGMENT.test(value) || value.includes('\\')) return false;
  if (SHOP_IMAGE_PATH.test(value)) return true;
  if (!/^https:\/\/[^\s/?#]+[^\s]*$/i.test(value)) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * An image reference: an image of this shop ("/uploads/…", "/images/…") or an https URL, never
 * with a "../" in it. Anything else (javascript:, data:, http:, protocol-relative, other paths)
 * is refused, so it can never run as script, load over plain http, or climb out of its folder.
 */
export const imageRef = z
  .string({ error: 'Image is required' })
  .trim()
  .min(1, { error: 'Image is required' })
  .max(500, { error: 'Image URL is too long' })
  .refine(isImageRef, { error: 'Image must be an /uploads/ or /images/ path of this shop, or an https:// URL' });

export const productUpdateBody = z.object({
  name: requiredText('Name', 200).optional(),
  price: kshAmount('Price').optional(),
  image: imageRef.optional(),
  countInStock: formInteger('Count In Stock')
    .refine((n) => n >= 0, { error: 'Count In Stock cannot be negative' })
    .refine((n) => n <= 1_000_000, { error: 'Count In Stock is too large' })
    .optional(),
  category: requiredText('Category', 100).optional(),
  description: z.string().trim().max(5000, { error: 'Description must be at most 5000 characters' }).optional(),
});
export type ProductUpdateBody = z.infer<typeof productUpdateBody>;

export const RATING_LABELS = { 1: 'Poor', 2: 'Fair', 3: 'Good', 4: 'Very Good', 5: 'Excellent' } as const;

export const reviewBody = z.object({
  rating: formInteger('Rating').refine((n) => n >= 1 && n <= 5, { error: 'Rating must be from 1 to 5' }),
  comment: requiredText('Comment', 2000),
});
export type ReviewBody = z.infer<typeof reviewBody>;

/** The review form: the rating is a choice, and choosing none has its own message (docs/product-rules.md, Validation). */
export const reviewForm = z.object({
  rating: z
    .string()
    .min(1, { error: 'Please select a review' })
    .transform((choice): unknown => choice)
    .pipe(reviewBody.shape.rating),
  comment: reviewBody.shape.comment,
});

export const reviewParams = z.object({
  id: z.uuid({ error: 'Not a valid id' }),
  reviewId: z.uuid({ error: 'Not a valid id' }),
});

export const uploadResponse = z.object({ image: z.string(), msg: z.string() });

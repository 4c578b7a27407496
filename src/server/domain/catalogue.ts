import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { TOP_PRODUCTS_COUNT } from '../../shared/constants.js';
import { fromCents } from '../../shared/money.js';
import type {
  CategoryCount,
  Product,
  ProductDetail,
  ProductOption,
  ProductVariant,
  Review,
  ReviewSummary,
  VariantOptions,
} from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { products, productVariants, reviews } from '../db/schema.js';
import { notFound } from '../errors.js';

/**
 * The catalogue's products as the shop answers them (toProductJson), and the reads of a few at a
 * time: by id, the top rated, one with its reviews, the categories. A page of the storefront's
 * list is in catalogue-listing.ts, a search's in catalogue-search.ts; the admin's reads and the
 * product edits in admin-catalogue.ts.
 */

/** The storefront never shows, searches, counts or sells a draft: every public read has this. */
export const published = eq(products.isDraft, false);

/** A variant as the product's row reads it, in the statement that reads the product. */
interface StoredVariant {
  _id: string;
  options: VariantOptions;
  priceCents: number;
  countInStock: number;
  sku: string | null;
  image: string | null;
}

/**
 * The variants of a product sold in variants, by their place (the options' value order); null for
 * a product without options, whose row is all there is. Read in the statement that reads the
 * product, so its derived price and stock and its variants come from one snapshot. The table is
 * named, as for the reviews below.
 */
const variantList = sql<StoredVariant[] | null>`(CASE WHEN ${products}.options IS NULL THEN NULL ELSE (
  SELECT json_agg(json_build_object('_id', v.id, 'options', v.options, 'priceCents', v.price_cents,
    'countInStock', v.count_in_stock, 'sku', v.sku, 'image', v.image) ORDER BY v.position)
  FROM ${productVariants} v WHERE v.product_id = ${products}.id) END)`;

/** The columns a product answer needs (the generated search columns stay in the database). */
export const productColumns = {
  id: products.id,
  name: products.name,
  image: products.image,
  category: products.category,
  description: products.description,
  priceCents: products.priceCents,
  countInStock: products.countInStock,
  rating: products.rating,
  numReviews: products.numReviews,
  createdAt: products.createdAt,
  updatedAt: products.updatedAt,
  options: products.options,
  variants: variantList,
};
type ProductRow = {
  [K in Exclude<keyof typeof productColumns, 'options' | 'variants'>]: (typeof productColumns)[K]['_']['data'];
} & { options: ProductOption[] | null; variants: StoredVariant[] | null };

/**
 * The product's reviews as every product answer lists them (id, author's name, rating), oldest
 * first, as the detail orders them. Read in the same statement as numReviews, so from the same
 * snapshot: a review and the count it changes are written in one transaction, so the list's
 * length is always numReviews. The planner evaluates it for the rows a page returns, after the
 * sort and limit (reviews_product_idx finds them). The table is named: drizzle writes a column of
 * a one-table query without it, and a bare "id" in here would be the review's.
 */
const reviewSummaries = sql<ReviewSummary[]>`(
  SELECT coalesce(json_agg(json_build_object('_id', r.id, 'name', r.name, 'rating', r.rating) ORDER BY r.created_at, r.id), '[]'::json)
  FROM ${reviews} r WHERE r.product_id = ${products}.id)`;

/** The columns of a product answer, its reviews listed. */
export const listedColumns = { ...productColumns, reviews: reviewSummaries };
export type ListedRow = ProductRow & { reviews: ReviewSummary[] };

export function toProductJson(row: ListedRow): Product {
  return {
    _id: row.id,
    name: row.name,
    image: row.image,
    price: fromCents(row.priceCents),
    description: row.description,
    category: row.category,
    countInStock: row.countInStock,
    rating: Number(row.rating),
    numReviews: row.numReviews,
    reviews: row.reviews,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    // A product without options answers exactly as before: no options or variants keys at all.
    ...(row.options &&
      row.options.length > 0 && { options: row.options, variants: toVariantsJson(row.options, row.variants ?? []) }),
  };
}

/** The variants as answers carry them: each choice keyed in the options' order. */
function toVariantsJson(options: readonly ProductOption[], variants: readonly StoredVariant[]): ProductVariant[] {
  return variants.map((variant) => ({
    _id: variant._id,
    options: Object.fromEntries(options.map((option) => [option.name, variant.options[option.name] ?? ''])),
    price: fromCents(variant.priceCents),
    countInStock: variant.countInStock,
    sku: variant.sku,
    image: variant.image,
  }));
}

/** The category as its indexes hold it: lower-case, so "phones" finds "Phones". */
export const categoryKey = sql`lower(${products.category})`;

/**
 * Every category with a product the storefront shows, and how many, by name. Names that differ
 * only in case are one category (as the listing's filter matches them), under its first spelling
 * in sort order.
 */
export async function listCategories(db: Db): Promise<CategoryCount[]> {
  const rows = await db
    .select({ name: sql<string>`min(${products.category})`, count: sql<number>`count(*)::int` })
    .from(products)
    .where(published)
    .groupBy(categoryKey)
    .orderBy(categoryKey);
  return rows.map((row) => ({ name: row.name, count: Number(row.count) }));
}

/** The products with these ids as lists show them, by one primary-key read; ids not found are left out. */
export async function productsByIds(db: Db, ids: readonly string[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select(listedColumns)
    .from(products)
    .where(and(inArray(products.id, [...ids]), published));
  return rows.map(toProductJson);
}

/** The highest rated products, for the home page carousel. */
export async function topProducts(db: Db): Promise<Product[]> {
  const rows = await db
    .select(listedColumns)
    .from(products)
    .where(published)
    .orderBy(sql`${products.rating} DESC NULLS LAST`, sql`${products.numReviews} DESC NULLS LAST`, desc(products.createdAt))
    .limit(TOP_PRODUCTS_COUNT);
  return rows.map(toProductJson);
}

/** A product with its whole reviews; a draft only for an admin (`withDrafts`), else 404 like none. */
export async function getProductDetail(db: Db, id: string, options: { withDrafts?: boolean } = {}): Promise<ProductDetail> {
  const [row] = await db
    .select(productColumns)
    .from(products)
    .where(options.withDrafts ? eq(products.id, id) : and(eq(products.id, id), published));
  if (!row) throw notFound('Product not found');
  const reviewRows = await db
    .select()
    .from(reviews)
    .where(eq(reviews.productId, id))
    .orderBy(asc(reviews.createdAt), asc(reviews.id));
  return { ...toProductJson({ ...row, reviews: [] }), reviews: reviewRows.map(toReviewJson) };
}

export function toReviewJson(row: typeof reviews.$inferSelect): Review {
  return {
    _id: row.id,
    name: row.name,
    rating: row.rating,
    comment: row.comment,
    user: row.userId,
    createdAt: row.createdAt.toISOString(),
  };
}

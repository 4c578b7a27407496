import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { toCents } from '../../shared/money.js';
import type { ProductDetail, ProductOption, VariantOptions } from '../../shared/schemas/products.js';
import type { ProductVariantInput, ProductVariantsBody } from '../../shared/schemas/variants.js';
import type { Db, Queryable } from '../db/client.js';
import { products, productVariants } from '../db/schema.js';
import { badRequest, isUniqueViolation, notFound } from '../errors.js';
import { getAdminProductDetail } from './admin-catalogue.js';
import type { CatalogueChanges } from './catalogue-changes.js';

/**
 * The admin's edit of a product's options and variants (docs/product-rules.md, Variants). Every
 * write to a product's variants takes the product's row first, as an order does before it takes
 * a variant's stock, so the product's derived price and stock are written with its variants and
 * never disagree with them, and no order and edit wait on each other in a cycle.
 */

const SKU_INDEX = 'product_variants_sku_idx';

/** The variant's choice keyed exactly by the options' names, in their order. */
function choiceOf(options: readonly ProductOption[], chosen: VariantOptions): VariantOptions {
  return Object.fromEntries(options.map((option) => [option.name, chosen[option.name] ?? '']));
}

/** The variants by the options' value order (the first option's first, then the second's…), as answers list them. */
export function inValueOrder<T extends { options: VariantOptions }>(
  options: readonly ProductOption[],
  variants: readonly T[],
): T[] {
  const rank = (variant: T) => options.map((option) => option.values.indexOf(variant.options[option.name] ?? ''));
  return [...variants].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    const differs = ra.findIndex((r, i) => r !== rb[i]);
    return differs === -1 ? 0 : (ra[differs] ?? 0) - (rb[differs] ?? 0);
  });
}

/** A SKU another product's variant already has (without regard to case) answers 400, naming it. */
async function assertSkusFree(q: Queryable, productId: string, variants: readonly ProductVariantInput[]): Promise<void> {
  const skus = variants.flatMap((variant) => (variant.sku === undefined ? [] : [variant.sku.toLowerCase()]));
  if (skus.length === 0) return;
  const [taken] = await q
    .select({ sku: productVariants.sku })
    .from(productVariants)
    .where(and(inArray(sql`lower(${productVariants.sku})`, skus), ne(productVariants.productId, productId)))
    .limit(1);
  if (!taken?.sku) return;
  const index = variants.findIndex((variant) => variant.sku?.toLowerCase() === taken.sku?.toLowerCase());
  const sent = variants[index]?.sku ?? taken.sku;
  throw badRequest(`SKU ${sent} is already used by another product`, `variants.${index}.sku`);
}

/** Ids sent must be this product's variants: an id is kept, never taken from another product. */
async function assertOwnIds(q: Queryable, productId: string, variants: readonly ProductVariantInput[]): Promise<void> {
  const rows = await q.select({ id: productVariants.id }).from(productVariants).where(eq(productVariants.productId, productId));
  const own = new Set(rows.map((row) => row.id));
  variants.forEach((variant, i) => {
    if (variant._id !== undefined && !own.has(variant._id)) {
      throw badRequest(`Variant ${variant._id} is not a variant of this product`, `variants.${i}._id`);
    }
  });
}

/** Replaces the product's options and variants, and its derived price and stock, in the transaction `q` is. */
async function writeVariants(q: Queryable, productId: string, body: ProductVariantsBody): Promise<void> {
  const [product] = await q.select({ id: products.id }).from(products).where(eq(products.id, productId)).for('update');
  if (!product) throw notFound('Product not found');
  await assertOwnIds(q, productId, body.variants);
  await assertSkusFree(q, productId, body.variants);
  // Removed and kept alike: the kept go back in with their ids (SKUs may move between them).
  await q.delete(productVariants).where(eq(productVariants.productId, productId));
  if (body.options.length === 0) {
    // Sold as one thing again, at the price and stock it had.
    await q.update(products).set({ options: null, updatedAt: sql`now()` }).where(eq(products.id, productId));
    return;
  }
  const ordered = inValueOrder(body.options, body.variants);
  await q.insert(productVariants).values(
    ordered.map((variant, position) => ({
      ...(variant._id !== undefined && { id: variant._id }),
      productId,
      options: choiceOf(body.options, variant.options),
      position,
      priceCents: toCents(variant.price),
      countInStock: variant.countInStock,
      sku: variant.sku ?? null,
      image: variant.image ?? null,
    })),
  );
  await q
    .update(products)
    .set({
      options: body.options,
      priceCents: Math.min(...ordered.map((variant) => toCents(variant.price))),
      countInStock: ordered.reduce((sum, variant) => sum + variant.countInStock, 0),
      updatedAt: sql`now()`,
    })
    .where(eq(products.id, productId));
}

/**
 * PUT /api/products/{id}/variants: the product's options and variants replaced in one transaction.
 * A variant sent with its id keeps it; one without gets a new id; one left out is removed. No options
 * makes it a product sold as one thing again. Answers the admin's product detail.
 */
export async function replaceVariants(
  db: Db,
  changes: CatalogueChanges,
  productId: string,
  body: ProductVariantsBody,
): Promise<ProductDetail & { isDraft: boolean }> {
  try {
    await db.transaction((tx) => writeVariants(tx, productId, body));
  } catch (error) {
    // Another product took one of these SKUs while this edit ran: say which.
    if (isUniqueViolation(error, SKU_INDEX)) {
      await assertSkusFree(db, productId, body.variants);
      throw badRequest('A SKU of these variants is already used by another product', 'variants');
    }
    throw error;
  }
  // Price, stock and what the product offers: lists may order or filter it differently.
  await changes.committed({ products: [productId], listing: true });
  return getAdminProductDetail(db, productId);
}

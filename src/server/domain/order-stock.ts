import { and, eq, gte, isNotNull, isNull, sql } from 'drizzle-orm';
import { describeVariant, nameWithVariant } from '../../shared/variant-names.js';
import type { Queryable } from '../db/client.js';
import { products, productVariants } from '../db/schema.js';
import { type AppError, badRequest } from '../errors.js';

/**
 * An order's stock: taken when it is placed, given back when an undelivered order is deleted. A
 * product sold in variants has its stock in its variants and their total on its own row; both move
 * together, the product's row first (as every write to its variants takes it first), so the total
 * stays the variants' sum and no order and variant edit wait on each other in a cycle.
 */

/** One line of an order to fill: a product, or one variant of it, and how many. */
export interface StockLine {
  productId: string;
  variantId: string | undefined;
  qty: number;
}

/** What a line sold, as the order line keeps it. */
export interface SoldLine {
  productId: string;
  variantId: string | null;
  /** "Size 42 / Black"; null for a product sold as one thing. */
  variant: string | null;
  sku: string | null;
  name: string;
  image: string;
  priceCents: number;
  qty: number;
  /** The product's stock left after this line (for a product in variants, their total). */
  left: number;
}

/** The order lines of one product and variant merged, and in the order rows are taken: by product, then variant. */
export function lineKey(productId: string, variantId: string | undefined): string {
  return `${productId}|${variantId ?? ''}`;
}

function stockRefusal(name: string, left: number): AppError {
  return badRequest(left === 0 ? `${name} is out of stock` : `Only ${left} of ${name} left in stock`, 'orderItems');
}

/** Why a line could not be filled, read after its conditional update found nothing to take. */
async function refusal(tx: Queryable, line: StockLine): Promise<AppError> {
  const [product] = await tx
    .select({ name: products.name, countInStock: products.countInStock, options: products.options })
    .from(products)
    .where(and(eq(products.id, line.productId), eq(products.isDraft, false)));
  if (!product) return badRequest('A product in your cart is no longer available', 'orderItems');
  const options = product.options;
  if (!line.variantId) {
    if (!options) return stockRefusal(product.name, product.countInStock);
    return badRequest(`Choose a ${options.map((o) => o.name).join(' and ')} for ${product.name}`, 'orderItems');
  }
  if (!options) return badRequest(`${product.name} has no variants to choose from`, 'orderItems');
  const [variant] = await tx
    .select({ options: productVariants.options, countInStock: productVariants.countInStock })
    .from(productVariants)
    .where(and(eq(productVariants.id, line.variantId), eq(productVariants.productId, line.productId)));
  if (!variant) return badRequest(`The chosen ${product.name} is no longer available`, 'orderItems');
  return stockRefusal(nameWithVariant(product.name, describeVariant(options, variant.options)), variant.countInStock);
}

/**
 * Takes a line's stock with conditional updates (never read, then write), so two shoppers can never
 * both buy the last unit: the product's row (its own stock, or its variants' total), then, for a
 * variant, the variant's. A line that cannot be filled throws, and the caller's transaction rolls
 * back what was taken. A draft is never sold; a product in variants only as one of them.
 */
export async function takeStock(tx: Queryable, line: StockLine): Promise<SoldLine> {
  const [product] = await tx
    .update(products)
    .set({ countInStock: sql`${products.countInStock} - ${line.qty}` })
    .where(
      and(
        eq(products.id, line.productId),
        eq(products.isDraft, false),
        gte(products.countInStock, line.qty),
        line.variantId ? isNotNull(products.options) : isNull(products.options),
      ),
    )
    .returning({
      name: products.name,
      image: products.image,
      priceCents: products.priceCents,
      left: products.countInStock,
      options: products.options,
    });
  if (!product) throw await refusal(tx, line);
  const sold = { productId: line.productId, name: product.name, qty: line.qty, left: product.left };
  if (!line.variantId || !product.options) {
    return { ...sold, variantId: null, variant: null, sku: null, image: product.image, priceCents: product.priceCents };
  }
  const [variant] = await tx
    .update(productVariants)
    .set({ countInStock: sql`${productVariants.countInStock} - ${line.qty}` })
    .where(
      and(
        eq(productVariants.id, line.variantId),
        eq(productVariants.productId, line.productId),
        gte(productVariants.countInStock, line.qty),
      ),
    )
    .returning({
      options: productVariants.options,
      priceCents: productVariants.priceCents,
      sku: productVariants.sku,
      image: productVariants.image,
    });
  if (!variant) throw await refusal(tx, line);
  return {
    ...sold,
    variantId: line.variantId,
    variant: describeVariant(product.options, variant.options),
    sku: variant.sku,
    image: variant.image ?? product.image,
    priceCents: variant.priceCents,
  };
}

/**
 * Puts a deleted order's line back on the shelf: on its variant and the product's total while the
 * variant exists, on the product while it is sold as one thing. A line whose variant is gone from a
 * product still sold in variants (or a plain line of a product now in variants) has no shelf to go
 * back to. Answers whether anything was given back.
 */
export async function giveBackStock(tx: Queryable, line: StockLine): Promise<boolean> {
  const back = sql`${products.countInStock} + ${line.qty}`;
  if (!line.variantId) {
    const given = await tx
      .update(products)
      .set({ countInStock: back })
      .where(and(eq(products.id, line.productId), isNull(products.options)))
      .returning({ id: products.id });
    return given.length > 0;
  }
  const [product] = await tx
    .select({ options: products.options })
    .from(products)
    .where(eq(products.id, line.productId))
    .for('update');
  if (!product) return false;
  const toVariant = await tx
    .update(productVariants)
    .set({ countInStock: sql`${productVariants.countInStock} + ${line.qty}` })
    .where(and(eq(productVariants.id, line.variantId), eq(productVariants.productId, line.productId)))
    .returning({ id: productVariants.id });
  if (toVariant.length === 0 && product.options) return false;
  await tx.update(products).set({ countInStock: back }).where(eq(products.id, line.productId));
  return true;
}

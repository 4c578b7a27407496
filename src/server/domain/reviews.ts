import { and, eq, sql } from 'drizzle-orm';
import type { ReviewBody } from '../../shared/schemas/products.js';
import type { Db, Tx } from '../db/client.js';
import { products, reviews } from '../db/schema.js';
import { badRequest, forbidden, isUniqueViolation, notFound } from '../errors.js';
import type { CatalogueChanges } from './catalogue-changes.js';
import type { SessionUser } from './sessions.js';

/** The product's rating is the mean of its reviews, kept beside the count for listing and sorting. */
async function recomputeRating(tx: Tx, productId: string): Promise<void> {
  await tx
    .update(products)
    .set({
      rating: sql`coalesce((SELECT round(avg(${reviews.rating}), 2) FROM ${reviews} WHERE ${reviews.productId} = ${productId}), 0)`,
      numReviews: sql`(SELECT count(*) FROM ${reviews} WHERE ${reviews.productId} = ${productId})`,
    })
    .where(eq(products.id, productId));
}

export async function addReview(
  db: Db,
  changes: CatalogueChanges,
  productId: string,
  author: SessionUser,
  body: ReviewBody,
): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      // Locking the product row serialises reviews of one product, so the mean stays exact.
      const [product] = await tx
        .select({ id: products.id, isDraft: products.isDraft })
        .from(products)
        .where(eq(products.id, productId))
        .for('update');
      // A draft is not in the storefront, so it cannot be reviewed either.
      if (!product || product.isDraft) throw notFound('Product not found');
      const [existing] = await tx
        .select({ id: reviews.id })
        .from(reviews)
        .where(and(eq(reviews.productId, productId), eq(reviews.userId, author.id)));
      if (existing) throw badRequest('Product already reviewed');
      await tx.insert(reviews).values({
        productId,
        userId: author.id,
        name: author.name,
        rating: body.rating,
        comment: body.comment,
      });
      await recomputeRating(tx, productId);
    });
  } catch (error) {
    if (isUniqueViolation(error, 'reviews_one_per_user_key')) throw badRequest('Product already reviewed');
    throw error;
  }
  // The rating may have moved: the top products and any list ranked by it can change.
  await changes.committed({ products: [productId], listing: true });
}

/** Only the review's author or an admin may delete it. */
export async function deleteReview(
  db: Db,
  changes: CatalogueChanges,
  productId: string,
  reviewId: string,
  actor: SessionUser,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [product] = await tx.select({ id: products.id }).from(products).where(eq(products.id, productId)).for('update');
    if (!product) throw notFound('Product not found');
    const [review] = await tx
      .select({ id: reviews.id, userId: reviews.userId })
      .from(reviews)
      .where(and(eq(reviews.id, reviewId), eq(reviews.productId, productId)));
    if (!review) throw notFound('Review not found');
    if (review.userId !== actor.id && !actor.isAdmin) throw forbidden('You can only delete your own review');
    await tx.delete(reviews).where(eq(reviews.id, reviewId));
    await recomputeRating(tx, productId);
  });
  await changes.committed({ products: [productId], listing: true });
}

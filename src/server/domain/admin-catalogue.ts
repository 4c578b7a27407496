import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { PRODUCTS_PAGE_SIZE } from '../../shared/constants.js';
import { toCents } from '../../shared/money.js';
import type { AdminProduct, AdminProductPage, ProductDetail, ProductUpdateBody } from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { containing } from '../db/like.js';
import { products } from '../db/schema.js';
import { notFound } from '../errors.js';
import { getProductDetail, listedColumns, productColumns, toProductJson } from './catalogue.js';
import type { CatalogueChanges } from './catalogue-changes.js';

/**
 * The admin's product list: every product, drafts included, newest first. It is read directly,
 * never through the catalogue cache, which holds only what the storefront may show. A search is a
 * plain substring match of name, category or description (its trigram index serves it): the
 * admin looks for a product they know, and needs no ranking.
 */
export async function listAdminProducts(db: Db, options: { page: number; keyword: string }): Promise<AdminProductPage> {
  const keyword = options.keyword.toLowerCase();
  const where: SQL | undefined = keyword ? sql`${products.searchText} LIKE ${containing(keyword)}` : undefined;
  const [counted] = await db.select({ count: sql<number>`count(*)::int` }).from(products).where(where);
  const count = counted?.count ?? 0;
  const rows = await db
    .select({ ...listedColumns, isDraft: products.isDraft })
    .from(products)
    .where(where)
    .orderBy(desc(products.createdAt), desc(products.id))
    .limit(PRODUCTS_PAGE_SIZE)
    .offset((options.page - 1) * PRODUCTS_PAGE_SIZE);
  return {
    products: rows.map((row) => ({ ...toProductJson(row), isDraft: row.isDraft })),
    page: options.page,
    pages: Math.max(1, Math.ceil(count / PRODUCTS_PAGE_SIZE)),
    count,
    pageSize: PRODUCTS_PAGE_SIZE,
  };
}

/** How many drafts an admin's first page of the storefront list shows on top: the newest. */
export const DRAFTS_ON_TOP = 50;

/**
 * The newest drafts, for the top of an admin's first page of GET /api/products: a client whose
 * only product list is that one (the specification's own) must see the product it just created
 * to edit it (docs/product-drafts.md).
 */
export async function listDrafts(db: Db): Promise<AdminProduct[]> {
  const rows = await db
    .select({ ...listedColumns, isDraft: products.isDraft })
    .from(products)
    .where(eq(products.isDraft, true))
    .orderBy(desc(products.createdAt), desc(products.id))
    .limit(DRAFTS_ON_TOP);
  return rows.map((row) => ({ ...toProductJson(row), isDraft: true }));
}

/** A product as its admin edit screen reads it, drafts included, with whether it is one. */
export async function getAdminProductDetail(db: Db, id: string): Promise<ProductDetail & { isDraft: boolean }> {
  const detail = await getProductDetail(db, id, { withDrafts: true });
  const [row] = await db
    .select({ isDraft: products.isDraft })
    .from(products)
    .where(and(eq(products.id, id)));
  return { ...detail, isDraft: row?.isDraft ?? false };
}

/** What a created product starts as; a draft stays a draft until its name, price and image differ from these. */
export const SAMPLE_PRODUCT = { name: 'Sample name', image: '/images/sample.webp', priceCents: 0 } as const;

/**
 * The placeholder product an admin creates and then edits (docs/product-rules.md: create takes no payload). It
 * is a draft, seen only in the admin, until an edit gives it a real name, price and image.
 */
export async function createSampleProduct(db: Db, changes: CatalogueChanges, adminId: string): Promise<AdminProduct> {
  const [row] = await db
    .insert(products)
    .values({
      userId: adminId,
      isDraft: true,
      name: SAMPLE_PRODUCT.name,
      image: SAMPLE_PRODUCT.image,
      category: 'Sample category',
      description: 'Sample description',
      priceCents: SAMPLE_PRODUCT.priceCents,
      countInStock: 0,
    })
    .returning({ ...productColumns, isDraft: products.isDraft });
  if (!row) throw new Error('Product insert returned nothing');
  await changes.committed({ products: [row.id], listing: true });
  return { ...toProductJson({ ...row, reviews: [] }), isDraft: row.isDraft };
}

/** The value an edit sets, or the column's own for a product sold in variants (derived from theirs). */
function unlessVariants(column: AnyPgColumn, value: SQL): SQL {
  return sql`(CASE WHEN ${products.options} IS NULL THEN ${value} ELSE ${column} END)`;
}

export async function updateProduct(
  db: Db,
  changes: CatalogueChanges,
  id: string,
  patch: ProductUpdateBody,
): Promise<AdminProduct> {
  // The values after this edit: what the patch sets, else what the row has. A product sold in
  // variants keeps the price and stock its variants give it, whatever the form sends
  // (docs/product-rules.md, Variants): the edit screen sends every field.
  const name = patch.name ?? products.name;
  const image = patch.image ?? products.image;
  const priceCents =
    patch.price === undefined ? products.priceCents : unlessVariants(products.priceCents, sql`${toCents(patch.price)}::int`);
  const [row] = await db
    .update(products)
    .set({
      // A draft is published once its name, price and image are all real; a product never goes back.
      isDraft: sql`${products.isDraft} AND (${name}::text = ${SAMPLE_PRODUCT.name} OR ${image}::text = ${SAMPLE_PRODUCT.image} OR ${priceCents}::int <= 0)`,
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.price !== undefined && { priceCents }),
      ...(patch.image !== undefined && { image: patch.image }),
      ...(patch.countInStock !== undefined && {
        countInStock: unlessVariants(products.countInStock, sql`${patch.countInStock}::int`),
      }),
      ...(patch.category !== undefined && { category: patch.category }),
      ...(patch.description !== undefined && { description: patch.description }),
      updatedAt: sql`now()`,
    })
    .where(eq(products.id, id))
    .returning({ ...listedColumns, isDraft: products.isDraft });
  if (!row) throw notFound('Product not found');
  // Publishing a draft is an edit like any other: every cached list and this product are out of date.
  await changes.committed({ products: [id], listing: true });
  return { ...toProductJson(row), isDraft: row.isDraft };
}

export async function deleteProduct(db: Db, changes: CatalogueChanges, id: string): Promise<void> {
  const deleted = await db.delete(products).where(eq(products.id, id)).returning({ id: products.id });
  if (deleted.length === 0) throw notFound('Product not found');
  await changes.committed({ products: [id], listing: true });
}

import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { PRODUCTS_PAGE_SIZE } from '../../shared/constants.js';
import type { AdminProductPage, ProductDetail } from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { containing } from '../db/like.js';
import { products } from '../db/schema.js';
import { getProductDetail, listedColumns, toProductJson } from './catalogue.js';

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

/** A product as its admin edit screen reads it, drafts included, with whether it is one. */
export async function getAdminProductDetail(db: Db, id: string): Promise<ProductDetail & { isDraft: boolean }> {
  const detail = await getProductDetail(db, id, { withDrafts: true });
  const [row] = await db
    .select({ isDraft: products.isDraft })
    .from(products)
    .where(and(eq(products.id, id)));
  return { ...detail, isDraft: row?.isDraft ?? false };
}

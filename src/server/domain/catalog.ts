import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { PRODUCTS_PAGE_SIZE, SEARCH_RESULTS_CAP, TOP_PRODUCTS_COUNT } from '../../shared/constants.js';
import { fromCents, toCents } from '../../shared/money.js';
import type {
  AdminProduct,
  Product,
  ProductDetail,
  ProductPage,
  ProductUpdateBody,
  Review,
  ReviewSummary,
} from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { catalogStats, products, reviews } from '../db/schema.js';
import { notFound } from '../errors.js';
import type { CatalogChanges } from './catalog-changes.js';

/** The storefront never shows, searches, counts or sells a draft: every public read has this. */
const published = eq(products.isDraft, false);

/** The columns a product answer needs (the generated search columns stay in the database). */
const productColumns = {
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
};
type ProductRow = { [K in keyof typeof productColumns]: (typeof productColumns)[K]['_']['data'] };

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
type ListedRow = ProductRow & { reviews: ReviewSummary[] };

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
  };
}

/** Escapes LIKE's wildcards so a shopper's "50%" matches the text "50%" and nothing else. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

interface KeywordSearch {
  /** The ids of at most 3 × (SEARCH_RESULTS_CAP + 1) published matches, each kind read through its own index. */
  candidates: SQL;
  score: SQL;
}

/** Each kind of match gives one more candidate than the cap: more than the cap in all means capped. */
const CANDIDATES_PER_KIND = SEARCH_RESULTS_CAP + 1;

/**
 * A keyword matches a product when its words occur in the name, category or description
 * (full text), when it occurs as a substring of them, or when it is close to a word of the name
 * or category (trigram word similarity: "samsng" finds Samsung). Better matches rank first:
 * exact words weighted by where they occur, then closeness of spelling, then substring hits.
 *
 * Only candidates are ranked, so a broad keyword ("a", "phone") costs what a narrow one does:
 * up to the cap + 1 matches of each kind (exact words, substrings, close spellings), each read
 * through its own GIN index and taken as the index gives them. A product holding the word itself
 * comes in through the exact-word kind and ranks first (unless more than the cap + 1 hold it). When no kind reaches its limit, the
 * candidates are exactly the matches and the count is exact. (Taking the nearest spellings first
 * would need a GiST trigram index; at 100,000 products its nearest-first walk measured several
 * times slower than reading the GIN matches, so it is not used.)
 */
function keywordSearch(keyword: string): KeywordSearch {
  const kw = keyword.toLowerCase();
  const pattern = `%${escapeLike(kw)}%`;
  const query = sql`plainto_tsquery('simple', ${kw})`;
  return {
    candidates: sql`(
      (SELECT id FROM ${products} WHERE ${products.searchVector} @@ ${query} AND ${published} LIMIT ${CANDIDATES_PER_KIND})
      UNION
      (SELECT id FROM ${products} WHERE ${products.searchText} LIKE ${pattern} AND ${published} LIMIT ${CANDIDATES_PER_KIND})
      UNION
      (SELECT id FROM ${products} WHERE ${products.searchName} %> ${kw} AND ${published} LIMIT ${CANDIDATES_PER_KIND})
    )`,
    score: sql`(ts_rank(${products.searchVector}, ${query}) + word_similarity(${kw}, ${products.searchName}) + CASE WHEN ${products.searchName} LIKE ${pattern} THEN 1 ELSE 0 END)`,
  };
}

/** What a page of a list shows, and how many the whole list has. */
interface ListedPage {
  rows: ListedRow[];
  count: number;
  countCapped: boolean;
}

/**
 * One page of products. Work per page stays small at any catalogue size: the newest-first page
 * walks an index, and its total comes from a counter kept by triggers (catalog_stats) rather than
 * counting the table; a search ranks at most its best candidates (see keywordSearch) and counts
 * them in the same pass.
 */
export async function listProducts(db: Db, options: { page: number; keyword: string }): Promise<ProductPage> {
  const offset = (options.page - 1) * PRODUCTS_PAGE_SIZE;
  const { rows, count, countCapped } = options.keyword
    ? await searchPage(db, options.keyword, offset)
    : await latestPage(db, offset);
  return {
    products: rows.map(toProductJson),
    page: options.page,
    pages: Math.max(1, Math.ceil(count / PRODUCTS_PAGE_SIZE)),
    count,
    countCapped,
    pageSize: PRODUCTS_PAGE_SIZE,
  };
}

/**
 * The newest-first page at `offset`. The far half of the list is read from its other end, by the
 * same index walked backwards: the last page (8,334 at 100,000 products) then walks 12 entries,
 * not 100,000. The count comes first (one row kept by triggers) to know which end is nearer.
 */
async function latestPage(db: Db, offset: number): Promise<ListedPage> {
  const [stats] = await db.select({ count: catalogStats.productCount }).from(catalogStats);
  const count = stats?.count ?? 0;
  if (offset >= count) return { rows: [], count, countCapped: false };
  const end = Math.min(offset + PRODUCTS_PAGE_SIZE, count);
  if (offset <= count - end) {
    const rows = await db
      .select(listedColumns)
      .from(products)
      .where(published)
      .orderBy(sql`${products.createdAt} DESC NULLS LAST`, sql`${products.id} DESC NULLS LAST`)
      .limit(PRODUCTS_PAGE_SIZE)
      .offset(offset);
    return { rows, count, countCapped: false };
  }
  const oldestFirst = await db
    .select(listedColumns)
    .from(products)
    .where(published)
    .orderBy(sql`${products.createdAt} ASC NULLS FIRST`, sql`${products.id} ASC NULLS FIRST`)
    .limit(end - offset)
    .offset(count - end);
  return { rows: oldestFirst.reverse(), count, countCapped: false };
}

/** The ranked list is the best SEARCH_RESULTS_CAP candidates; its pages stop there. */
async function searchPage(db: Db, keyword: string, offset: number): Promise<ListedPage> {
  const search = keywordSearch(keyword);
  const counted = (candidates: number): ListedPage & { rows: [] } => ({
    rows: [],
    count: Math.min(candidates, SEARCH_RESULTS_CAP),
    countCapped: candidates > SEARCH_RESULTS_CAP,
  });
  const onPage = Math.min(PRODUCTS_PAGE_SIZE, SEARCH_RESULTS_CAP - offset);
  if (onPage > 0) {
    const rows = await db
      .select({ ...listedColumns, candidates: sql<number>`count(*) OVER ()`.mapWith(Number) })
      .from(products)
      .where(sql`${products.id} IN ${search.candidates}`)
      .orderBy(desc(search.score), desc(products.createdAt), desc(products.id))
      .limit(onPage)
      .offset(offset);
    const first = rows[0];
    if (first) return { ...counted(first.candidates), rows };
    if (offset === 0) return counted(0);
  }
  // A page past the last ranked one: the window saw no rows, so count the candidates on their own.
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(sql`${search.candidates} AS candidates`);
  return counted(row?.n ?? 0);
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

/** What a created product starts as; a draft stays a draft until its name, price and image differ from these. */
export const SAMPLE_PRODUCT = { name: 'Sample name', image: '/images/sample.webp', priceCents: 0 } as const;

/**
 * The placeholder product an admin creates and then edits (docs/product-rules.md: create takes no payload). It
 * is a draft, seen only in the admin, until an edit gives it a real name, price and image.
 */
export async function createSampleProduct(db: Db, changes: CatalogChanges, adminId: string): Promise<AdminProduct> {
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

export async function updateProduct(
  db: Db,
  changes: CatalogChanges,
  id: string,
  patch: ProductUpdateBody,
): Promise<AdminProduct> {
  // The values after this edit: what the patch sets, else what the row has.
  const name = patch.name ?? products.name;
  const image = patch.image ?? products.image;
  const priceCents = patch.price === undefined ? products.priceCents : toCents(patch.price);
  const [row] = await db
    .update(products)
    .set({
      // A draft is published once its name, price and image are all real; a product never goes back.
      isDraft: sql`${products.isDraft} AND (${name}::text = ${SAMPLE_PRODUCT.name} OR ${image}::text = ${SAMPLE_PRODUCT.image} OR ${priceCents}::int <= 0)`,
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.price !== undefined && { priceCents: toCents(patch.price) }),
      ...(patch.image !== undefined && { image: patch.image }),
      ...(patch.countInStock !== undefined && { countInStock: patch.countInStock }),
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

export async function deleteProduct(db: Db, changes: CatalogChanges, id: string): Promise<void> {
  const deleted = await db.delete(products).where(eq(products.id, id)).returning({ id: products.id });
  if (deleted.length === 0) throw notFound('Product not found');
  await changes.committed({ products: [id], listing: true });
}

import { type AnyColumn, and, asc, desc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { PRODUCTS_PAGE_SIZE, type ProductSort, SEARCH_RESULTS_CAP, TOP_PRODUCTS_COUNT } from '../../shared/constants.js';
import { fromCents, toCents } from '../../shared/money.js';
import type {
  AdminProduct,
  CategoryCount,
  Product,
  ProductDetail,
  ProductPage,
  ProductUpdateBody,
  Review,
  ReviewSummary,
} from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { containing } from '../db/like.js';
import { catalogueStats, products, reviews, searchWords } from '../db/schema.js';
import { notFound } from '../errors.js';
import type { CatalogueChanges } from './catalogue-changes.js';

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

/**
 * How a keyword reads against the catalogue, found before its search (spellKeyword): what the
 * search needs to know, and all a search for a keyword no product holds as written depends on.
 */
export interface KeywordSpelling {
  /** The keyword's words, lower-case, as the full-text index splits them. */
  words: string[];
  /** Some published product holds all the words, or the keyword as written inside its text. */
  literal: boolean;
  /**
   * For each word, the words of product names and categories spelt like it (itself too, when it
   * is one), in alphabetical order: "samsng" gives ["samsung"]. Kept in the catalogue's own word list
   * (search_words, kept by triggers), which is small whatever the number of products.
   */
  near: string[][];
}

/** At most this many words of the catalogue stand in for one word of a keyword. */
const NEAR_WORDS_PER_WORD = 8;

/**
 * One statement for any number of keywords, prepared (a search box asks it for every keyword
 * typed, so its plan is made once per connection): for each, its words, whether it matches as
 * written, and the catalogue's words spelt like each of its words (trigram word similarity
 * against the word list, not the products).
 */
function spellingStatement(db: Db) {
  return db
    .select({
      position: sql<number>`k.position`.mapWith(Number),
      literal: sql<boolean>`EXISTS (SELECT 1 FROM ${products} WHERE ${products.searchVector} @@ plainto_tsquery('simple', k.keyword) AND ${published})
        OR EXISTS (SELECT 1 FROM ${products} WHERE ${products.searchText} LIKE k.pattern AND ${published})`,
      words: sql<{ word: string; near: string[] }[]>`coalesce((
        SELECT json_agg(json_build_object('word', token.word, 'near', ARRAY(
          SELECT w.word FROM ${searchWords} w
           WHERE w.word %> token.word
           ORDER BY word_similarity(token.word, w.word) DESC, w.word
           LIMIT ${NEAR_WORDS_PER_WORD})) ORDER BY token.word)
        FROM unnest(tsvector_to_array(to_tsvector('simple', k.keyword))) AS token(word)), '[]'::json)`,
    })
    .from(
      sql`unnest(${sql.placeholder('keywords')}::text[], ${sql.placeholder('patterns')}::text[]) WITH ORDINALITY AS k(keyword, pattern, position)`,
    )
    .prepare('spell_keywords');
}

const spellingStatements = new WeakMap<Db, ReturnType<typeof spellingStatement>>();

/** How each keyword reads against the catalogue (KeywordSpelling), in the order given. */
export async function spellKeywords(db: Db, keywords: readonly string[]): Promise<KeywordSpelling[]> {
  let statement = spellingStatements.get(db);
  if (!statement) {
    statement = spellingStatement(db);
    spellingStatements.set(db, statement);
  }
  const lower = keywords.map((k) => k.toLowerCase());
  const rows = await statement.execute({ keywords: lower, patterns: lower.map(containing) });
  const byPosition = new Map(rows.map((row) => [row.position, row]));
  return lower.map((_, i) => {
    const row = byPosition.get(i + 1);
    const words = row?.words ?? [];
    // In a set's own order (the database's closest-first only chose them), so two misspellings
    // offered the same words ask the same search.
    return { words: words.map((w) => w.word), literal: row?.literal ?? false, near: words.map((w) => [...w.near].sort()) };
  });
}

export async function spellKeyword(db: Db, keyword: string): Promise<KeywordSpelling> {
  const [spelling] = await spellKeywords(db, [keyword]);
  if (!spelling) throw new Error('No spelling for the keyword');
  return spelling;
}

/** A word as a tsquery operand, restricted to the name and category (weights A and B). */
function inNameOrCategory(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}':AB`;
}

/**
 * How well a product matches a keyword, best first:
 * 1. all its words in the name or category;
 * 2. all its words anywhere (the description too);
 * 3. the keyword as written inside the text ("jiko" in "Jikokoa");
 * 4. every word spelt like one of the name or category ("samsng" for Samsung).
 */
function matchTiers(keyword: string, spelling: KeywordSpelling): [tier: number, match: SQL][] {
  const kw = keyword.toLowerCase();
  const tiers: [number, SQL][] = [];
  // Tiers 1 to 3 only when some published product matches the keyword as written: else they are
  // known to be empty, and the search is its close spellings alone.
  if (spelling.literal) {
    if (spelling.words.length > 0) {
      tiers.push([1, sql`${products.searchVector} @@ ${spelling.words.map(inNameOrCategory).join(' & ')}::tsquery`]);
    }
    tiers.push([2, sql`${products.searchVector} @@ plainto_tsquery('simple', ${kw})`]);
    tiers.push([3, sql`${products.searchText} LIKE ${containing(kw)}`]);
  }
  if (spelling.near.length > 0 && spelling.near.every((near) => near.length > 0)) {
    const query = spelling.near.map((near) => `(${near.map(inNameOrCategory).join(' | ')})`).join(' & ');
    tiers.push([4, sql`${products.searchVector} @@ ${query}::tsquery`]);
  }
  return tiers;
}

/** Each tier gives one more candidate than the cap: more than the cap in all means capped. */
const CANDIDATES_PER_TIER = SEARCH_RESULTS_CAP + 1;

/**
 * The candidates of a search, one row each with its best tier and the columns its order needs.
 * Each tier is read through its own GIN index and cut at the cap + 1, taken as the index gives
 * them, so a broad keyword ("a", "phone") costs what a narrow one does. When no tier reaches its
 * limit, the candidates are exactly the matches and the count is exact.
 */
function searchCandidates(keyword: string, spelling: KeywordSpelling, shown: SQL): SQL | undefined {
  const tiers = matchTiers(keyword, spelling).map(
    ([
      tier,
      match,
    ]) => sql`(SELECT ${products.id} AS id, ${products.createdAt} AS created_at, ${products.priceCents} AS price_cents,
        ${products.rating} AS rating, ${products.numReviews} AS num_reviews, ${tier}::int AS tier
      FROM ${products} WHERE ${match} AND ${shown} LIMIT ${CANDIDATES_PER_TIER})`,
  );
  if (tiers.length === 0) return undefined;
  // One tier cannot list a product twice: nothing to merge.
  if (tiers.length === 1) return tiers[0];
  return sql`(SELECT id, created_at, price_cents, rating, num_reviews, min(tier) AS tier
    FROM (${sql.join(tiers, sql` UNION ALL `)}) AS tiers
    GROUP BY id, created_at, price_cents, rating, num_reviews)`;
}

/** What a page of a list shows, and how many the whole list has. */
interface ListedPage {
  rows: ListedRow[];
  count: number;
  countCapped: boolean;
}

/** What narrows a storefront list besides its keyword, and its order. */
export interface ListFilters {
  /** A category name, matched without regard to case; '' for every category. */
  category?: string;
  /** Absent: newest first, or best match first for a keyword. */
  sort?: ProductSort;
  /** Price bounds in Ksh, both inclusive. */
  minPrice?: number;
  maxPrice?: number;
}

export interface ListQuery extends ListFilters {
  page: number;
  keyword: string;
}

type Direction = 'asc' | 'desc';
type OrderKey = [AnyColumn, Direction];

/**
 * The order of each sort, as its index (db/schema/catalogue.ts) lists the rows. Every order ends in created_at
 * and id, so it is total and a page is a well-defined slice. Read backwards (`reversed`) it is the
 * same index walked from its other end: a far page of any sort is read from the nearer end.
 * price_desc is price_asc reversed, so one index serves both; equal prices therefore come newest
 * first going up and oldest first going down.
 */
const NEWEST: OrderKey[] = [
  [products.createdAt, 'desc'],
  [products.id, 'desc'],
];
const CHEAPEST: OrderKey[] = [[products.priceCents, 'asc'], ...NEWEST];
const BEST_RATED: OrderKey[] = [[products.rating, 'desc'], [products.numReviews, 'desc'], ...NEWEST];

function sortOrder(sort: ProductSort | undefined): { keys: OrderKey[]; reversed: boolean } {
  switch (sort) {
    case 'price_asc':
      return { keys: CHEAPEST, reversed: false };
    case 'price_desc':
      return { keys: CHEAPEST, reversed: true };
    case 'rating':
      return { keys: BEST_RATED, reversed: false };
    default:
      return { keys: NEWEST, reversed: false };
  }
}

/**
 * ORDER BY terms for these keys, as the index has them (NULLS LAST) or walked backwards. `named`
 * writes a column: as the table's by default, or as a subquery's column of the same name.
 */
function orderTerms(keys: readonly OrderKey[], reversed: boolean, named: (column: AnyColumn) => SQL = (c) => sql`${c}`): SQL[] {
  return keys.map(([column, direction]) => {
    const descending = (direction === 'desc') !== reversed;
    return sql`${named(column)} ${sql.raw(descending ? 'DESC' : 'ASC')} NULLS ${sql.raw(reversed ? 'FIRST' : 'LAST')}`;
  });
}

/** The category as its indexes hold it: lower-case, so "phones" finds "Phones". */
export const categoryKey = sql`lower(${products.category})`;

/** What a storefront list may show: published products passing the filters. */
function shownWhere(filters: ListFilters): { where: SQL; filtered: boolean } {
  const conditions: SQL[] = [published];
  if (filters.category) conditions.push(sql`${categoryKey} = lower(${filters.category})`);
  if (filters.minPrice !== undefined) conditions.push(gte(products.priceCents, toCents(filters.minPrice)));
  if (filters.maxPrice !== undefined) conditions.push(lte(products.priceCents, toCents(filters.maxPrice)));
  return { where: and(...conditions) ?? published, filtered: conditions.length > 1 };
}

/**
 * One page of products. Work per page stays small at any catalogue size: a page of a list walks
 * the index of its sort (and category), from the nearer end, and the unfiltered total comes from
 * a counter kept by triggers (catalog_stats) rather than counting the table; a search ranks at
 * most its best candidates (see searchCandidates) and counts them in the same pass.
 */
export async function listProducts(db: Db, options: ListQuery, spelling?: KeywordSpelling): Promise<ProductPage> {
  const offset = (options.page - 1) * PRODUCTS_PAGE_SIZE;
  const spelt = options.keyword ? (spelling ?? (await spellKeyword(db, options.keyword))) : undefined;
  const { rows, count, countCapped } = spelt
    ? await searchPage(db, options.keyword, spelt, options, offset)
    : await orderedPage(db, options, offset);
  return {
    products: rows.map(toProductJson),
    page: options.page,
    pages: Math.max(1, Math.ceil(count / PRODUCTS_PAGE_SIZE)),
    count,
    countCapped,
    pageSize: PRODUCTS_PAGE_SIZE,
    // What the shopper is shown instead of the keyword as typed.
    ...(spelt && !spelt.literal && count > 0 && { closeTo: spelt.near }),
  };
}

/**
 * The page at `offset` of the list in its sort. The far half of the list is read from its other
 * end, by the same index walked backwards: the last page (8,334 at 100,000 products) then walks 12
 * entries, not 100,000. The count comes first (one row kept by triggers, or a count through the
 * filter's index) to know which end is nearer.
 */
async function orderedPage(db: Db, filters: ListFilters, offset: number): Promise<ListedPage> {
  const { where, filtered } = shownWhere(filters);
  const count = filtered ? await countWhere(db, where) : await publishedCount(db);
  if (offset >= count) return { rows: [], count, countCapped: false };
  const end = Math.min(offset + PRODUCTS_PAGE_SIZE, count);
  const { keys, reversed } = sortOrder(filters.sort);
  if (offset <= count - end) {
    const rows = await db
      .select(listedColumns)
      .from(products)
      .where(where)
      .orderBy(...orderTerms(keys, reversed))
      .limit(PRODUCTS_PAGE_SIZE)
      .offset(offset);
    return { rows, count, countCapped: false };
  }
  const fromOtherEnd = await db
    .select(listedColumns)
    .from(products)
    .where(where)
    .orderBy(...orderTerms(keys, !reversed))
    .limit(end - offset)
    .offset(count - end);
  return { rows: fromOtherEnd.reverse(), count, countCapped: false };
}

async function publishedCount(db: Db): Promise<number> {
  const [stats] = await db.select({ count: catalogueStats.productCount }).from(catalogueStats);
  return stats?.count ?? 0;
}

async function countWhere(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(products).where(where);
  return row?.n ?? 0;
}

/**
 * The ranked list is the best SEARCH_RESULTS_CAP candidates, by tier and then newest first; its
 * pages stop there. With a sort, the candidates are put in that order instead. The candidates are
 * ranked on the few columns their order needs; only the page's products are read whole.
 */
async function searchPage(
  db: Db,
  keyword: string,
  spelling: KeywordSpelling,
  filters: ListFilters,
  offset: number,
): Promise<ListedPage> {
  const candidates = searchCandidates(keyword, spelling, shownWhere(filters).where);
  const counted = (n: number): ListedPage & { rows: [] } => ({
    rows: [],
    count: Math.min(n, SEARCH_RESULTS_CAP),
    countCapped: n > SEARCH_RESULTS_CAP,
  });
  if (!candidates) return counted(0);
  const candidateColumn = (column: AnyColumn) => sql`${sql.identifier(column.name)}`;
  const order = filters.sort
    ? orderTerms(sortOrder(filters.sort).keys, sortOrder(filters.sort).reversed, candidateColumn)
    : [sql`tier`, ...orderTerms(NEWEST, false, candidateColumn)];
  const onPage = Math.min(PRODUCTS_PAGE_SIZE, SEARCH_RESULTS_CAP - offset);
  if (onPage > 0) {
    const ranked = sql`(SELECT id, count(*) OVER () AS candidates, row_number() OVER (ORDER BY ${sql.join(order, sql`, `)}) AS position
      FROM ${candidates} AS candidates ORDER BY position LIMIT ${onPage} OFFSET ${offset}) AS ranked`;
    const rows = await db
      .select({ ...listedColumns, candidates: sql<number>`ranked.candidates`.mapWith(Number) })
      .from(products)
      .innerJoin(ranked, sql`ranked.id = ${products.id}`)
      .orderBy(sql`ranked.position`);
    const first = rows[0];
    if (first) return { ...counted(first.candidates), rows };
    if (offset === 0) return counted(0);
  }
  // A page past the last ranked one: the window saw no rows, so count the candidates on their own.
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(sql`${candidates} AS candidates`);
  return counted(row?.n ?? 0);
}

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

export async function updateProduct(
  db: Db,
  changes: CatalogueChanges,
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

export async function deleteProduct(db: Db, changes: CatalogueChanges, id: string): Promise<void> {
  const deleted = await db.delete(products).where(eq(products.id, id)).returning({ id: products.id });
  if (deleted.length === 0) throw notFound('Product not found');
  await changes.committed({ products: [id], listing: true });
}

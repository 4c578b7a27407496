import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { PRODUCTS_PAGE_SIZE, SEARCH_RESULTS_CAP } from '../../shared/constants.js';
import type { Db } from '../db/client.js';
import { containing } from '../db/like.js';
import { products, searchWords } from '../db/schema.js';
import { listedColumns, published } from './catalogue.js';
import { type ListedPage, type ListFilters, NEWEST, orderTerms, shownWhere, sortOrder } from './catalogue-sorts.js';

/**
 * A keyword search of the storefront: how the keyword reads against the catalogue's words
 * (spellKeywords), the products that match it in tiers, best first, and one page of them ranked.
 */

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

/**
 * The ranked list is the best SEARCH_RESULTS_CAP candidates, by tier and then newest first; its
 * pages stop there. With a sort, the candidates are put in that order instead. The candidates are
 * ranked on the few columns their order needs; only the page's products are read whole.
 */
export async function searchPage(
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

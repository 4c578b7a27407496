import DataLoader from 'dataloader';
import type { Product, ProductPage } from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { getProductDetail, listCategories, productsByIds, topProducts } from '../domain/catalogue.js';
import { listProducts } from '../domain/catalogue-listing.js';
import { type KeywordSpelling, spellKeywords } from '../domain/catalogue-search.js';
import type { ListQuery } from '../domain/catalogue-sorts.js';
import { answerOf, type CachedAnswer, type CatalogueCache, toAnswer } from './catalogue-cache.js';
import type { CatalogueState } from './catalogue-feed.js';

/**
 * The catalogue's public answers, as the API sends them and as the web app's pages embed them,
 * through the cache. Keys are canonical (not the URL as sent), so `?pageNumber=1&x=y` shares the
 * entry of the first page instead of filling the cache with copies.
 *
 * A list (a listing page, a search, the top products) is cached in two parts:
 * - which products it shows, in what order, and how many match: kept under the listing version,
 *   which only product edits, creates, deletes and rating changes move;
 * - each product as lists show it: kept under that product's own version, which also moves when
 *   an order takes or returns its stock.
 * The answer is put together from both when served, and kept until either moves. So an order costs
 * readers one primary-key read of the products it touched, and every page and search stays cached.
 */
export interface CatalogueAnswers {
  /** A listing page, a search, either narrowed by category and price and in a sort. */
  page(query: ListQuery): Promise<CachedAnswer>;
  top(): Promise<CachedAnswer>;
  /** Every category with its product count; under the listing version, like the lists. */
  categories(): Promise<CachedAnswer>;
  /** Answers AppError 404 for a product that does not exist. */
  detail(id: string): Promise<CachedAnswer>;
}

/** Which products a list shows, and the JSON that follows them in its answer. */
interface ListEntry {
  ids: string[];
  /** The answer's text before and after the products (`{"products":[` … `],"page":1,…}`, or `[` … `]`). */
  open: string;
  close: string;
}

/** An answer put together, with the product versions it was made from. */
interface Assembled {
  answer: CachedAnswer;
  versions: string[];
}

/** Keywords spelt in one statement at most. */
const SPELLING_BATCH_MAX = 200;

export function catalogueAnswers(db: Db, cache: CatalogueCache): CatalogueAnswers {
  const spellingOf = keywordSpeller(db, cache);
  return {
    page: async (query) => {
      const canonical = canonicalListQuery(query);
      const state = await cache.state();
      const spelling = canonical.keyword ? await spellingOf(canonical.keyword, state) : undefined;
      // A keyword no product holds as written is searched as the catalogue's words spelt like it,
      // and that search depends on nothing else: every misspelling of "samsung" is one entry.
      const key = spelling && !spelling.literal ? spelledKey(canonical, spelling) : listKey(canonical);
      return list(
        db,
        cache,
        key,
        async () => {
          const { products, ...rest } = await listProducts(db, canonical, spelling);
          return { products, rest };
        },
        state,
      );
    },
    top: async () => list(db, cache, 'top', async () => ({ products: await topProducts(db) }), await cache.state()),
    categories: async () => {
      const state = await cache.state();
      if (!state) return cache.slot(async () => toAnswer(await listCategories(db)));
      return cache.get(
        'categories',
        state.listing,
        async () => toAnswer(await listCategories(db)),
        (a) => a.body.length,
      );
    },
    detail: async (id) => {
      const state = await cache.state();
      if (!state) return cache.slot(async () => toAnswer(await getProductDetail(db, id)));
      return cache.get(
        `detail:${id}`,
        state.product(id),
        async () => toAnswer(await getProductDetail(db, id)),
        (a) => a.body.length,
      );
    },
  };
}

const itemKey = (id: string) => `item:${id}`;

/** Keeps products as lists show them, each under its version read before the products were. */
function keepItems(cache: CatalogueCache, items: readonly Product[], versions: ReadonlyMap<string, string>): Map<string, string> {
  const json = new Map<string, string>();
  for (const item of items) {
    const text = JSON.stringify(item);
    json.set(item._id, text);
    const version = versions.get(item._id);
    if (version !== undefined) cache.set(itemKey(item._id), version, text, text.length);
  }
  return json;
}

/** The products of a list, each at its version in `versions`: from the cache, the rest by one primary-key read. */
async function itemsOf(db: Db, cache: CatalogueCache, ids: readonly string[], versions: readonly string[]): Promise<string[]> {
  const found = new Map<string, string>();
  const missing = new Map<string, string>();
  ids.forEach((id, i) => {
    const version = versions[i] ?? '';
    const hit = cache.peek<string>(itemKey(id), version);
    if (hit !== undefined) found.set(id, hit);
    else missing.set(id, version);
  });
  if (missing.size > 0) {
    const read = await cache.slot(() => productsByIds(db, [...missing.keys()]));
    for (const [id, text] of keepItems(cache, read, missing)) found.set(id, text);
  }
  // A product deleted since the list was made drops out (its delete moved the listing version).
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * A list's answer: which products it shows from the cache under the listing version (else
 * `compute`), each product at its own version, and the answer put together from both kept until
 * either moves. Without a cache state (the cache is off), `compute` answers alone.
 */
async function list(
  db: Db,
  cache: CatalogueCache,
  key: string,
  compute: () => Promise<{ products: Product[]; rest?: Omit<ProductPage, 'products'> }>,
  state: CatalogueState | undefined,
): Promise<CachedAnswer> {
  if (!state) {
    const { products, rest } = await cache.slot(compute);
    return toAnswer(rest ? { products, ...rest } : products);
  }
  const listing = state.listing;
  const entry = await cache.get<ListEntry>(
    `list:${key}`,
    listing,
    async () => {
      const moves = state.moves();
      const { products, rest } = await compute();
      // The products as the list read them can be kept too, under their versions, if no version
      // moved during the read: then those versions were current before it began.
      if (state.moves() === moves) keepItems(cache, products, new Map(products.map((p) => [p._id, state.product(p._id)])));
      const open = rest ? '{"products":[' : '[';
      const close = rest ? `],${JSON.stringify(rest).slice(1)}` : ']';
      return { ids: products.map((p) => p._id), open, close };
    },
    (e) => e.ids.length * 40 + e.close.length,
  );
  const versions = entry.ids.map((id) => state.product(id));
  const assembledKey = `answer:${key}`;
  const kept = cache.peek<Assembled>(assembledKey, listing);
  if (kept?.versions.every((v, i) => v === versions[i])) return kept.answer;
  const items = await itemsOf(db, cache, entry.ids, versions);
  const answer = answerOf(entry.open + items.join(',') + entry.close);
  cache.set<Assembled>(assembledKey, listing, { answer, versions }, answer.body.length);
  return answer;
}

/**
 * How a keyword reads against the catalogue, kept until the listing (and so the word list) moves.
 * Keywords to spell go to the database together: one statement at a time, taking the next free
 * catalogue slot (ahead of the searches waiting), for every keyword that came in while the one
 * before was under way. Shoppers typing many different keywords at once then cost a round trip
 * per batch, not per keyword.
 */
function keywordSpeller(
  db: Db,
  cache: CatalogueCache,
): (keyword: string, state: CatalogueState | undefined) => Promise<KeywordSpelling> {
  let spelling: Promise<unknown> = Promise.resolve();
  const settled = () => undefined;
  const spellings = new DataLoader<string, KeywordSpelling>(
    (keywords) => {
      const batch = cache.slot(() => spellKeywords(db, keywords), { ahead: true });
      spelling = batch.then(settled, settled);
      return batch;
    },
    {
      cache: false,
      maxBatchSize: SPELLING_BATCH_MAX,
      batchScheduleFn: (dispatch) => void spelling.then(() => setImmediate(dispatch)),
    },
  );
  return async (keyword, state) => {
    if (!state) return spellings.load(keyword);
    const key = `spelling:${keyword}`;
    const kept = cache.peek<KeywordSpelling>(key, state.listing);
    if (kept) return kept;
    const spelt = await spellings.load(keyword);
    cache.set(key, state.listing, spelt, keyword.length + JSON.stringify(spelt.near).length);
    return spelt;
  };
}

/**
 * The query with every way of asking for the same list made one: the category in lower case (it
 * matches without regard to case), `newest` for a listing's default order (a search's default is
 * its best matches, which is no sort), and no bound or filter that is not given.
 */
export function canonicalListQuery(query: ListQuery): ListQuery {
  const sort = query.sort === 'newest' && !query.keyword ? undefined : query.sort;
  return {
    page: query.page,
    keyword: query.keyword,
    ...(query.category && { category: query.category.toLowerCase() }),
    ...(sort && { sort }),
    ...(query.minPrice !== undefined && { minPrice: query.minPrice }),
    ...(query.maxPrice !== undefined && { maxPrice: query.maxPrice }),
  };
}

/**
 * The cache key of a canonical list query. The plain listing and searches keep the key they had;
 * a filtered or sorted one is its query as JSON, which no plain key starts like and in which a
 * keyword or category holding ":" cannot be taken for another query.
 */
function listKey(query: ListQuery): string {
  const { page, keyword, ...filters } = query;
  return Object.keys(filters).length === 0 ? `page:${page}:${keyword}` : `filtered:${JSON.stringify(query)}`;
}

/**
 * The cache key of a search for a keyword that matches nothing as written: its filters, sort and
 * page with the words spelt like its own, which alone decide the answer (no plain or filtered key
 * starts like it).
 */
function spelledKey(query: ListQuery, spelling: KeywordSpelling): string {
  const { keyword: _asTyped, ...rest } = query;
  return `spelled:${JSON.stringify({ ...rest, near: spelling.near })}`;
}

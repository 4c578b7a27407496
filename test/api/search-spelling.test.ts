import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAnswers } from '../../src/server/cache/catalogue-answers.js';
import { CatalogueCache } from '../../src/server/cache/catalogue-cache.js';
import { localVersion } from '../../src/server/cache/catalogue-feed.js';
import { queryRows } from '../../src/server/db/client.js';
import type { ProductPage } from '../../src/shared/schemas/products.js';
import { recordingDb } from '../../tools/bench/explain.js';
import type { ApiClient } from '../support/client.js';
import { createProduct, search } from '../support/fixtures.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * Close spellings come from the catalogue's own word list (search_words), which triggers on
 * products keep in the write's transaction; a keyword no product holds as written is searched as
 * the words spelt like it, so every misspelling of a word is one search.
 */

let shop: TestShop;
let admin: ApiClient;
let guest: ApiClient;

beforeAll(async () => {
  shop = await buildTestApp();
  admin = await shop.admin();
  guest = shop.client();
});
afterAll(() => shop?.stop());

async function wordCount(word: string): Promise<number | undefined> {
  const [row] = await queryRows<{ products: number }>(
    shop.database.db,
    sql`SELECT products FROM search_words WHERE word = ${word}`,
  );
  return row?.products;
}

describe('the word list follows the products', () => {
  it('a new name is found misspelt, a renamed product by its new name only, a deleted one not at all', async () => {
    const product = await createProduct(admin, { name: 'Quokka Thermos', category: 'Zanzibarware' });
    expect(await wordCount('quokka')).toBe(1);
    expect(await wordCount('zanzibarware')).toBe(1);
    expect((await search(guest, 'quoka')).products.map((p) => p._id)).toEqual([product._id]);
    expect((await search(guest, 'zanzibarwre')).products.map((p) => p._id)).toEqual([product._id]);

    const renamed = await admin.put(`/api/products/${product._id}`, { name: 'Wallaby Thermos' });
    expect(renamed.status).toBe(200);
    expect(await wordCount('quokka')).toBeUndefined();
    expect(await wordCount('wallaby')).toBe(1);
    expect(await search(guest, 'quoka')).toMatchObject({ products: [], count: 0 });
    expect((await search(guest, 'walaby')).products.map((p) => p._id)).toEqual([product._id]);

    expect((await admin.delete(`/api/products/${product._id}`)).status).toBe(200);
    expect(await wordCount('wallaby')).toBeUndefined();
    expect(await search(guest, 'walaby')).toMatchObject({ products: [], count: 0 });
  });

  it('an order, which changes stock only, leaves the word list alone', async () => {
    const product = await createProduct(admin, { name: 'Pangolin Kettle' });
    const before = await wordCount('pangolin');
    await shop.database.db.execute(sql`UPDATE products SET count_in_stock = count_in_stock - 1 WHERE id = ${product._id}`);
    expect(await wordCount('pangolin')).toBe(before);
  });

  it('many admins editing at once share words without a failed edit, and the counts stay true', async () => {
    // Each create starts from the same sample draft and each edit renames it, so on PostgreSQL
    // the writers take the same words' rows in overlapping transactions.
    const names = ['Eland Basket', 'Basket Eland Stool', 'Stool Basket', 'Eland Stool'];
    const made = await Promise.all(
      Array.from({ length: 16 }, (_, i) => createProduct(admin, { name: names[i % names.length], category: 'Eland' })),
    );
    const edits = await Promise.all(
      made.map((product, i) =>
        i % 3 === 0
          ? admin.delete(`/api/products/${product._id}`)
          : admin.put(`/api/products/${product._id}`, { name: names[(i + 1) % names.length], category: 'Stool' }),
      ),
    );
    expect(edits.map((res) => res.status)).toEqual(edits.map(() => 200));
    const listed = await queryRows<{ word: string; products: number }>(
      shop.database.db,
      sql`SELECT word, products FROM search_words ORDER BY word`,
    );
    const recounted = await queryRows<{ word: string; products: number }>(
      shop.database.db,
      sql`SELECT word, count(*)::int AS products FROM products, unnest(product_search_words(name, category)) AS word
           GROUP BY word ORDER BY word`,
    );
    expect(listed).toEqual(recounted);
    expect(await wordCount('eland')).toBeGreaterThan(0);
  });
});

describe('searching close spellings', () => {
  it('needs every word of the keyword, each spelt closely', async () => {
    const lamp = await createProduct(admin, { name: 'Zebrafish Lamp' });
    const mug = await createProduct(admin, { name: 'Zebrafish Mug' });
    const both = await search(guest, 'zebrafsh lammp');
    expect(both.products.map((p) => p._id)).toEqual([lamp._id]);
    const either = await search(guest, 'zebrafsh');
    expect(either.products.map((p) => p._id)).toEqual([mug._id, lamp._id]);
  });

  it('says which words it searched when the keyword matched nothing as written', async () => {
    await createProduct(admin, { name: 'Aardvark Rug' });
    expect(await search(guest, 'aardvrk')).toMatchObject({ closeTo: [['aardvark']], count: 1 });
    expect((await search(guest, 'aardvark')).closeTo).toBeUndefined();
    expect((await search(guest, 'qqqqzzzzxxxx')).closeTo).toBeUndefined();
  });

  it('ranks a match as written above a close spelling', async () => {
    const close = await createProduct(admin, { name: 'Okapi Sandal' });
    const exact = await createProduct(admin, { name: 'Okapis Sandal' });
    const result = await search(guest, 'okapis');
    expect(result.products.map((p) => p._id)).toEqual([exact._id, close._id]);
  });
});

describe('what a misspelling costs', () => {
  /** The shop's catalogue answers on a cache of their own, over a drizzle that records each statement. */
  function recordedAnswers() {
    const { db, recorded } = recordingDb(shop.database);
    const cache = new CatalogueCache({
      version: localVersion(),
      onError: (error) => expect.fail(String(error)),
      computeSlots: 1,
    });
    return { answers: catalogueAnswers(db, cache), recorded };
  }

  it('two misspellings offered the same words share one search: the second is spelt, not searched', async () => {
    await createProduct(admin, { name: 'Capybara Blanket' });
    const { answers, recorded } = recordedAnswers();
    const first = await answers.page({ page: 1, keyword: 'capybra' });
    const firstStatements = recorded.length;
    expect(firstStatements).toBe(2);
    const second = await answers.page({ page: 1, keyword: 'capibara' });
    expect(recorded.length - firstStatements).toBe(1);
    expect(recorded.at(-1)?.sql).toContain('search_words');
    expect(second.body).toBe(first.body);
    expect((JSON.parse(first.body) as ProductPage).products.map((p) => p.name)).toEqual(['Capybara Blanket']);
  });

  it('keywords asked at once are spelt by one statement', async () => {
    const { answers, recorded } = recordedAnswers();
    const keywords = ['capybaraa', 'capybar', 'kapybara', 'zebrafissh', 'quokkka', 'okapiz', 'wallabby', 'nothinglikeit'];
    await Promise.all(keywords.map((keyword) => answers.page({ page: 1, keyword })));
    expect(recorded.filter((statement) => statement.sql.includes('search_words'))).toHaveLength(1);
  });
});

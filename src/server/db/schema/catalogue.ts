import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { ProductOption, VariantOptions } from '../../../shared/schemas/products.js';
import { users } from './accounts.js';
import { bytea, createdAt, tsvector, updatedAt } from './columns.js';

/**
 * The catalogue: products, their reviews and uploaded images, and what the database derives from
 * the products for the storefront (the search words, the published products' count).
 */

/**
 * Stored with fillfactor 90 (migration 0008; drizzle does not model it): a stock change then
 * stays on its page and touches none of these indexes.
 */
export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The admin who created it; kept when that account is deleted. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    image: text('image').notNull(),
    category: text('category').notNull(),
    description: text('description').notNull().default(''),
    priceCents: integer('price_cents').notNull(),
    countInStock: integer('count_in_stock').notNull().default(0),
    rating: numeric('rating', { precision: 3, scale: 2, mode: 'number' }).notNull().default(0),
    numReviews: integer('num_reviews').notNull().default(0),
    /**
     * A product the admin created and has not yet given a real name, price and image: listed and
     * edited in the admin only, never shown, searched, counted or sold in the storefront.
     */
    isDraft: boolean('is_draft').notNull().default(false),
    /**
     * The product's options (Size, Colour), each with its values in the merchant's order; null for a
     * product sold as one thing. With options, the product is sold only as its variants
     * (product_variants), and its price_cents and count_in_stock are derived from theirs: the lowest
     * price and the sum of the stock, kept in the transaction of every variant write and every order.
     */
    options: jsonb('options').$type<ProductOption[]>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Everything searchable, lower-case: the target of substring matching. */
    searchText: text('search_text').notNull().generatedAlwaysAs(sql`lower(name || ' ' || category || ' ' || description)`),
    /** Words weighted name > category > description for ranking. */
    searchVector: tsvector('search_vector')
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('simple'::regconfig, name), 'A') || setweight(to_tsvector('simple'::regconfig, category), 'B') || setweight(to_tsvector('simple'::regconfig, description), 'C')`,
      ),
  },
  (t) => [
    check('products_price_not_negative', sql`${t.priceCents} >= 0`),
    check('products_stock_not_negative', sql`${t.countInStock} >= 0`),
    index('products_latest_idx').on(t.createdAt.desc(), t.id.desc()),
    index('products_rating_idx').on(t.rating.desc(), t.numReviews.desc()),
    // The storefront's sorts and category filter (domain/catalogue-sorts.ts, sortOrder): each walked
    // forwards or backwards, so a far page is read from the nearer end. Only published products.
    index('products_price_order_idx').on(t.priceCents.asc(), t.createdAt.desc(), t.id.desc()).where(sql`${t.isDraft} = false`),
    index('products_rating_order_idx')
      .on(t.rating.desc(), t.numReviews.desc(), t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_category_latest_idx')
      .on(sql`lower(${t.category})`, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_category_price_idx')
      .on(sql`lower(${t.category})`, t.priceCents.asc(), t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    index('products_category_rating_idx')
      .on(sql`lower(${t.category})`, t.rating.desc(), t.numReviews.desc(), t.createdAt.desc(), t.id.desc())
      .where(sql`${t.isDraft} = false`),
    // The drafts an admin's first page of GET /api/products shows on top (domain/admin-catalogue.ts, listDrafts).
    index('products_drafts_latest_idx').on(t.createdAt.desc(), t.id.desc()).where(sql`${t.isDraft}`),
    index('products_search_vector_idx').using('gin', t.searchVector),
    index('products_search_text_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
  ],
);

/**
 * The combinations of a product's options that are sold (Size 42 / Black), each with its own price
 * and stock (docs/product-rules.md, Variants). Every write to a product's variants first locks the
 * product's row, as every order does, so the product's derived price and stock never disagree with
 * its variants. Order lines copy what they need of a variant and keep its id without a foreign key:
 * removing a variant changes no order.
 */
export const productVariants = pgTable(
  'product_variants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    /** Option name → value, one value for every option of the product. */
    options: jsonb('options').$type<VariantOptions>().notNull(),
    /** Its place in the product's answers: by the options' value order, set at every write. */
    position: integer('position').notNull(),
    priceCents: integer('price_cents').notNull(),
    countInStock: integer('count_in_stock').notNull().default(0),
    sku: text('sku'),
    image: text('image'),
  },
  (t) => [
    check('product_variants_price_not_negative', sql`${t.priceCents} >= 0`),
    check('product_variants_stock_not_negative', sql`${t.countInStock} >= 0`),
    index('product_variants_product_idx').on(t.productId, t.position),
    // A SKU names one variant in the whole shop, whatever its case.
    uniqueIndex('product_variants_sku_idx').on(sql`lower(${t.sku})`).where(sql`${t.sku} IS NOT NULL`),
  ],
);

export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    /** The author; null once the author's account is deleted, the review itself stays. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    rating: smallint('rating').notNull(),
    comment: text('comment').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check('reviews_rating_range', sql`${t.rating} between 1 and 5`),
    uniqueIndex('reviews_one_per_user_key').on(t.productId, t.userId),
    index('reviews_product_idx').on(t.productId, t.createdAt),
  ],
);

/**
 * Every word of the products' names and categories, with how many products hold it, kept by
 * triggers on products (migration 0018) in the same transaction as the product's write. A search
 * finds close spellings of a keyword here ("samsng" is close to "samsung"), in a list that stays
 * a few thousand words whatever the number of products, then the products through the full-text
 * index. A word no product holds any more is deleted.
 */
export const searchWords = pgTable(
  'search_words',
  {
    word: text('word').primaryKey(),
    products: integer('products').notNull(),
  },
  (t) => [index('search_words_trgm_idx').using('gin', sql`${t.word} gin_trgm_ops`)],
);

/**
 * How many published (not draft) products the shop has, kept exact by statement-level triggers on
 * products (migrations 0005 and 0009), so the newest-first listing knows its page count without counting the table.
 */
export const catalogueStats = pgTable(
  'catalog_stats',
  {
    id: smallint('id').primaryKey().default(1),
    productCount: integer('product_count').notNull().default(0),
  },
  (t) => [check('catalog_stats_single_row', sql`${t.id} = 1`)],
);

/**
 * Uploaded product images, in the database so every instance serves every upload. One row per
 * encoded form: width 0 is the full image (at most 1600 px wide), the others are the widths of
 * IMAGE_WIDTHS (src/shared/images.ts). Every row is WebP; rows never change once written.
 */
export const images = pgTable(
  'images',
  {
    /** The address it is served at: /uploads/<name>. */
    path: text('path').notNull(),
    width: integer('width').notNull(),
    contentType: text('content_type').notNull(),
    content: bytea('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.path, t.width] }), check('images_width_not_negative', sql`${t.width} >= 0`)],
);

import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../src/server/db/client.js';

/**
 * A large, realistic catalogue for benchmarks, made in the database with one set-based INSERT …
 * SELECT over generate_series: names are composed from word lists of brands, product types and
 * adjectives of a Kenyan shop, per category, so a keyword search has sensible matches and misses.
 */

interface Category {
  name: string;
  /** Exactly BRANDS_PER_CATEGORY brands, as sold in Kenyan shops. */
  brands: string[];
  /** Exactly TYPES_PER_CATEGORY product types. */
  types: string[];
  /** Exactly VARIANTS_PER_CATEGORY sizes, colours or capacities. */
  variants: string[];
  /** A typical price in Ksh; each product's price varies around it. */
  priceKsh: number;
}

const BRANDS_PER_CATEGORY = 8;
const TYPES_PER_CATEGORY = 8;
const VARIANTS_PER_CATEGORY = 8;

export const CATEGORIES: Category[] = [
  {
    name: 'Phones & Tablets',
    variants: ['64GB', '128GB', '256GB', 'Black', 'Blue', 'Silver', 'Dual SIM', '4G'],
    brands: ['Samsung', 'Tecno', 'Infinix', 'Oppo', 'Xiaomi', 'Nokia', 'Itel', 'Apple'],
    types: ['Smartphone', 'Feature Phone', 'Tablet', 'Power Bank', 'Phone Charger', 'Earphones', 'Phone Case', 'Smartwatch'],
    priceKsh: 12_000,
  },
  {
    name: 'Electronics',
    variants: ['32 inch', '43 inch', '55 inch', '65 inch', 'Black', 'Wireless', '2.1 Channel', 'Bluetooth'],
    brands: ['Hisense', 'Sony', 'LG', 'Vitron', 'TCL', 'Samsung', 'Skyworth', 'JBL'],
    types: ['Smart TV', 'Soundbar', 'Bluetooth Speaker', 'Home Theatre', 'Decoder', 'Radio', 'Projector', 'Extension Cable'],
    priceKsh: 25_000,
  },
  {
    name: 'Home & Kitchen',
    variants: ['1.5L', '2L', '4 Burner', '20L', 'Stainless Steel', 'White', 'Silver', '7 Piece'],
    brands: ['Ramtons', 'Mika', 'Von Hotpoint', 'Armco', 'Sayona', 'Nunix', 'Kenpoly', 'Bruhm'],
    types: ['Blender', 'Electric Kettle', 'Cooker', 'Microwave', 'Water Dispenser', 'Sufuria Set', 'Flask', 'Fridge'],
    priceKsh: 6_500,
  },
  {
    name: 'Groceries',
    variants: ['500g', '1kg', '2kg', '5kg', '1L', '3L', '5L', 'Pack of 12'],
    brands: ['Brookside', 'Kabras', 'Mumias', 'Pembe', 'Jogoo', 'Ketepa', 'Dormans', 'Fresh Fri'],
    types: ['Maize Flour', 'Sugar', 'Cooking Oil', 'Tea Leaves', 'Coffee', 'Long Life Milk', 'Wheat Flour', 'Rice'],
    priceKsh: 350,
  },
  {
    name: 'Health & Beauty',
    variants: ['200ml', '400ml', '750ml', '100g', '250g', 'Family Pack', 'Travel Size', 'Pack of 3'],
    brands: ['Nivea', 'Arimis', 'Dettol', 'Geisha', 'Nice & Lovely', 'Zoya', 'Vaseline', 'Sunlight'],
    types: ['Body Lotion', 'Milking Jelly', 'Bathing Soap', 'Hair Food', 'Shampoo', 'Petroleum Jelly', 'Deodorant', 'Hand Wash'],
    priceKsh: 450,
  },
  {
    name: 'Fashion',
    variants: ['Size 38', 'Size 40', 'Size 42', 'Size 44', 'Red', 'Black', 'Brown', 'Free Size'],
    brands: ['Bata', 'Toughees', 'Safari', 'Kikoy Co', 'Maasai Market', 'Kitenge House', 'Sandstorm', 'Adidas'],
    types: ['School Shoes', 'Sandals', 'Kitenge Dress', 'Kikoy', 'Leather Bag', 'Shuka', 'Sneakers', 'Beaded Necklace'],
    priceKsh: 2_800,
  },
  {
    name: 'Baby Products',
    variants: ['Size 1', 'Size 3', 'Size 5', 'Pack of 64', '400g', '250ml', 'Newborn', 'Jumbo Pack'],
    brands: ['Pampers', 'Huggies', 'Softcare', 'Molfix', 'Cerelac', "Johnson's", 'Bebem', 'Chicco'],
    types: ['Diapers', 'Baby Wipes', 'Baby Cereal', 'Baby Oil', 'Feeding Bottle', 'Baby Lotion', 'Baby Carrier', 'Teether'],
    priceKsh: 1_200,
  },
  {
    name: 'School & Office',
    variants: ['A4', 'A5', '96 Pages', '200 Pages', 'Blue', 'Black', 'Pack of 10', 'Form 1'],
    brands: ['Kasuku', 'Bic', 'Pick N Peel', 'Longhorn', 'Oxford', 'KLB', 'Casio', 'Canon'],
    types: ['Exercise Book', 'Ballpoint Pen', 'Geometry Set', 'Calculator', 'Textbook', 'Printer Paper', 'Backpack', 'Printer'],
    priceKsh: 900,
  },
  {
    name: 'Sports & Outdoors',
    variants: ['Size 5', 'Size 42', 'Medium', 'Large', '2 Person', '1L', '26 inch', '10kg'],
    brands: ['Puma', 'Nike', 'Kipchoge Gear', 'Decathlon', 'Safari Outdoor', 'Kenya Sevens', 'Umbro', 'Mitre'],
    types: ['Football', 'Running Shoes', 'Jersey', 'Yoga Mat', 'Tent', 'Water Bottle', 'Bicycle', 'Dumbbells'],
    priceKsh: 3_500,
  },
  {
    name: 'Garden & Farm',
    variants: ['1kg', '2kg', '50kg', '16L', '1000L', '2000L', '2 inch', 'Steel'],
    brands: ['Amiran', 'Kenya Seed', 'Simlaw', 'Osho', 'Twiga', 'Elgon Kenya', 'Davis & Shirtliff', 'Lifan'],
    types: ['Seeds', 'Fertiliser', 'Knapsack Sprayer', 'Water Pump', 'Jembe', 'Panga', 'Water Tank', 'Wheelbarrow'],
    priceKsh: 4_000,
  },
];

const ADJECTIVES = [
  'Classic',
  'Premium',
  'Deluxe',
  'Compact',
  'Original',
  'Family Size',
  'Eco',
  'Pro',
  'Ultra',
  'Mini',
  'Max',
  'Lite',
  'Durable',
  'Fresh',
  'Smart',
  'Heavy Duty',
];

const FEATURES = [
  'built to last',
  'loved by families across Kenya',
  'great value for money',
  'easy to use and clean',
  'a trusted brand',
  'delivered countrywide',
  'one year warranty',
  'locally made',
  'quality guaranteed',
  'free delivery in Nairobi CBD',
  'genuine product',
  'a best seller this month',
  'top rated by shoppers',
  'new stock just in',
  'a Nairobi favourite',
  'pay with M-Pesa on delivery',
];

const TOWNS = ['Nairobi', 'Mombasa', 'Kisumu', 'Nakuru', 'Eldoret', 'Thika', 'Nyeri', 'Machakos', 'Kakamega', 'Kericho'];

function textArray(values: string[]): string {
  return `ARRAY[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ')}]::text[]`;
}

function textMatrix(rows: string[][]): string {
  return `ARRAY[${rows.map((row) => textArray(row).replace(/::text\[\]$/, '')).join(', ')}]::text[]`;
}

/** The INSERT … SELECT making `count` products; `seed` in [-1, 1] makes the catalogue repeatable. */
function insertStatement(count: number): string {
  const categories = textArray(CATEGORIES.map((c) => c.name));
  const brands = textMatrix(CATEGORIES.map((c) => c.brands));
  const types = textMatrix(CATEGORIES.map((c) => c.types));
  const variants = textMatrix(CATEGORIES.map((c) => c.variants));
  const prices = `ARRAY[${CATEGORIES.map((c) => c.priceKsh).join(', ')}]::int[]`;
  const pick = (array: string, length: number) => `(${array})[1 + floor(random() * ${length})::int]`;
  // r: one row per product with its random choices; the outer SELECT composes the columns.
  return `
    INSERT INTO products (name, image, category, description, price_cents, count_in_stock, rating, num_reviews, created_at, updated_at)
    SELECT
      r.brand || ' ' || r.adjective || ' ' || r.type || ' ' || r.variant,
      '/images/sample.webp',
      r.category,
      r.brand || ' ' || r.type || ', ' || r.feature || '. ' || r.adjective || ' ' || lower(r.type) || ' in ' || r.variant
        || ', ' || r.feature2 || '. Stocked in ' || r.town || ' and shipped to all 47 counties.',
      -- Prices end in 0 or 50 shillings, as shelf prices do.
      greatest(50, round(r.base * (0.3 + random() * 1.7) / 50) * 50)::int * 100,
      floor(random() * 200)::int,
      CASE WHEN r.reviews = 0 THEN 0 ELSE round((1 + random() * 4)::numeric, 2) END,
      r.reviews,
      -- One minute apart, newest first by g, so created_at is unique like real inserts.
      now() - r.g * interval '1 minute',
      now() - r.g * interval '1 minute'
    FROM (
      SELECT
        g,
        c,
        (${categories})[c] AS category,
        (${brands})[c][1 + floor(random() * ${BRANDS_PER_CATEGORY})::int] AS brand,
        (${types})[c][1 + floor(random() * ${TYPES_PER_CATEGORY})::int] AS type,
        ${pick(textArray(ADJECTIVES), ADJECTIVES.length)} AS adjective,
        (${variants})[c][1 + floor(random() * ${VARIANTS_PER_CATEGORY})::int] AS variant,
        ${pick(textArray(FEATURES), FEATURES.length)} AS feature,
        ${pick(textArray(FEATURES), FEATURES.length)} AS feature2,
        ${pick(textArray(TOWNS), TOWNS.length)} AS town,
        (${prices})[c] AS base,
        CASE WHEN random() < 0.3 THEN 0 ELSE floor(random() * 400)::int END AS reviews
      FROM (SELECT g, 1 + floor(random() * ${CATEGORIES.length})::int AS c FROM generate_series(1, ${count}) AS g) AS gc
    ) AS r`;
}

interface IndexDef {
  name: string;
  def: string;
}

export interface SeedResult {
  products: number;
  seconds: number;
}

/**
 * Adds `count` products (to whatever is there), then VACUUMs and ANALYZEs. The secondary indexes of products
 * (whatever the migrations made them) are dropped for the load and built again after it: building
 * a GIN index once is several times faster than growing it row by row.
 */
export async function seedCatalogue(db: Db, count: number): Promise<SeedResult> {
  const started = performance.now();
  await db.transaction(async (tx) => {
    const indexes = await queryRows<IndexDef>(
      tx,
      sql`SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
          WHERE i.schemaname = current_schema() AND i.tablename = 'products'
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    for (const index of indexes) await tx.execute(sql.raw(`DROP INDEX ${quoteIdent(index.name)}`));
    await tx.execute(sql.raw("SET LOCAL maintenance_work_mem = '256MB'"));
    await tx.execute(sql`SELECT setseed(0.4207)`);
    await tx.execute(sql.raw(insertStatement(count)));
    for (const index of indexes) await tx.execute(sql.raw(index.def));
  });
  // VACUUM as well: it sets the visibility map, as autovacuum soon would after a bulk load, so
  // index-only scans are open to the planner like on a settled shop.
  await db.execute(sql`VACUUM (ANALYZE) products`);
  return { products: count, seconds: (performance.now() - started) / 1000 };
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A list of ids as one PostgreSQL array literal: one parameter, however many ids. */
const uuidArray = (ids: string[]) => `{${ids.join(',')}}`;

export interface OrderSeedResult {
  orders: number;
  seconds: number;
}

/** Bench orders' numbers start with this, so the order rush's own orders are told apart. */
export const SEEDED_ORDER_PREFIX = 'S';

/**
 * A shop's order history for the admin cases: `count` orders by the given shoppers over the last
 * 120 days, newest the most frequent. About 85 % are paid (a few minutes after being placed) and
 * most paid ones delivered, except in the last few days; each has one or two lines of the given
 * products (which the order rush does not sell, so its stock check stays exact).
 */
export async function seedOrders(db: Db, count: number, shopperIds: string[], productIds: string[]): Promise<OrderSeedResult> {
  const started = performance.now();
  await db.execute(sql`
    INSERT INTO orders (number, user_id, county, phone_number, postal_code, sub_county, ward,
                        items_cents, shipping_cents, tax_cents, total_cents,
                        is_paid, paid_at, mpesa_receipt, is_delivered, delivered_at, created_at, updated_at)
    SELECT ${SEEDED_ORDER_PREFIX} || lpad(g::text, 7, '0'),
           (${uuidArray(shopperIds)}::uuid[])[1 + g % ${shopperIds.length}],
           (ARRAY['Nairobi', 'Mombasa', 'Kisumu', 'Nakuru', 'Kiambu', 'Uasin Gishu'])[1 + g % 6],
           '07' || lpad((g::bigint * 7919 % 100000000)::text, 8, '0'), '00100', 'Westlands', 'Parklands',
           items, shipping, items * 15 / 100, items + shipping + items * 15 / 100,
           paid, CASE WHEN paid THEN placed + interval '4 minutes' END,
           CASE WHEN paid THEN 'B' || lpad(g::text, 9, '0') END,
           delivered, CASE WHEN delivered THEN placed + interval '1 day' END, placed, placed
      FROM generate_series(1, ${count}) g
      CROSS JOIN LATERAL (SELECT
        -- Squaring a uniform draw crowds the orders toward now, as a growing shop's are.
        now() - power(((g::bigint * 48271) % 1000003) / 1000003.0, 2) * interval '120 days' AS placed,
        (50000 + (g::bigint * 7621) % 2000000)::int AS items,
        CASE WHEN g % 3 = 0 THEN 0 ELSE 10000 END AS shipping,
        g % 7 <> 0 AS paid) o
      CROSS JOIN LATERAL (SELECT paid AND placed < now() - interval '3 days' AND g % 11 <> 0 AS delivered) d`);
  await db.execute(sql`
    INSERT INTO order_items (order_id, product_id, position, name, image, qty, price_cents)
    SELECT o.id, p.id, line, p.name, p.image, 1 + line, o.items_cents
      FROM orders o
      CROSS JOIN generate_series(0, 1) line
      JOIN LATERAL (SELECT id, name, image FROM products
                     WHERE id = (${uuidArray(productIds)}::uuid[])[1 + (hashtext(o.number) & 1023) % ${productIds.length}]) p ON true
     WHERE o.number LIKE ${`${SEEDED_ORDER_PREFIX}%`} AND (line = 0 OR o.items_cents % 2 = 0)`);
  // As autovacuum leaves a settled shop: statistics, and the visibility map index-only scans need.
  await db.execute(sql`VACUUM (ANALYZE) orders`);
  await db.execute(sql`VACUUM (ANALYZE) order_items`);
  return { orders: count, seconds: (performance.now() - started) / 1000 };
}

import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { toCents } from '../../shared/money.js';
import type { AppConfig } from '../config.js';
import { createPasswords, type Passwords } from '../domain/passwords.js';
import type { Db } from './client.js';
import { demoProducts, demoReviews, demoShoppers } from './demo-catalogue.js';
import { products, reviews, shopMeta, users } from './schema.js';

/** The demo shoppers' password, printed in the README so anyone trying the shop can sign in. */
export const DEMO_SHOPPER_PASSWORD = 'karibu-duka';

const SEEDED_KEY = 'seeded';

/**
 * First start: the demo catalogue (unless SEED_DEMO=false) and the admin account. Every start:
 * the admin named by ADMIN_EMAIL exists. Runs under the start-up lock, after the migrations, so
 * two instances starting together seed once.
 */
export async function seedShop(db: Db, config: AppConfig, log: Logger): Promise<void> {
  const passwords = createPasswords(config.passwordCost);
  const [seeded] = await db.select().from(shopMeta).where(eq(shopMeta.key, SEEDED_KEY));
  if (!seeded) {
    const [anyProduct] = await db.select({ id: products.id }).from(products).limit(1);
    if (config.seedDemo && !anyProduct) await seedDemoCatalogue(db, passwords, log);
  }
  await ensureAdmin(db, passwords, config, log);
  if (!seeded) await db.insert(shopMeta).values({ key: SEEDED_KEY, value: { at: new Date().toISOString() } });
}

async function ensureAdmin(db: Db, passwords: Passwords, config: AppConfig, log: Logger): Promise<void> {
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, config.adminEmail));
  if (existing) return;
  const password = config.adminPassword ?? randomBytes(12).toString('base64url');
  await db.insert(users).values({
    name: 'Shop Admin',
    email: config.adminEmail,
    passwordHash: await passwords.hash(password),
    isAdmin: true,
  });
  if (config.adminPassword) {
    log.info({ email: config.adminEmail }, 'created the admin account from ADMIN_EMAIL / ADMIN_PASSWORD');
  } else {
    // Shown once, at creation; it is stored only as a hash.
    log.warn(
      `created the admin account ${config.adminEmail} with password ${password} — sign in and change it (or set ADMIN_PASSWORD)`,
    );
  }
}

async function seedDemoCatalogue(db: Db, passwords: Passwords, log: Logger): Promise<void> {
  const shopperHash = await passwords.hash(DEMO_SHOPPER_PASSWORD);
  // Newest first on the home page should follow the catalogue's order, so space the creation times.
  const start = Date.now() - demoProducts.length * 60_000;
  await db.transaction(async (tx) => {
    const shoppers = await tx
      .insert(users)
      .values(demoShoppers.map((s) => ({ name: s.name, email: s.email, passwordHash: shopperHash })))
      .returning({ id: users.id, name: users.name, email: users.email });
    const created = await tx
      .insert(products)
      .values(
        demoProducts.map((p, index) => ({
          name: p.name,
          image: `/images/${p.slug}.webp`,
          category: p.category,
          description: p.description,
          priceCents: toCents(p.priceKsh),
          countInStock: p.countInStock,
          createdAt: new Date(start + (demoProducts.length - index) * 60_000),
          updatedAt: new Date(start + (demoProducts.length - index) * 60_000),
        })),
      )
      .returning({ id: products.id, name: products.name });
    const productIdBySlug = new Map(demoProducts.map((p, index) => [p.slug, created[index]?.id]));
    const shopperByEmail = new Map(shoppers.map((s) => [s.email, s]));
    const reviewRows = demoReviews.flatMap((r) => {
      const productId = productIdBySlug.get(r.productSlug);
      const shopper = shopperByEmail.get(r.shopperEmail);
      if (!productId || !shopper) return [];
      return [{ productId, userId: shopper.id, name: shopper.name, rating: r.rating, comment: r.comment }];
    });
    if (reviewRows.length > 0) await tx.insert(reviews).values(reviewRows);
    await tx.execute(sql`
      UPDATE ${products} p SET
        rating = coalesce(r.mean, 0),
        num_reviews = coalesce(r.n, 0)
      FROM (SELECT product_id, round(avg(rating), 2) AS mean, count(*) AS n FROM ${reviews} GROUP BY product_id) r
      WHERE r.product_id = p.id`);
  });
  log.info({ products: demoProducts.length, shoppers: demoShoppers.length, reviews: demoReviews.length }, 'seeded the demo shop');
}

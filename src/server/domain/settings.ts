import { eq, sql } from 'drizzle-orm';
import { fromCents, toCents } from '../../shared/money.js';
import type { PricingSettings } from '../../shared/pricing.js';
import type { PublicSettings, SettingsUpdateBody, ShopSettings } from '../../shared/schemas/settings.js';
import type { Db, Queryable } from '../db/client.js';
import { shopSettings } from '../db/schema.js';
import type { CatalogueChanges } from './catalogue-changes.js';

/**
 * The merchant's settings (docs/settings.md): one row, made with the defaults at start-up
 * (ensureSettings).
 * Requests read them through the settings cache (cache/settings-cache.ts); an order's transaction
 * and a mail's read them here, directly, so a price or a mail follows the settings as committed.
 */

type SettingsRow = typeof shopSettings.$inferSelect;

function toSettingsJson(row: SettingsRow): ShopSettings {
  return {
    shopName: row.shopName,
    contactPhone: row.contactPhone,
    contactEmail: row.contactEmail,
    taxPercent: row.taxBasisPoints / 100,
    shippingFee: fromCents(row.shippingFeeCents),
    freeShippingThreshold: fromCents(row.freeShippingThresholdCents),
    lowStockThreshold: row.lowStockThreshold,
    alertEmail: row.alertEmail,
    alertOnUnpaidOrders: row.alertOnUnpaidOrders,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Makes the settings row with the defaults if there is none; run at start-up, under the start-up lock. */
export async function ensureSettings(db: Db): Promise<void> {
  await db.insert(shopSettings).values({ id: 1 }).onConflictDoNothing();
}

/** The settings as committed, in the caller's transaction when there is one. */
export async function readSettings(db: Queryable): Promise<ShopSettings> {
  const [row] = await db.select().from(shopSettings).where(eq(shopSettings.id, 1));
  if (!row) throw new Error('the shop_settings row is missing (the shop makes it at start-up)');
  return toSettingsJson(row);
}

export function pricingOf(settings: ShopSettings): PricingSettings {
  return {
    taxPercent: settings.taxPercent,
    shippingFee: settings.shippingFee,
    freeShippingThreshold: settings.freeShippingThreshold,
  };
}

/** What GET /api/settings answers: everything the storefront shows, not where alerts go. */
export function publicSettingsOf(settings: ShopSettings): PublicSettings {
  return {
    shopName: settings.shopName,
    contactPhone: settings.contactPhone,
    contactEmail: settings.contactEmail,
    taxPercent: settings.taxPercent,
    shippingFee: settings.shippingFee,
    freeShippingThreshold: settings.freeShippingThreshold,
    lowStockThreshold: settings.lowStockThreshold,
  };
}

/**
 * Changes the settings given (the others keep their values). Orders already placed keep the
 * figures they were priced with: nothing here touches them. Every instance's cache learns of the
 * change through the catalogue's feed, after the write has committed.
 */
export async function updateSettings(db: Db, changes: CatalogueChanges, body: SettingsUpdateBody): Promise<ShopSettings> {
  const [row] = await db
    .update(shopSettings)
    .set({
      shopName: body.shopName,
      contactPhone: body.contactPhone,
      contactEmail: body.contactEmail,
      taxBasisPoints: body.taxPercent === undefined ? undefined : Math.round(body.taxPercent * 100),
      shippingFeeCents: body.shippingFee === undefined ? undefined : toCents(body.shippingFee),
      freeShippingThresholdCents: body.freeShippingThreshold === undefined ? undefined : toCents(body.freeShippingThreshold),
      lowStockThreshold: body.lowStockThreshold,
      alertEmail: body.alertEmail,
      alertOnUnpaidOrders: body.alertOnUnpaidOrders,
      updatedAt: sql`now()`,
    })
    .where(eq(shopSettings.id, 1))
    .returning();
  if (!row) throw new Error('the shop_settings row is missing (the shop makes it at start-up)');
  await changes.committed({ products: [], listing: false, settings: true });
  return toSettingsJson(row);
}

import { z } from 'zod';
import { normaliseMsisdn } from '../phone.js';
import { formBoolean, formInteger, formNumber, kshAmount, requiredText } from './common.js';

/**
 * The merchant's settings (docs/settings.md). Money is in Ksh with at most two decimals, as
 * everywhere in the API; the tax rate is a percentage with at most two decimals.
 */

const SHOP_NAME_MAX = 60;
/** The most stock a low-stock alert can watch for: above any shelf a small shop keeps. */
const LOW_STOCK_MAX = 1_000_000;

const anEmail = z.email();

/** An email address, or empty for none. */
function optionalEmail(label: string) {
  return z
    .string({ error: `${label} must be text` })
    .trim()
    .toLowerCase()
    .max(254, { error: `${label} is too long` })
    .refine((v) => v === '' || anEmail.safeParse(v).success, { error: `${label} must be a valid email address, or empty` });
}

/** A Safaricom number as the shop writes every phone (2547XXXXXXXX), or empty. */
const contactPhone = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim() : v),
  z
    .string({ error: 'Contact phone must be text' })
    .max(20, { error: 'Contact phone must be a Safaricom number like 0712345678 or +254712345678' })
    .transform((v, ctx) => {
      if (v === '') return '';
      const msisdn = normaliseMsisdn(v);
      if (msisdn) return msisdn;
      ctx.addIssue({ code: 'custom', message: 'Contact phone must be a Safaricom number like 0712345678 or +254712345678' });
      return z.NEVER;
    }),
);

const taxPercent = formNumber('Tax percent')
  .refine((n) => n >= 0, { error: 'Tax percent cannot be negative' })
  .refine((n) => n <= 100, { error: 'Tax percent must be at most 100' })
  .refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, { error: 'Tax percent can have at most 2 decimals' });

const lowStockThreshold = formInteger('Low-stock threshold')
  .refine((n) => n >= 0, { error: 'Low-stock threshold cannot be negative' })
  .refine((n) => n <= LOW_STOCK_MAX, { error: `Low-stock threshold must be at most ${LOW_STOCK_MAX.toLocaleString('en-KE')}` });

/** Each setting's rule, shared by the body and the web form. */
export const settingsFields = {
  shopName: requiredText('Shop name', SHOP_NAME_MAX),
  contactPhone,
  contactEmail: optionalEmail('Contact email'),
  taxPercent,
  shippingFee: kshAmount('Delivery fee'),
  freeShippingThreshold: kshAmount('Free delivery threshold'),
  lowStockThreshold,
  alertEmail: optionalEmail('Alert email'),
  alertOnUnpaidOrders: formBoolean('Alert on unpaid orders'),
};

/**
 * PUT /api/admin/settings: the settings to change. A setting left out keeps its value, so a
 * client that knows only some of them cannot reset the others.
 */
export const settingsUpdateBody = z.object({
  shopName: settingsFields.shopName.optional(),
  contactPhone: settingsFields.contactPhone.optional(),
  contactEmail: settingsFields.contactEmail.optional(),
  taxPercent: settingsFields.taxPercent.optional(),
  shippingFee: settingsFields.shippingFee.optional(),
  freeShippingThreshold: settingsFields.freeShippingThreshold.optional(),
  lowStockThreshold: settingsFields.lowStockThreshold.optional(),
  alertEmail: settingsFields.alertEmail.optional(),
  alertOnUnpaidOrders: settingsFields.alertOnUnpaidOrders.optional(),
});
export type SettingsUpdateBody = z.infer<typeof settingsUpdateBody>;

/** What the storefront needs: everything but where the merchant's alerts go. */
export const publicSettings = z.object({
  shopName: z.string(),
  contactPhone: z.string(),
  contactEmail: z.string(),
  taxPercent: z.number(),
  shippingFee: z.number(),
  freeShippingThreshold: z.number(),
  lowStockThreshold: z.number(),
});
export type PublicSettings = z.infer<typeof publicSettings>;

/** GET/PUT /api/admin/settings: every setting. */
export const shopSettings = publicSettings.extend({
  alertEmail: z.string(),
  alertOnUnpaidOrders: z.boolean(),
  updatedAt: z.string(),
});
export type ShopSettings = z.infer<typeof shopSettings>;

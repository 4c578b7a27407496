// First, before any schema parses: no eval under the shop's CSP (see zod-jitless.ts).
import '../../zod-jitless';
import { type SettingsUpdateBody, type ShopSettings, settingsUpdateBody } from '../../../shared/schemas/settings';

/** The settings form as typed: numbers stay text until checked. */
export interface SettingsFields {
  shopName: string;
  contactPhone: string;
  contactEmail: string;
  taxPercent: string;
  shippingFee: string;
  freeShippingThreshold: string;
  lowStockThreshold: string;
  alertEmail: string;
  alertOnUnpaidOrders: boolean;
}

export type SettingsTextField = Exclude<keyof SettingsFields, 'alertOnUnpaidOrders'>;
export type SettingsFieldErrors = Partial<Record<SettingsTextField, string>>;

export type SettingsCheck = { ok: true; settings: SettingsUpdateBody } | { ok: false; errors: SettingsFieldErrors };

const TEXT_FIELDS: readonly SettingsTextField[] = [
  'shopName',
  'contactPhone',
  'contactEmail',
  'taxPercent',
  'shippingFee',
  'freeShippingThreshold',
  'lowStockThreshold',
  'alertEmail',
];

function isTextField(key: PropertyKey | undefined): key is SettingsTextField {
  return TEXT_FIELDS.includes(key as SettingsTextField);
}

/** 254712345678 as the merchant typed it: 0712345678. */
function localPhone(msisdn: string): string {
  return msisdn.startsWith('254') ? `0${msisdn.slice(3)}` : msisdn;
}

export function fieldsOf(settings: ShopSettings): SettingsFields {
  return {
    shopName: settings.shopName,
    contactPhone: localPhone(settings.contactPhone),
    contactEmail: settings.contactEmail,
    taxPercent: String(settings.taxPercent),
    shippingFee: String(settings.shippingFee),
    freeShippingThreshold: String(settings.freeShippingThreshold),
    lowStockThreshold: String(settings.lowStockThreshold),
    alertEmail: settings.alertEmail,
    alertOnUnpaidOrders: settings.alertOnUnpaidOrders,
  };
}

/** Checks the form with the server's own schema (same rules, same messages) before sending. */
export function checkSettings(fields: SettingsFields): SettingsCheck {
  const parsed = settingsUpdateBody.safeParse(fields);
  if (!parsed.success) {
    const errors: SettingsFieldErrors = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (isTextField(field) && !errors[field]) errors[field] = issue.message;
    }
    return { ok: false, errors };
  }
  return { ok: true, settings: parsed.data };
}

import { SHOP_NAME } from '../../shared/constants';
import { DEFAULT_PRICING } from '../../shared/pricing';
import type { PublicSettings } from '../../shared/schemas/settings';
import { api } from './api';

/**
 * The shop's settings (docs/settings.md). The storefront reads GET /api/settings once per visit
 * (the header asks, every other screen shares its answer); an admin's change reloads it. Shared
 * by every screen and the cart's totals; the admin's settings screen is features/settings.
 */
export const shopSettingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getSettings: build.query<PublicSettings, void>({
      query: () => '/settings',
      providesTags: ['Settings'],
      // Small, and wanted on every screen: kept for the whole visit.
      keepUnusedDataFor: 24 * 60 * 60,
    }),
  }),
});

export const { useGetSettingsQuery } = shopSettingsApi;

/** What a new shop has: shown until the settings arrive (or if they cannot be read). */
export const FALLBACK_SETTINGS: PublicSettings = {
  shopName: SHOP_NAME,
  contactPhone: '',
  contactEmail: '',
  ...DEFAULT_PRICING,
  lowStockThreshold: 5,
};

/** The settings as the storefront shows them: the shop's, or the defaults until they arrive. */
export function useShopSettings(): PublicSettings {
  const { data } = useGetSettingsQuery();
  return data ?? FALLBACK_SETTINGS;
}

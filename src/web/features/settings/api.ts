import type { SettingsUpdateBody, ShopSettings } from '../../../shared/schemas/settings';
import { api } from '../../lib/api';

/** The admin's settings calls (docs/settings.md): saving reloads the storefront's settings too (the shared 'Settings' tag). */
export const settingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getAdminSettings: build.query<ShopSettings, void>({
      query: () => '/admin/settings',
      providesTags: ['Settings'],
    }),
    updateSettings: build.mutation<ShopSettings, SettingsUpdateBody>({
      query: (body) => ({ url: '/admin/settings', method: 'PUT', body }),
      invalidatesTags: ['Settings'],
    }),
  }),
});

export const { useGetAdminSettingsQuery, useUpdateSettingsMutation } = settingsApi;

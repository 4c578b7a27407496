import type { Dashboard } from '../../../shared/schemas/dashboard';
import { api } from '../../lib/api';

/** The admin dashboard: every figure in one call (GET /api/admin/dashboard). */
export const dashboardApi = api.injectEndpoints({
  endpoints: (build) => ({
    getDashboard: build.query<Dashboard, void>({
      query: () => '/admin/dashboard',
      // Orders and products change under it: ask again whenever the dashboard is opened.
      keepUnusedDataFor: 0,
      providesTags: [
        { type: 'Order', id: 'LIST' },
        { type: 'Product', id: 'LIST' },
      ],
    }),
  }),
});

export const { useGetDashboardQuery } = dashboardApi;

import {
  type BaseQueryFn,
  createApi,
  type FetchArgs,
  type FetchBaseQueryError,
  fetchBaseQuery,
} from '@reduxjs/toolkit/query/react';
import { signedOut } from '../stores/auth-slice';

/** The XSRF token the server set in a readable cookie, echoed on every request (docs/product-rules.md, API). */
function xsrfToken(): string | undefined {
  const match = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(document.cookie);
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

const rawBaseQuery = fetchBaseQuery({
  baseUrl: '/api',
  credentials: 'same-origin',
  prepareHeaders: (headers) => {
    const token = xsrfToken();
    if (token) headers.set('X-XSRF-TOKEN', token);
    return headers;
  },
});

/** Any 401 means the session is gone (signed out elsewhere, expired, revoked): forget the user here too. */
const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (args, api, extraOptions) => {
  const result = await rawBaseQuery(args, api, extraOptions);
  if (result.error?.status === 401) api.dispatch(signedOut());
  return result;
};

/**
 * One API for the whole app; each feature injects its endpoints from its own api.ts.
 * Tags let a change reload what it affects (a review reloads its product, marking paid reloads the order).
 */
export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: ['Product', 'Order', 'User', 'Settings'],
  endpoints: () => ({}),
});

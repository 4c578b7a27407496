import type { ProductSort } from '../../shared/constants';
import { routePath } from '../../shared/routes';
import type { LedgerFilter } from '../../shared/schemas/payments';

/** Navigation state telling the sign-in screen that an admin account is needed (see AdminRoute in app/guards.tsx). */
export interface LoginState {
  adminRequired?: boolean;
}

/** The listing's order and price range: query parameters, so a link or a reload keeps them. */
export interface ListingFilters {
  /** A search's category: a search narrows to one by the query, a category page names its own in the path. */
  category?: string;
  sort?: ProductSort;
  minPrice?: number;
  maxPrice?: number;
}

/** `?category=…&sort=…&minPrice=…&maxPrice=…` of the filters given, or '' for none. */
export function listingQuery(filters: ListingFilters): string {
  const query = new URLSearchParams();
  if (filters.category) query.set('category', filters.category);
  if (filters.sort) query.set('sort', filters.sort);
  if (filters.minPrice !== undefined) query.set('minPrice', String(filters.minPrice));
  if (filters.maxPrice !== undefined) query.set('maxPrice', String(filters.maxPrice));
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** A path as a query value; slashes stay readable, as in the specification's /login?redirect=/shipping. */
function redirectParam(path: string): string {
  return encodeURIComponent(path).replaceAll('%2F', '/');
}

/** A route's address with its parameters: the patterns are src/shared/routes.ts's, so a link and its route never disagree. */
const to = routePath;

/** The links of every route of the app: no screen hard-codes a URL. */
export const paths = {
  home: to('home', {}),
  page: (page: number) => (page <= 1 ? to('home', {}) : to('homePage', { pageNumber: String(page) })),
  search: (keyword: string, page = 1) =>
    page <= 1 ? to('search', { keyword }) : to('searchPage', { keyword, pageNumber: String(page) }),
  category: (name: string, page = 1) =>
    page <= 1 ? to('category', { category: name }) : to('categoryPage', { category: name, pageNumber: String(page) }),
  product: (id: string) => to('product', { id }),
  cart: to('cart', {}),
  login: (redirect?: string) => withRedirect(to('login', {}), redirect),
  register: (redirect?: string) => withRedirect(to('register', {}), redirect),
  forgotPassword: to('forgotPassword', {}),
  resetPassword: (token: string) => to('resetPassword', { token }),
  profile: to('profile', {}),
  shipping: to('shipping', {}),
  placeOrder: to('placeOrder', {}),
  order: (id: string) => to('order', { id }),
  admin: {
    /** The dashboard: the Admin menu's first item. */
    dashboard: to('adminDashboard', {}),
    orders: to('adminOrders', {}),
    /** The order list with some of its filters, as the dashboard links to it. */
    ordersWhere: (filters: { isPaid?: boolean; isDelivered?: boolean; to?: string }) => {
      const query = new URLSearchParams();
      if (filters.isPaid !== undefined) query.set('isPaid', String(filters.isPaid));
      if (filters.isDelivered !== undefined) query.set('isDelivered', String(filters.isDelivered));
      if (filters.to) query.set('to', filters.to);
      return withQuery(to('adminOrders', {}), query);
    },
    /** An order's packing slip, to print on A4 or a receipt printer. */
    slip: (id: string) => to('adminPackingSlip', { id }),
    products: (page = 1) => (page <= 1 ? to('adminProducts', {}) : to('adminProductsPage', { pageNumber: String(page) })),
    productEdit: (id: string) => to('adminProductEdit', { id }),
    users: to('adminUsers', {}),
    mail: to('adminMail', {}),
    settings: to('adminSettings', {}),
    /** The payment ledger; the filter and page live in the query string, so a view can be linked. */
    payments: (status: LedgerFilter = 'all', page = 1) => {
      const query = new URLSearchParams();
      if (status !== 'all') query.set('status', status);
      if (page > 1) query.set('pageNumber', String(page));
      return withQuery(to('adminPayments', {}), query);
    },
    userEdit: (id: string) => to('adminUserEdit', { id }),
  },
} as const;

function withQuery(path: string, query: URLSearchParams): string {
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function withRedirect(path: string, redirect: string | undefined): string {
  return redirect && redirect !== '/' ? `${path}?redirect=${redirectParam(redirect)}` : path;
}

/** Tab, CR, LF and every other control character: browsers drop some of them from URLs. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Any origin will do: only whether a target stays on it matters. */
const PROBE_ORIGIN = 'https://duka.invalid';

/**
 * A redirect target from the query string, only if it is a path on this site; anything else goes
 * home. An open redirect to another site is never followed: not "//evil.example", not "/\\evil",
 * not "/%09/evil.example" (a browser drops the tab and reads "//evil.example"), not a full URL,
 * and not a path that turns into one of those once decoded again.
 */
export function safeRedirect(value: string | null): string {
  if (!value || !isSamePath(value)) return '/';
  let decoded = value;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return '/';
  }
  if (!isSamePath(decoded)) return '/';
  return value;
}

function isSamePath(value: string): boolean {
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\') || CONTROL.test(value)) return false;
  try {
    return new URL(value, PROBE_ORIGIN).origin === PROBE_ORIGIN;
  } catch {
    return false;
  }
}

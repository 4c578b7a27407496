import { matchRoutes } from 'react-router';

/**
 * The web app's one route table (docs/product-rules.md, Screens): every screen's address, its
 * code, and who may open it, by route id. The router (src/web/app/router.tsx), the link helpers
 * (src/web/config/paths.ts), the build's list of preloads (vite.config.ts) and the server (which
 * names a screen's code in the page's head, and redacts secret parameters from its logs) are all
 * built from it. No React here, so the server and the build can import it.
 *
 * `screen`: the screen's module, as a path under src/web (also its key in the build's manifest);
 * its feature folder is its domain (docs/architecture.md).
 *
 * `guard`: who may open it: anyone, a signed-in shopper, or an admin (the server checks again).
 *
 * `preload`: the server names the screen's code and styles in the page's head when a visitor
 * opens this address first, so they download with the app's code rather than after it. Worth it
 * for the addresses a visitor arrives at from outside (a shared product link, a reset e-mail).
 *
 * `secretParams`: parameters that are credentials; the server's logs show them as [redacted]
 * (src/server/lib/secret-params.ts).
 */
export const ROUTES = {
  home: { pattern: '/', screen: 'features/products/home-screen.tsx', guard: 'public', preload: false },
  homePage: { pattern: '/page/:pageNumber', screen: 'features/products/home-screen.tsx', guard: 'public', preload: false },
  search: { pattern: '/search/:keyword', screen: 'features/products/home-screen.tsx', guard: 'public', preload: false },
  searchPage: {
    pattern: '/search/:keyword/page/:pageNumber',
    screen: 'features/products/home-screen.tsx',
    guard: 'public',
    preload: false,
  },
  category: { pattern: '/category/:category', screen: 'features/products/home-screen.tsx', guard: 'public', preload: false },
  categoryPage: {
    pattern: '/category/:category/page/:pageNumber',
    screen: 'features/products/home-screen.tsx',
    guard: 'public',
    preload: false,
  },
  product: { pattern: '/products/:id', screen: 'features/products/product-screen.tsx', guard: 'public', preload: true },
  cart: { pattern: '/cart', screen: 'features/cart/cart-screen.tsx', guard: 'public', preload: true },
  login: { pattern: '/login', screen: 'features/users/login-screen.tsx', guard: 'public', preload: true },
  register: { pattern: '/register', screen: 'features/users/register-screen.tsx', guard: 'public', preload: true },
  forgotPassword: {
    pattern: '/forgot-password',
    screen: 'features/users/forgot-password-screen.tsx',
    guard: 'public',
    preload: true,
  },
  resetPassword: {
    pattern: '/reset-password/:token',
    screen: 'features/users/reset-password-screen.tsx',
    guard: 'public',
    preload: true,
    secretParams: ['token'],
  },
  profile: { pattern: '/profile', screen: 'features/users/profile-screen.tsx', guard: 'signedIn', preload: false },
  shipping: { pattern: '/shipping', screen: 'features/checkout/shipping-screen.tsx', guard: 'signedIn', preload: false },
  placeOrder: { pattern: '/place-order', screen: 'features/checkout/place-order-screen.tsx', guard: 'signedIn', preload: false },
  order: { pattern: '/order/:id', screen: 'features/orders/order-screen.tsx', guard: 'signedIn', preload: false },
  adminDashboard: { pattern: '/admin', screen: 'features/dashboard/dashboard-screen.tsx', guard: 'admin', preload: false },
  adminPackingSlip: {
    pattern: '/admin/order/:id/slip',
    screen: 'features/orders/packing-slip-screen.tsx',
    guard: 'admin',
    preload: false,
  },
  adminOrders: { pattern: '/admin/orderlist', screen: 'features/orders/order-list-screen.tsx', guard: 'admin', preload: false },
  adminProducts: {
    pattern: '/admin/productlist',
    screen: 'features/products/product-list-screen.tsx',
    guard: 'admin',
    preload: false,
  },
  adminProductsPage: {
    pattern: '/admin/productlist/page/:pageNumber',
    screen: 'features/products/product-list-screen.tsx',
    guard: 'admin',
    preload: false,
  },
  adminProductEdit: {
    pattern: '/admin/product/:id/edit',
    screen: 'features/products/product-edit-screen.tsx',
    guard: 'admin',
    preload: false,
  },
  adminUsers: { pattern: '/admin/userlist', screen: 'features/users/user-list-screen.tsx', guard: 'admin', preload: false },
  adminMail: { pattern: '/admin/mail', screen: 'features/mail/mail-list-screen.tsx', guard: 'admin', preload: false },
  adminPayments: {
    pattern: '/admin/payments',
    screen: 'features/payments/payment-list-screen.tsx',
    guard: 'admin',
    preload: false,
  },
  adminSettings: { pattern: '/admin/settings', screen: 'features/settings/settings-screen.tsx', guard: 'admin', preload: false },
  // Outside the admin guard, as the specification places it; the server refuses non-admins.
  adminUserEdit: { pattern: '/admin/user/:id', screen: 'features/users/user-edit-screen.tsx', guard: 'public', preload: false },
} as const satisfies Record<string, Route>;

/** Who may open a screen: anyone, a signed-in shopper, or an admin. */
export type Guard = 'public' | 'signedIn' | 'admin';

/** A screen's module, as a path under src/web. */
export type ScreenModule = `${'features' | 'components'}/${string}-screen.tsx`;

interface Route {
  pattern: string;
  screen: ScreenModule;
  guard: Guard;
  preload: boolean;
  secretParams?: readonly string[];
}

export type RouteId = keyof typeof ROUTES;

export const ROUTE_IDS = Object.keys(ROUTES) as RouteId[];

/** The listing ships in the first bundle: every other screen loads when first visited. */
export const EAGER_SCREENS: readonly ScreenModule[] = ['features/products/home-screen.tsx'];

/** The screen shown at an address of no route. */
export const NOT_FOUND_SCREEN: ScreenModule = 'components/not-found-screen.tsx';

/**
 * The screen of every route the server preloads, by route id: written by the build as
 * .vite/routes.json, which the server reads beside the build's manifest. A listing route has
 * nothing to preload: its screen is in the first bundle already.
 */
export function preloadScreens(): Partial<Record<RouteId, ScreenModule>> {
  const screens: Partial<Record<RouteId, ScreenModule>> = {};
  for (const id of ROUTE_IDS) {
    const route: Route = ROUTES[id];
    if (route.preload && !EAGER_SCREENS.includes(route.screen)) screens[id] = route.screen;
  }
  return screens;
}

/** The `:name` parameters of a pattern, as an object type: `'/order/:id'` gives `{ id: string }`. */
type ParamsOf<Pattern extends string> = Pattern extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : Pattern extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;

export type RouteParams<Id extends RouteId> = ParamsOf<(typeof ROUTES)[Id]['pattern']>;

/**
 * The address of a route with its parameters filled in, each encoded as one path segment
 * (a keyword with a slash stays one segment: `/search/TV%2FAudio`).
 */
export function routePath<Id extends RouteId>(id: Id, params: RouteParams<Id>): string {
  const values = params as Record<string, string>;
  return ROUTES[id].pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

/** Whether every segment of a pathname decodes: react-router would warn on the console and match the raw text. */
function decodable(pathname: string): boolean {
  try {
    for (const segment of pathname.split('/')) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** The route table as react-router's matcher takes it. */
const MATCHABLE = ROUTE_IDS.map((id) => ({ id, path: ROUTES[id].pattern }));

/**
 * The route a pathname shows, with its parameters (decoded), or undefined for an address of no
 * screen: react-router's own matching (case-insensitive, a trailing slash allowed, the best
 * ranked route first), so the server and the browser agree on every address.
 */
export function matchRoute(pathname: string): { id: RouteId; params: Record<string, string> } | undefined {
  if (!decodable(pathname)) return undefined;
  const match = matchRoutes(MATCHABLE, pathname)?.[0];
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(match.params)) if (value !== undefined) params[name] = value;
  return { id: match.route.id, params };
}

/**
 * The header's search form as the browser submits it before the app runs: the server answers its
 * action with a redirect to searchAddress (src/server/plugins/shop/web.ts).
 */
export const SEARCH_FORM = { action: '/search', keyword: 'q', category: 'category' } as const;

/** Where a search goes: the keyword's results, kept to a category if one is given, or home for a blank keyword. */
export function searchAddress(keyword: string, category = ''): string {
  const trimmed = keyword.trim();
  if (!trimmed) return ROUTES.home.pattern;
  return routePath('search', { keyword: trimmed }) + (category ? `?${new URLSearchParams({ category })}` : '');
}

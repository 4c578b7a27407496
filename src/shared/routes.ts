/**
 * The addresses of the web app's screens (docs/product-rules.md, Screens), by route id: the one
 * list both the web app (its routes, screens, guards and link helpers, src/web/app/screens.ts and router.tsx)
 * and the server (which names a screen's code in the page's head, src/server/plugins/shop/web.ts)
 * are built from. No React here, so the server can import it.
 *
 * `preload`: the server names the screen's code and styles in the page's head when a visitor
 * opens this address first, so they download with the app's code rather than after it. Worth it
 * for the addresses a visitor arrives at from outside (a shared product link, a reset e-mail).
 *
 * `secretParams`: parameters that are credentials; the server's logs show them as [redacted]
 * (src/server/lib/secret-params.ts).
 */
export const ROUTES = {
  home: { pattern: '/', preload: false },
  homePage: { pattern: '/page/:pageNumber', preload: false },
  search: { pattern: '/search/:keyword', preload: false },
  searchPage: { pattern: '/search/:keyword/page/:pageNumber', preload: false },
  category: { pattern: '/category/:category', preload: false },
  categoryPage: { pattern: '/category/:category/page/:pageNumber', preload: false },
  product: { pattern: '/products/:id', preload: true },
  cart: { pattern: '/cart', preload: true },
  login: { pattern: '/login', preload: true },
  register: { pattern: '/register', preload: true },
  forgotPassword: { pattern: '/forgot-password', preload: true },
  resetPassword: { pattern: '/reset-password/:token', preload: true, secretParams: ['token'] },
  profile: { pattern: '/profile', preload: false },
  shipping: { pattern: '/shipping', preload: false },
  placeOrder: { pattern: '/place-order', preload: false },
  order: { pattern: '/order/:id', preload: false },
  adminDashboard: { pattern: '/admin', preload: false },
  adminPackingSlip: { pattern: '/admin/order/:id/slip', preload: false },
  adminOrders: { pattern: '/admin/orderlist', preload: false },
  adminProducts: { pattern: '/admin/productlist', preload: false },
  adminProductsPage: { pattern: '/admin/productlist/page/:pageNumber', preload: false },
  adminProductEdit: { pattern: '/admin/product/:id/edit', preload: false },
  adminUsers: { pattern: '/admin/userlist', preload: false },
  adminMail: { pattern: '/admin/mail', preload: false },
  adminPayments: { pattern: '/admin/payments', preload: false },
  adminSettings: { pattern: '/admin/settings', preload: false },
  adminUserEdit: { pattern: '/admin/user/:id', preload: false },
} as const satisfies Record<string, { pattern: string; preload: boolean; secretParams?: readonly string[] }>;

export type RouteId = keyof typeof ROUTES;

export const ROUTE_IDS = Object.keys(ROUTES) as RouteId[];

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

/** A pattern as a regular expression over a pathname: a parameter is one non-empty segment; a trailing slash is allowed. */
function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')))
    .join('/');
  // Case-insensitive, as the web app's router matches.
  return new RegExp(`^${body}/?$`, 'i');
}

const MATCHERS = ROUTE_IDS.map((id) => {
  const pattern = ROUTES[id].pattern;
  return { id, regExp: patternRegExp(pattern), names: [...pattern.matchAll(/:(\w+)/g)].map((m) => m[1]!) };
});

/** The route a pathname shows, with its parameters (decoded), or undefined for an address of no screen. */
export function matchRoute(pathname: string): { id: RouteId; params: Record<string, string> } | undefined {
  for (const { id, regExp, names } of MATCHERS) {
    const found = regExp.exec(pathname);
    if (!found) continue;
    const params: Record<string, string> = {};
    try {
      names.forEach((name, i) => {
        params[name] = decodeURIComponent(found[i + 1]!);
      });
    } catch {
      return undefined;
    }
    return { id, params };
  }
  return undefined;
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

import type { RouteId } from '../../shared/routes';

/** Who may open a screen: anyone, a signed-in shopper, or an admin (the server checks again). */
export type Guard = 'public' | 'signedIn' | 'admin';

/** A screen's module, as a path under src/web: also its key in the build's manifest. */
export type ScreenModule = `${'features' | 'components'}/${string}Screen.tsx`;

/**
 * The screen and guard of every route of src/shared/routes.ts, by the same id. Adding a screen is
 * one entry there and one here. Plain data with no React, so vite.config.ts can read it too: the
 * build writes which module each route loads (.vite/routes.json) for the server's preloads.
 */
export const SCREENS = {
  home: { module: 'features/catalog/HomeScreen.tsx', guard: 'public' },
  homePage: { module: 'features/catalog/HomeScreen.tsx', guard: 'public' },
  search: { module: 'features/catalog/HomeScreen.tsx', guard: 'public' },
  searchPage: { module: 'features/catalog/HomeScreen.tsx', guard: 'public' },
  category: { module: 'features/catalog/HomeScreen.tsx', guard: 'public' },
  categoryPage: { module: 'features/catalog/HomeScreen.tsx', guard: 'public' },
  product: { module: 'features/catalog/ProductScreen.tsx', guard: 'public' },
  cart: { module: 'features/cart/CartScreen.tsx', guard: 'public' },
  login: { module: 'features/account/LoginScreen.tsx', guard: 'public' },
  register: { module: 'features/account/RegisterScreen.tsx', guard: 'public' },
  forgotPassword: { module: 'features/account/ForgotPasswordScreen.tsx', guard: 'public' },
  resetPassword: { module: 'features/account/ResetPasswordScreen.tsx', guard: 'public' },
  profile: { module: 'features/account/ProfileScreen.tsx', guard: 'signedIn' },
  shipping: { module: 'features/checkout/ShippingScreen.tsx', guard: 'signedIn' },
  placeOrder: { module: 'features/checkout/PlaceOrderScreen.tsx', guard: 'signedIn' },
  order: { module: 'features/orders/OrderScreen.tsx', guard: 'signedIn' },
  adminDashboard: { module: 'features/admin/DashboardScreen.tsx', guard: 'admin' },
  adminPackingSlip: { module: 'features/admin/PackingSlipScreen.tsx', guard: 'admin' },
  adminOrders: { module: 'features/admin/OrderListScreen.tsx', guard: 'admin' },
  adminProducts: { module: 'features/admin/ProductListScreen.tsx', guard: 'admin' },
  adminProductsPage: { module: 'features/admin/ProductListScreen.tsx', guard: 'admin' },
  adminProductEdit: { module: 'features/admin/ProductEditScreen.tsx', guard: 'admin' },
  adminUsers: { module: 'features/admin/UserListScreen.tsx', guard: 'admin' },
  adminMail: { module: 'features/admin/MailListScreen.tsx', guard: 'admin' },
  adminPayments: { module: 'features/admin/PaymentListScreen.tsx', guard: 'admin' },
  adminSettings: { module: 'features/admin/SettingsScreen.tsx', guard: 'admin' },
  // Outside the admin guard, as the specification places it; the server refuses non-admins.
  adminUserEdit: { module: 'features/admin/UserEditScreen.tsx', guard: 'public' },
} as const satisfies Record<RouteId, { module: ScreenModule; guard: Guard }>;

/** The listing ships in the first bundle: every other screen loads when first visited. */
export const EAGER_MODULES: readonly ScreenModule[] = ['features/catalog/HomeScreen.tsx'];

/** The screen shown at an address of no route. */
export const NOT_FOUND_MODULE: ScreenModule = 'components/NotFoundScreen.tsx';

/**
 * The module of every route the server preloads (`preload` in src/shared/routes.ts), by route id:
 * written by the build as .vite/routes.json, which the server reads beside the build's manifest.
 * A listing route has nothing to preload: its screen is in the first bundle already. The table is
 * a parameter so that this file imports nothing at run time (vite.config.ts loads it as it is).
 */
export function preloadModules(routes: Record<RouteId, { preload: boolean }>): Partial<Record<RouteId, ScreenModule>> {
  const modules: Partial<Record<RouteId, ScreenModule>> = {};
  for (const id of Object.keys(routes) as RouteId[]) {
    const module: ScreenModule = SCREENS[id].module;
    if (routes[id].preload && !EAGER_MODULES.includes(module)) modules[id] = module;
  }
  return modules;
}

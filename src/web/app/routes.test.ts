import { describe, expect, it } from 'vitest';
import { EAGER_SCREENS, matchRoute, NOT_FOUND_SCREEN, preloadScreens, ROUTE_IDS, ROUTES, routePath } from '../../shared/routes';
import { paths } from '../config/paths';

/** Every screen module under src/web, as `features/…/x-screen.tsx` (not loaded: only the names). */
const EXISTING = new Set(
  Object.keys(import.meta.glob(['../features/**/*-screen.tsx', '../components/**/*-screen.tsx'])).map((key) =>
    key.replace(/^\.\.\//, ''),
  ),
);
const existsSync = (module: string) => EXISTING.has(module);

describe('the route table', () => {
  it('gives every route a screen that exists, and every screen a route', () => {
    for (const id of ROUTE_IDS) expect(existsSync(ROUTES[id].screen), `${id}: ${ROUTES[id].screen}`).toBe(true);
    expect(existsSync(NOT_FOUND_SCREEN)).toBe(true);
    const routed = new Set<string>([...ROUTE_IDS.map((id) => ROUTES[id].screen), NOT_FOUND_SCREEN]);
    expect([...EXISTING].filter((module) => !routed.has(module))).toEqual([]);
  });

  it('keeps every admin screen behind the admin guard but the one the specification leaves outside it', () => {
    const unguarded = ROUTE_IDS.filter((id) => ROUTES[id].pattern.startsWith('/admin') && ROUTES[id].guard !== 'admin');
    expect(unguarded).toEqual(['adminUserEdit']);
  });

  it('names, for the server, the screen of every route it preloads, and only those that are loaded lazily', () => {
    const flagged = ROUTE_IDS.filter((id) => ROUTES[id].preload);
    expect(flagged.length).toBeGreaterThan(0);
    const screens = preloadScreens();
    expect(Object.keys(screens).sort()).toEqual([...flagged].sort());
    for (const id of flagged) {
      expect(screens[id]).toBe(ROUTES[id].screen);
      expect(EAGER_SCREENS).not.toContain(screens[id]);
    }
  });

  it('matches each address to its route', () => {
    const samples: [string, string | undefined][] = [
      ['/', 'home'],
      ['/page/2', 'homePage'],
      ['/search/chai%20masala/page/3', 'searchPage'],
      ['/products/abc/', 'product'],
      ['/admin', 'adminDashboard'],
      ['/admin/productlist/page/2', 'adminProductsPage'],
      ['/admin/order/o1/slip', 'adminPackingSlip'],
      ['/admin/user/u1', 'adminUserEdit'],
      ['/products', undefined],
      ['/products/a/b', undefined],
      ['/nowhere', undefined],
    ];
    for (const [pathname, id] of samples) {
      expect(matchRoute(pathname)?.id, pathname).toBe(id);
    }
    expect(matchRoute('/search/TV%2FAudio')?.params).toEqual({ keyword: 'TV/Audio' });
    expect(matchRoute('/SEARCH/chai%20masala/')?.params).toEqual({ keyword: 'chai masala' });
    // A segment that does not decode shows no screen (and puts no warning on the server's console).
    expect(matchRoute('/order/%E0%A4%A')).toBeUndefined();
  });

  it('builds every address of the specification as before', () => {
    expect(routePath('order', { id: 'o1' })).toBe('/order/o1');
    expect(paths.home).toBe('/');
    expect(paths.page(1)).toBe('/');
    expect(paths.page(2)).toBe('/page/2');
    expect(paths.search('chai masala')).toBe('/search/chai%20masala');
    expect(paths.search('chai', 2)).toBe('/search/chai/page/2');
    expect(paths.product('p1')).toBe('/products/p1');
    expect(paths.login('/shipping')).toBe('/login?redirect=/shipping');
    expect(paths.login('/')).toBe('/login');
    expect(paths.register('/place-order')).toBe('/register?redirect=/place-order');
    expect(paths.resetPassword('t0k3n')).toBe('/reset-password/t0k3n');
    expect(paths.admin.ordersWhere({ isPaid: false })).toBe('/admin/orderlist?isPaid=false');
    expect(paths.admin.ordersWhere({})).toBe('/admin/orderlist');
    expect(paths.admin.slip('o1')).toBe('/admin/order/o1/slip');
    expect(paths.admin.products(3)).toBe('/admin/productlist/page/3');
    expect(paths.admin.productEdit('p1')).toBe('/admin/product/p1/edit');
    expect(paths.admin.payments('exception', 2)).toBe('/admin/payments?status=exception&pageNumber=2');
    expect(paths.admin.userEdit('u1')).toBe('/admin/user/u1');
  });
});

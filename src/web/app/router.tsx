import type { ComponentType } from 'react';
import { Route, Routes } from 'react-router';
import {
  EAGER_SCREENS,
  type Guard,
  matchRoute,
  NOT_FOUND_SCREEN,
  ROUTE_IDS,
  ROUTES,
  type ScreenModule,
} from '../../shared/routes';
import { type Preloadable, preloadable } from '../lib/preloadable';
import { AdminRoute, PrivateRoute } from './guards';
import Layout from './layout/layout';

/**
 * The routes of the route table (src/shared/routes.ts), each with its screen behind its guard. The home listing ships in
 * the first bundle; every other screen loads when first visited (the layout's Suspense shows a
 * spinner meanwhile), so a shopper on mobile data downloads only what they use. Declarative routes
 * rather than a data router: the app loads its data with RTK Query, and react-router's data router
 * would add about 17 KB (gzip) to the first download for loaders and actions nothing uses.
 */
type Screen = Preloadable;

type ScreenExports = { default: ComponentType };

// Literal patterns, as the bundler needs them: every screen module, each its own chunk but the listing's.
const lazyModules = import.meta.glob<ScreenExports>([
  '../features/*/*-screen.tsx',
  '../components/not-found-screen.tsx',
  '!../features/products/home-screen.tsx',
]);
const eagerModules = import.meta.glob<ScreenExports>('../features/products/home-screen.tsx', { eager: true });

/** One component per module, however many routes show it. */
const screenCache = new Map<ScreenModule, Screen>();

/** The component of a screen module; a module the table names but that does not exist fails at once. */
export function screenOf(module: ScreenModule): Screen {
  const kept = screenCache.get(module);
  if (kept) return kept;
  let screen: Screen;
  const eager = eagerModules[`../${module}`];
  const load = lazyModules[`../${module}`];
  if (EAGER_SCREENS.includes(module)) {
    if (!eager) throw new Error(`no screen module ${module}`);
    const Eager = eager.default;
    screen = Object.assign(() => <Eager />, { preload: () => Promise.resolve() });
  } else {
    if (!load) throw new Error(`no screen module ${module}`);
    screen = preloadable(load);
  }
  screenCache.set(module, screen);
  return screen;
}

const NotFoundScreen = screenOf(NOT_FOUND_SCREEN);

function routesOf(guard: Guard) {
  return ROUTE_IDS.filter((id) => ROUTES[id].guard === guard).map((id) => {
    const Screen = screenOf(ROUTES[id].screen);
    return <Route key={id} path={ROUTES[id].pattern} element={<Screen />} />;
  });
}

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        {routesOf('public')}
        <Route element={<PrivateRoute />}>{routesOf('signedIn')}</Route>
        <Route element={<AdminRoute />}>{routesOf('admin')}</Route>
        <Route path="*" element={<NotFoundScreen />} />
      </Route>
    </Routes>
  );
}

/** Loads the screen this address shows, if it is loaded lazily (the not-found screen for an unknown one). */
export function preloadScreen(pathname: string): Promise<void> {
  const route = matchRoute(pathname);
  return (route ? screenOf(ROUTES[route.id].screen) : NotFoundScreen).preload();
}

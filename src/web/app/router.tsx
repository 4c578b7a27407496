import type { ComponentType } from 'react';
import { Route, Routes } from 'react-router';
import { matchRoute, ROUTE_IDS, ROUTES } from '../../shared/routes';
import { type Preloadable, preloadable } from '../lib/preloadable';
import { AdminRoute, PrivateRoute } from './guards';
import Layout from './layout/Layout';
import { EAGER_MODULES, type Guard, NOT_FOUND_MODULE, SCREENS, type ScreenModule } from './screens';

/**
 * The routes of src/shared/routes.ts with the screens of ./screens.ts. The home listing ships in
 * the first bundle; every other screen loads when first visited (the layout's Suspense shows a
 * spinner meanwhile), so a shopper on mobile data downloads only what they use. Declarative routes
 * rather than a data router: the app loads its data with RTK Query, and react-router's data router
 * would add about 17 KB (gzip) to the first download for loaders and actions nothing uses.
 */
type Screen = Preloadable;

type ScreenExports = { default: ComponentType };

// Literal patterns, as the bundler needs them: every screen module, each its own chunk but the listing's.
const lazyModules = import.meta.glob<ScreenExports>([
  '../features/*/*Screen.tsx',
  '../components/NotFoundScreen.tsx',
  '!../features/catalog/HomeScreen.tsx',
]);
const eagerModules = import.meta.glob<ScreenExports>('../features/catalog/HomeScreen.tsx', { eager: true });

/** One component per module, however many routes show it. */
const screenCache = new Map<ScreenModule, Screen>();

/** The component of a screen module; a module the table names but that does not exist fails at once. */
export function screenOf(module: ScreenModule): Screen {
  const kept = screenCache.get(module);
  if (kept) return kept;
  let screen: Screen;
  const eager = eagerModules[`../${module}`];
  const load = lazyModules[`../${module}`];
  if (EAGER_MODULES.includes(module)) {
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

const NotFoundScreen = screenOf(NOT_FOUND_MODULE);

function routesOf(guard: Guard) {
  return ROUTE_IDS.filter((id) => SCREENS[id].guard === guard).map((id) => {
    const Screen = screenOf(SCREENS[id].module);
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
  return (route ? screenOf(SCREENS[route.id].module) : NotFoundScreen).preload();
}

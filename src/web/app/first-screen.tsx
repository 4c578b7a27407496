import { type ReactNode, StrictMode, useEffect } from 'react';
import { Provider } from 'react-redux';
import { INITIAL_DATA_ID, type InitialData } from '../../shared/initial-data';
import { matchRoute } from '../../shared/routes';
import { productsApi } from '../features/products/api';
import type { AppStore, RootState } from '../stores/store';
import { LIVE_ATTRIBUTE } from './live-marker';
import { AppRoutes } from './router';

/**
 * The first screen, the same on the server (entry-server.tsx) and in the browser (main.tsx): the
 * app's routes inside the store, under the router each side gives it.
 */
export function App({ store, router }: { store: AppStore; router: (routes: ReactNode) => ReactNode }) {
  return (
    <StrictMode>
      <MarkLive />
      <Provider store={store}>{router(<AppRoutes />)}</Provider>
    </StrictMode>
  );
}

/** Marks the page once the app has taken it over, in the browser only: effects do not run on the server. */
function MarkLive() {
  useEffect(() => {
    document.documentElement.setAttribute(LIVE_ATTRIBUTE, 'live');
  }, []);
  return null;
}

/** The API data the server put into the page for its first render, if any (src/server/plugins/shop/web.ts). */
export function initialDataOf(doc: Document): InitialData {
  try {
    const element = doc.getElementById(INITIAL_DATA_ID);
    const text = element instanceof HTMLTemplateElement ? element.content.textContent : undefined;
    return text ? (JSON.parse(text) as InitialData) : {};
  } catch {
    return {};
  }
}

/**
 * Puts the page's data into the API cache, as if the app had asked for it, so the first render
 * shows it. Resolves once it is there. The product of a product page that came without it is
 * asked for now, while its screen's code downloads, rather than after.
 */
export async function seedFirstScreen(store: AppStore, data: InitialData, pathname: string): Promise<void> {
  const seeded: Promise<unknown>[] = [];
  if (data.products) {
    seeded.push(store.dispatch(productsApi.util.upsertQueryData('getProducts', { pageNumber: 1, keyword: '' }, data.products)));
  }
  if (data.top) seeded.push(store.dispatch(productsApi.util.upsertQueryData('getTopProducts', undefined, data.top)));
  if (data.categories) seeded.push(store.dispatch(productsApi.util.upsertQueryData('getCategories', undefined, data.categories)));
  const route = matchRoute(pathname);
  const productId = route?.id === 'product' ? route.params.id : undefined;
  if (data.product && data.product._id === productId) {
    seeded.push(store.dispatch(productsApi.util.upsertQueryData('getProductDetails', productId, data.product)));
  } else if (productId) {
    store.dispatch(productsApi.util.prefetch('getProductDetails', productId, {}));
  }
  await Promise.all(seeded);
}

/**
 * Whether this browser's first render matches the server's, which renders every page as a new
 * visitor sees it: signed out, an empty cart, no payment followed. Only then can the app take the
 * server's HTML over (hydrate) instead of drawing the page again.
 */
export function looksLikeServerRender(state: RootState): boolean {
  return state.auth.user === null && state.cart.cartItems.length === 0 && state.followedPayment.payment === null;
}

import './styles/bootstrap.scss';
import './styles.css';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { BrowserRouter } from 'react-router';
import { INITIAL_DATA_ID, type InitialData } from '../shared/initialData';
import { matchRoute } from '../shared/routes';
import { PaymentBanner } from './app/layout/Layout';
import { AppRoutes, preloadScreen } from './app/router';
import { makeStore } from './app/store';
import { catalogApi } from './lib/catalogApi';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

const store = makeStore();

/** The API data the server put into the page for its first render, if any (src/server/plugins/web.ts). */
function initialData(): InitialData {
  try {
    const element = document.getElementById(INITIAL_DATA_ID);
    const text = element instanceof HTMLTemplateElement ? element.content.textContent : undefined;
    return text ? (JSON.parse(text) as InitialData) : {};
  } catch {
    return {};
  }
}

const data = initialData();
if (data.products) store.dispatch(catalogApi.util.upsertQueryData('getProducts', { pageNumber: 1, keyword: '' }, data.products));
if (data.top) store.dispatch(catalogApi.util.upsertQueryData('getTopProducts', undefined, data.top));
if (data.categories) store.dispatch(catalogApi.util.upsertQueryData('getCategories', undefined, data.categories));

const route = matchRoute(window.location.pathname);
const productId = route?.id === 'product' ? route.params.id : undefined;
if (data.product && data.product._id === productId) {
  store.dispatch(catalogApi.util.upsertQueryData('getProductDetails', productId, data.product));
} else if (productId) {
  // Ask for the product now, while its screen's code downloads, rather than after.
  store.dispatch(catalogApi.util.prefetch('getProductDetails', productId, {}));
}

// The first screen's code (named in the page's head, so usually downloaded already), and the
// payment banner's when a payment is followed, before the first render: the page appears whole,
// with no spinner that then gives way to it.
function render() {
  if (!root) return;
  const reactRoot = createRoot(root);
  // As a transition, React renders the first screen in slices of a few milliseconds, so a slow
  // phone's main thread stays free for taps instead of blocking for the whole first render.
  startTransition(() => {
    reactRoot.render(
      <StrictMode>
        <Provider store={store}>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
        </Provider>
      </StrictMode>,
    );
  });
}
const firstScreen = [
  preloadScreen(window.location.pathname),
  store.getState().followedPayment.payment ? PaymentBanner.preload() : undefined,
];
Promise.all(firstScreen).then(render, render);

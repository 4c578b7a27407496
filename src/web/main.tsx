import './styles/bootstrap.scss';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { BrowserRouter } from 'react-router';
import { AppRoutes } from './app/router';
import { makeStore } from './app/store';
import { catalogApi } from './features/catalog/api';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

const store = makeStore();

// Opened at a product's address: ask for the product now, while its screen's code downloads,
// rather than after (the photo, the page's largest paint, waits for both).
const productId = /^\/products\/([^/]+)\/?$/.exec(window.location.pathname)?.[1];
if (productId) store.dispatch(catalogApi.util.prefetch('getProductDetails', decodeURIComponent(productId), {}));

createRoot(root).render(
  <StrictMode>
    <Provider store={store}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </Provider>
  </StrictMode>,
);

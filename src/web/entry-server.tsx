import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import type { InitialData, RenderFirstScreen } from '../shared/initial-data';
import { App, seedFirstScreen } from './app/first-screen';
import { preloadScreen } from './app/router';
import { api } from './lib/api';
import { makeStore } from './stores/store';

/**
 * The server's half of the first screen (src/server/plugins/shop/web.ts): the HTML of the page at
 * `pathname` with its data, as a new visitor sees it. Built by `vite build --ssr` into
 * dist/web/.ssr/ and loaded by the server; the browser then takes this HTML over (main.tsx).
 */
export const renderFirstScreen: RenderFirstScreen = async (pathname: string, data: InitialData) => {
  const store = makeStore();
  await Promise.all([seedFirstScreen(store, data, pathname), preloadScreen(pathname)]);
  const html = renderToString(
    <App store={store} router={(routes) => <StaticRouter location={pathname}>{routes}</StaticRouter>} />,
  );
  // The store is dropped with this render; its API cache's timers go with it.
  store.dispatch(api.util.resetApiState());
  return html;
};

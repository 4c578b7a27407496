import type { CategoryCount, Product, ProductDetail, ProductPage } from './schemas/products.js';

/**
 * What a page's first render needs from the API, put into its HTML by the server
 * (src/server/plugins/shop/web.ts) and read by the app before it renders (src/web/main.tsx): the
 * listing, top products and categories on the home page, the product on its page. With it, and a preload of
 * the photo the page shows largest, that photo downloads alongside the app's code instead of
 * after it and after an API call.
 */
export interface InitialData {
  products?: ProductPage;
  top?: Product[];
  categories?: CategoryCount[];
  product?: ProductDetail;
}

/** The id of the <template> whose text is a page's InitialData as JSON. */
export const INITIAL_DATA_ID = 'duka-initial-data';

/**
 * The server's renderer of first screens (src/web/entry-server.tsx, built by `vite build --ssr`):
 * the HTML inside #root of the page at `pathname`, with its data, as a new visitor sees it.
 */
export type RenderFirstScreen = (pathname: string, data: InitialData) => Promise<string>;

/** What a page of the app embeds, worked out from its address and the catalogue's answers. */
import type { InitialData } from '../../../../shared/initial-data.js';
import { DETAIL_PHOTO_SIZES } from '../../../../shared/photo-sizes.js';
import { matchRoute, ROUTES, type RouteId } from '../../../../shared/routes.js';
import { idParams } from '../../../../shared/schemas/common.js';
import type { CategoryCount, Product, ProductDetail, ProductPage } from '../../../../shared/schemas/products.js';
import type { CatalogueAnswers } from '../../../cache/catalogue-answers.js';
import type { CachedAnswer } from '../../../cache/catalogue-cache.js';
import { AppError } from '../../../errors.js';
import { type BuildFiles, buildKey } from './build-files.js';
import { dataBlock, homeData, photoPreload } from './page-html.js';

/**
 * What a page embeds: the key it is cached under (the build, the screen, and the ETags of the
 * catalogue answers it carries, so it changes exactly when they do), the route whose code it
 * names, and on the pages the server draws, the data its first screen shows and how to make the
 * rest of its head from it.
 */
export interface PagePlan {
  pathname: string;
  route: RouteId | undefined;
  key: string;
  head?: (data: InitialData) => string;
  data?: () => InitialData;
}

/**
 * A catalogue answer as the API gives it; undefined for a product that does not exist. Taken
 * from the cache directly rather than by app.inject: injected requests, with their own object
 * shapes, made the server's hot request path polymorphic and cost the API a quarter of its
 * throughput (npm run bench, after pages had been served).
 */
export async function answer(get: () => Promise<CachedAnswer>): Promise<CachedAnswer | undefined> {
  try {
    return await get();
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 404) return undefined;
    throw error;
  }
}

const parse = <T>(cached: CachedAnswer) => JSON.parse(cached.body) as T;

/** The home page's plan: its listing, top products and categories. */
async function homePlan(answers: CatalogueAnswers, pathname: string, build: string): Promise<PagePlan> {
  const [products, top, categories] = await Promise.all([
    answer(() => answers.page({ page: 1, keyword: '' })),
    answer(() => answers.top()),
    answer(() => answers.categories()),
  ]);
  const data = () => ({
    products: products && parse<ProductPage>(products),
    top: top && parse<Product[]>(top),
    categories: categories && parse<CategoryCount[]>(categories),
  });
  return {
    pathname,
    route: 'home',
    key: `${build}|/|${products?.etag}|${top?.etag}|${categories?.etag}`,
    head: homeData,
    data,
  };
}

/** A product page's plan: the product's detail and a preload of its photo, or nothing for no such product. */
async function productPlan(
  answers: CatalogueAnswers,
  pathname: string,
  route: RouteId | undefined,
  build: string,
  id: string,
): Promise<PagePlan> {
  const product = await answer(() => answers.detail(id));
  if (!product) return { pathname, route, key: `${build}|product|${id}|none` };
  return {
    pathname,
    route,
    key: `${build}|product|${id}|${product.etag}`,
    head: ({ product: detail }) =>
      detail ? photoPreload(detail.image, DETAIL_PHOTO_SIZES, true) + dataBlock({ product: detail }) : '',
    data: () => ({ product: parse<ProductDetail>(product) }),
  };
}

export async function pagePlan(files: BuildFiles, answers: CatalogueAnswers, pathname: string): Promise<PagePlan> {
  const build = buildKey(files);
  const matched = matchRoute(pathname);
  const route = matched?.id;
  if (route === 'home') return homePlan(answers, pathname, build);
  const id = matched?.id === 'product' ? matched.params.id : undefined;
  if (id && idParams.safeParse({ id }).success) return productPlan(answers, pathname, route, build, id);
  const screen = route && ROUTES[route].preload ? route : 'none';
  return { pathname, route, key: `${build}|screen|${screen}` };
}

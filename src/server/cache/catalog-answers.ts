import { z } from 'zod';
import { product, productDetail, productPage } from '../../shared/schemas/products.js';
import type { Db } from '../db/client.js';
import { getProductDetail, listProducts, topProducts } from '../domain/catalog.js';
import type { CachedAnswer, CatalogCache } from './catalog-cache.js';

/**
 * The catalogue's public answers, as the API sends them and as the web app's pages embed them,
 * through the cache. Keys are canonical (not the URL as sent), so `?pageNumber=1&x=y` shares the
 * entry of the first page instead of filling the cache with copies.
 */
export interface CatalogAnswers {
  page(query: { page: number; keyword: string }): Promise<CachedAnswer>;
  top(): Promise<CachedAnswer>;
  /** Answers AppError 404 for a product that does not exist. */
  detail(id: string): Promise<CachedAnswer>;
}

const topList = z.array(product);

export function catalogAnswers(db: Db, cache: CatalogCache): CatalogAnswers {
  return {
    page: ({ page, keyword }) =>
      cache.get(`page:${page}:${keyword}`, async () => productPage.parse(await listProducts(db, { page, keyword }))),
    top: () => cache.get('top', async () => topList.parse(await topProducts(db))),
    detail: (id) => cache.get(`product:${id}`, async () => productDetail.parse(await getProductDetail(db, id))),
  };
}

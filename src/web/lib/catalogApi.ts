import type { ProductSort } from '../../shared/constants';
import type { MessageBody } from '../../shared/schemas/common';
import type { CategoryCount, Product, ProductDetail, ProductPage, ReviewBody } from '../../shared/schemas/products';
import { api } from './api';

/** A listing page's query: GET /api/products takes these parameters by these names. */
export interface ProductsQuery {
  pageNumber: number;
  keyword: string;
  category?: string;
  sort?: ProductSort;
  minPrice?: number;
  maxPrice?: number;
}

/** Catalogue and review calls (docs/product-rules.md). */
export const catalogApi = api.injectEndpoints({
  endpoints: (build) => ({
    // Filters not given are left out of the argument, not set undefined: the plain first page's
    // argument stays { pageNumber: 1, keyword: '' }, under which main.tsx puts the page's own data.
    getProducts: build.query<ProductPage, ProductsQuery>({
      query: (params) => ({ url: '/products', params }),
      providesTags: (result) => [
        { type: 'Product', id: 'LIST' },
        ...(result?.products.map((p) => ({ type: 'Product' as const, id: p._id })) ?? []),
      ],
    }),
    getCategories: build.query<CategoryCount[], void>({
      query: () => '/products/categories',
      providesTags: [{ type: 'Product', id: 'LIST' }],
    }),
    getTopProducts: build.query<Product[], void>({
      query: () => '/products/top',
      providesTags: [{ type: 'Product', id: 'LIST' }],
    }),
    getProductDetails: build.query<ProductDetail, string>({
      query: (id) => `/products/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'Product', id }],
    }),
    createReview: build.mutation<MessageBody, ReviewBody & { productId: string }>({
      query: ({ productId, ...body }) => ({ url: `/products/${productId}/reviews`, method: 'POST', body }),
      invalidatesTags: (_result, _error, { productId }) => [
        { type: 'Product', id: productId },
        { type: 'Product', id: 'LIST' },
      ],
    }),
    deleteReview: build.mutation<MessageBody, { productId: string; reviewId: string }>({
      query: ({ productId, reviewId }) => ({ url: `/products/${productId}/${reviewId}`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, { productId }) => [
        { type: 'Product', id: productId },
        { type: 'Product', id: 'LIST' },
      ],
    }),
  }),
});

export const {
  useGetProductsQuery,
  useGetCategoriesQuery,
  useGetTopProductsQuery,
  useGetProductDetailsQuery,
  useCreateReviewMutation,
  useDeleteReviewMutation,
} = catalogApi;

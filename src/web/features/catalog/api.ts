import type { MessageBody } from '../../../shared/schemas/common';
import type { Product, ProductDetail, ProductPage, ReviewBody } from '../../../shared/schemas/products';
import { api } from '../../app/api';

/** Catalogue and review calls (docs/product-rules.md). */
export const catalogApi = api.injectEndpoints({
  endpoints: (build) => ({
    getProducts: build.query<ProductPage, { pageNumber: number; keyword: string }>({
      query: ({ pageNumber, keyword }) => ({ url: '/products', params: { pageNumber, keyword } }),
      providesTags: (result) => [
        { type: 'Product', id: 'LIST' },
        ...(result?.products.map((p) => ({ type: 'Product' as const, id: p._id })) ?? []),
      ],
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
  useGetTopProductsQuery,
  useGetProductDetailsQuery,
  useCreateReviewMutation,
  useDeleteReviewMutation,
} = catalogApi;

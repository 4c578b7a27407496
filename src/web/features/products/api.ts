import type { ProductSort } from '../../../shared/constants';
import type { MessageBody } from '../../../shared/schemas/common';
import type {
  AdminProductPage,
  CategoryCount,
  Product,
  ProductDetail,
  ProductPage,
  ReviewBody,
  StorefrontPage,
} from '../../../shared/schemas/products';
import { api } from '../../lib/api';

/** A listing page's query: GET /api/products takes these parameters by these names. */
export interface ProductsQuery {
  pageNumber: number;
  keyword: string;
  category?: string;
  sort?: ProductSort;
  minPrice?: number;
  maxPrice?: number;
}

/** The catalogue as shoppers see it, and reviews (docs/product-rules.md). */
export const productsApi = api.injectEndpoints({
  endpoints: (build) => ({
    // Filters not given are left out of the argument, not set undefined: the plain first page's
    // argument stays { pageNumber: 1, keyword: '' }, under which main.tsx puts the page's own data.
    getProducts: build.query<ProductPage, ProductsQuery>({
      query: (params) => ({ url: '/products', params }),
      // An admin's first page carries the drafts on top, for clients whose only product list it is;
      // the storefront shows what shoppers see (the admin's product list shows the drafts).
      transformResponse: (page: StorefrontPage): ProductPage => ({ ...page, products: page.products.filter((p) => !p.isDraft) }),
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
} = productsApi;

/** Every field of the product edit form, already checked (see productForm.ts). */
export interface ProductUpdate {
  id: string;
  name: string;
  price: number;
  image: string;
  /** Absent when the admin left the stock as it was. */
  countInStock?: number;
  category: string;
  description: string;
}

export interface UploadedImage {
  image: string;
  msg: string;
}

/** The admin updates go as form data (docs/product-rules.md, API); the server reads numbers and booleans from their text. */
function productFormData({ id: _id, ...fields }: ProductUpdate): FormData {
  const form = new FormData();
  form.append('name', fields.name);
  form.append('price', String(fields.price));
  form.append('image', fields.image);
  if (fields.countInStock !== undefined) form.append('countInStock', String(fields.countInStock));
  form.append('category', fields.category);
  form.append('description', fields.description);
  return form;
}

/** The admin's product calls: the list with drafts, create, edit, delete, photo upload. */
export const productAdminApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** The admin's product list: every product, drafts too. */
    getAdminProducts: build.query<AdminProductPage, { pageNumber: number; keyword: string }>({
      query: ({ pageNumber, keyword }) => ({
        url: '/admin/products',
        params: keyword ? { pageNumber, keyword } : { pageNumber },
      }),
      providesTags: [{ type: 'Product', id: 'LIST' }],
    }),
    /** Creates a sample product to edit; no payload. */
    createProduct: build.mutation<Product, void>({
      query: () => ({ url: '/products', method: 'POST' }),
      invalidatesTags: [{ type: 'Product', id: 'LIST' }],
    }),
    updateProduct: build.mutation<Product, ProductUpdate>({
      query: (update) => ({ url: `/products/${update.id}`, method: 'PUT', body: productFormData(update) }),
      invalidatesTags: (_result, _error, { id }) => [
        { type: 'Product', id },
        { type: 'Product', id: 'LIST' },
      ],
    }),
    deleteProduct: build.mutation<MessageBody, string>({
      query: (id) => ({ url: `/products/${id}`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, id) => [
        { type: 'Product', id },
        { type: 'Product', id: 'LIST' },
      ],
    }),
    uploadProductImage: build.mutation<UploadedImage, File>({
      query: (file) => {
        const form = new FormData();
        form.append('image', file);
        return { url: '/uploads', method: 'POST', body: form };
      },
    }),
  }),
});

export const {
  useGetAdminProductsQuery,
  useCreateProductMutation,
  useUpdateProductMutation,
  useDeleteProductMutation,
  useUploadProductImageMutation,
} = productAdminApi;

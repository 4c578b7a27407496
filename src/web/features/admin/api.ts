import type { MessageBody } from '../../../shared/schemas/common';
import type { AdminProductPage, Product } from '../../../shared/schemas/products';
import type { PublicUser, UserPage } from '../../../shared/schemas/users';
import { api } from '../../lib/api';

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

export interface UserUpdate {
  id: string;
  name: string;
  email: string;
  /** Empty means "keep the current password" and is not sent (docs/product-rules.md, Validation: User edit). */
  password: string;
  isAdmin: boolean;
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

function userFormData({ name, email, password, isAdmin }: UserUpdate): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('email', email);
  if (password !== '') form.append('password', password);
  form.append('isAdmin', isAdmin ? 'true' : 'false');
  return form;
}

/** Admin calls for products, uploads and users (docs/product-rules.md, API). Orders use lib/ordersApi.ts. */
export const adminApi = api.injectEndpoints({
  endpoints: (build) => ({
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
    /** One page of the admin user list (the paged form of GET /api/users). */
    getUsersPage: build.query<UserPage, { pageNumber: number; keyword?: string; isAdmin?: boolean }>({
      query: (params) => ({ url: '/users', params }),
      providesTags: (result) => [
        { type: 'User', id: 'LIST' },
        ...(result?.users.map((u) => ({ type: 'User' as const, id: u._id })) ?? []),
      ],
    }),
    /** The admin's product list: every product, drafts too. */
    getAdminProducts: build.query<AdminProductPage, { pageNumber: number; keyword: string }>({
      query: ({ pageNumber, keyword }) => ({
        url: '/admin/products',
        params: keyword ? { pageNumber, keyword } : { pageNumber },
      }),
      providesTags: [{ type: 'Product', id: 'LIST' }],
    }),
    getUserDetails: build.query<PublicUser, string>({
      query: (id) => `/users/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'User', id }],
    }),
    updateUser: build.mutation<PublicUser, UserUpdate>({
      query: (update) => ({ url: `/users/${update.id}`, method: 'PUT', body: userFormData(update) }),
      invalidatesTags: (_result, _error, { id }) => [
        { type: 'User', id },
        { type: 'User', id: 'LIST' },
      ],
    }),
    deleteUser: build.mutation<MessageBody, string>({
      query: (id) => ({ url: `/users/${id}`, method: 'DELETE' }),
      // The user's orders stay, shown as 'Deleted user' in the order list.
      invalidatesTags: (_result, _error, id) => [
        { type: 'User', id },
        { type: 'User', id: 'LIST' },
        { type: 'Order', id: 'LIST' },
      ],
    }),
  }),
});

export const {
  useCreateProductMutation,
  useUpdateProductMutation,
  useDeleteProductMutation,
  useUploadProductImageMutation,
  useGetUsersPageQuery,
  useGetAdminProductsQuery,
  useGetUserDetailsQuery,
  useUpdateUserMutation,
  useDeleteUserMutation,
} = adminApi;

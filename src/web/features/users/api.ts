import type { MessageBody } from '../../../shared/schemas/common';
import type { LoginBody, ProfileUpdateBody, PublicUser, RegisterBody, UserPage } from '../../../shared/schemas/users';
import { api } from '../../lib/api';

/** Account calls (docs/product-rules.md, API: Users). */
export const usersApi = api.injectEndpoints({
  endpoints: (build) => ({
    login: build.mutation<PublicUser, LoginBody>({
      query: (body) => ({ url: '/users/auth', method: 'POST', body }),
      invalidatesTags: ['Order', 'User'],
    }),
    register: build.mutation<PublicUser, RegisterBody>({
      query: (body) => ({ url: '/users', method: 'POST', body }),
      invalidatesTags: ['Order', 'User'],
    }),
    logout: build.mutation<MessageBody, void>({
      query: () => ({ url: '/users/logout', method: 'POST' }),
    }),
    getProfile: build.query<PublicUser, string>({
      query: (id) => `/users/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'User', id }],
    }),
    updateProfile: build.mutation<PublicUser, ProfileUpdateBody>({
      query: (body) => ({ url: '/users/profile', method: 'PUT', body }),
      invalidatesTags: (result) =>
        result
          ? [
              { type: 'User', id: result._id },
              { type: 'User', id: 'LIST' },
            ]
          : [],
    }),
    forgotPassword: build.mutation<MessageBody, { email: string }>({
      query: (body) => ({ url: '/users/forgot-password', method: 'POST', body }),
    }),
    resetPassword: build.mutation<MessageBody, { token: string; password: string }>({
      query: ({ token, password }) => ({ url: `/users/reset-password/${token}`, method: 'POST', body: { password } }),
    }),
  }),
});

export const {
  useLoginMutation,
  useRegisterMutation,
  useLogoutMutation,
  useGetProfileQuery,
  useUpdateProfileMutation,
  useForgotPasswordMutation,
  useResetPasswordMutation,
} = usersApi;

export interface UserUpdate {
  id: string;
  name: string;
  email: string;
  /** Empty means "keep the current password" and is not sent (docs/product-rules.md, Validation: User edit). */
  password: string;
  isAdmin: boolean;
}

function userFormData({ name, email, password, isAdmin }: UserUpdate): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('email', email);
  if (password !== '') form.append('password', password);
  form.append('isAdmin', isAdmin ? 'true' : 'false');
  return form;
}

/** The admin's user calls: the list, one user, edit, delete. */
export const userAdminApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** One page of the admin user list (the paged form of GET /api/users). */
    getUsersPage: build.query<UserPage, { pageNumber: number; keyword?: string; isAdmin?: boolean }>({
      query: (params) => ({ url: '/users', params }),
      providesTags: (result) => [
        { type: 'User', id: 'LIST' },
        ...(result?.users.map((u) => ({ type: 'User' as const, id: u._id })) ?? []),
      ],
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

export const { useGetUsersPageQuery, useGetUserDetailsQuery, useUpdateUserMutation, useDeleteUserMutation } = userAdminApi;

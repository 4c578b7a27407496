import type { MessageBody } from '../../../shared/schemas/common';
import type { LoginBody, ProfileUpdateBody, PublicUser, RegisterBody } from '../../../shared/schemas/users';
import { api } from '../../lib/api';

/** Account calls (docs/product-rules.md, API: Users). */
export const accountApi = api.injectEndpoints({
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
} = accountApi;

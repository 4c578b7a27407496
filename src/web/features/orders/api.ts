import type { MessageBody } from '../../../shared/schemas/common';
import type { Order, ShippingAddress } from '../../../shared/schemas/orders';
import { api } from '../../app/api';

export interface NewOrder {
  orderItems: { _id: string; name: string; image: string; price: number; qty: number }[];
  shippingAddress: ShippingAddress;
  itemsPrice: number;
  shippingPrice: number;
  taxPrice: number;
  totalPrice: number;
}

/** Order calls (docs/product-rules.md, API: Orders). The server prices the order itself; the totals sent are informative. */
export const ordersApi = api.injectEndpoints({
  endpoints: (build) => ({
    createOrder: build.mutation<Order, NewOrder>({
      query: (body) => ({ url: '/orders', method: 'POST', body }),
      invalidatesTags: [
        { type: 'Order', id: 'LIST' },
        { type: 'Product', id: 'LIST' },
      ],
    }),
    getOrderDetails: build.query<Order, string>({
      query: (id) => `/orders/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'Order', id }],
    }),
    getMyOrders: build.query<Order[], void>({
      query: () => '/orders/myorders',
      providesTags: [{ type: 'Order', id: 'LIST' }],
    }),
    getOrders: build.query<Order[], { isPaid?: boolean; isDelivered?: boolean } | undefined>({
      query: (filters) => ({ url: '/orders', params: filters ?? {} }),
      providesTags: [{ type: 'Order', id: 'LIST' }],
    }),
    /** Admin "Mark As Paid" (docs/product-rules.md, API: PUT /api/orders/{id}, no body). */
    markPaid: build.mutation<Order, string>({
      query: (id) => ({ url: `/orders/${id}`, method: 'PUT' }),
      invalidatesTags: (_result, _error, id) => [
        { type: 'Order', id },
        { type: 'Order', id: 'LIST' },
      ],
    }),
    markDelivered: build.mutation<Order, string>({
      query: (id) => ({ url: `/orders/${id}/deliver`, method: 'PUT' }),
      invalidatesTags: (_result, _error, id) => [
        { type: 'Order', id },
        { type: 'Order', id: 'LIST' },
      ],
    }),
    deleteOrder: build.mutation<MessageBody, string>({
      query: (id) => ({ url: `/orders/${id}`, method: 'DELETE' }),
      invalidatesTags: [
        { type: 'Order', id: 'LIST' },
        { type: 'Product', id: 'LIST' },
      ],
    }),
  }),
});

export const {
  useCreateOrderMutation,
  useGetOrderDetailsQuery,
  useGetMyOrdersQuery,
  useGetOrdersQuery,
  useMarkPaidMutation,
  useMarkDeliveredMutation,
  useDeleteOrderMutation,
} = ordersApi;

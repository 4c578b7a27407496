import type { MessageBody } from '../../../shared/schemas/common';
import type { Order, OrderPage } from '../../../shared/schemas/orders';
import { api } from '../../lib/api';

/** The admin order list's parameters; a filter left out is not sent. */
export interface OrderListParams {
  pageNumber: number;
  isPaid?: boolean;
  isDelivered?: boolean;
  from?: string;
  to?: string;
  keyword?: string;
}

/** Order calls (docs/product-rules.md, API: Orders): an order, the shopper's orders, the admin's list and actions. Placing one is features/checkout/api.ts. */
export const ordersApi = api.injectEndpoints({
  endpoints: (build) => ({
    getOrderDetails: build.query<Order, string>({
      query: (id) => `/orders/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'Order', id }],
    }),
    getMyOrders: build.query<Order[], void>({
      query: () => '/orders/myorders',
      providesTags: [{ type: 'Order', id: 'LIST' }],
    }),
    /** One page of the admin order list with its filters (the paged form of GET /api/orders). */
    getOrdersPage: build.query<OrderPage, OrderListParams>({
      query: (params) => ({ url: '/orders', params }),
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
  useGetOrderDetailsQuery,
  useGetMyOrdersQuery,
  useGetOrdersPageQuery,
  useMarkPaidMutation,
  useMarkDeliveredMutation,
  useDeleteOrderMutation,
} = ordersApi;

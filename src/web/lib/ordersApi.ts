import { IDEMPOTENCY_KEY_HEADER } from '../../shared/constants';
import type { MessageBody } from '../../shared/schemas/common';
import type { Order, OrderPage, ShippingAddress } from '../../shared/schemas/orders';
import { api } from './api';

export interface NewOrder {
  orderItems: { _id: string; name: string; image: string; price: number; qty: number }[];
  shippingAddress: ShippingAddress;
  itemsPrice: number;
  shippingPrice: number;
  taxPrice: number;
  totalPrice: number;
}

/** An order to place, with the key that makes a repeat of the same checkout answer the same order. */
export interface OrderRequest {
  order: NewOrder;
  idempotencyKey: string;
}

/** The admin order list's parameters; a filter left out is not sent. */
export interface OrderListParams {
  pageNumber: number;
  isPaid?: boolean;
  isDelivered?: boolean;
  from?: string;
  to?: string;
  keyword?: string;
}

/** Order calls (docs/product-rules.md, API: Orders). The server prices the order itself; the totals sent are informative. */
export const ordersApi = api.injectEndpoints({
  endpoints: (build) => ({
    createOrder: build.mutation<Order, OrderRequest>({
      query: ({ order, idempotencyKey }) => ({
        url: '/orders',
        method: 'POST',
        body: order,
        headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
      }),
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
  useCreateOrderMutation,
  useGetOrderDetailsQuery,
  useGetMyOrdersQuery,
  useGetOrdersPageQuery,
  useMarkPaidMutation,
  useMarkDeliveredMutation,
  useDeleteOrderMutation,
} = ordersApi;

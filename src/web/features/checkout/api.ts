import { IDEMPOTENCY_KEY_HEADER } from '../../../shared/constants';
import type { Order, ShippingAddress } from '../../../shared/schemas/orders';
import { api } from '../../lib/api';

export interface NewOrder {
  orderItems: { _id: string; name: string; image: string; price: number; qty: number; variantId?: string }[];
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

/** Placing the order (POST /api/orders). The server prices the order itself; the totals sent are informative. */
export const checkoutApi = api.injectEndpoints({
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
  }),
});

export const { useCreateOrderMutation } = checkoutApi;

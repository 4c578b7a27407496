import type { PaymentStatus, StkPushBody, StkPushResponse } from '../../../shared/schemas/payments';
import { api } from '../../app/api';

/** How often the order page asks about a prompt that is still waiting on the shopper's phone. */
export const PAYMENT_POLL_MS = 2000;

/**
 * M-Pesa calls (spec §7: POST /api/orders/stkpush; GET /api/orders/{id}/payment). A prompt sent
 * invalidates that order's payment status, so coming back to the order page shows the new one.
 */
export const paymentsApi = api.enhanceEndpoints({ addTagTypes: ['Payment'] }).injectEndpoints({
  endpoints: (build) => ({
    sendPaymentPrompt: build.mutation<StkPushResponse, StkPushBody>({
      query: (body) => ({ url: '/orders/stkpush', method: 'POST', body }),
      invalidatesTags: (_result, _error, body) => [{ type: 'Payment', id: body.orderId }],
    }),
    getPaymentStatus: build.query<PaymentStatus, string>({
      query: (orderId) => `/orders/${orderId}/payment`,
      providesTags: (_result, _error, orderId) => [{ type: 'Payment', id: orderId }],
    }),
  }),
});

export const { useSendPaymentPromptMutation, useGetPaymentStatusQuery } = paymentsApi;

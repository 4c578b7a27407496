import type { MessageBody } from '../../../shared/schemas/common';
import type {
  AssignPaymentBody,
  LedgerFilter,
  LedgerPage,
  LedgerPayment,
  LedgerSummary,
  ManualPaymentBody,
  PaymentStatus,
  StkPushBody,
  StkPushResponse,
} from '../../../shared/schemas/payments';
import { api } from '../../lib/api';

/** How often the order page asks about a prompt that is still waiting on the shopper's phone. */
export const PAYMENT_POLL_MS = 2000;

/**
 * How often an unpaid order's page asks whether a Paybill/Till payment has come, while it shows
 * how to make one (the shopper pays in the M-Pesa menu and comes back to the page).
 */
export const PAYBILL_POLL_MS = 5000;

/** How often the ledger is asked again while a refund on it waits for M-Pesa's result. */
export const REFUND_POLL_MS = 3000;

/** How often an admin's menu asks how many payments wait for them. */
export const LEDGER_SUMMARY_POLL_MS = 60_000;

export interface LedgerQuery {
  status: LedgerFilter;
  pageNumber: number;
}

/** The query string of a ledger page: "all" and page 1 are the server's defaults, so they are left out. */
export function ledgerParams({ status, pageNumber }: LedgerQuery): Record<string, string> {
  return {
    ...(status === 'all' ? {} : { status }),
    ...(pageNumber > 1 ? { pageNumber: String(pageNumber) } : {}),
  };
}

/**
 * What a change to a ledger payment reloads: the ledger's pages and the menu's count, and the
 * order it now pays (its payment list, its paid state, the order lists).
 */
function afterLedgerChange(orderId: string | null | undefined) {
  return [
    { type: 'Ledger' as const, id: 'LIST' },
    { type: 'Ledger' as const, id: 'SUMMARY' },
    ...(orderId
      ? [
          { type: 'Payment' as const, id: orderId },
          { type: 'Order' as const, id: orderId },
          { type: 'Order' as const, id: 'LIST' },
        ]
      : []),
  ];
}

/**
 * M-Pesa calls (docs/product-rules.md, API: POST /api/orders/stkpush; GET /api/orders/{id}/payment), and the
 * admin's payment ledger. A prompt sent invalidates that order's payment status, so coming back
 * to the order page shows the new one.
 */
export const paymentsApi = api.enhanceEndpoints({ addTagTypes: ['Payment', 'Ledger'] }).injectEndpoints({
  endpoints: (build) => ({
    sendPaymentPrompt: build.mutation<StkPushResponse, StkPushBody>({
      query: (body) => ({ url: '/orders/stkpush', method: 'POST', body }),
      invalidatesTags: (_result, _error, body) => [{ type: 'Payment', id: body.orderId }],
    }),
    /** A demo shop's Paybill payment, made by its simulator (POST /api/orders/{id}/simulate-paybill). */
    simulatePaybillPayment: build.mutation<MessageBody, { orderId: string; phoneNumber?: string }>({
      query: ({ orderId, phoneNumber }) => ({
        url: `/orders/${orderId}/simulate-paybill`,
        method: 'POST',
        body: phoneNumber ? { phoneNumber } : {},
      }),
    }),
    getPaymentStatus: build.query<PaymentStatus, string>({
      query: (orderId) => `/orders/${orderId}/payment`,
      providesTags: (_result, _error, orderId) => [{ type: 'Payment', id: orderId }],
    }),
    /** The admin's ledger, newest first (GET /api/admin/payments). */
    getLedger: build.query<LedgerPage, LedgerQuery>({
      query: (args) => ({ url: '/admin/payments', params: ledgerParams(args) }),
      providesTags: [{ type: 'Ledger', id: 'LIST' }],
    }),
    /** How many exceptions wait for the merchant, for the Admin menu's badge. */
    getLedgerSummary: build.query<LedgerSummary, void>({
      query: () => '/admin/payments/summary',
      providesTags: [{ type: 'Ledger', id: 'SUMMARY' }],
    }),
    /** An unmatched payment given to an order; the server settles the order if it covers what is due. */
    /** The order by its id or its number: the answer names its id either way. */
    assignPayment: build.mutation<LedgerPayment, { id: string } & AssignPaymentBody>({
      query: ({ id, ...body }) => ({ url: `/admin/payments/${id}/assign`, method: 'POST', body }),
      invalidatesTags: (result) => afterLedgerChange(result?.orderId),
    }),
    /** `refunded` only for an unanswered refund: whether the M-Pesa statement shows the reversal. */
    resolvePayment: build.mutation<LedgerPayment, { id: string; note: string; refunded?: boolean }>({
      query: ({ id, ...body }) => ({ url: `/admin/payments/${id}/resolve`, method: 'POST', body }),
      invalidatesTags: (result) => afterLedgerChange(result?.orderId),
    }),
    /**
     * The whole payment sent back by M-Pesa reversal (POST /api/admin/payments/{id}/refund): the
     * answer is the payment as refund_pending; M-Pesa's result comes later.
     */
    refundPayment: build.mutation<LedgerPayment, { id: string; orderId: string | null }>({
      query: ({ id }) => ({ url: `/admin/payments/${id}/refund`, method: 'POST' }),
      invalidatesTags: (_result, _error, { orderId }) => afterLedgerChange(orderId),
    }),
    /** A payment from the merchant's M-Pesa statement, entered by an admin with its receipt. */
    recordPayment: build.mutation<LedgerPayment, ManualPaymentBody>({
      query: (body) => ({ url: '/admin/payments', method: 'POST', body }),
      invalidatesTags: (result) => afterLedgerChange(result?.orderId),
    }),
  }),
});

export const {
  useSendPaymentPromptMutation,
  useGetPaymentStatusQuery,
  useGetLedgerQuery,
  useGetLedgerSummaryQuery,
  useAssignPaymentMutation,
  useResolvePaymentMutation,
  useRefundPaymentMutation,
  useRecordPaymentMutation,
} = paymentsApi;

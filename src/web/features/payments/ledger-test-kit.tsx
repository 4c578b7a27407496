import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import type { LedgerPage, LedgerPayment } from '../../../shared/schemas/payments';
import { setCredentials } from '../../stores/auth-slice';
import { makeStore } from '../../stores/store';
import PaymentListScreen from './payment-list-screen';

/*
 * For the payments screen's tests (payment-list-screen, payment-card and record-payment-form): a
 * ledger of every kind of payment, the API as the screen sees it, and the screen at an address.
 */

export const ORDER = '0b6f7c1e-3a52-4d7e-9f1a-2c4b5d6e7f80';

export const payment = (over: Partial<LedgerPayment>): LedgerPayment => ({
  _id: 'p0',
  receipt: 'SKL4A7K2QZ',
  amount: 502,
  phone: '254708374149',
  source: 'stk_callback',
  orderId: ORDER,
  orderNumber: 'DK7QF3M9',
  status: 'credited',
  exception: null,
  receivedAt: '2026-11-24T08:39:41.000Z',
  note: null,
  refund: null,
  ...over,
});

export const LEDGER: LedgerPayment[] = [
  payment({ _id: 'p1', receipt: 'SKL4A7K2QA', status: 'exception', exception: 'double_payment' }),
  payment({
    _id: 'p2',
    receipt: 'SKL4A7K2QB',
    orderId: null,
    orderNumber: null,
    status: 'exception',
    exception: 'unmatched',
    source: 'c2b',
  }),
  payment({ _id: 'p3', receipt: 'SKL4A7K2QC', amount: 300, status: 'exception', exception: 'amount_short' }),
  payment({ _id: 'p4', receipt: null, status: 'exception', exception: 'receipt_missing', source: 'stk_query' }),
  payment({
    _id: 'p5',
    receipt: 'SKL4A7K2QE',
    status: 'exception',
    exception: 'unconfirmed',
    source: 'c2b',
    orderId: null,
    orderNumber: null,
    detail: 'Waiting for M-Pesa to confirm this Paybill payment…',
  }),
  payment({ _id: 'p6', receipt: 'SKL4A7K2QF', status: 'resolved', exception: 'double_payment', note: 'Refunded by reversal' }),
  payment({ _id: 'p7', receipt: 'SKL4A7K2QG', source: 'manual', phone: null }),
  payment({ _id: 'p8', receipt: 'SKL4A7K2QH', amount: 600, status: 'credited', exception: 'overpaid', source: 'manual' }),
  payment({
    _id: 'p9',
    receipt: 'SKL4A7K2QJ',
    status: 'refund_pending',
    exception: 'refund_unanswered',
    refund: { requestedAt: '2026-11-24T09:00:00.000Z', completedAt: null, failureReason: null, failedAt: null },
  }),
  // Recorded by hand as 3,000; M-Pesa's confirmation says 3,300, and M-Pesa's amount is kept.
  payment({
    _id: 'p10',
    receipt: 'SKL4A7K2QK',
    amount: 3300,
    recordedAmount: 3000,
    source: 'c2b',
    status: 'credited',
    exception: 'amount_mismatch',
  }),
  payment({
    _id: 'p11',
    receipt: 'SKL4A7K2QL',
    amount: 0,
    source: 'c2b',
    status: 'exception',
    exception: 'bad_amount',
    detail: 'M-Pesa wrote the amount as "-300.00".',
  }),
  // Resolved with a note, and still never confirmed by M-Pesa: nothing to send back.
  payment({
    _id: 'p12',
    receipt: 'SKL4A7K2QM',
    source: 'c2b',
    status: 'resolved',
    exception: 'unconfirmed',
    note: 'Not on the statement: a forged SMS',
    detail: 'M-Pesa’s Transaction Status did not find this receipt.',
  }),
  // Paid to another shortcode: never the shop's money, so neither assigned nor refunded.
  payment({
    _id: 'p13',
    receipt: 'SKL4A7K2QN',
    source: 'c2b',
    status: 'exception',
    exception: 'other_shortcode',
    detail: 'This confirmation names the shortcode 600999, not the shop’s 174379: it is never credited.',
  }),
];

export interface Call {
  method: string;
  url: URL;
  body: unknown;
}

/** The shop's API as the screen sees it: every request recorded in `calls`, answered by `answer`. */
export const ledgerApi = {
  calls: [] as Call[],
  answer: (_call: Call): { status: number; body: unknown } => ({ status: 200, body: {} }),
};

/** A ledger page of these payments. */
export const ledgerPage = (payments: LedgerPayment[] = LEDGER, pages = 1): { status: number; body: LedgerPage } => ({
  status: 200,
  body: { payments, page: 1, pages },
});

/** Answers a POST with `post`, and every other call with the ledger. */
export const answerPost = (post: { status: number; body: unknown }) => (call: Call) =>
  call.method === 'POST' ? post : ledgerPage();

/** Each test starts with the API stubbed, three pages of the whole ledger, and an empty store; called by each file at its top. */
export function stubLedgerApi() {
  beforeEach(() => {
    localStorage.clear();
    ledgerApi.calls = [];
    ledgerApi.answer = () => ledgerPage(LEDGER, 3);
    vi.stubGlobal('fetch', async (input: Request | string, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(new URL(input, 'http://localhost:3000'), init);
      const text = request.method === 'GET' ? '' : await request.text();
      const call = { method: request.method, url: new URL(request.url), body: text ? JSON.parse(text) : undefined };
      ledgerApi.calls.push(call);
      const { status, body } = ledgerApi.answer(call);
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
}

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname + location.search}</output>;
}

/** The payments screen at `path`, for a signed-in admin. */
export function renderAt(path: string) {
  const store = makeStore();
  store.dispatch(setCredentials({ _id: 'a1', name: 'Admin', email: 'admin@example.com', isAdmin: true }));
  const router = createMemoryRouter(
    [
      {
        path: '/admin/payments',
        element: (
          <>
            <PaymentListScreen />
            <LocationProbe />
          </>
        ),
      },
    ],
    { initialEntries: [path] },
  );
  return render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
}

export const ledgerCalls = () => ledgerApi.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/admin/payments');
export const posts = () => ledgerApi.calls.filter((c) => c.method === 'POST');
export const cardOf = (receipt: string) => screen.getByRole('article', { name: receipt });

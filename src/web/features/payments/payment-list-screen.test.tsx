import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LedgerPage, LedgerPayment } from '../../../shared/schemas/payments';
import { setCredentials } from '../../stores/auth-slice';
import { makeStore } from '../../stores/store';
import { EXCEPTION_REASON, receivedTime } from './ledger-text';
import { manualPaymentForm, orderFrom, orderProblem, orderReference } from './payment-forms';
import PaymentListScreen, { filterFrom } from './payment-list-screen';

const ORDER = '0b6f7c1e-3a52-4d7e-9f1a-2c4b5d6e7f80';

const payment = (over: Partial<LedgerPayment>): LedgerPayment => ({
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

const LEDGER: LedgerPayment[] = [
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

interface Call {
  method: string;
  url: URL;
  body: unknown;
}
let calls: Call[] = [];
let answer: (call: Call) => { status: number; body: unknown };

/** The shop's API as the screen sees it: every request recorded, answered by `answer`. */
function stubApi() {
  calls = [];
  answer = () => ({ status: 200, body: { payments: LEDGER, page: 1, pages: 3 } satisfies LedgerPage });
  vi.stubGlobal('fetch', async (input: Request | string, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(new URL(input, 'http://localhost:3000'), init);
    const text = request.method === 'GET' ? '' : await request.text();
    const call = { method: request.method, url: new URL(request.url), body: text ? JSON.parse(text) : undefined };
    calls.push(call);
    const { status, body } = answer(call);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
}

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname + location.search}</output>;
}

function renderAt(path: string) {
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

const ledgerCalls = () => calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/admin/payments');
const cardOf = (receipt: string) => screen.getByRole('article', { name: receipt });

beforeEach(() => {
  localStorage.clear();
  stubApi();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the ledger’s words', () => {
  it('gives each exception its reason in plain words', () => {
    expect(EXCEPTION_REASON).toEqual({
      double_payment: 'Paid twice: this order was already paid. Refund or keep as credit.',
      unmatched: 'No order matched this payment. Assign it to an order.',
      amount_short: 'Less than the amount due for the order.',
      overpaid: 'More than the amount due: the order is paid. Refund the difference or keep it as credit.',
      receipt_missing: 'Settled by the status query; the M-Pesa receipt has not arrived yet.',
      unconfirmed:
        'M-Pesa has not confirmed this payment, so it pays nothing. Find the receipt on your M-Pesa statement before acting on it.',
      amount_mismatch:
        'Recorded by hand with another amount than M-Pesa’s. M-Pesa’s amount counts, and a refund sends back what M-Pesa holds.',
      bad_amount: 'M-Pesa sent an amount that could not be read. It pays nothing: check your M-Pesa statement.',
      other_shortcode:
        'Paid to another shortcode than this shop’s, so it is never credited here. Resolve it with a note once you have checked.',
      refund_unanswered:
        'A refund was sent to M-Pesa but no answer came, even after retries. Check your M-Pesa statement to see whether the money went back.',
    });
  });

  it('shows the time in Nairobi, where M-Pesa statements are', () => {
    expect(receivedTime('2026-11-24T22:39:41.000Z')).toBe('2026-11-25 01:39');
  });
});

describe('orders named by an admin', () => {
  it('accepts the full id or the order page’s link, and explains a shortened one', () => {
    expect(orderFrom(`  ${ORDER} `)).toBe(ORDER);
    expect(orderFrom(`https://shop.example.co.ke/order/${ORDER}?x=1`)).toBe(ORDER);
    expect(orderProblem(ORDER)).toBeNull();
    expect(orderReference(ORDER)).toEqual({ orderId: ORDER });
    expect(orderProblem('0b6f7c1e…')).toMatch(/only part of the id/);
    expect(orderProblem('')).toBe('Enter the order number');
    expect(orderProblem('not an id')).toBe('Not an order number or id. An order number is 8 letters and digits, like AFK785AQ');
  });

  it('accepts the order number as the M-Pesa statement shows it, in any case, with spaces or a dash', () => {
    for (const typed of ['AFK785AQ', 'afk785aq', 'AFK7 85AQ', 'AFK7-85AQ']) {
      expect(orderProblem(typed), typed).toBeNull();
      expect(orderReference(typed), typed).toEqual({ orderNumber: 'AFK785AQ' });
    }
    // 0, O, 1 and I are never in an order number.
    expect(orderProblem('AFK785A0')).toMatch(/^Not an order number or id/);
  });

  it('checks a manual entry with the server’s rules before sending it', () => {
    const bad = manualPaymentForm.safeParse({ orderId: '0b6f7c1e', receipt: 'x', amount: '', phone: '' });
    expect(bad.success).toBe(false);
    expect([...new Set(bad.error?.issues.map((issue) => issue.path[0]))].sort()).toEqual(['amount', 'orderId', 'receipt']);
    const good = manualPaymentForm.safeParse({ orderId: ORDER, receipt: ' skl4a7k2qz ', amount: '502', phone: '' });
    expect(good).toEqual({ success: true, data: { orderId: ORDER, receipt: 'SKL4A7K2QZ', amount: 502 } });
  });
});

describe('PaymentListScreen', () => {
  it('shows every payment with its fields labelled, and each exception’s reason', async () => {
    renderAt('/admin/payments');
    await screen.findByRole('article', { name: 'SKL4A7K2QA' });

    for (const reason of Object.values(EXCEPTION_REASON)) expect(screen.getAllByText(reason).length).toBeGreaterThan(0);
    const doubled = within(cardOf('SKL4A7K2QA'));
    expect(doubled.getByText('Ksh. 502.00')).toBeTruthy();
    expect(doubled.getByText('254708374149')).toBeTruthy();
    expect(doubled.getByText('STK callback')).toBeTruthy();
    expect(doubled.getByRole('link', { name: 'DK7QF3M9' }).getAttribute('href')).toBe(`/order/${ORDER}`);
    expect(doubled.getByText('Exception')).toBeTruthy();

    const unmatched = within(cardOf('SKL4A7K2QB'));
    expect(unmatched.getByText('No order')).toBeTruthy();
    expect(unmatched.getByText('Paybill/Till')).toBeTruthy();
    expect(unmatched.getByRole('button', { name: 'Assign to order' })).toBeTruthy();
    expect(within(cardOf('Receipt missing')).getByText('STK query')).toBeTruthy();

    // Only open exceptions have Assign and Resolve; a resolved one shows its note, and may still be refunded.
    const resolved = within(cardOf('SKL4A7K2QF'));
    expect(resolved.getByText('Refunded by reversal')).toBeTruthy();
    expect(resolved.getAllByRole('button').map((b) => b.textContent)).toEqual(['Refund']);
    expect(within(cardOf('SKL4A7K2QG')).getByText('Manual')).toBeTruthy();
    // An overpayment paid its order but is still open: the merchant resolves the difference.
    expect(within(cardOf('SKL4A7K2QH')).getByRole('button', { name: 'Resolve' })).toBeTruthy();
    // An unanswered refund too: the merchant checks the statement and resolves it.
    expect(within(cardOf('SKL4A7K2QJ')).getByRole('button', { name: 'Resolve' })).toBeTruthy();
    // A mismatch paid its order with M-Pesa's amount, and an unreadable amount paid nothing: both are open.
    expect(within(cardOf('SKL4A7K2QK')).getByRole('button', { name: 'Resolve' })).toBeTruthy();
    expect(within(cardOf('SKL4A7K2QL')).getByRole('button', { name: 'Resolve' })).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Resolve' })).toHaveLength(10);
    // Only a payment that pays no order may be given one: unmatched, or unconfirmed.
    expect(within(cardOf('SKL4A7K2QE')).getByRole('button', { name: 'Assign to order' })).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Assign to order' })).toHaveLength(2);
  });

  it('is a list of cards, never a table that would scroll sideways on a phone', async () => {
    const { container } = renderAt('/admin/payments');
    await screen.findAllByRole('article');
    expect(container.querySelector('table')).toBeNull();
    // Every value sits beside its label, and nothing is given a fixed width.
    for (const card of screen.getAllByRole('article')) {
      const labels = [...card.querySelectorAll('dt')].map((dt) => dt.textContent);
      expect(labels).toEqual(['Amount', 'Phone', 'Source', 'Order', 'Received']);
      expect(card.querySelectorAll('dd')).toHaveLength(5);
    }
    expect(container.querySelector('[style*="width"]')).toBeNull();
  });

  it('keeps the filter in the address and asks the server for that filter', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    expect(ledgerCalls().at(-1)?.url.search).toBe('');
    expect(screen.getByRole('link', { name: 'All' }).getAttribute('aria-current')).toBe('page');

    fireEvent.click(screen.getByRole('link', { name: 'Exceptions' }));
    await waitFor(() => expect(ledgerCalls().at(-1)?.url.search).toBe('?status=exception'));
    expect(screen.getByTestId('location').textContent).toBe('/admin/payments?status=exception');
    expect(screen.getByRole('link', { name: 'Exceptions' }).getAttribute('aria-current')).toBe('page');
    // Paging keeps the filter.
    expect(screen.getByRole('link', { name: 'Page 2' }).getAttribute('href')).toBe(
      '/admin/payments?status=exception&pageNumber=2',
    );

    fireEvent.click(screen.getByRole('link', { name: 'Unmatched' }));
    await waitFor(() => expect(ledgerCalls().at(-1)?.url.search).toBe('?status=unmatched'));

    fireEvent.click(screen.getByRole('link', { name: 'Unconfirmed' }));
    await waitFor(() => expect(ledgerCalls().at(-1)?.url.search).toBe('?status=unconfirmed'));
    expect(screen.getByTestId('location').textContent).toBe('/admin/payments?status=unconfirmed');
    expect(screen.getByRole('link', { name: 'Unconfirmed' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('link', { name: 'Page 2' }).getAttribute('href')).toBe(
      '/admin/payments?status=unconfirmed&pageNumber=2',
    );
    // The export gives the same payments as the screen.
    expect(screen.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(
      '/api/admin/exports/payments.csv?status=unconfirmed',
    );

    fireEvent.click(screen.getByRole('link', { name: 'All' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/admin/payments'));
  });

  it('opens a linked view on its page with its filter', async () => {
    renderAt('/admin/payments?status=unmatched&pageNumber=2');
    await screen.findAllByRole('article');
    expect(ledgerCalls().at(-1)?.url.search).toBe('?status=unmatched&pageNumber=2');
  });

  it('opens the Unconfirmed view from its link, and says when nothing waits there', async () => {
    expect(filterFrom('unconfirmed')).toBe('unconfirmed');
    expect(filterFrom('unconfirmed ')).toBe('all');
    answer = () => ({ status: 200, body: { payments: [], page: 1, pages: 1 } satisfies LedgerPage });
    renderAt('/admin/payments?status=unconfirmed');
    expect(await screen.findByText('No unconfirmed payments.')).toBeTruthy();
    expect(ledgerCalls().at(-1)?.url.search).toBe('?status=unconfirmed');
    expect(screen.getByRole('link', { name: 'Unconfirmed' }).getAttribute('aria-current')).toBe('page');
  });

  it('says why M-Pesa has not confirmed a payment, and what it sent for an unreadable amount', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    const unconfirmed = within(cardOf('SKL4A7K2QE'));
    expect(unconfirmed.getByTestId('payment-detail').textContent).toBe('Waiting for M-Pesa to confirm this Paybill payment…');
    // Under the reason it explains.
    const reason = unconfirmed.getByText(EXCEPTION_REASON.unconfirmed);
    expect(reason.compareDocumentPosition(unconfirmed.getByTestId('payment-detail'))).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    expect(within(cardOf('SKL4A7K2QL')).getByTestId('payment-detail').textContent).toBe('M-Pesa wrote the amount as "-300.00".');
    // Resolved, the detail still says what M-Pesa answered, beside the admin's note.
    const resolved = within(cardOf('SKL4A7K2QM'));
    expect(resolved.getByTestId('payment-detail').textContent).toBe('M-Pesa’s Transaction Status did not find this receipt.');
    expect(resolved.getByText('Not on the statement: a forged SMS')).toBeTruthy();
    // No detail, no line.
    expect(within(cardOf('SKL4A7K2QA')).queryByTestId('payment-detail')).toBeNull();
    expect(screen.getAllByTestId('payment-detail')).toHaveLength(4);
  });

  it('shows both figures of a receipt recorded by hand with another amount than M-Pesa’s', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    const card = within(cardOf('SKL4A7K2QK'));
    expect(card.getByTestId('amount-mismatch').textContent).toBe('Recorded by hand: Ksh. 3,000.00 · M-Pesa: Ksh. 3,300.00');
    expect(card.getByText(EXCEPTION_REASON.amount_mismatch)).toBeTruthy();
    // Only there.
    expect(screen.getAllByTestId('amount-mismatch')).toHaveLength(1);
    // A refund sends back what M-Pesa holds, and says so before it is asked.
    fireEvent.click(card.getByRole('button', { name: 'Refund' }));
    const dialog = within(await screen.findByRole('dialog'));
    expect(dialog.getByText(/reverse the whole payment of Ksh\. 3,300\.00 \(receipt SKL4A7K2QK\)/)).toBeTruthy();
  });

  it('offers no refund of a payment M-Pesa has not confirmed, or whose amount it sent unreadable', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    for (const receipt of ['SKL4A7K2QE', 'SKL4A7K2QL', 'SKL4A7K2QM', 'SKL4A7K2QN']) {
      expect(within(cardOf(receipt)).queryByRole('button', { name: 'Refund' }), receipt).toBeNull();
    }
    // Money paid to another shortcode is not the shop's to put on an order either.
    expect(within(cardOf('SKL4A7K2QN')).queryByRole('button', { name: 'Assign to order' })).toBeNull();
    // They may still be dealt with: the open ones resolved with a note, the unconfirmed one assigned.
    expect(
      within(cardOf('SKL4A7K2QE'))
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Assign to order', 'Resolve']);
    expect(
      within(cardOf('SKL4A7K2QL'))
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Resolve']);
    expect(within(cardOf('SKL4A7K2QM')).queryAllByRole('button')).toEqual([]);
    // Every other payment with a receipt and no refund under way may be refunded, resolved ones too.
    expect(
      screen
        .getAllByRole('button', { name: 'Refund' })
        .map((b) => b.closest('article')?.querySelector('h2')?.textContent)
        .sort(),
    ).toEqual(['SKL4A7K2QA', 'SKL4A7K2QB', 'SKL4A7K2QC', 'SKL4A7K2QF', 'SKL4A7K2QG', 'SKL4A7K2QH', 'SKL4A7K2QK']);
  });

  it('assigns an unmatched payment by the full order id, and refuses a shortened one', async () => {
    renderAt('/admin/payments?status=unmatched');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QB' }));
    fireEvent.click(card.getByRole('button', { name: 'Assign to order' }));
    const field = card.getByLabelText('Order ID or number');

    fireEvent.change(field, { target: { value: '0b6f7c1e' } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    expect(await card.findByText(/only part of the id/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    answer = (call) =>
      call.method === 'POST'
        ? { status: 200, body: payment({ _id: 'p2', orderId: ORDER, status: 'credited', exception: null }) }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.change(field, { target: { value: `/order/${ORDER}` } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url.pathname).toBe('/api/admin/payments/p2/assign');
    expect(post?.body).toEqual({ orderId: ORDER });
  });

  it('assigns an unmatched payment by the order number on the M-Pesa statement', async () => {
    renderAt('/admin/payments?status=unmatched');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QB' }));
    answer = (call) =>
      call.method === 'POST'
        ? { status: 200, body: payment({ _id: 'p2', orderId: ORDER, status: 'credited', exception: null }) }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.click(card.getByRole('button', { name: 'Assign to order' }));
    fireEvent.change(card.getByLabelText('Order ID or number'), { target: { value: ' afk7 85aq ' } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ orderNumber: 'AFK785AQ' });
  });

  it('shows the server’s msg when an assignment is refused', async () => {
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QB' }));
    answer = (call) =>
      call.method === 'POST'
        ? { status: 404, body: { errors: [{ msg: 'Order not found' }] } }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.click(card.getByRole('button', { name: 'Assign to order' }));
    fireEvent.change(card.getByLabelText('Order ID or number'), { target: { value: ORDER } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    expect(await card.findByText('Order not found')).toBeTruthy();
  });

  it('resolves an exception only with a note', async () => {
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QA' }));
    fireEvent.click(card.getByRole('button', { name: 'Resolve' }));
    // Resolving records a decision; it neither keeps nor releases money, and the hint says so.
    const hint = card.getByText(/only records your note/);
    expect(hint.textContent).toBe(
      'What you decided, e.g. “Customer keeps it as credit for the next order”. This only records your note: what the payment pays stays as it is, and only Refund sends money back.',
    );
    expect(card.queryByText(/Kept as credit/)).toBeNull();
    fireEvent.click(card.getByRole('button', { name: 'Mark resolved' }));
    expect(await card.findByText('Write a note')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    answer = (call) =>
      call.method === 'POST'
        ? { status: 200, body: payment({ _id: 'p1', status: 'resolved', exception: 'double_payment', note: 'Refunded' }) }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.change(card.getByLabelText('Note'), { target: { value: '  Refunded  ' } });
    fireEvent.click(card.getByRole('button', { name: 'Mark resolved' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url.pathname).toBe('/api/admin/payments/p1/resolve');
    expect(post?.body).toEqual({ note: 'Refunded' });
  });

  it('closes an unanswered refund by what the M-Pesa statement shows', async () => {
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QJ' }));
    fireEvent.click(card.getByRole('button', { name: 'Resolve' }));
    // No plain "Mark resolved": the merchant must say whether the money went back.
    expect(card.queryByRole('button', { name: 'Mark resolved' })).toBeNull();
    fireEvent.click(card.getByRole('button', { name: 'No reversal on the statement' }));
    expect(await card.findByText('Write a note')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    answer = (call) =>
      call.method === 'POST'
        ? { status: 200, body: payment({ _id: 'p9', receipt: 'SKL4A7K2QJ', status: 'credited', note: 'Not on it' }) }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.change(card.getByLabelText('Note'), { target: { value: 'Not on it' } });
    fireEvent.click(card.getByRole('button', { name: 'No reversal on the statement' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url.pathname).toBe('/api/admin/payments/p9/resolve');
    expect(post?.body).toEqual({ note: 'Not on it', refunded: false });
  });

  it('refunds a payment after a confirmation, then follows the refund until M-Pesa answers', async () => {
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QA' }));
    // Nothing to reverse without a receipt.
    expect(within(cardOf('Receipt missing')).queryByRole('button', { name: 'Refund' })).toBeNull();

    const pending = payment({
      _id: 'p1',
      receipt: 'SKL4A7K2QA',
      status: 'refund_pending',
      exception: 'double_payment',
      refund: { requestedAt: '2026-11-24T09:00:00.000Z', completedAt: null, failureReason: null, failedAt: null },
    });
    answer = (call) =>
      call.method === 'POST'
        ? { status: 202, body: pending }
        : { status: 200, body: { payments: [pending, ...LEDGER.slice(1)], page: 1, pages: 1 } };
    fireEvent.click(card.getByRole('button', { name: 'Refund' }));
    const dialog = within(await screen.findByRole('dialog'));
    expect(dialog.getByText(/reverse the whole payment of Ksh\. 502\.00 \(receipt SKL4A7K2QA\)/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.click(dialog.getByRole('button', { name: 'Refund' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.url.pathname).toBe('/api/admin/payments/p1/refund');

    // Pending: no second Refund button, and the ledger is asked again until M-Pesa's result is in.
    const refreshed = within(await screen.findByRole('article', { name: 'SKL4A7K2QA' }));
    expect(await refreshed.findByText(/waiting for M-Pesa’s result/)).toBeTruthy();
    expect(refreshed.queryByRole('button', { name: 'Refund' })).toBeNull();
    const refunded = {
      ...pending,
      status: 'refunded' as const,
      refund: { ...pending.refund!, completedAt: '2026-11-24T09:00:20.000Z' },
    };
    answer = () => ({ status: 200, body: { payments: [refunded, ...LEDGER.slice(1)], page: 1, pages: 1 } });
    const asked = ledgerCalls().length;
    await waitFor(() => expect(ledgerCalls().length).toBeGreaterThan(asked), { timeout: 5000 });
    expect(await within(cardOf('SKL4A7K2QA')).findByText(/Refunded on/)).toBeTruthy();
  });

  it('shows why a refund failed, and offers it again', async () => {
    const failed = payment({
      _id: 'p1',
      receipt: 'SKL4A7K2QA',
      status: 'exception',
      exception: 'double_payment',
      refund: {
        requestedAt: '2026-11-24T09:00:00.000Z',
        completedAt: null,
        failureReason: 'The merchant account has too little to reverse this payment.',
        failedAt: '2026-11-24T09:00:20.000Z',
      },
    });
    answer = () => ({ status: 200, body: { payments: [failed], page: 1, pages: 1 } });
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QA' }));
    expect(card.getByText('Refund failed: The merchant account has too little to reverse this payment.')).toBeTruthy();
    expect(card.getByRole('button', { name: 'Refund' })).toBeTruthy();
  });

  it('records a payment from the M-Pesa statement', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    const form = within(screen.getByRole('form', { name: 'Record M-Pesa payment' }));
    answer = (call) =>
      call.method === 'POST'
        ? { status: 201, body: payment({ _id: 'p9', source: 'manual' }) }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.change(form.getByLabelText('Order ID or number'), { target: { value: ORDER } });
    fireEvent.change(form.getByLabelText('M-Pesa receipt'), { target: { value: 'skl4a7k2qz' } });
    fireEvent.change(form.getByLabelText('Amount (Ksh)'), { target: { value: '502' } });
    fireEvent.change(form.getByLabelText('Phone (optional)'), { target: { value: '0708374149' } });
    fireEvent.click(form.getByRole('button', { name: 'Record payment' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url.pathname).toBe('/api/admin/payments');
    expect(post?.body).toEqual({ orderId: ORDER, receipt: 'SKL4A7K2QZ', amount: 502, phone: '0708374149' });
    await waitFor(() => expect((form.getByLabelText('M-Pesa receipt') as HTMLInputElement).value).toBe(''));
  });

  it('shows a refused entry’s messages under the fields they name, and the others above the form', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    const form = within(screen.getByRole('form', { name: 'Record M-Pesa payment' }));
    answer = (call) =>
      call.method === 'POST'
        ? {
            status: 409,
            body: {
              errors: [
                { msg: 'This M-Pesa receipt is already recorded: find it in the payments list', path: 'receipt' },
                { msg: 'No order has this number', path: 'orderNumber' },
                { msg: 'M-Pesa is not answering' },
              ],
            },
          }
        : { status: 200, body: { payments: LEDGER, page: 1, pages: 1 } };
    fireEvent.change(form.getByLabelText('Order ID or number'), { target: { value: 'AFK785AQ' } });
    fireEvent.change(form.getByLabelText('M-Pesa receipt'), { target: { value: 'SKL4A7K2QZ' } });
    fireEvent.change(form.getByLabelText('Amount (Ksh)'), { target: { value: '502' } });
    fireEvent.click(form.getByRole('button', { name: 'Record payment' }));
    expect((await form.findByRole('alert')).textContent).toBe('M-Pesa is not answering');
    const receipt = form.getByLabelText('M-Pesa receipt');
    expect(receipt.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById('record-payment-receipt-error')?.textContent).toBe(
      'This M-Pesa receipt is already recorded: find it in the payments list',
    );
    // The server names the order by its number; the form has one order field.
    expect(document.getElementById('record-payment-orderId-error')?.textContent).toBe('No order has this number');
    expect(form.getByLabelText('Amount (Ksh)').getAttribute('aria-invalid')).toBeNull();
  });
});

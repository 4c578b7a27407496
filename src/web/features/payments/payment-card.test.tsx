import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  answerPost,
  cardOf,
  LEDGER,
  ledgerApi,
  ledgerCalls,
  ledgerPage,
  ORDER,
  payment,
  posts,
  renderAt,
  stubLedgerApi,
} from './ledger-test-kit';

stubLedgerApi();
afterEach(cleanup);

describe('a payment card: Assign to order', () => {
  it('assigns an unmatched payment by the full order id, and refuses a shortened one', async () => {
    renderAt('/admin/payments?status=unmatched');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QB' }));
    fireEvent.click(card.getByRole('button', { name: 'Assign to order' }));
    const field = card.getByLabelText('Order ID or number');

    fireEvent.change(field, { target: { value: '0b6f7c1e' } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    expect(await card.findByText(/only part of the id/)).toBeTruthy();
    expect(posts()).toHaveLength(0);

    ledgerApi.answer = answerPost({
      status: 200,
      body: payment({ _id: 'p2', orderId: ORDER, status: 'credited', exception: null }),
    });
    fireEvent.change(field, { target: { value: `/order/${ORDER}` } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(posts().length).toBeGreaterThan(0));
    const post = posts()[0];
    expect(post?.url.pathname).toBe('/api/admin/payments/p2/assign');
    expect(post?.body).toEqual({ orderId: ORDER });
  });

  it('assigns an unmatched payment by the order number on the M-Pesa statement', async () => {
    renderAt('/admin/payments?status=unmatched');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QB' }));
    ledgerApi.answer = answerPost({
      status: 200,
      body: payment({ _id: 'p2', orderId: ORDER, status: 'credited', exception: null }),
    });
    fireEvent.click(card.getByRole('button', { name: 'Assign to order' }));
    fireEvent.change(card.getByLabelText('Order ID or number'), { target: { value: ' afk7 85aq ' } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(posts().length).toBeGreaterThan(0));
    expect(posts()[0]?.body).toEqual({ orderNumber: 'AFK785AQ' });
  });

  it('shows the server’s msg when an assignment is refused', async () => {
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QB' }));
    ledgerApi.answer = answerPost({ status: 404, body: { errors: [{ msg: 'Order not found' }] } });
    fireEvent.click(card.getByRole('button', { name: 'Assign to order' }));
    fireEvent.change(card.getByLabelText('Order ID or number'), { target: { value: ORDER } });
    fireEvent.click(card.getByRole('button', { name: 'Assign' }));
    expect(await card.findByText('Order not found')).toBeTruthy();
  });
});

describe('a payment card: Resolve', () => {
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
    expect(posts()).toHaveLength(0);

    ledgerApi.answer = answerPost({
      status: 200,
      body: payment({ _id: 'p1', status: 'resolved', exception: 'double_payment', note: 'Refunded' }),
    });
    fireEvent.change(card.getByLabelText('Note'), { target: { value: '  Refunded  ' } });
    fireEvent.click(card.getByRole('button', { name: 'Mark resolved' }));
    await waitFor(() => expect(posts().length).toBeGreaterThan(0));
    const post = posts()[0];
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
    expect(posts()).toHaveLength(0);

    ledgerApi.answer = answerPost({
      status: 200,
      body: payment({ _id: 'p9', receipt: 'SKL4A7K2QJ', status: 'credited', note: 'Not on it' }),
    });
    fireEvent.change(card.getByLabelText('Note'), { target: { value: 'Not on it' } });
    fireEvent.click(card.getByRole('button', { name: 'No reversal on the statement' }));
    await waitFor(() => expect(posts().length).toBeGreaterThan(0));
    const post = posts()[0];
    expect(post?.url.pathname).toBe('/api/admin/payments/p9/resolve');
    expect(post?.body).toEqual({ note: 'Not on it', refunded: false });
  });
});

describe('a payment card: Refund', () => {
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
    ledgerApi.answer = (call) =>
      call.method === 'POST' ? { status: 202, body: pending } : ledgerPage([pending, ...LEDGER.slice(1)]);
    fireEvent.click(card.getByRole('button', { name: 'Refund' }));
    const dialog = within(await screen.findByRole('dialog'));
    expect(dialog.getByText(/reverse the whole payment of Ksh\. 502\.00 \(receipt SKL4A7K2QA\)/)).toBeTruthy();
    expect(posts()).toHaveLength(0);
    fireEvent.click(dialog.getByRole('button', { name: 'Refund' }));
    await waitFor(() => expect(posts().length).toBeGreaterThan(0));
    expect(posts()[0]?.url.pathname).toBe('/api/admin/payments/p1/refund');

    // Pending: no second Refund button, and the ledger is asked again until M-Pesa's result is in.
    const refreshed = within(await screen.findByRole('article', { name: 'SKL4A7K2QA' }));
    expect(await refreshed.findByText(/waiting for M-Pesa’s result/)).toBeTruthy();
    expect(refreshed.queryByRole('button', { name: 'Refund' })).toBeNull();
    const refunded = {
      ...pending,
      status: 'refunded' as const,
      refund: { ...pending.refund!, completedAt: '2026-11-24T09:00:20.000Z' },
    };
    ledgerApi.answer = () => ledgerPage([refunded, ...LEDGER.slice(1)]);
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
    ledgerApi.answer = () => ledgerPage([failed]);
    renderAt('/admin/payments');
    const card = within(await screen.findByRole('article', { name: 'SKL4A7K2QA' }));
    expect(card.getByText('Refund failed: The merchant account has too little to reverse this payment.')).toBeTruthy();
    expect(card.getByRole('button', { name: 'Refund' })).toBeTruthy();
  });
});

import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { cardOf, ledgerApi, ledgerCalls, ledgerPage, ORDER, renderAt, stubLedgerApi } from './ledger-test-kit';
import { EXCEPTION_REASON } from './ledger-text';
import { filterFrom } from './payment-list-screen';

stubLedgerApi();
afterEach(cleanup);

describe('PaymentListScreen: the cards', () => {
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
});

describe('PaymentListScreen: the filter and the page in the address', () => {
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
    ledgerApi.answer = () => ledgerPage([]);
    renderAt('/admin/payments?status=unconfirmed');
    expect(await screen.findByText('No unconfirmed payments.')).toBeTruthy();
    expect(ledgerCalls().at(-1)?.url.search).toBe('?status=unconfirmed');
    expect(screen.getByRole('link', { name: 'Unconfirmed' }).getAttribute('aria-current')).toBe('page');
  });
});

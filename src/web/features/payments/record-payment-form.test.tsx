import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { answerPost, ledgerApi, ORDER, payment, posts, renderAt, stubLedgerApi } from './ledger-test-kit';

stubLedgerApi();
afterEach(cleanup);

describe('RecordPaymentForm, on the payments screen', () => {
  it('records a payment from the M-Pesa statement', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    const form = within(screen.getByRole('form', { name: 'Record M-Pesa payment' }));
    ledgerApi.answer = answerPost({ status: 201, body: payment({ _id: 'p9', source: 'manual' }) });
    fireEvent.change(form.getByLabelText('Order ID or number'), { target: { value: ORDER } });
    fireEvent.change(form.getByLabelText('M-Pesa receipt'), { target: { value: 'skl4a7k2qz' } });
    fireEvent.change(form.getByLabelText('Amount (Ksh)'), { target: { value: '502' } });
    fireEvent.change(form.getByLabelText('Phone (optional)'), { target: { value: '0708374149' } });
    fireEvent.click(form.getByRole('button', { name: 'Record payment' }));
    await waitFor(() => expect(posts().length).toBeGreaterThan(0));
    const post = posts()[0];
    expect(post?.url.pathname).toBe('/api/admin/payments');
    expect(post?.body).toEqual({ orderId: ORDER, receipt: 'SKL4A7K2QZ', amount: 502, phone: '0708374149' });
    await waitFor(() => expect((form.getByLabelText('M-Pesa receipt') as HTMLInputElement).value).toBe(''));
  });

  it('shows a refused entry’s messages under the fields they name, and the others above the form', async () => {
    renderAt('/admin/payments');
    await screen.findAllByRole('article');
    const form = within(screen.getByRole('form', { name: 'Record M-Pesa payment' }));
    ledgerApi.answer = answerPost({
      status: 409,
      body: {
        errors: [
          { msg: 'This M-Pesa receipt is already recorded: find it in the payments list', path: 'receipt' },
          { msg: 'No order has this number', path: 'orderNumber' },
          { msg: 'M-Pesa is not answering' },
        ],
      },
    });
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

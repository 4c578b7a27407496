import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Order } from '../../../shared/schemas/orders';
import type { LedgerPayment, PaymentStatus as PaymentStatusBody } from '../../../shared/schemas/payments';
import { makeStore } from '../../stores/store';
import { EXCEPTION_REASON } from './ledger-text';
import LipaNaMpesaDetails from './lipa-na-mpesa-details';
import PayOrder from './pay-order';
import PaymentStatus, { amountStillDue } from './payment-status';
import RecordOrderPayment from './record-order-payment';

const ORDER = '0b6f7c1e-3a52-4d7e-9f1a-2c4b5d6e7f80';

const order = (over: Partial<Order> = {}): Order => ({
  _id: ORDER,
  orderNumber: 'H4TP8ZRW',
  user: { _id: 'u1', name: 'Amina', email: 'amina@example.com' },
  orderItems: [{ _id: 'p1', name: 'Kikoi', image: '/images/kikoi.jpg', qty: 1, price: 436.46 }],
  shippingAddress: {
    county: 'Nairobi',
    phoneNumber: '0708374149',
    postalCode: '00100',
    sub_county: 'Westlands',
    ward: 'Parklands',
  },
  paymentMethod: 'MPESA',
  itemsPrice: 436.46,
  shippingPrice: 0,
  taxPrice: 65.47,
  totalPrice: 501.93,
  isPaid: false,
  paidAt: null,
  mpesaReceipt: null,
  isDelivered: false,
  deliveredAt: null,
  createdAt: '2026-11-24T08:00:00.000Z',
  updatedAt: '2026-11-24T08:00:00.000Z',
  ...over,
});

const ledgerPayment = (over: Partial<LedgerPayment>): LedgerPayment => ({
  _id: 'lp1',
  receipt: 'SKL4A7K2QZ',
  amount: 502,
  phone: '0708 *** 149',
  source: 'stk_callback',
  orderId: ORDER,
  orderNumber: 'H4TP8ZRW',
  status: 'credited',
  exception: null,
  receivedAt: '2026-11-24T08:39:41.000Z',
  note: null,
  refund: null,
  ...over,
});

const status = (over: Partial<PaymentStatusBody> = {}): PaymentStatusBody => ({
  orderId: ORDER,
  orderNumber: 'H4TP8ZRW',
  isPaid: true,
  paidAt: '2026-11-24T08:39:41.000Z',
  receipt: 'SKL4A7K2QZ',
  amountDue: 502,
  lastAttempt: null,
  payments: [],
  amountPaid: 0,
  paybillSimulator: false,
  refundedAt: null,
  ...over,
});

let posts: { url: string; body: unknown }[] = [];
let paymentStatus: PaymentStatusBody;
/** The server's refusal of a recorded payment, when it refuses one. */
let refusal: { status: number; body: unknown } | null = null;

beforeEach(() => {
  posts = [];
  paymentStatus = status();
  refusal = null;
  vi.stubGlobal('fetch', async (request: Request) => {
    if (request.method === 'POST') {
      posts.push({ url: new URL(request.url).pathname, body: JSON.parse(await request.text()) });
      if (refusal) return Response.json(refusal.body, { status: refusal.status });
      return Response.json(ledgerPayment({ _id: 'lp9', source: 'manual' }), { status: 201 });
    }
    return Response.json(paymentStatus);
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

function renderWithStore(ui: React.ReactElement) {
  render(<Provider store={makeStore()}>{ui}</Provider>);
}

describe('PaymentStatus: the payments on the order', () => {
  it('shows what M-Pesa charged for a paid order, not the total with its cents', async () => {
    paymentStatus = status({ amountPaid: 502, payments: [ledgerPayment({})] });
    renderWithStore(
      <PaymentStatus order={order({ isPaid: true, paidAt: '2026-11-24T08:39:41.000Z', mpesaReceipt: 'SKL4A7K2QZ' })} canPay />,
    );
    expect(await screen.findByText('Paid on 2026-11-24')).toBeTruthy();
    await waitFor(() => expect(screen.getAllByText('Ksh. 502.00').length).toBe(2));
    expect(screen.queryByText(/501\.93/)).toBeNull();
  });

  it('lists every payment on the order with its receipt, amount, time and status', async () => {
    paymentStatus = status({
      amountPaid: 502,
      payments: [
        ledgerPayment({}),
        ledgerPayment({ _id: 'lp2', receipt: 'SKL4A7K2QY', status: 'exception', exception: 'double_payment' }),
        ledgerPayment({ _id: 'lp3', receipt: null, status: 'credited', source: 'stk_query' }),
      ],
    });
    renderWithStore(<PaymentStatus order={order({ isPaid: true, paidAt: '2026-11-24T08:39:41.000Z' })} canPay />);
    const list = within(await screen.findByRole('region', { name: 'Payments' }));
    const items = list.getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(within(items[0]!).getByText('SKL4A7K2QZ')).toBeTruthy();
    expect(within(items[0]!).getByText('Ksh. 502.00')).toBeTruthy();
    expect(within(items[0]!).getByText('2026-11-24 11:39 EAT')).toBeTruthy();
    expect(within(items[0]!).getByText('Credited')).toBeTruthy();
    // The shopper is told the payment is being looked at, not that it is an "Exception".
    expect(within(items[1]!).getByText('Being checked')).toBeTruthy();
    expect(list.queryByText('Exception')).toBeNull();
    expect(within(items[2]!).getByText('Receipt missing')).toBeTruthy();
    // The merchant's wording of an exception is for admins, not the shopper.
    expect(list.queryByText(/Paid twice/)).toBeNull();
  });

  it('shows no payment list while the order has none', async () => {
    paymentStatus = status({ isPaid: false, paidAt: null, receipt: null });
    renderWithStore(<PaymentStatus order={order()} canPay />);
    expect(await screen.findByText('Not Paid')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Payments' })).toBeNull());
  });
});

describe('PaymentStatus: what the shopper and the admin are told', () => {
  it('never shows a shopper the admin’s note, an exception or its detail, even when the server sends them', async () => {
    paymentStatus = status({
      isPaid: false,
      paidAt: null,
      receipt: null,
      payments: [
        ledgerPayment({
          status: 'exception',
          exception: 'unconfirmed',
          source: 'c2b',
          detail: 'Waiting for M-Pesa to confirm this Paybill payment…',
        }),
        ledgerPayment({
          _id: 'lp2',
          receipt: 'SKL4A7K2QY',
          status: 'resolved',
          exception: 'amount_mismatch',
          amount: 3300,
          recordedAmount: 3000,
          note: 'Customer keeps the difference as credit',
        }),
        ledgerPayment({ _id: 'lp3', receipt: 'SKL4A7K2QX', status: 'exception', exception: 'bad_amount', detail: '-300.00' }),
      ],
    });
    renderWithStore(<PaymentStatus order={order()} canPay />);
    const list = await screen.findByRole('region', { name: 'Payments' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
    const text = document.body.textContent ?? '';
    for (const secret of [
      ...Object.keys(EXCEPTION_REASON),
      ...Object.values(EXCEPTION_REASON),
      'Waiting for M-Pesa',
      '-300.00',
      'Customer keeps',
      'Note',
      'Recorded by hand',
      'Ksh. 3,000.00',
      'Exception',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(within(list).getAllByText('Being checked')).toHaveLength(2);
    expect(within(list).getByText('Resolved')).toBeTruthy();
  });

  it('tells an admin what the server found about a payment', async () => {
    paymentStatus = status({
      isPaid: false,
      paidAt: null,
      receipt: null,
      payments: [
        ledgerPayment({
          status: 'exception',
          exception: 'unconfirmed',
          source: 'c2b',
          detail: 'Waiting for M-Pesa to confirm this Paybill payment…',
        }),
      ],
    });
    renderWithStore(<PaymentStatus order={order()} canPay={false} isAdmin />);
    expect(await screen.findByText(EXCEPTION_REASON.unconfirmed)).toBeTruthy();
    expect(screen.getByText('Waiting for M-Pesa to confirm this Paybill payment…')).toBeTruthy();
    expect(screen.getByText('Exception')).toBeTruthy();
  });

  it('tells an admin why a payment is an exception', async () => {
    paymentStatus = status({
      payments: [ledgerPayment({ status: 'exception', exception: 'double_payment' })],
    });
    renderWithStore(<PaymentStatus order={order({ isPaid: true })} canPay={false} isAdmin />);
    expect(await screen.findByText('Paid twice: this order was already paid. Refund or keep as credit.')).toBeTruthy();
  });
});

describe('PaymentStatus: an unconfirmed prompt', () => {
  it('tells the shopper honestly when M-Pesa did not confirm the prompt, and keeps asking', async () => {
    const attempt = {
      status: 'unknown' as const,
      reason: null,
      resultCode: 'lost_answer',
      amount: 502,
      phone: '0708 *** 149',
      receipt: null,
      createdAt: '2026-11-24T08:38:00.000Z',
    };
    paymentStatus = status({ isPaid: false, paidAt: null, receipt: null, lastAttempt: attempt });
    renderWithStore(<PaymentStatus order={order()} canPay />);
    expect(await screen.findByText('M-Pesa did not confirm this prompt.')).toBeTruthy();
    expect(screen.queryByText('The M-Pesa payment did not go through.')).toBeNull();
    // The late callback pays it: the page learns of it by itself.
    paymentStatus = status({ isPaid: true, amountPaid: 502, lastAttempt: { ...attempt, status: 'paid' } });
    expect(await screen.findByText('M-Pesa payment received. Updating the order…', {}, { timeout: 5000 })).toBeTruthy();
  });
});

describe('what is left to pay', () => {
  const PAYBILL = { businessNumber: '600984', accountNumber: 'H4TP8ZRW' };
  const unpaid = (over: Partial<PaymentStatusBody>) =>
    status({ isPaid: false, paidAt: null, receipt: null, amountDue: 502, paybillSimulator: false, ...over });

  /** The order page's payment parts for its owner, as OrderScreen puts them together. */
  function renderOrderPage() {
    renderWithStore(
      <MemoryRouter>
        <PaymentStatus order={order()} canPay />
        <PayOrder order={order()} />
        <LipaNaMpesaDetails orderId={ORDER} />
      </MemoryRouter>,
    );
  }

  it('after a part payment, shows what is paid and what remains, never the whole total as still to pay', async () => {
    paymentStatus = unpaid({
      amountPaid: 300,
      paybill: { ...PAYBILL, amount: 202 },
      payments: [ledgerPayment({ amount: 300, source: 'c2b' })],
    });
    renderOrderPage();
    const told = await screen.findByText(/^Still to pay/);
    expect(told.textContent).toBe('Still to pay Ksh. 202.00');
    expect(screen.getByText(/^Paid so far/).textContent).toBe('Paid so far Ksh. 300.00');
    const paybill = within(screen.getByRole('region', { name: 'Or pay with M-Pesa Paybill' }));
    expect(paybill.getByText('Ksh. 202.00')).toBeTruthy();
    // The prompt asks M-Pesa for what remains, as the server does, never the whole Ksh 502 again.
    expect(screen.getByTestId('pay-remaining').textContent).toBe('You have paid Ksh. 300.00 so far.');
    expect(screen.getByRole('button', { name: 'Pay with M-Pesa' })).toBeTruthy();
    expect(screen.getByText(/^You will pay/).textContent).toContain('Ksh. 202.00');
    expect(screen.queryByText(/Ksh\. 502\.00/)).toBeNull();
  });

  it('before any payment, offers the prompt for the amount due and shows no part payment', async () => {
    paymentStatus = unpaid({ amountPaid: 0, paybill: { ...PAYBILL, amount: 502 } });
    renderOrderPage();
    const paybill = within(await screen.findByRole('region', { name: 'Or pay with M-Pesa Paybill' }));
    expect(paybill.getByText('Ksh. 502.00')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Pay with M-Pesa' })).toBeTruthy();
    expect(screen.getByText(/^You will pay/).textContent).toContain('Ksh. 502.00');
    expect(screen.queryByText(/^Still to pay/)).toBeNull();
    expect(screen.queryByTestId('pay-remaining')).toBeNull();
  });

  it('does not count a payment M-Pesa has not confirmed as paid', async () => {
    // The server counts nothing for it: amountPaid stays 0, and the Paybill amount the whole.
    paymentStatus = unpaid({
      amountPaid: 0,
      paybill: { ...PAYBILL, amount: 502 },
      payments: [ledgerPayment({ amount: 300, source: 'c2b', status: 'exception', exception: null })],
    });
    renderOrderPage();
    const list = within(await screen.findByRole('region', { name: 'Payments' }));
    expect(list.getByText('Being checked')).toBeTruthy();
    expect(screen.queryByText(/^Paid so far/)).toBeNull();
    expect(screen.getByRole('button', { name: 'Pay with M-Pesa' })).toBeTruthy();
  });

  it('works out what remains from the amount due when no Paybill or Till details come', () => {
    expect(amountStillDue(unpaid({ amountPaid: 300 }))).toBe(202);
    // M-Pesa charges whole shillings: what remains is rounded up.
    expect(amountStillDue(unpaid({ amountPaid: 300.5 }))).toBe(202);
    expect(amountStillDue(unpaid({ amountPaid: 600 }))).toBe(0);
    // The server's own figure wins when it comes.
    expect(amountStillDue(unpaid({ amountPaid: 300, till: { tillNumber: '174379', amount: 203 } }))).toBe(203);
  });
});

describe('RecordOrderPayment', () => {
  it('records the receipt against the order with the amount due prefilled', async () => {
    paymentStatus = status({ isPaid: false, paidAt: null, receipt: null, amountDue: 502 });
    renderWithStore(
      <>
        <PaymentStatus order={order()} canPay={false} isAdmin />
        <RecordOrderPayment order={order()} reloading={false} />
      </>,
    );
    const form = within(screen.getByRole('form', { name: 'Record M-Pesa payment' }));
    await waitFor(() => expect((form.getByLabelText('Amount (Ksh)') as HTMLInputElement).value).toBe('502'));

    fireEvent.click(form.getByRole('button', { name: 'Record M-Pesa payment' }));
    expect(await form.findByText(/8 to 20 letters and digits/)).toBeTruthy();
    expect(posts).toHaveLength(0);

    fireEvent.change(form.getByLabelText('M-Pesa receipt'), { target: { value: ' skl4a7k2qz ' } });
    fireEvent.click(form.getByRole('button', { name: 'Record M-Pesa payment' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ url: '/api/admin/payments', body: { orderId: ORDER, receipt: 'SKL4A7K2QZ', amount: 502 } });
  });

  it('shows a refusal under the amount when it is about the amount, and under the receipt otherwise', async () => {
    paymentStatus = status({ isPaid: false, paidAt: null, receipt: null, amountDue: 502 });
    renderWithStore(<RecordOrderPayment order={order()} reloading={false} />);
    const form = within(screen.getByRole('form', { name: 'Record M-Pesa payment' }));
    const receipt = form.getByLabelText('M-Pesa receipt');
    const amount = form.getByLabelText('Amount (Ksh)');
    fireEvent.change(receipt, { target: { value: 'SKL4A7K2QZ' } });
    fireEvent.change(amount, { target: { value: '502' } });

    refusal = { status: 400, body: { errors: [{ msg: 'Amount has at most two decimals', path: 'amount' }] } };
    fireEvent.click(form.getByRole('button', { name: 'Record M-Pesa payment' }));
    await waitFor(() => expect(amount.getAttribute('aria-invalid')).toBe('true'));
    expect(form.getByText('Amount has at most two decimals')).toBeTruthy();
    expect(receipt.getAttribute('aria-invalid')).toBeNull();

    refusal = { status: 404, body: { errors: [{ msg: 'Order not found' }] } };
    fireEvent.click(form.getByRole('button', { name: 'Record M-Pesa payment' }));
    await waitFor(() => expect(receipt.getAttribute('aria-invalid')).toBe('true'));
    expect(form.getByText('Order not found')).toBeTruthy();
    expect(posts).toHaveLength(2);
  });
});

import { type FormEvent, useEffect, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { toCents } from '../../../shared/money';
import type { Order } from '../../../shared/schemas/orders';
import { errorMessage } from '../../lib/errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { paymentsApi, useRecordPaymentMutation } from './paymentsApi';

/** An M-Pesa receipt as the ledger keys it: trimmed, upper case, 8 to 20 letters and digits. */
const RECEIPT = /^[A-Z0-9]{8,20}$/;

/**
 * Beside "Mark As Paid", for an admin holding the M-Pesa receipt of an order's payment (from the
 * merchant's statement or the shopper's SMS): the payment goes into the ledger with its receipt,
 * and pays the order if it covers what is due. The amount starts as what M-Pesa charges for it.
 */
export default function RecordOrderPayment({ order, reloading }: { order: Order; reloading: boolean }) {
  // Read, not subscribed: PaymentStatus keeps it up to date. Until it loads, the total rounded up.
  const { data: status } = paymentsApi.endpoints.getPaymentStatus.useQueryState(order._id);
  const amountDue = status?.amountDue ?? Math.ceil(toCents(order.totalPrice) / 100);
  const [receipt, setReceipt] = useState('');
  const [amount, setAmount] = useState(String(amountDue));
  const [touchedAmount, setTouchedAmount] = useState(false);
  const [error, setError] = useState<{ field: 'receipt' | 'amount'; msg: string } | null>(null);
  const [record, { isLoading }] = useRecordPaymentMutation();
  const id = `record-payment-${order._id}`;

  // The amount due arrives with the payment status: follow it until the admin types their own.
  useEffect(() => {
    if (!touchedAmount) setAmount(String(amountDue));
  }, [amountDue, touchedAmount]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const normalised = receipt.trim().toUpperCase();
    const value = Number(amount.trim());
    if (!RECEIPT.test(normalised)) {
      setError({ field: 'receipt', msg: 'An M-Pesa receipt is 8 to 20 letters and digits, like SKL4A7K2QZ' });
      return;
    }
    if (amount.trim() === '' || !Number.isFinite(value) || value <= 0) {
      setError({ field: 'amount', msg: 'Enter the amount M-Pesa shows' });
      return;
    }
    setError(null);
    try {
      await record({ orderId: order._id, receipt: normalised, amount: value }).unwrap();
      toastSuccess(`M-Pesa payment ${normalised} recorded`);
      setReceipt('');
    } catch (err) {
      const path = (err as { data?: { errors?: { path?: string }[] } }).data?.errors?.[0]?.path;
      setError({ field: path === 'amount' ? 'amount' : 'receipt', msg: errorMessage(err) });
      toastErrors(err);
    }
  }

  const invalid = (field: 'receipt' | 'amount') => error?.field === field;
  const describedBy = (field: 'receipt' | 'amount', hint?: string) =>
    [hint, invalid(field) ? `${id}-error` : undefined].filter(Boolean).join(' ') || undefined;

  return (
    <Form onSubmit={submit} noValidate aria-label="Record M-Pesa payment">
      <Form.Group controlId={`${id}-receipt`} className="mb-2">
        <Form.Label>M-Pesa receipt</Form.Label>
        <Form.Control
          className="tap-target font-monospace"
          value={receipt}
          onChange={(e) => setReceipt(e.target.value)}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={40}
          placeholder="e.g. SKL4A7K2QZ"
          required
          isInvalid={invalid('receipt')}
          aria-invalid={invalid('receipt')}
          aria-describedby={describedBy('receipt')}
        />
        {invalid('receipt') && (
          <Form.Control.Feedback type="invalid" id={`${id}-error`}>
            {error?.msg}
          </Form.Control.Feedback>
        )}
      </Form.Group>
      <Form.Group controlId={`${id}-amount`} className="mb-2">
        <Form.Label>Amount (Ksh)</Form.Label>
        <Form.Control
          className="tap-target"
          value={amount}
          onChange={(e) => {
            setTouchedAmount(true);
            setAmount(e.target.value);
          }}
          inputMode="decimal"
          autoComplete="off"
          maxLength={12}
          required
          isInvalid={invalid('amount')}
          aria-invalid={invalid('amount')}
          aria-describedby={describedBy('amount', `${id}-amount-hint`)}
        />
        <Form.Text id={`${id}-amount-hint`}>As on the M-Pesa statement. M-Pesa charges whole shillings.</Form.Text>
        {invalid('amount') && (
          <Form.Control.Feedback type="invalid" id={`${id}-error`}>
            {error?.msg}
          </Form.Control.Feedback>
        )}
      </Form.Group>
      <div className="d-grid">
        <Button type="submit" variant="success" className="tap-target" disabled={isLoading || reloading}>
          {isLoading && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Record M-Pesa payment
        </Button>
      </div>
    </Form>
  );
}

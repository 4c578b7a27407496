import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { toCents } from '../../../shared/money';
import type { Order } from '../../../shared/schemas/orders';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { paymentsApi, useRecordPaymentMutation } from './api';
import { orderPaymentForm } from './payment-forms';

/**
 * Beside "Mark As Paid", for an admin holding the M-Pesa receipt of an order's payment (from the
 * merchant's statement or the shopper's SMS): the payment goes into the ledger with its receipt,
 * and pays the order if it covers what is due. The amount starts as what M-Pesa charges for it.
 */
export default function RecordOrderPayment({ order, reloading }: { order: Order; reloading: boolean }) {
  // Read, not subscribed: PaymentStatus keeps it up to date. Until it loads, the total rounded up.
  const { data: status } = paymentsApi.endpoints.getPaymentStatus.useQueryState(order._id);
  const amountDue = status?.amountDue ?? Math.ceil(toCents(order.totalPrice) / 100);
  const form = useZodForm<{ receipt: string; amount: string }, { receipt: string; amount: number }>(orderPaymentForm, {
    receipt: '',
    amount: String(amountDue),
  });
  const [record, { isLoading }] = useRecordPaymentMutation();
  const id = `record-payment-${order._id}`;
  const rules = orderPaymentForm.shape;

  // The amount due arrives with the payment status: follow it until the admin types their own.
  const touchedAmount = form.formState.dirtyFields.amount === true;
  useEffect(() => {
    if (!touchedAmount) form.resetField('amount', { defaultValue: String(amountDue) });
  }, [amountDue, touchedAmount, form]);

  const submit = form.handleSubmit(async ({ receipt, amount }) => {
    try {
      await record({ orderId: order._id, receipt, amount }).unwrap();
      toastSuccess(`M-Pesa payment ${receipt} recorded`);
      form.resetField('receipt');
    } catch (err) {
      // Under the amount when it is about the amount, else under the receipt.
      placeServerErrors(form, err, { fallback: 'receipt' });
      toastErrors(err);
    }
  });

  return (
    <Form onSubmit={submit} noValidate aria-label="Record M-Pesa payment">
      <FormField
        form={form}
        name="receipt"
        id={`${id}-receipt`}
        label="M-Pesa receipt"
        className="mb-2"
        controlClassName="tap-target font-monospace"
        schema={rules.receipt}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        placeholder="e.g. SKL4A7K2QZ"
        required
      />
      <FormField
        form={form}
        name="amount"
        id={`${id}-amount`}
        label="Amount (Ksh)"
        className="mb-2"
        controlClassName="tap-target"
        schema={rules.amount}
        inputMode="decimal"
        autoComplete="off"
        required
        hint="As on the M-Pesa statement. M-Pesa charges whole shillings."
      />
      <div className="d-grid">
        <Button type="submit" variant="success" className="tap-target" disabled={isLoading || reloading}>
          {isLoading && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Record M-Pesa payment
        </Button>
      </div>
    </Form>
  );
}

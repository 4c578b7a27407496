import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import type { UseFormReturn } from 'react-hook-form';
import { formatKsh } from '../../../shared/money';
import FormField from '../../components/form/form-field';
import { fieldMessages, useZodForm } from '../../components/form/use-zod-form';
import { useServerErrors } from '../../hooks/use-server-errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useRecordPaymentMutation } from './api';
import {
  type ManualPaymentEntry,
  type ManualPaymentFields,
  manualPaymentForm,
  ORDER_HINT,
  orderReference,
} from './payment-forms';

const EMPTY: ManualPaymentFields = { orderId: '', receipt: '', amount: '', phone: '' };

/** The entry's boxes and its button, in a row from lg up. */
function EntryFields({ form, busy }: { form: UseFormReturn<ManualPaymentFields, unknown, ManualPaymentEntry>; busy: boolean }) {
  const rules = manualPaymentForm.shape;
  // What every box of this form shares.
  const box = { form, className: '', controlClassName: 'tap-target', autoComplete: 'off' } as const;
  return (
    <Row className="g-2">
      <Col xs={12} lg={6}>
        <FormField
          {...box}
          name="orderId"
          id="record-payment-orderId"
          label="Order ID or number"
          schema={rules.orderId}
          spellCheck={false}
          hint={ORDER_HINT}
        />
      </Col>
      <Col xs={12} sm={6} lg={3}>
        <FormField
          {...box}
          name="receipt"
          id="record-payment-receipt"
          label="M-Pesa receipt"
          schema={rules.receipt}
          spellCheck={false}
          autoCapitalize="characters"
          placeholder="e.g. SKL4A7K2QZ"
        />
      </Col>
      <Col xs={12} sm={6} lg={3}>
        <FormField
          {...box}
          name="amount"
          id="record-payment-amount"
          label="Amount (Ksh)"
          schema={rules.amount}
          inputMode="decimal"
        />
      </Col>
      <Col xs={12} sm={6} lg={4}>
        <FormField
          {...box}
          name="phone"
          id="record-payment-phone"
          label="Phone (optional)"
          schema={rules.phone}
          type="tel"
          inputMode="tel"
        />
      </Col>
      <Col xs={12} sm={6} lg={4} className="d-flex align-items-end">
        <Button type="submit" variant="success" className="tap-target w-100" disabled={busy}>
          {busy && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Record payment
        </Button>
      </Col>
    </Row>
  );
}

/**
 * An admin records a payment from the merchant's M-Pesa statement, with its receipt: the ledger
 * keeps it like any other, and the order is settled if the amount covers what is due.
 */
export default function RecordPaymentForm() {
  const form = useZodForm<ManualPaymentFields, ManualPaymentEntry>(manualPaymentForm, EMPTY);
  // The server names an order number's problem by its own field; the form has one order field.
  const serverErrors = useServerErrors(form, { rename: { orderNumber: 'orderId' } });
  const [record, { isLoading }] = useRecordPaymentMutation();

  const submit = form.handleSubmit(
    async ({ orderId, ...entry }) => {
      serverErrors.clear();
      try {
        const payment = await record({ ...entry, ...orderReference(orderId) }).unwrap();
        const receipt = payment.receipt ?? entry.receipt;
        // M-Pesa's own word on this receipt gave another amount: say which one the shop kept.
        toastSuccess(
          payment.exception === 'amount_mismatch'
            ? `M-Pesa payment ${receipt} recorded, but M-Pesa says it was ${formatKsh(payment.amount)}: M-Pesa’s amount counts`
            : `M-Pesa payment ${receipt} recorded`,
        );
        form.reset(EMPTY);
      } catch (err) {
        serverErrors.show(err);
        toastErrors(err);
      }
    },
    (errors) => {
      serverErrors.clear();
      for (const message of fieldMessages(errors)) toastError(message);
    },
  );

  return (
    <Card className="shadow-sm mb-4">
      <Card.Body>
        <h2 className="h5">Record M-Pesa payment</h2>
        <p className="small text-body-secondary">
          A payment on your M-Pesa statement that the shop did not record. It counts towards the order, which is paid once its
          payments cover the amount due. Type the amount as the statement shows it: if M-Pesa reports another amount for the
          receipt, M-Pesa’s counts.
        </p>
        <Form onSubmit={submit} noValidate aria-label="Record M-Pesa payment">
          {serverErrors.formErrors.length > 0 && (
            <div className="alert alert-danger" role="alert">
              {serverErrors.formErrors.join(' ')}
            </div>
          )}
          <EntryFields form={form} busy={isLoading} />
        </Form>
      </Card.Body>
    </Card>
  );
}

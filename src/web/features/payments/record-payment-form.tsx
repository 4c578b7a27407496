import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { formatKsh } from '../../../shared/money';
import FormField from '../../components/form/form-field';
import { fieldMessages, useZodForm } from '../../components/form/use-zod-form';
import { errorMessages } from '../../lib/errors';
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

/** The field a server message is about, from its path; the form's top otherwise. */
function serverErrors(error: unknown): { fields: Partial<Record<keyof ManualPaymentFields, string>>; general: string[] } {
  const data = (error as { data?: { errors?: { msg?: string; path?: string }[] } } | undefined)?.data;
  const fields: Partial<Record<keyof ManualPaymentFields, string>> = {};
  const general: string[] = [];
  const known = ['orderId', 'receipt', 'amount', 'phone'] as const;
  // The server names an order number's problem by its own field; the form has one order field.
  const fieldOf = (path: string | undefined) => (path === 'orderNumber' ? 'orderId' : path);
  for (const e of Array.isArray(data?.errors) ? data.errors : []) {
    const field = known.find((k) => k === fieldOf(e.path));
    if (field && typeof e.msg === 'string' && !fields[field]) fields[field] = e.msg;
    else if (typeof e.msg === 'string') general.push(e.msg);
  }
  if (Object.keys(fields).length === 0 && general.length === 0) general.push(...errorMessages(error));
  return { fields, general };
}

/**
 * An admin records a payment from the merchant's M-Pesa statement, with its receipt: the ledger
 * keeps it like any other, and the order is settled if the amount covers what is due.
 */
export default function RecordPaymentForm() {
  const form = useZodForm<ManualPaymentFields, ManualPaymentEntry>(manualPaymentForm, EMPTY);
  const [general, setGeneral] = useState<string[]>([]);
  const [record, { isLoading }] = useRecordPaymentMutation();
  const rules = manualPaymentForm.shape;

  const submit = form.handleSubmit(
    async ({ orderId, ...entry }) => {
      setGeneral([]);
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
        const found = serverErrors(err);
        for (const [field, message] of Object.entries(found.fields)) {
          form.setError(field as keyof ManualPaymentFields, { message });
        }
        setGeneral(found.general);
        toastErrors(err);
      }
    },
    (errors) => {
      setGeneral([]);
      for (const message of fieldMessages(errors)) toastError(message);
    },
  );

  /** What every box of this form shares. */
  const box = { form, className: '', controlClassName: 'tap-target', autoComplete: 'off' } as const;

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
          {general.length > 0 && (
            <div className="alert alert-danger" role="alert">
              {general.join(' ')}
            </div>
          )}
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
              <Button type="submit" variant="success" className="tap-target w-100" disabled={isLoading}>
                {isLoading && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
                Record payment
              </Button>
            </Col>
          </Row>
        </Form>
      </Card.Body>
    </Card>
  );
}

import { type FormEvent, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { errorMessages } from '../../lib/errors';
import { toastError, toastErrors, toastSuccess } from '../../lib/toast';
import { useRecordPaymentMutation } from '../orders/paymentsApi';
import { checkManualPayment, type ManualPaymentErrors, type ManualPaymentFields, ORDER_ID_HINT } from './paymentForms';

const EMPTY: ManualPaymentFields = { orderId: '', receipt: '', amount: '', phone: '' };

/** The field a server message is about, from its path; the form's top otherwise. */
function serverErrors(error: unknown): { fields: ManualPaymentErrors; general: string[] } {
  const data = (error as { data?: { errors?: { msg?: string; path?: string }[] } } | undefined)?.data;
  const fields: ManualPaymentErrors = {};
  const general: string[] = [];
  const known = ['orderId', 'receipt', 'amount', 'phone'] as const;
  for (const e of Array.isArray(data?.errors) ? data.errors : []) {
    const field = known.find((k) => k === e.path);
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
  const [fields, setFields] = useState<ManualPaymentFields>(EMPTY);
  const [errors, setErrors] = useState<ManualPaymentErrors>({});
  const [general, setGeneral] = useState<string[]>([]);
  const [record, { isLoading }] = useRecordPaymentMutation();

  const change = (name: keyof ManualPaymentFields) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setFields((current) => ({ ...current, [name]: e.target.value }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setGeneral([]);
    const check = checkManualPayment(fields);
    if (!check.ok) {
      setErrors(check.errors);
      for (const message of Object.values(check.errors)) if (message) toastError(message);
      return;
    }
    setErrors({});
    try {
      const payment = await record(check.body).unwrap();
      toastSuccess(`M-Pesa payment ${payment.receipt ?? check.body.receipt} recorded`);
      setFields(EMPTY);
    } catch (err) {
      const found = serverErrors(err);
      setErrors(found.fields);
      setGeneral(found.general);
      toastErrors(err);
    }
  }

  /** The props that make one text field: label tie-up, value, invalid state and its message. */
  const field = (name: keyof ManualPaymentFields) => ({
    value: fields[name],
    onChange: change(name),
    isInvalid: Boolean(errors[name]),
    'aria-invalid': Boolean(errors[name]),
    className: 'tap-target',
    autoComplete: 'off',
  });
  const feedback = (name: keyof ManualPaymentFields) => (
    <Form.Control.Feedback type="invalid" id={`record-payment-${name}-error`}>
      {errors[name]}
    </Form.Control.Feedback>
  );
  const describedBy = (name: keyof ManualPaymentFields, hint?: string) =>
    [hint, errors[name] ? `record-payment-${name}-error` : undefined].filter(Boolean).join(' ') || undefined;

  return (
    <Card className="shadow-sm mb-4">
      <Card.Body>
        <h2 className="h5">Record M-Pesa payment</h2>
        <p className="small text-body-secondary">
          A payment on your M-Pesa statement that the shop did not record. It pays the order if it covers the amount due.
        </p>
        <Form onSubmit={submit} noValidate aria-label="Record M-Pesa payment">
          {general.length > 0 && (
            <div className="alert alert-danger" role="alert">
              {general.join(' ')}
            </div>
          )}
          <Row className="g-2">
            <Col xs={12} lg={6}>
              <Form.Group controlId="record-payment-orderId">
                <Form.Label>Order ID</Form.Label>
                <Form.Control
                  {...field('orderId')}
                  spellCheck={false}
                  maxLength={300}
                  aria-describedby={describedBy('orderId', 'record-payment-orderId-hint')}
                />
                <Form.Text id="record-payment-orderId-hint">{ORDER_ID_HINT}</Form.Text>
                {feedback('orderId')}
              </Form.Group>
            </Col>
            <Col xs={12} sm={6} lg={3}>
              <Form.Group controlId="record-payment-receipt">
                <Form.Label>M-Pesa receipt</Form.Label>
                <Form.Control
                  {...field('receipt')}
                  spellCheck={false}
                  autoCapitalize="characters"
                  maxLength={40}
                  placeholder="e.g. SKL4A7K2QZ"
                  aria-describedby={describedBy('receipt')}
                />
                {feedback('receipt')}
              </Form.Group>
            </Col>
            <Col xs={12} sm={6} lg={3}>
              <Form.Group controlId="record-payment-amount">
                <Form.Label>Amount (Ksh)</Form.Label>
                <Form.Control {...field('amount')} inputMode="decimal" maxLength={12} aria-describedby={describedBy('amount')} />
                {feedback('amount')}
              </Form.Group>
            </Col>
            <Col xs={12} sm={6} lg={4}>
              <Form.Group controlId="record-payment-phone">
                <Form.Label>Phone (optional)</Form.Label>
                <Form.Control
                  {...field('phone')}
                  type="tel"
                  inputMode="tel"
                  maxLength={20}
                  aria-describedby={describedBy('phone')}
                />
                {feedback('phone')}
              </Form.Group>
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

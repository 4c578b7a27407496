import { useId, useRef, useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { Link } from 'react-router';
import { formatKsh } from '../../../shared/money';
import type { LedgerPayment } from '../../../shared/schemas/payments';
import FormField from '../../components/form/form-field';
import { useZodForm } from '../../components/form/use-zod-form';
import { paths } from '../../config/paths';
import { placeServerErrors } from '../../hooks/use-server-errors';
import { toastErrors, toastSuccess } from '../../lib/toast';
import { useAssignPaymentMutation, useResolvePaymentMutation } from './api';
import { exceptionReason, isOpenException, receivedTime, SOURCE_LABEL, STATUS_LABEL, STATUS_VARIANT } from './ledger-text';
import { assignForm, ORDER_HINT, orderReference, resolveForm } from './payment-forms';
import { canRefund, RefundButton, RefundState } from './refund-payment';

function ButtonSpinner() {
  return <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />;
}

/** Gives an unmatched payment to an order: its number as the M-Pesa statement shows it, its full id, or its link pasted. */
function AssignForm({ payment, onClose }: { payment: LedgerPayment; onClose: (done: boolean) => void }) {
  const form = useZodForm<{ orderId: string }, { orderId: string }>(assignForm, { orderId: '' });
  const [assign, { isLoading }] = useAssignPaymentMutation();
  const id = useId();

  const submit = form.handleSubmit(async ({ orderId }) => {
    try {
      const updated = await assign({ id: payment._id, ...orderReference(orderId) }).unwrap();
      toastSuccess(updated.status === 'credited' ? 'Payment assigned: it pays the order' : 'Payment assigned to the order');
      onClose(true);
    } catch (err) {
      placeServerErrors(form, err, { rename: { orderNumber: 'orderId' }, fallback: 'orderId' });
      toastErrors(err);
    }
  });

  return (
    <Form onSubmit={submit} noValidate className="mt-3" aria-label="Assign to order">
      <FormField
        form={form}
        name="orderId"
        id={`${id}-order`}
        label="Order ID or number"
        className="mb-2"
        controlClassName="tap-target font-monospace"
        schema={assignForm.shape.orderId}
        autoComplete="off"
        spellCheck={false}
        // The admin just asked for this field: focus follows the request.
        autoFocus
        hint={ORDER_HINT}
      />
      <div className="d-flex flex-wrap gap-2">
        <Button type="submit" variant="dark" className="tap-target" disabled={isLoading}>
          {isLoading && <ButtonSpinner />}
          Assign
        </Button>
        <Button variant="outline-secondary" className="tap-target" onClick={() => onClose(false)} disabled={isLoading}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}

/**
 * Closes an exception with the merchant's note of what was done about it. An unanswered refund is
 * closed by saying what the M-Pesa statement shows: the reversal (refunded) or none (refundable again).
 */
function ResolveForm({ payment, onClose }: { payment: LedgerPayment; onClose: (done: boolean) => void }) {
  const form = useZodForm<{ note: string }, { note: string }>(resolveForm, { note: '' });
  const [resolve, { isLoading }] = useResolvePaymentMutation();
  const id = useId();
  const unansweredRefund = payment.exception === 'refund_unanswered';

  const submitWith = (refunded: boolean | undefined) =>
    form.handleSubmit(async ({ note }) => {
      try {
        await resolve({ id: payment._id, note, ...(refunded !== undefined && { refunded }) }).unwrap();
        toastSuccess(
          refunded === undefined ? 'Exception resolved' : refunded ? 'Marked as refunded' : 'Refund closed: you may refund again',
        );
        onClose(true);
      } catch (err) {
        placeServerErrors(form, err, { fallback: 'note' });
        toastErrors(err);
      }
    });

  return (
    <Form onSubmit={submitWith(undefined)} noValidate className="mt-3" aria-label="Resolve exception">
      <FormField
        form={form}
        name="note"
        id={`${id}-note`}
        label="Note"
        control="textarea"
        rows={2}
        className="mb-2"
        schema={resolveForm.shape.note}
        // The admin just asked for this field: focus follows the request.
        autoFocus
        required
        hint={
          unansweredRefund
            ? 'Check your M-Pesa statement for a reversal of this receipt, then say what it shows.'
            : // Resolving closes the exception and keeps the note; it moves no money and changes
              // nothing the payment pays (it counts towards its order until it is refunded).
              'What you decided, e.g. “Customer keeps it as credit for the next order”. This only records your note: what the payment pays stays as it is, and only Refund sends money back.'
        }
      />
      <div className="d-flex flex-wrap gap-2">
        {unansweredRefund ? (
          <>
            <Button variant="dark" className="tap-target" disabled={isLoading} onClick={submitWith(true)}>
              {isLoading && <ButtonSpinner />}
              Statement shows the reversal
            </Button>
            <Button variant="outline-dark" className="tap-target" disabled={isLoading} onClick={submitWith(false)}>
              No reversal on the statement
            </Button>
          </>
        ) : (
          <Button type="submit" variant="dark" className="tap-target" disabled={isLoading}>
            {isLoading && <ButtonSpinner />}
            Mark resolved
          </Button>
        )}
        <Button variant="outline-secondary" className="tap-target" onClick={() => onClose(false)} disabled={isLoading}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}

type Action = 'assign' | 'resolve';

/**
 * What the admin can do about an open exception: assign it (when it pays no order: unmatched, or
 * unconfirmed and found on the M-Pesa statement) or resolve it with a note.
 */
function ExceptionActions({ payment, describedBy }: { payment: LedgerPayment; describedBy: string }) {
  const [action, setAction] = useState<Action | null>(null);
  const buttons = { assign: useRef<HTMLButtonElement>(null), resolve: useRef<HTMLButtonElement>(null) };
  const formId = useId();
  const canAssign = payment.status === 'exception' && (payment.exception === 'unmatched' || payment.exception === 'unconfirmed');

  function close(done: boolean) {
    const opened = action;
    setAction(null);
    // Back to the button that opened the form, so keyboard users keep their place.
    if (!done && opened) buttons[opened].current?.focus();
  }

  const toggle = (which: Action) => setAction((current) => (current === which ? null : which));

  return (
    <>
      <div className="d-flex flex-wrap gap-2">
        {canAssign && (
          <Button
            ref={buttons.assign}
            variant="dark"
            className="tap-target"
            aria-expanded={action === 'assign'}
            aria-controls={action === 'assign' ? formId : undefined}
            aria-describedby={describedBy}
            onClick={() => toggle('assign')}
          >
            Assign to order
          </Button>
        )}
        <Button
          ref={buttons.resolve}
          variant="outline-dark"
          className="tap-target"
          aria-expanded={action === 'resolve'}
          aria-controls={action === 'resolve' ? formId : undefined}
          aria-describedby={describedBy}
          onClick={() => toggle('resolve')}
        >
          Resolve
        </Button>
      </div>
      <div id={formId}>
        {action === 'assign' && <AssignForm payment={payment} onClose={close} />}
        {action === 'resolve' && <ResolveForm payment={payment} onClose={close} />}
      </div>
    </>
  );
}

/**
 * What the server adds for the admin: the two amounts of a receipt recorded by hand with another
 * figure than M-Pesa's, and why M-Pesa has not confirmed a payment (or the amount it sent, unreadable).
 */
function PaymentDetail({ payment }: { payment: LedgerPayment }) {
  const { recordedAmount, detail } = payment;
  return (
    <>
      {typeof recordedAmount === 'number' && (
        <p className="mb-2" data-testid="amount-mismatch">
          {/* Figures stay whole and the dot stays with the first: a phone breaks the line between them. */}
          Recorded by hand: <span className="text-nowrap">{formatKsh(recordedAmount)} ·</span>{' '}
          <span className="text-nowrap fw-semibold">M-Pesa: {formatKsh(payment.amount)}</span>
        </p>
      )}
      {typeof detail === 'string' && detail !== '' && (
        <p className="small mb-2 text-break" data-testid="payment-detail">
          {detail}
        </p>
      )}
    </>
  );
}

/**
 * One payment of the ledger as a card of labelled fields: it reads the same on a phone as on a
 * desktop, with nothing to scroll sideways. An exception says why in words, and offers its actions.
 */
export default function PaymentCard({ payment }: { payment: LedgerPayment }) {
  const headingId = useId();
  const reason = exceptionReason(payment);
  const open = isOpenException(payment);
  const variant = STATUS_VARIANT[payment.status];

  return (
    <article className="card h-100 shadow-sm" aria-labelledby={headingId} data-testid="ledger-payment">
      <div className="card-body">
        <div className="d-flex flex-wrap justify-content-between align-items-start gap-2 mb-2">
          <h2 className="h6 mb-0 text-break" id={headingId}>
            {payment.receipt ? <span className="font-monospace">{payment.receipt}</span> : 'Receipt missing'}
          </h2>
          <Badge bg={variant.bg} text={variant.text}>
            {STATUS_LABEL[payment.status]}
          </Badge>
        </div>
        <dl className="ledger-fields mb-2">
          <dt>Amount</dt>
          <dd>{formatKsh(payment.amount)}</dd>
          <dt>Phone</dt>
          <dd>{payment.phone ?? <span className="text-body-secondary">Not given</span>}</dd>
          <dt>Source</dt>
          <dd>{SOURCE_LABEL[payment.source]}</dd>
          <dt>Order</dt>
          <dd>
            {payment.orderId ? (
              <Link to={paths.order(payment.orderId)} className="font-monospace">
                {payment.orderNumber ?? payment.orderId}
              </Link>
            ) : (
              <span className="text-body-secondary">No order</span>
            )}
          </dd>
          <dt>Received</dt>
          <dd>
            <time dateTime={payment.receivedAt}>{receivedTime(payment.receivedAt)} EAT</time>
          </dd>
        </dl>
        {reason && <p className={open ? 'text-danger fw-semibold mb-2' : 'text-body-secondary small mb-2'}>{reason}</p>}
        <PaymentDetail payment={payment} />
        {payment.note && (
          <p className="mb-2">
            <strong>Note: </strong>
            {payment.note}
          </p>
        )}
        <RefundState payment={payment} />
        {open && <ExceptionActions payment={payment} describedBy={headingId} />}
        {canRefund(payment) && (
          <div className={open ? 'mt-2' : undefined}>
            <RefundButton payment={payment} describedBy={headingId} />
          </div>
        )}
      </div>
    </article>
  );
}

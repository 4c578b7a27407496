import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { formatKsh } from '../../../shared/money';
import type { LedgerPayment } from '../../../shared/schemas/payments';
import ConfirmDialog from '../../components/confirm-dialog';
import { useConfirmedAction } from '../../hooks/use-confirmed-delete';
import { useRefundPaymentMutation } from './api';
import { receivedTime } from './ledger-text';

/**
 * Whether the admin may ask M-Pesa to reverse a payment: it has its receipt (M-Pesa reverses by
 * receipt), and no refund of it is on its way or done. A refund that failed may be asked again.
 * Nothing M-Pesa has not confirmed is sent back (unconfirmed, or an amount it sent unreadable),
 * resolved or not: the shop may not hold that money at all.
 */
export function canRefund(payment: LedgerPayment): boolean {
  return (
    payment.receipt !== null &&
    payment.status !== 'refund_pending' &&
    payment.status !== 'refunded' &&
    payment.exception !== 'unconfirmed' &&
    payment.exception !== 'other_shortcode' &&
    payment.exception !== 'bad_amount'
  );
}

/** Where the payment's refund stands, in a line: asked, done, or why M-Pesa refused it. */
export function RefundState({ payment }: { payment: LedgerPayment }) {
  const refund = payment.refund;
  if (!refund) return null;
  // Unanswered after the retries: the exception's reason says what to do, so nothing here waits.
  if (payment.status === 'refund_pending' && payment.exception !== 'refund_unanswered') {
    return (
      <p className="mb-2 small" data-testid="refund-state">
        Refund asked on <time dateTime={refund.requestedAt}>{receivedTime(refund.requestedAt)} EAT</time>; waiting for M-Pesa’s
        result.
      </p>
    );
  }
  if (payment.status === 'refunded' && refund.completedAt) {
    return (
      <p className="mb-2 small fw-semibold" data-testid="refund-state">
        Refunded on <time dateTime={refund.completedAt}>{receivedTime(refund.completedAt)} EAT</time>
      </p>
    );
  }
  if (refund.failureReason) {
    return (
      <p className="mb-2 small text-danger" data-testid="refund-state">
        Refund failed: {refund.failureReason}
      </p>
    );
  }
  return null;
}

/** The Refund button and its confirmation: M-Pesa sends the whole payment back to the payer. */
export function RefundButton({ payment, describedBy }: { payment: LedgerPayment; describedBy: string }) {
  const [refund] = useRefundPaymentMutation();
  const refunding = useConfirmedAction((p: LedgerPayment) => refund({ id: p._id, orderId: p.orderId }).unwrap(), {
    success: () => 'Refund sent to M-Pesa',
  });

  return (
    <>
      <Button
        variant="outline-danger"
        className="tap-target"
        aria-describedby={describedBy}
        disabled={refunding.busy}
        onClick={() => refunding.ask(payment)}
      >
        {refunding.busy && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
        Refund
      </Button>
      <ConfirmDialog
        {...refunding.dialog}
        title="Refund this payment?"
        body={`M-Pesa will reverse the whole payment of ${formatKsh(payment.amount)} (receipt ${payment.receipt}) back to ${payment.phone ?? 'the payer'}. This cannot be undone.`}
        confirmLabel="Refund"
      />
    </>
  );
}

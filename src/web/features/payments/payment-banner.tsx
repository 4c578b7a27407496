import { useEffect } from 'react';
import Alert from 'react-bootstrap/Alert';
import Container from 'react-bootstrap/Container';
import Spinner from 'react-bootstrap/Spinner';
import { Link, useLocation } from 'react-router';
import type { PaymentStatus } from '../../../shared/schemas/payments';
import { paths } from '../../config/paths';
import { type FollowedPayment, stopFollowingPayment } from '../../stores/followed-payment-slice';
import { useAppDispatch, useAppSelector } from '../../stores/store';
import { PAYMENT_POLL_MS, paymentsApi, useGetPaymentStatusQuery } from './api';

type BannerState = 'waiting' | 'paid' | 'failed';

/** Where the followed payment stands: still waiting (or not yet known), paid, or failed. */
function bannerState(status: PaymentStatus | undefined): BannerState {
  if (status?.isPaid) return 'paid';
  const attempt = status?.lastAttempt?.status;
  if (attempt === 'failed' || attempt === 'timed_out' || attempt === 'rejected') return 'failed';
  return 'waiting';
}

function Banner({ payment }: { payment: FollowedPayment }) {
  const dispatch = useAppDispatch();
  const { data: status } = paymentsApi.endpoints.getPaymentStatus.useQueryState(payment.orderId);
  const state = bannerState(status);
  useGetPaymentStatusQuery(payment.orderId, {
    pollingInterval: state === 'waiting' ? PAYMENT_POLL_MS : 0,
    refetchOnMountOrArgChange: true,
  });
  // Paid: the order and the order lists read again, so "Paid on …" is there when the shopper looks.
  useEffect(() => {
    if (state === 'paid') {
      dispatch(
        paymentsApi.util.invalidateTags([
          { type: 'Order', id: payment.orderId },
          { type: 'Order', id: 'LIST' },
        ]),
      );
    }
  }, [state, payment.orderId, dispatch]);

  const variant = state === 'paid' ? 'success' : state === 'failed' ? 'warning' : 'info';
  const orderLink = (
    <Link to={paths.order(payment.orderId)} className="alert-link text-nowrap">
      {state === 'failed' ? 'Back to order' : 'Order'} {payment.orderNumber}
    </Link>
  );
  return (
    <Alert
      variant={variant}
      dismissible
      onClose={() => dispatch(stopFollowingPayment())}
      closeLabel="Dismiss the payment banner"
      className="mb-0 rounded-0 border-0 py-2 payment-banner"
      data-testid="payment-banner"
    >
      <Container className="px-0" role="status" aria-live="polite">
        {state === 'waiting' && (
          <span className="d-flex align-items-center gap-2 flex-wrap">
            <Spinner animation="border" size="sm" aria-hidden="true" />
            <strong>Waiting for M-Pesa…</strong> {orderLink}
          </span>
        )}
        {state === 'paid' && (
          <span>
            <strong>Paid</strong>
            {status?.receipt ? ` — receipt ${status.receipt}` : ''}. {orderLink}
          </span>
        )}
        {state === 'failed' && (
          <span>
            <strong>The M-Pesa payment did not go through.</strong> {status?.lastAttempt?.reason ?? ''} {orderLink}
          </span>
        )}
      </Container>
    </Alert>
  );
}

/**
 * After Pay with M-Pesa the specification sends the shopper home; this banner, on every page,
 * follows that order's payment until it is dismissed. The order's own page shows it already.
 */
export default function PaymentBanner() {
  const payment = useAppSelector((s) => s.followedPayment.payment);
  const { pathname } = useLocation();
  if (!payment || pathname === paths.order(payment.orderId)) return null;
  return <Banner payment={payment} />;
}

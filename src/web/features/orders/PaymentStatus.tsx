import { useEffect } from 'react';
import Spinner from 'react-bootstrap/Spinner';
import type { Order } from '../../../shared/schemas/orders';
import type { PaymentStatus as PaymentStatusBody } from '../../../shared/schemas/payments';
import { useAppDispatch } from '../../app/store';
import Message from '../../components/Message';
import { errorMessage } from '../../lib/errors';
import { PAYMENT_POLL_MS, paymentsApi, useGetPaymentStatusQuery } from './paymentsApi';

/** Dates are shown as their first 10 characters, the day (spec §9). */
const day = (timestamp: string | null) => timestamp?.slice(0, 10) ?? '';

/**
 * The order's payment status from the server, asked again every 2 s while a prompt waits on the
 * shopper's phone. When it turns paid the order itself is reloaded, so 'Paid on …' appears in place.
 */
function useLivePaymentStatus(order: Order) {
  const dispatch = useAppDispatch();
  const { data: current } = paymentsApi.endpoints.getPaymentStatus.useQueryState(order._id);
  const waiting = current?.lastAttempt?.status === 'pending' && !current.isPaid;
  const query = useGetPaymentStatusQuery(order._id, {
    skip: order.isPaid,
    pollingInterval: waiting ? PAYMENT_POLL_MS : 0,
    // Coming back to the order must show the prompt's present state, not a cached one.
    refetchOnMountOrArgChange: true,
  });

  const paidSinceLoaded = query.data?.isPaid === true && !order.isPaid;
  useEffect(() => {
    if (paidSinceLoaded) {
      dispatch(
        paymentsApi.util.invalidateTags([
          { type: 'Order', id: order._id },
          { type: 'Order', id: 'LIST' },
        ]),
      );
    }
  }, [paidSinceLoaded, order._id, dispatch]);

  return { status: order.isPaid ? undefined : query.data, error: order.isPaid ? undefined : query.error };
}

function InlineSpinner() {
  return <Spinner animation="border" size="sm" className="me-2 flex-shrink-0" aria-hidden="true" />;
}

/** What the latest M-Pesa prompt of an unpaid order says: waiting, received, or why it failed. */
function LastAttempt({ status, canPay }: { status: PaymentStatusBody; canPay: boolean }) {
  const attempt = status.lastAttempt;
  if (status.isPaid) {
    return (
      <Message variant="success">
        <span className="d-flex align-items-center">
          <InlineSpinner />
          M-Pesa payment received. Updating the order…
        </span>
      </Message>
    );
  }
  if (!attempt) return null;
  if (attempt.status === 'pending') {
    return (
      <Message variant="info">
        <span className="d-flex align-items-center fw-semibold">
          <InlineSpinner />
          Waiting for M-Pesa confirmation…
        </span>
        <span className="d-block small mt-1">
          {canPay
            ? `We sent a prompt to ${attempt.phone}. Enter your M-Pesa PIN on your phone; this page updates by itself.`
            : `A prompt was sent to ${attempt.phone}.`}
        </span>
      </Message>
    );
  }
  if (attempt.status === 'paid') return null;
  return (
    <Message variant="warning">
      <span className="d-block fw-semibold">The M-Pesa payment did not go through.</span>
      <span className="d-block">{attempt.reason ?? 'M-Pesa did not confirm the payment.'}</span>
      {attempt.status === 'timed_out' && (
        <span className="d-block small mt-1">If you did pay, the order shows as paid as soon as M-Pesa confirms it.</span>
      )}
      {canPay && (
        <span className="d-block small mt-1">
          Check the number and press <span className="text-nowrap">Pay with M-Pesa</span> to try again.
        </span>
      )}
    </Message>
  );
}

/**
 * The payment part of the order page (spec §2): 'Paid on {date}' with the M-Pesa receipt, or
 * 'Not Paid' and the live state of the latest prompt. One polite live region, so a screen reader
 * hears the change from waiting to paid or failed without moving focus.
 */
export default function PaymentStatus({ order, canPay }: { order: Order; canPay: boolean }) {
  const { status, error } = useLivePaymentStatus(order);
  return (
    <div aria-live="polite">
      {order.isPaid ? (
        <Message variant="success">
          <span className="me-3">Paid on {day(order.paidAt)}</span>
          {order.mpesaReceipt && (
            <span className="d-inline-block">
              M-Pesa receipt <strong className="font-monospace">{order.mpesaReceipt}</strong>
            </span>
          )}
        </Message>
      ) : (
        <>
          <Message variant="danger">Not Paid</Message>
          {status && <LastAttempt status={status} canPay={canPay} />}
          {error && !status && (
            <p className="small text-body-secondary">Could not check the M-Pesa payment: {errorMessage(error)}</p>
          )}
        </>
      )}
    </div>
  );
}

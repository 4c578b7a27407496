import { useEffect } from 'react';
import Badge from 'react-bootstrap/Badge';
import Spinner from 'react-bootstrap/Spinner';
import { nairobiDay } from '../../../shared/dates';
import { formatKsh, toCents } from '../../../shared/money';
import type { Order } from '../../../shared/schemas/orders';
import type { LedgerPayment, LedgerStatus, PaymentStatus as PaymentStatusBody } from '../../../shared/schemas/payments';
import Message from '../../components/message';
import { errorMessage } from '../../lib/errors';
import { useAppDispatch } from '../../stores/store';
import { PAYBILL_POLL_MS, PAYMENT_POLL_MS, paymentsApi, useGetPaymentStatusQuery } from './api';
import { exceptionReason, receivedTime, STATUS_LABEL, STATUS_VARIANT } from './ledger-text';

/**
 * The order's payment status from the server, asked again every 2 s while a prompt waits on the
 * shopper's phone. When it turns paid the order itself is reloaded, so 'Paid on …' appears in place.
 * A paid order asks once too: its payments and what M-Pesa charged come from here.
 */
function useLivePaymentStatus(order: Order) {
  const dispatch = useAppDispatch();
  const { data: current } = paymentsApi.endpoints.getPaymentStatus.useQueryState(order._id);
  // An unknown prompt (M-Pesa's answer was lost) may still be paid: keep asking, as for a pending one.
  const open = current?.lastAttempt?.status === 'pending' || current?.lastAttempt?.status === 'unknown';
  const waiting = open && !current?.isPaid && !order.isPaid;
  // Paybill/Till details on screen: the shopper may be paying from the M-Pesa menu right now.
  const payableWithoutPrompt = Boolean(current?.paybill || current?.till) && !order.isPaid;
  const query = useGetPaymentStatusQuery(order._id, {
    pollingInterval: waiting ? PAYMENT_POLL_MS : payableWithoutPrompt ? PAYBILL_POLL_MS : 0,
    // A page in a background tab need not ask; it asks again when the shopper comes back to it.
    skipPollingIfUnfocused: !waiting,
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

  return { status: query.data, error: query.error };
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
  if (attempt.status === 'unknown') {
    return (
      <Message variant="info">
        <span className="d-block fw-semibold">M-Pesa did not confirm this prompt.</span>
        <span className="d-block">
          If a prompt reached {attempt.phone}, enter your M-Pesa PIN: this page updates by itself when M-Pesa confirms it.
        </span>
        {canPay && (
          <span className="d-block small mt-1">
            If no prompt came, wait a minute and press <span className="text-nowrap">Pay with M-Pesa</span> again.
          </span>
        )}
      </Message>
    );
  }
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
 * A shopper sees where their money stands, never the merchant's exception: every Paybill payment
 * is an exception while M-Pesa confirms it, and "Exception" in red would alarm them for nothing.
 */
const SHOPPER_STATUS: Partial<Record<LedgerStatus, { label: string; bg: string; text?: 'dark' }>> = {
  exception: { label: 'Being checked', bg: 'warning', text: 'dark' },
};

/**
 * Every M-Pesa payment on the order, oldest first, with its receipt and what M-Pesa charged: the
 * shopper's own record, and the admin's view of a double or short payment. The exception's words,
 * the admin's note and the server's detail are for admins only, whatever the server sends.
 */
export function OrderPayments({ payments, showReasons }: { payments: LedgerPayment[]; showReasons: boolean }) {
  if (payments.length === 0) return null;
  return (
    <section aria-labelledby="order-payments-heading" className="mb-3">
      <h3 className="h6" id="order-payments-heading">
        Payments
      </h3>
      <ul className="list-group">
        {payments.map((payment) => {
          const shopperStatus = showReasons ? undefined : SHOPPER_STATUS[payment.status];
          const variant = shopperStatus ?? STATUS_VARIANT[payment.status];
          const reason = showReasons ? exceptionReason(payment) : null;
          const detail = showReasons && payment.detail ? payment.detail : null;
          return (
            <li key={payment._id} className="list-group-item">
              <div className="d-flex flex-wrap justify-content-between align-items-center gap-2">
                <span className="text-break">
                  {payment.receipt ? <strong className="font-monospace">{payment.receipt}</strong> : <em>Receipt missing</em>}
                </span>
                <strong>{formatKsh(payment.amount)}</strong>
              </div>
              <div className="d-flex flex-wrap justify-content-between align-items-center gap-2 small">
                <time dateTime={payment.receivedAt} className="text-body-secondary">
                  {receivedTime(payment.receivedAt)} EAT
                </time>
                <Badge bg={variant.bg} text={variant.text}>
                  {shopperStatus?.label ?? STATUS_LABEL[payment.status]}
                </Badge>
              </div>
              {reason && <p className="small text-danger mb-0 mt-1">{reason}</p>}
              {detail && <p className="small mb-0 mt-1 text-break">{detail}</p>}
              {showReasons && payment.note && (
                <p className="small mb-0 mt-1">
                  <strong>Note: </strong>
                  {payment.note}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * What is left to pay on an unpaid order, in whole shillings: the Paybill/Till details carry the
 * server's own figure; without them, the amount due less what M-Pesa payments have paid so far.
 */
export function amountStillDue(status: PaymentStatusBody): number {
  const told = status.paybill?.amount ?? status.till?.amount;
  if (told !== undefined) return told;
  return Math.max(0, Math.ceil((toCents(status.amountDue) - toCents(status.amountPaid)) / 100));
}

/** After a part payment (a Paybill payment may be one of several), what is paid and what is left. */
function PartPayment({ status }: { status: PaymentStatusBody }) {
  if (status.isPaid || status.amountPaid <= 0) return null;
  return (
    <Message variant="info">
      <span className="d-inline-block me-3">
        Paid so far <strong>{formatKsh(status.amountPaid)}</strong>
      </span>
      <span className="d-inline-block">
        Still to pay <strong>{formatKsh(amountStillDue(status))}</strong>
      </span>
    </Message>
  );
}

/**
 * The payment part of the order page (docs/product-rules.md, Screens): 'Paid on {date}' with the M-Pesa receipt and what
 * M-Pesa charged, or 'Not Paid' and the live state of the latest prompt, in one polite live region,
 * so a screen reader hears the change from waiting to paid or failed without moving focus; then
 * every payment on the order.
 */
export default function PaymentStatus({ order, canPay, isAdmin = false }: { order: Order; canPay: boolean; isAdmin?: boolean }) {
  const { status, error } = useLivePaymentStatus(order);
  return (
    <>
      <div aria-live="polite">
        {order.isPaid ? (
          <Message variant="success">
            <span className="me-3">Paid on {nairobiDay(order.paidAt)}</span>
            {order.mpesaReceipt && (
              <span className="d-inline-block me-3">
                M-Pesa receipt <strong className="font-monospace">{order.mpesaReceipt}</strong>
              </span>
            )}
            {/* What M-Pesa charged, in whole shillings, not the order's total with its cents. */}
            {status && status.amountPaid > 0 && (
              <span className="d-inline-block">
                Amount paid <strong>{formatKsh(status.amountPaid)}</strong>
              </span>
            )}
          </Message>
        ) : (
          <>
            {/* A state to come (the pay box is right there), not an error. */}
            <Message variant="secondary">Not Paid</Message>
            {status?.refundedAt && (
              <Message variant="info">
                Refunded on {nairobiDay(status.refundedAt)}: the M-Pesa payment went back to the payer, and the order is unpaid
                again.
              </Message>
            )}
            {status && <PartPayment status={status} />}
            {status && <LastAttempt status={status} canPay={canPay} />}
            {error && !status && (
              <p className="small text-body-secondary">Could not check the M-Pesa payment: {errorMessage(error)}</p>
            )}
          </>
        )}
      </div>
      {/* Outside the live region: the list is read when reached, not announced as it loads. */}
      {status && <OrderPayments payments={status.payments ?? []} showReasons={isAdmin} />}
    </>
  );
}

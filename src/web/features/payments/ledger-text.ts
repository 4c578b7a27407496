import { nairobiMinute } from '../../../shared/dates';
import { EXCEPTION_REASON } from '../../../shared/payment-exceptions';
import type { LedgerPayment, LedgerStatus, PaymentSource } from '../../../shared/schemas/payments';

export { EXCEPTION_REASON };

/** How the shop learned of a payment. */
export const SOURCE_LABEL: Record<PaymentSource, string> = {
  stk_callback: 'STK callback',
  stk_query: 'STK query',
  c2b: 'Paybill/Till',
  manual: 'Manual',
};

/** Where the money stands, as a badge. */
export const STATUS_LABEL: Record<LedgerStatus, string> = {
  credited: 'Credited',
  exception: 'Exception',
  resolved: 'Resolved',
  refund_pending: 'Refund pending',
  refunded: 'Refunded',
};

/** Badge colours; the light ones take dark text for contrast. */
export const STATUS_VARIANT: Record<LedgerStatus, { bg: string; text?: 'dark' }> = {
  credited: { bg: 'success' },
  exception: { bg: 'danger' },
  resolved: { bg: 'secondary' },
  refund_pending: { bg: 'warning', text: 'dark' },
  refunded: { bg: 'info', text: 'dark' },
};

/**
 * An exception the merchant still has to deal with: an exception proper, or a payment that
 * credited its order but still waits for something (its receipt).
 */
/** The server's rule (domain/payments/ledger-views.ts): a refund M-Pesa never answered needs the merchant too. */
export const isOpenException = (payment: LedgerPayment) =>
  payment.exception !== null &&
  (payment.status === 'exception' ||
    payment.status === 'credited' ||
    (payment.status === 'refund_pending' && payment.exception === 'refund_unanswered'));

/** The payment's exception in words, or null when it has none. */
export function exceptionReason(payment: LedgerPayment): string | null {
  return payment.exception ? EXCEPTION_REASON[payment.exception] : null;
}

/** "2026-11-24 08:39" in the shop's own time zone, Nairobi's. */
export function receivedTime(iso: string): string {
  return nairobiMinute(iso);
}

import type { PaymentException } from './schemas/payments.js';

/** Why a payment did not simply pay an order, in the merchant's words (the Payments screen, the alert mails). */
export const EXCEPTION_REASON: Record<PaymentException, string> = {
  double_payment: 'Paid twice: this order was already paid. Refund or keep as credit.',
  unmatched: 'No order matched this payment. Assign it to an order.',
  amount_short: 'Less than the amount due for the order.',
  overpaid: 'More than the amount due: the order is paid. Refund the difference or keep it as credit.',
  receipt_missing: 'Settled by the status query; the M-Pesa receipt has not arrived yet.',
  unconfirmed:
    'M-Pesa’s status check did not confirm this payment. Find the receipt on your M-Pesa statement before acting on it.',
  refund_unanswered: 'M-Pesa never answered the refund. Check your M-Pesa statement for the reversal before refunding again.',
};

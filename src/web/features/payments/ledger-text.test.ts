import { describe, expect, it } from 'vitest';
import { EXCEPTION_REASON, receivedTime } from './ledger-text';

describe('the ledger’s words', () => {
  it('gives each exception its reason in plain words', () => {
    expect(EXCEPTION_REASON).toEqual({
      double_payment: 'Paid twice: this order was already paid. Refund or keep as credit.',
      unmatched: 'No order matched this payment. Assign it to an order.',
      amount_short: 'Less than the amount due for the order.',
      overpaid: 'More than the amount due: the order is paid. Refund the difference or keep it as credit.',
      receipt_missing: 'Settled by the status query; the M-Pesa receipt has not arrived yet.',
      unconfirmed:
        'M-Pesa has not confirmed this payment, so it pays nothing. Find the receipt on your M-Pesa statement before acting on it.',
      amount_mismatch:
        'Recorded by hand with another amount than M-Pesa’s. M-Pesa’s amount counts, and a refund sends back what M-Pesa holds.',
      bad_amount: 'M-Pesa sent an amount that could not be read. It pays nothing: check your M-Pesa statement.',
      other_shortcode:
        'Paid to another shortcode than this shop’s, so it is never credited here. Resolve it with a note once you have checked.',
      refund_unanswered:
        'A refund was sent to M-Pesa but no answer came, even after retries. Check your M-Pesa statement to see whether the money went back.',
    });
  });

  it('shows the time in Nairobi, where M-Pesa statements are', () => {
    expect(receivedTime('2026-11-24T22:39:41.000Z')).toBe('2026-11-25 01:39');
  });
});

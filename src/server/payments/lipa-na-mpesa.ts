import type { PaybillDetails, TillDetails } from '../../shared/schemas/payments.js';
import { stillDueCents } from '../domain/payments/coverage.js';

/**
 * Where a shopper sends money without the STK prompt (phone off, SIM toolkit stuck, prompt
 * dismissed): the shop's Paybill, with the order number as the account number, or its Till.
 */
export type LipaNaMpesa = { paybill: string } | { till: string };

/** The shop's Paybill or Till from its M-Pesa settings: a till shop's till number, else its shortcode. */
export function lipaNaMpesaOf(config: {
  transactionType: 'paybill' | 'till';
  shortcode: string;
  tillNumber: string | undefined;
}): LipaNaMpesa {
  return config.transactionType === 'till' ? { till: config.tillNumber ?? config.shortcode } : { paybill: config.shortcode };
}

/** The numbers the shop's own Paybill or Till payments are made to: its Paybill or Till, and the initiator's shortcode. */
export function shopShortcodes(shop: LipaNaMpesa, initiatorShortcode: string): string[] {
  return [...new Set(['paybill' in shop ? shop.paybill : shop.till, initiatorShortcode])];
}

/** Whole shillings still to pay, as M-Pesa charges them: what covers the order less the money held for it. */
export function amountStillDue(totalCents: number, heldCents: number): number {
  return Math.ceil(stillDueCents(totalCents, heldCents) / 100);
}

/** The details to show for an order: null once nothing is due. */
export function howToPayWithout(
  shop: LipaNaMpesa,
  orderNumber: string,
  amount: number,
): { paybill: PaybillDetails | null } | { till: TillDetails | null } {
  if ('paybill' in shop)
    return { paybill: amount > 0 ? { businessNumber: shop.paybill, accountNumber: orderNumber, amount } : null };
  return { till: amount > 0 ? { tillNumber: shop.till, amount } : null };
}

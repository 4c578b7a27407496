import { orderWithNumber } from '../domain/orders.js';
import { heldCents, stillDueCents } from '../domain/payments/coverage.js';
import {
  AWAITING_CONFIRMATION,
  applyMpesaWord,
  awaitConfirmation,
  type Hold,
  type IncomingPayment,
  type LedgerRow,
  recordPayment,
} from '../domain/payments/ledger.js';
import { parseC2bBody } from '../mpesa/c2b-body.js';
import { finishCallback, storeCallback } from './callback-store.js';
import type { PaymentDeps } from './deps.js';
import { shopShortcodes } from './lipa-na-mpesa.js';
import { sendConfirmationLookup } from './status-lookups.js';

/**
 * Lipa na M-Pesa by Paybill or Till (C2B): the shopper pays from the M-Pesa menu, and Daraja
 * tells the shop at the confirmation URL it registered (docs/payments.md has the facts). A
 * confirmation is stored as it came, then recorded in the ledger against the order whose number
 * the shopper typed as the account number. When Safaricom has switched external validation on for
 * the shortcode, Daraja first asks the validation URL, which refuses an account number that names
 * no order; with it off, an unknown account lands in the ledger as unmatched for the merchant.
 */

/** Daraja's answers to a validation request (a string ResultCode, as documented). */
export const C2B_ACCEPT = { ResultCode: '0', ResultDesc: 'Accepted' } as const;
/** C2B00012: "invalid account number", which M-Pesa tells the shopper by SMS. */
export const C2B_REJECT_ACCOUNT = { ResultCode: 'C2B00012', ResultDesc: 'Rejected' } as const;
/** C2B00013: "invalid amount": more than the order still needs, or unreadable. */
export const C2B_REJECT_AMOUNT = { ResultCode: 'C2B00013', ResultDesc: 'Rejected' } as const;
/** C2B00016: "other error": the order is paid already, so nothing is due on it. */
export const C2B_REJECT_OTHER = { ResultCode: 'C2B00016', ResultDesc: 'Rejected' } as const;

export type C2bValidationAnswer =
  | typeof C2B_ACCEPT
  | typeof C2B_REJECT_ACCOUNT
  | typeof C2B_REJECT_AMOUNT
  | typeof C2B_REJECT_OTHER;

/**
 * Validation (only when Safaricom has switched it on for the shortcode): the shopper's money
 * leaves their phone only for what an order still needs. An account number that names no order
 * (a deleted order included: Duka has no other way to cancel one), an order already paid, and
 * more than is still due are refused; what is due, or part of it, is accepted. A till payment
 * names no order and is accepted.
 */
export async function validateC2b(deps: Pick<PaymentDeps, 'db' | 'lipaNaMpesa'>, body: string): Promise<C2bValidationAnswer> {
  const payment = parseC2bBody(body);
  // Not understood: let it through; the confirmation that follows is kept and sorted out.
  if (!payment) return C2B_ACCEPT;
  if ('till' in deps.lipaNaMpesa && payment.accountNumber.trim() === '') return C2B_ACCEPT;
  const order = await orderWithNumber(deps.db, payment.accountNumber);
  if (!order) return C2B_REJECT_ACCOUNT;
  if (payment.amountCents === null) return C2B_REJECT_AMOUNT;
  if (order.isPaid) return C2B_REJECT_OTHER;
  const stillDue = stillDueCents(order.totalCents, await heldCents(deps.db, order.id));
  if (stillDue === 0) return C2B_REJECT_OTHER;
  return payment.amountCents <= stillDue ? C2B_ACCEPT : C2B_REJECT_AMOUNT;
}

/**
 * Records a stored confirmation in the ledger; returns what became of it. A confirmation is an
 * unsigned POST: before it pays anything the shop asks M-Pesa itself, by Transaction Status,
 * whether the receipt is a completed payment of that amount to the shop (docs/payments.md). Until
 * the answer comes it is in the ledger as unconfirmed, on the order it names, paying nothing.
 * Without initiator credentials the shop cannot ask, and believes a confirmation from an address
 * on MPESA_CALLBACK_ALLOWED_IPS (production registers no C2B URLs without that list).
 */
export async function processC2bConfirmation(deps: PaymentDeps, stored: { id: string; body: string }): Promise<string> {
  const payment = parseC2bBody(stored.body);
  const canConfirm = deps.initiator.credentials !== null;
  const { outcome, lookUp } = await deps.db.transaction(async (tx): Promise<{ outcome: string; lookUp?: LedgerRow }> => {
    if (!payment) {
      deps.log.warn({ callbackId: stored.id }, 'C2B confirmation without a receipt kept, not acted on');
      return { outcome: 'not_c2b_payment' };
    }
    const order = await orderWithNumber(tx, payment.accountNumber);
    const incoming: IncomingPayment = {
      receipt: payment.receipt,
      amountCents: payment.amountCents ?? 0,
      phone: payment.msisdn,
      source: 'c2b',
      checkoutRequestId: null,
      raw: stored.body,
      transactionAt: payment.transactionAt,
    };
    const shortcodes = shopShortcodes(deps.lipaNaMpesa, deps.initiator.shortcode);
    const hold: Hold | undefined =
      payment.amountCents === null
        ? { exception: 'bad_amount', detail: `M-Pesa wrote the amount as ${JSON.stringify(payment.rawAmount)}.` }
        : !shortcodes.includes(payment.shortcode)
          ? {
              exception: 'other_shortcode',
              detail: `This confirmation names the shortcode ${payment.shortcode || '(none)'}, not the shop’s ${shortcodes.join(' or ')}: it is never credited.`,
            }
          : canConfirm
            ? { exception: 'unconfirmed', detail: AWAITING_CONFIRMATION }
            : undefined;
    const recorded = await recordPayment(tx, deps, incoming, order?.id ?? null, hold);
    if (recorded.kind === 'duplicate') {
      const existing = recorded.payment;
      // An admin recorded this receipt from the statement first: M-Pesa's word is compared with it.
      if (existing.source === 'manual' && payment.amountCents !== null && shortcodes.includes(payment.shortcode)) {
        if (canConfirm) return { outcome: 'awaiting_status', lookUp: await awaitConfirmation(tx, existing) };
        await applyMpesaWord(tx, deps, existing, { amountCents: payment.amountCents, raw: stored.body });
        return { outcome: 'compared' };
      }
      return { outcome: 'duplicate' };
    }
    if (hold?.detail === AWAITING_CONFIRMATION) return { outcome: 'awaiting_status', lookUp: recorded.payment };
    return { outcome: hold ? hold.exception : recorded.kind };
  });
  await finishCallback(deps.db, stored.id, outcome);
  // Asked after the commit: the Result may come back before this request's own answer does.
  if (lookUp) await sendConfirmationLookup(deps, lookUp);
  return outcome;
}

/** Stores, then records, one confirmation. Never throws for what the body says. */
export async function receiveC2bConfirmation(deps: PaymentDeps, body: string, remoteIp: string): Promise<void> {
  const stored = await storeCallback(deps.db, body, remoteIp, undefined, 'c2b_confirmation');
  try {
    await processC2bConfirmation(deps, stored);
  } catch (error) {
    // Kept unprocessed: the reconciler tries it again.
    deps.log.error({ err: error, callbackId: stored.id }, 'C2B confirmation could not be processed; will retry');
  }
}

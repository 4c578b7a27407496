import { orderWithNumber } from '../domain/orders.js';
import { recordPayment } from '../domain/payments/ledger.js';
import { amountOf, isRecord, nonEmptyString, parseDarajaDate } from './daraja-callback.js';
import { finishCallback, type PaymentDeps, storeCallback } from './payments.js';

/**
 * Lipa na M-Pesa by Paybill or Till (C2B): the shopper pays from the M-Pesa menu, and Daraja
 * tells the shop at the confirmation URL it registered (docs/payments.md has the facts). A
 * confirmation is stored as it came, then recorded in the ledger against the order whose number
 * the shopper typed as the account number. When Safaricom has switched external validation on for
 * the shortcode, Daraja first asks the validation URL, which refuses an account number that names
 * no order; with it off, an unknown account lands in the ledger as unmatched for the merchant.
 */

export interface C2bPayment {
  receipt: string;
  amountCents: number;
  /** What the shopper typed as the account number; empty for a till payment. */
  accountNumber: string;
  shortcode: string;
  /** Masked (v2) or hashed (v1) by Daraja: kept for the merchant, never used as a number to call. */
  msisdn: string | null;
  transactionAt: Date | null;
}

/** The fields of a C2B validation or confirmation body that the shop uses; null when it has none. */
export function parseC2bBody(body: string): C2bPayment | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const receipt = nonEmptyString(value.TransID);
  const amount = amountOf(value.TransAmount);
  if (receipt === null || amount === null || amount <= 0) return null;
  return {
    receipt: receipt.toUpperCase(),
    amountCents: Math.round(amount * 100),
    accountNumber: typeof value.BillRefNumber === 'string' ? value.BillRefNumber : '',
    shortcode:
      typeof value.BusinessShortCode === 'string' || typeof value.BusinessShortCode === 'number'
        ? String(value.BusinessShortCode)
        : '',
    msisdn: nonEmptyString(value.MSISDN),
    transactionAt: parseDarajaDate(value.TransTime),
  };
}

/** Daraja's answers to a validation request (a string ResultCode, as documented). */
export const C2B_ACCEPT = { ResultCode: '0', ResultDesc: 'Accepted' } as const;
/** C2B00012: "invalid account number", which M-Pesa tells the shopper by SMS. */
export const C2B_REJECT_ACCOUNT = { ResultCode: 'C2B00012', ResultDesc: 'Rejected' } as const;

/**
 * Validation: accepts a payment that names an order (or any till payment, which names none), and
 * refuses an account number that names no order, so the shopper's money never leaves their phone.
 */
export async function validateC2b(
  deps: Pick<PaymentDeps, 'db' | 'lipaNaMpesa'>,
  body: string,
): Promise<typeof C2B_ACCEPT | typeof C2B_REJECT_ACCOUNT> {
  const payment = parseC2bBody(body);
  // Not understood: let it through; the confirmation that follows is kept and sorted out.
  if (!payment) return C2B_ACCEPT;
  if ('till' in deps.lipaNaMpesa && payment.accountNumber.trim() === '') return C2B_ACCEPT;
  return (await orderWithNumber(deps.db, payment.accountNumber)) ? C2B_ACCEPT : C2B_REJECT_ACCOUNT;
}

/** Records a stored confirmation in the ledger; returns what became of it. */
export async function processC2bConfirmation(deps: PaymentDeps, stored: { id: string; body: string }): Promise<string> {
  const payment = parseC2bBody(stored.body);
  const outcome = await deps.db.transaction(async (tx) => {
    if (!payment) {
      deps.log.warn({ callbackId: stored.id }, 'C2B confirmation without a receipt or amount kept, not acted on');
      return 'not_c2b_payment';
    }
    const order = await orderWithNumber(tx, payment.accountNumber);
    const recorded = await recordPayment(
      tx,
      deps,
      {
        receipt: payment.receipt,
        amountCents: payment.amountCents,
        phone: payment.msisdn,
        source: 'c2b',
        checkoutRequestId: null,
        raw: stored.body,
        transactionAt: payment.transactionAt,
      },
      order?.id ?? null,
    );
    return recorded.kind;
  });
  await finishCallback(deps.db, stored.id, outcome);
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

import { isRecord, nonEmptyString, parseDarajaDate } from './daraja-callback.js';

/**
 * The body Daraja posts to the C2B (Paybill/Till) confirmation and validation URLs, read leniently
 * (docs/payments.md, Paybill and Till): every field a string, TransAmount as M-Pesa may write it.
 * Reading a body trusts nothing: the payment code confirms it with M-Pesa before it pays anything.
 */

export interface C2bPayment {
  receipt: string;
  /** In cents; null when M-Pesa wrote an amount that is zero, negative or unreadable. */
  amountCents: number | null;
  /** TransAmount exactly as M-Pesa wrote it, for the merchant when it cannot be read. */
  rawAmount: string;
  /** What the shopper typed as the account number; empty for a till payment. */
  accountNumber: string;
  shortcode: string;
  /** Masked (v2) or hashed (v1) by Daraja: kept for the merchant, never used as a number to call. */
  msisdn: string | null;
  transactionAt: Date | null;
}

/** Ksh 10 million: no single M-Pesa payment comes near it. */
const MAX_READABLE_CENTS = 1_000_000_000;

/**
 * TransAmount as M-Pesa may write it: a number, or a string with spaces or thousands separators
 * ("1,500.00", " 1500 "). Null for anything that is not a positive amount in shillings and cents.
 */
export function parseTransAmount(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.replace(/[\s,]/g, '') : '';
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return null;
  const cents = Math.round(Number(text) * 100);
  // Far above any M-Pesa transaction: not an amount M-Pesa wrote, whatever it reads as.
  return cents > 0 && cents <= MAX_READABLE_CENTS ? cents : null;
}

/** The fields of a C2B validation or confirmation body that the shop uses; null when it has no receipt. */
export function parseC2bBody(body: string): C2bPayment | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const receipt = nonEmptyString(value.TransID);
  if (receipt === null) return null;
  return {
    receipt: receipt.toUpperCase(),
    amountCents: parseTransAmount(value.TransAmount),
    rawAmount:
      value.TransAmount === undefined
        ? ''
        : String(typeof value.TransAmount === 'object' ? JSON.stringify(value.TransAmount) : value.TransAmount),
    accountNumber: typeof value.BillRefNumber === 'string' ? value.BillRefNumber : '',
    shortcode:
      typeof value.BusinessShortCode === 'string' || typeof value.BusinessShortCode === 'number'
        ? String(value.BusinessShortCode).trim()
        : '',
    msisdn: nonEmptyString(value.MSISDN),
    transactionAt: parseDarajaDate(value.TransTime),
  };
}

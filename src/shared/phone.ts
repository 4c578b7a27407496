/** A Safaricom mobile number as M-Pesa takes it: 2547XXXXXXXX or 2541XXXXXXXX. */
export const MSISDN_PATTERN = /^254[71]\d{8}$/;

/** What a shopper is told when a number is not one normaliseMsisdn takes. */
export const MSISDN_ERROR = 'Enter a Safaricom number like 0712345678 or +254712345678';

/**
 * Kenyan mobile numbers as M-Pesa takes them: 2547XXXXXXXX or 2541XXXXXXXX (docs/payments.md, Phone numbers).
 * Accepts 07…, 01…, +254…, 254…, 00254… and 7…/1… with spaces, dashes, dots or brackets.
 * Returns null for anything else.
 */
export function normaliseMsisdn(input: string): string | null {
  let digits = input.replace(/[\s\-.()]/g, '');
  if (digits.startsWith('+')) digits = digits.slice(1);
  else if (digits.startsWith('00')) digits = digits.slice(2);
  if (!/^\d+$/.test(digits)) return null;
  if (/^254\d{9}$/.test(digits)) digits = digits.slice(3);
  else if (/^0\d{9}$/.test(digits)) digits = digits.slice(1);
  const msisdn = `254${digits}`;
  return MSISDN_PATTERN.test(msisdn) ? msisdn : null;
}

/** 0712 *** 678: enough for a shopper to recognise their number, not enough to leak it. */
export function maskMsisdn(msisdn: string): string {
  const local = msisdn.startsWith('254') ? `0${msisdn.slice(3)}` : msisdn;
  return local.length >= 10 ? `${local.slice(0, 4)} *** ${local.slice(-3)}` : '***';
}

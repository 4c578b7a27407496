/**
 * Wire-format helpers for the Daraja simulator (part of the test double in index.ts; nothing in
 * the shop's own code imports this). Ids, receipts, Nairobi timestamps, the STK password and the field rules
 * of Daraja's STK push (docs/payments.md), written independently of the shop's client so that the simulator checks the
 * client rather than agreeing with it by construction.
 */
import { randomInt, randomUUID } from 'node:crypto';

const EAT_OFFSET_MS = 3 * 60 * 60 * 1000; // Africa/Nairobi is UTC+3 all year (no DST).
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface NairobiParts {
  year: number;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

export function nairobiParts(date: Date): NairobiParts {
  const t = new Date(date.getTime() + EAT_OFFSET_MS);
  return {
    year: t.getUTCFullYear(),
    month: t.getUTCMonth() + 1,
    day: t.getUTCDate(),
    hour: t.getUTCHours(),
    minute: t.getUTCMinutes(),
    second: t.getUTCSeconds(),
    millisecond: t.getUTCMilliseconds(),
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** YYYYMMDDHHmmss in Africa/Nairobi time, as a string. */
export function nairobiTimestamp(date: Date): string {
  const p = nairobiParts(date);
  return `${p.year}${pad(p.month)}${pad(p.day)}${pad(p.hour)}${pad(p.minute)}${pad(p.second)}`;
}

/** The callback's TransactionDate: YYYYMMDDHHmmss in Nairobi time as a JSON number (docs/payments.md, The callback). */
export function nairobiTransactionDate(date: Date): number {
  return Number(nairobiTimestamp(date));
}

/** True when a 14-digit YYYYMMDDHHmmss names a real calendar date and time. */
export function isValidTimestamp(value: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth;
}

/** base64(BusinessShortCode + Passkey + Timestamp) (docs/payments.md, STK push request). */
export function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, 'utf8').toString('base64');
}

function randomChars(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** An opaque access token of 28 characters, like Daraja's (it is not a JWT). */
export function newAccessToken(): string {
  return randomChars(ALNUM, 28);
}

/** A Daraja-style requestId for error bodies, e.g. "4e1b-49a0-8c7d-55aa2e3f9b1c8812". */
export function newRequestId(): string {
  const [, b, c, d, e] = randomUUID().split('-') as [string, string, string, string, string];
  return `${b}-${c}-${d}-${e}${randomInt(1000, 10000)}`;
}

/**
 * MerchantRequestIDs in the older Daraja style, "29115-34620561-1": a per-instance node number,
 * a running sequence and a trailing "-1".
 */
export function merchantRequestIdSequence(): () => string {
  const node = randomInt(10000, 100000);
  let seq = randomInt(10_000_000, 90_000_000);
  return () => `${node}-${seq++}-1`;
}

/**
 * CheckoutRequestID as observed in current Daraja responses (docs/payments.md, STK push request):
 * "ws_CO_" + DDMMYYYYHHmmssSSS (Nairobi time) + the subscriber number without the 254 prefix,
 * e.g. ws_CO_15032024143006123708374149. Clients must treat it as opaque.
 */
export function checkoutRequestId(date: Date, msisdn: string): string {
  const p = nairobiParts(date);
  const subscriber = msisdn.startsWith('254') ? msisdn.slice(3) : msisdn;
  return `ws_CO_${pad(p.day)}${pad(p.month)}${p.year}${pad(p.hour)}${pad(p.minute)}${pad(p.second)}${pad(p.millisecond, 3)}${subscriber}`;
}

/**
 * An M-Pesa receipt: 10 uppercase alphanumerics starting with a letter. Real receipts encode the
 * year (2022 → Q, 2023 → R, 2024 → S, 2025 → T…), the month (A = January) and the day (1–9, then
 * A…) in their first three characters; this follows that pattern, with 7 random characters after.
 */
export function mpesaReceipt(date: Date): string {
  const p = nairobiParts(date);
  const yearLetter = String.fromCharCode(65 + Math.min(25, Math.max(0, p.year - 2006)));
  const monthLetter = String.fromCharCode(64 + p.month);
  const dayChar = '123456789ABCDEFGHIJKLMNOPQRSTUV'[p.day - 1] ?? 'A';
  return `${yearLetter}${monthLetter}${dayChar}${randomChars(UPPER_ALNUM, 7)}`;
}

/** A JSON value Daraja accepts as a numeric field: a digit string, or a non-negative safe integer. */
export function numericString(value: unknown): string | null {
  if (typeof value === 'string') return /^\d+$/.test(value) ? value : null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  return null;
}

export const MSISDN_PATTERN = /^254(7|1)\d{8}$/;
export const SHORTCODE_PATTERN = /^\d{5,7}$/;

/** Amount: a whole number of shillings ≥ 1, as a JSON number or a digit string. Decimals are rejected. */
export function parseAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1 ? value : null;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n >= 1 ? n : null;
  }
  return null;
}

/** An http(s) URL with no surrounding or embedded whitespace (http is allowed: the shop runs on loopback). */
export function isCallbackUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** A string of min..max characters (counted as code points). */
export function isTextOfLength(value: unknown, min: number, max: number): value is string {
  if (typeof value !== 'string') return false;
  const length = [...value].length;
  return length >= min && length <= max;
}

/** 2547****4149 — enough for the simulator's log, without the full number. */
export function maskForLog(msisdn: string): string {
  return msisdn.length >= 8 ? `${msisdn.slice(0, 4)}****${msisdn.slice(-4)}` : '****';
}

/** Scheme, host and port of a callback URL, without its path (which carries the shop's secret). */
export function originForLog(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}

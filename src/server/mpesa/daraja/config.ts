/** The client's checked configuration, and the Timestamp and Password every request carries. */
import type { DarajaConfig } from './types.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const MAX_RETRIES = 10;

const nairobiFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Africa/Nairobi',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** YYYYMMDDHHmmss in Africa/Nairobi time (EAT, UTC+3), as Daraja's Timestamp wants it. */
export function darajaTimestamp(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('darajaTimestamp needs a valid Date');
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of nairobiFormat.formatToParts(date)) parts[part.type] = part.value;
  const stamp = `${parts.year}${parts.month}${parts.day}${parts.hour}${parts.minute}${parts.second}`;
  if (/^\d{14}$/.test(stamp)) return stamp;
  // Only reached with an ICU build without the zone data; Nairobi has had no DST since 1942.
  const eat = new Date(date.getTime() + 3 * 3_600_000).toISOString();
  return eat.slice(0, 19).replace(/\D/g, '');
}

/** base64(BusinessShortCode + Passkey + Timestamp) (docs/payments.md, STK push request). */
export function darajaPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, 'utf8').toString('base64');
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export interface ResolvedConfig {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  transactionType: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  partyB: string;
  timeoutMs: number;
  retries: number;
  now: () => Date;
}

/** Configuration mistakes are programming/deployment errors: thrown at once, naming the field only. */
export function resolveConfig(config: DarajaConfig): ResolvedConfig {
  const fail = (what: string): never => {
    throw new Error(`Daraja client configuration: ${what}`);
  };
  if (!isHttpUrl(config.baseUrl)) fail('baseUrl must be an http(s) URL');
  for (const key of ['consumerKey', 'consumerSecret', 'passkey'] as const) {
    if (typeof config[key] !== 'string' || config[key] === '') fail(`${key} is missing`);
  }
  if (typeof config.shortcode !== 'string' || !/^\d+$/.test(config.shortcode)) fail('shortcode must be digits');
  if (config.transactionType !== 'paybill' && config.transactionType !== 'till')
    fail("transactionType must be 'paybill' or 'till'");
  if (config.transactionType === 'till' && (typeof config.tillNumber !== 'string' || !/^\d+$/.test(config.tillNumber))) {
    fail('tillNumber (digits) is required when transactionType is till');
  }
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) fail('timeoutMs must be a positive number');
  const retries = config.retries ?? DEFAULT_RETRIES;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES)
    fail(`retries must be a whole number from 0 to ${MAX_RETRIES}`);
  const till = config.transactionType === 'till';
  return {
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    consumerKey: config.consumerKey,
    consumerSecret: config.consumerSecret,
    shortcode: config.shortcode,
    passkey: config.passkey,
    transactionType: till ? 'CustomerBuyGoodsOnline' : 'CustomerPayBillOnline',
    partyB: till ? (config.tillNumber as string) : config.shortcode,
    timeoutMs,
    retries,
    now: config.now ?? (() => new Date()),
  };
}

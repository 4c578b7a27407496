/**
 * The STK callback Daraja POSTs to the CallBackURL (docs/payments.md, The callback), parsed leniently:
 * ResultCode is a number (or sometimes a string such as "SFC_IC0003"), metadata items are looked
 * up by Name and each is optional, Balance often has no Value, TransactionDate and PhoneNumber are
 * JSON numbers. The callback is unsigned: the caller must still match the CheckoutRequestID to a
 * push it made and check the amount (docs/payments.md, The callback: Trust).
 */

export interface ParsedStkCallback {
  checkoutRequestId: string;
  merchantRequestId: string;
  /** Always a string: "0" means paid. */
  resultCode: string;
  resultDesc: string;
  /** Only on success (ResultCode 0); null otherwise or when missing. */
  amount: number | null;
  receipt: string | null;
  transactionDate: Date | null;
  phone: string | null;
}

const EAT_OFFSET_HOURS = 3; // Africa/Nairobi: UTC+3 all year, no DST

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmptyString(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function resultCodeOf(value: unknown): string | null {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : null;
  return nonEmptyString(value);
}

export function amountOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/** YYYYMMDDHHmmss (a number or a digit string) in Nairobi time → the instant it names. */
export function parseDarajaDate(value: unknown): Date | null {
  const digits =
    typeof value === 'number'
      ? Number.isSafeInteger(value)
        ? String(value)
        : ''
      : typeof value === 'string'
        ? value.trim()
        : '';
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(digits);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hour - EAT_OFFSET_HOURS, minute, second));
  // Reject dates that rolled over (e.g. 31 February).
  const check = new Date(date.getTime() + EAT_OFFSET_HOURS * 3_600_000);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  return date;
}

function phoneOf(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? String(value) : null;
  const s = nonEmptyString(value);
  return s !== null && /^\+?\d{6,15}$/.test(s) ? s.replace(/^\+/, '') : null;
}

/**
 * Reads an STK callback body (already JSON-parsed, or the raw JSON text). Returns null when the
 * body does not have the callback's shape: Body.stkCallback with a CheckoutRequestID,
 * MerchantRequestID and ResultCode.
 */
export function parseStkCallback(body: unknown): ParsedStkCallback | null {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (!isRecord(value) || !isRecord(value.Body)) return null;
  const cb = value.Body.stkCallback;
  if (!isRecord(cb)) return null;
  const checkoutRequestId = nonEmptyString(cb.CheckoutRequestID);
  const resultCode = resultCodeOf(cb.ResultCode);
  if (checkoutRequestId === null || resultCode === null || typeof cb.MerchantRequestID !== 'string') return null;

  const parsed: ParsedStkCallback = {
    checkoutRequestId,
    merchantRequestId: cb.MerchantRequestID.trim(),
    resultCode,
    resultDesc: typeof cb.ResultDesc === 'string' ? cb.ResultDesc.trim() : '',
    amount: null,
    receipt: null,
    transactionDate: null,
    phone: null,
  };
  // Metadata only counts on success; on failure Daraja omits it.
  if (resultCode !== '0' || !isRecord(cb.CallbackMetadata) || !Array.isArray(cb.CallbackMetadata.Item)) return parsed;

  const items = new Map<string, unknown>();
  for (const item of cb.CallbackMetadata.Item) {
    if (!isRecord(item) || typeof item.Name !== 'string' || !('Value' in item)) continue; // e.g. {"Name": "Balance"}
    if (!items.has(item.Name)) items.set(item.Name, item.Value);
  }
  parsed.amount = amountOf(items.get('Amount'));
  parsed.receipt = nonEmptyString(items.get('MpesaReceiptNumber'));
  parsed.transactionDate = parseDarajaDate(items.get('TransactionDate'));
  parsed.phone = phoneOf(items.get('PhoneNumber'));
  return parsed;
}

import { isRecord } from './daraja-callback.js';

/**
 * The Result Daraja posts for Reversal and Transaction Status requests (docs/payments.md, Results
 * and queue timeouts), read leniently: ResultCode a number or a string, ResultParameter one object
 * or a list, keys with or without spaces.
 */

export interface InitiatorResult {
  /** Always a string: 0, 1, 2001, R000001, SFC_IC0003 … */
  resultCode: string;
  resultDesc: string;
  conversationId: string | null;
  originatorConversationId: string | null;
  /** The reversal's own receipt on success; a placeholder for Transaction Status. */
  transactionId: string | null;
  /** ResultParameters by key, spaces removed from the keys. */
  parameters: Map<string, unknown>;
}

function asList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

/** A Result value as trimmed text: numbers written out, empty strings as null. */
export function text(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** Reads a Result leniently: ResultCode number or string, ResultParameter one object or a list. */
export function parseInitiatorResult(body: string): InitiatorResult | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(json) || !isRecord(json.Result)) return null;
  const result = json.Result;
  const resultCode = text(result.ResultCode);
  if (resultCode === null) return null;
  const parameters = new Map<string, unknown>();
  const holder = isRecord(result.ResultParameters) ? result.ResultParameters.ResultParameter : undefined;
  for (const item of asList(holder)) {
    if (!isRecord(item) || typeof item.Key !== 'string') continue;
    const key = item.Key.replace(/\s+/g, '');
    if (!parameters.has(key)) parameters.set(key, item.Value);
  }
  return {
    resultCode,
    resultDesc: text(result.ResultDesc) ?? '',
    conversationId: text(result.ConversationID),
    originatorConversationId: text(result.OriginatorConversationID),
    transactionId: text(result.TransactionID),
    parameters,
  };
}

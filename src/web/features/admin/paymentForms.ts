// First, before any schema parses: no eval under the shop's CSP (see zod-jitless.ts).
import '../../zod-jitless';
import { type ManualPaymentBody, manualPaymentBody, resolvePaymentBody } from '../../../shared/schemas/payments';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ORDER_ID_HINT = 'The full id from the order page (36 characters), or the order page’s link.';

/** The order id an admin typed or pasted: the id itself, or the address of its order page. */
export function orderIdFrom(text: string): string {
  const trimmed = text.trim();
  return /\/order\/([^/?#\s]+)/.exec(trimmed)?.[1] ?? trimmed;
}

/**
 * Why an order id cannot be sent, or null. On a phone the order list shows only an id's first
 * 8 characters, so a shortened id gets its own message.
 */
export function orderIdProblem(id: string): string | null {
  if (id === '') return 'Enter the order id';
  if (UUID.test(id)) return null;
  if (/^[0-9a-f-]{1,35}…?$/i.test(id)) return 'That is only part of the id: enter the full order id (36 characters)';
  return 'Not a valid order id';
}

/** The manual-entry form as typed: everything stays text until checked. */
export interface ManualPaymentFields {
  orderId: string;
  receipt: string;
  amount: string;
  phone: string;
}

export type ManualPaymentErrors = Partial<Record<keyof ManualPaymentFields, string>>;

export type ManualPaymentCheck = { ok: true; body: ManualPaymentBody } | { ok: false; errors: ManualPaymentErrors };

const FIELDS: readonly string[] = ['orderId', 'receipt', 'amount', 'phone'];
const isField = (key: PropertyKey | undefined): key is keyof ManualPaymentFields =>
  typeof key === 'string' && FIELDS.includes(key);

/**
 * Checks the form with the server's own schema, so the screen refuses what the server would, with
 * the same messages, before anything is sent. The first message per field is kept.
 */
export function checkManualPayment(fields: ManualPaymentFields): ManualPaymentCheck {
  const orderId = orderIdFrom(fields.orderId);
  const errors: ManualPaymentErrors = {};
  const idProblem = orderIdProblem(orderId);
  if (idProblem) errors.orderId = idProblem;
  if (fields.amount.trim() === '') errors.amount = 'Enter the amount M-Pesa shows';
  const phone = fields.phone.trim();
  const parsed = manualPaymentBody.safeParse({
    orderId,
    receipt: fields.receipt,
    amount: fields.amount,
    ...(phone ? { phone } : {}),
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (isField(field) && !errors[field]) errors[field] = issue.message;
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, body: parsed.data };
}

/** The resolving note, trimmed, or the message saying one is needed. */
export function checkNote(text: string): { ok: true; note: string } | { ok: false; error: string } {
  const parsed = resolvePaymentBody.safeParse({ note: text });
  return parsed.success
    ? { ok: true, note: parsed.data.note }
    : { ok: false, error: parsed.error.issues[0]?.message ?? 'Write a note' };
}

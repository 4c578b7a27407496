import { z } from 'zod';
import { manualPaymentBody, resolvePaymentBody } from '../../shared/schemas/payments';

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

/** An order id field: the id or its order page's link, read as the id. */
const orderIdText = z
  .string()
  .max(300, { error: 'Not a valid order id' })
  .transform(orderIdFrom)
  .superRefine((id, ctx) => {
    const problem = orderIdProblem(id);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The amount as an admin types it from the statement; then the server's own rule. */
const amountText = z
  .string()
  .trim()
  .min(1, { error: 'Enter the amount M-Pesa shows' })
  .max(12, { error: 'Amount must be a number' })
  .transform((text): unknown => text)
  .pipe(manualPaymentBody.shape.amount);

/** Gives an unmatched payment to an order. */
export const assignForm = z.object({ orderId: orderIdText });

/** Closes an exception with the merchant's note. */
export const resolveForm = resolvePaymentBody;

/** The ledger screen's manual entry: the server's schema, over what the admin types. */
export const manualPaymentForm = z.object({
  orderId: orderIdText,
  receipt: manualPaymentBody.shape.receipt,
  amount: amountText,
  phone: z
    .string()
    .trim()
    .max(20, { error: 'Phone must be at most 20 characters' })
    .transform((phone) => phone || undefined),
});

/** An order page's entry: the order is known, so only the receipt and the amount. */
export const orderPaymentForm = manualPaymentForm.pick({ receipt: true, amount: true });

/** The manual-entry form as typed: everything stays text until checked. */
export interface ManualPaymentFields {
  orderId: string;
  receipt: string;
  amount: string;
  phone: string;
}

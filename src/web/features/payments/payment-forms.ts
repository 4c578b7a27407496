import { z } from 'zod';
import { normaliseOrderNumber } from '../../../shared/order-number';
import { manualPaymentBody, ORDER_NUMBER_ERROR, resolvePaymentBody } from '../../../shared/schemas/payments';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ORDER_HINT =
  'The order number, like AFK785AQ: the account number on your M-Pesa statement, and on the order page. Or the order’s full id, or its page’s link.';

/** What an admin typed or pasted for an order: a number or an id as it is, a link as the id in it. */
export function orderFrom(text: string): string {
  const trimmed = text.trim();
  return /\/order\/([^/?#\s]+)/.exec(trimmed)?.[1] ?? trimmed;
}

/**
 * Why the order typed cannot be sent, or null. On a phone the order list shows only an id's first
 * 8 characters, so a shortened id gets its own message.
 */
export function orderProblem(typed: string): string | null {
  if (typed === '') return 'Enter the order number';
  if (UUID.test(typed) || normaliseOrderNumber(typed)) return null;
  if (/^[0-9a-f-]{1,35}…?$/i.test(typed))
    return 'That is only part of the id: enter the order number, or the full id (36 characters)';
  return `Not an order number or id. ${ORDER_NUMBER_ERROR}`;
}

/** The order as the API takes it: its id, or its number. */
export function orderReference(typed: string): { orderId: string } | { orderNumber: string } {
  return UUID.test(typed) ? { orderId: typed } : { orderNumber: normaliseOrderNumber(typed) ?? typed };
}

/** An order field: its number, its id or its page's link (sent as orderReference says). */
const orderText = z
  .string()
  .max(300, { error: 'Not an order number or id' })
  .transform(orderFrom)
  .superRefine((typed, ctx) => {
    const problem = orderProblem(typed);
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
export const assignForm = z.object({ orderId: orderText });

/** Closes an exception with the merchant's note. */
export const resolveForm = resolvePaymentBody;

/** The ledger screen's manual entry: the server's schema, over what the admin types. */
export const manualPaymentForm = z.object({
  orderId: orderText,
  receipt: manualPaymentBody.shape.receipt,
  amount: amountText,
  phone: z
    .string()
    .trim()
    .max(20, { error: 'Phone must be at most 20 characters' })
    .transform((phone) => phone || undefined),
});

/** The manual entry as checked: the order still as typed, sent by orderReference. */
export type ManualPaymentEntry = z.output<typeof manualPaymentForm>;

/** An order page's entry: the order is known, so only the receipt and the amount. */
export const orderPaymentForm = manualPaymentForm.pick({ receipt: true, amount: true });

/** The manual-entry form as typed: everything stays text until checked. */
export interface ManualPaymentFields {
  orderId: string;
  receipt: string;
  amount: string;
  phone: string;
}

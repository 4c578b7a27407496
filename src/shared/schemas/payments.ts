import { z } from 'zod';
import { entityId } from './common.js';

/** The payment prompt request (spec §7: phoneNumber, Amount; the order it pays is named too). */
export const stkPushBody = z.object({
  orderId: entityId,
  phoneNumber: z.preprocess(
    (v) => (typeof v === 'number' && Number.isInteger(v) ? String(v) : v),
    z.string({ error: 'Enter the M-Pesa phone number' }).trim().min(1, { error: 'Enter the M-Pesa phone number' }).max(20),
  ),
  Amount: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z.number({ error: 'Amount must be a number' }).refine(Number.isFinite, { error: 'Amount must be a number' }),
  ),
});
export type StkPushBody = z.infer<typeof stkPushBody>;

export const stkPushResponse = z.object({ msg: z.string(), checkoutRequestId: z.string() });
export type StkPushResponse = z.infer<typeof stkPushResponse>;

/** Where one payment prompt stands. timed_out is not a definite failure: it stays reconcilable. */
export const attemptStatus = z.enum(['pending', 'paid', 'failed', 'timed_out', 'rejected']);
export type AttemptStatus = z.infer<typeof attemptStatus>;

export const paymentAttempt = z.object({
  status: attemptStatus,
  /** The shopper-facing reason for a failure, e.g. "You cancelled the M-Pesa prompt." */
  reason: z.string().nullable(),
  resultCode: z.string().nullable(),
  amount: z.number(),
  /** Masked: 0712 *** 678. */
  phone: z.string(),
  receipt: z.string().nullable(),
  createdAt: z.string(),
});
export type PaymentAttempt = z.infer<typeof paymentAttempt>;

/** What the order page shows about paying: the order's state and its latest prompt. */
export const paymentStatus = z.object({
  orderId: z.string(),
  isPaid: z.boolean(),
  paidAt: z.string().nullable(),
  receipt: z.string().nullable(),
  /** The whole shillings M-Pesa charges for this order (its total rounded up). */
  amountDue: z.number(),
  lastAttempt: paymentAttempt.nullable(),
});
export type PaymentStatus = z.infer<typeof paymentStatus>;

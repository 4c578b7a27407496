import { z } from 'zod';
import { normaliseOrderNumber } from '../order-number.js';
import { MSISDN_ERROR, normaliseMsisdn } from '../phone.js';
import { entityId, fromFormText, pageNumberParam } from './common.js';

/**
 * The payment prompt request (docs/product-rules.md, Data and API: phoneNumber, Amount). Duka's own client names the
 * order it pays; without orderId, it is the caller's most recent unpaid order that Amount pays.
 */
export const stkPushBody = z.object({
  orderId: entityId.optional(),
  phoneNumber: z.preprocess(
    (v) => (typeof v === 'number' && Number.isInteger(v) ? String(v) : v),
    z.string({ error: 'Enter the M-Pesa phone number' }).trim().min(1, { error: 'Enter the M-Pesa phone number' }).max(20),
  ),
  Amount: z.preprocess(
    fromFormText,
    z.number({ error: 'Amount must be a number' }).refine(Number.isFinite, { error: 'Amount must be a number' }),
  ),
});
export type StkPushBody = z.infer<typeof stkPushBody>;

/**
 * The order page's "M-Pesa phone number" form: a number normaliseMsisdn takes (the server checks
 * it again with the same rule and message), kept as typed, trimmed.
 */
export const mpesaNumberForm = z.object({
  phoneNumber: z
    .string()
    .trim()
    .min(1, { error: 'Enter the M-Pesa phone number' })
    .max(20, { error: MSISDN_ERROR })
    .refine((value) => normaliseMsisdn(value) !== null, { error: MSISDN_ERROR }),
});

export const stkPushResponse = z.object({ msg: z.string(), checkoutRequestId: z.string() });
export type StkPushResponse = z.infer<typeof stkPushResponse>;

/**
 * Where one payment prompt stands. timed_out is not a definite failure: it stays reconcilable.
 * unknown: Daraja's answer to the push was lost, so the prompt may be on the phone all the same.
 */
export const attemptStatus = z.enum(['pending', 'unknown', 'paid', 'failed', 'timed_out', 'rejected']);
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

/**
 * The payment ledger: every M-Pesa payment the shop learns of, once, keyed by its receipt.
 * `status` is where the money stands; `exception` says why it did not simply pay an order.
 */
export const ledgerStatus = z.enum(['credited', 'exception', 'resolved', 'refund_pending', 'refunded']);
export type LedgerStatus = z.infer<typeof ledgerStatus>;

/** How the shop learned of a payment. */
export const paymentSource = z.enum(['stk_callback', 'stk_query', 'c2b', 'manual']);
export type PaymentSource = z.infer<typeof paymentSource>;

/** Short codes for a payment that needs the merchant; the admin screen words each one. */
export const paymentException = z.enum([
  'double_payment',
  'unmatched',
  'amount_short',
  'overpaid',
  'receipt_missing',
  'unconfirmed',
  /** A refund by M-Pesa Reversal got no answer after the reconciler's retries: check the M-Pesa statement. */
  'refund_unanswered',
  /** An admin recorded this receipt with another amount than M-Pesa's own word: M-Pesa's amount is kept. */
  'amount_mismatch',
  /** M-Pesa's confirmation carried an amount that is zero, negative or unreadable: it pays nothing. */
  'bad_amount',
  /** A confirmation naming another shortcode than the shop's: never credited, never assignable. */
  'other_shortcode',
]);
export type PaymentException = z.infer<typeof paymentException>;

/** The latest refund (M-Pesa Reversal) asked for a payment. */
export const ledgerRefund = z.object({
  requestedAt: z.string(),
  /** When M-Pesa confirmed the money went back; null until then. */
  completedAt: z.string().nullable(),
  /** Why M-Pesa refused the reversal, in plain words; null unless it failed. */
  failureReason: z.string().nullable(),
  failedAt: z.string().nullable(),
});
export type LedgerRefund = z.infer<typeof ledgerRefund>;

export const ledgerPayment = z.object({
  _id: z.string(),
  /** The M-Pesa receipt, trimmed and upper case; null while a query-settled payment awaits it. */
  receipt: z.string().nullable(),
  /** What M-Pesa charged, in shillings (whole for STK, as Daraja reports it otherwise). */
  amount: z.number(),
  /** Masked for shoppers (0712 *** 678); the admin screen shows it whole. */
  phone: z.string().nullable(),
  source: paymentSource,
  orderId: z.string().nullable(),
  /** The order's short number, which screens show instead of its id; null when no order is named. */
  orderNumber: z.string().nullable(),
  status: ledgerStatus,
  exception: paymentException.nullable(),
  /** When M-Pesa says it happened, else when the shop learned of it. */
  receivedAt: z.string(),
  /** The admin's note when an exception was resolved; null for shoppers. */
  note: z.string().nullable(),
  /**
   * Admins only: what an admin recorded by hand for this receipt, when M-Pesa's own word gave
   * another amount (`amount` is then M-Pesa's). Null otherwise, and always for shoppers.
   */
  recordedAmount: z.number().nullable().optional(),
  /**
   * Admins only: why M-Pesa has not confirmed this payment (a Paybill payment waits for M-Pesa's
   * Transaction Status before it pays anything), or the amount as M-Pesa wrote it when unreadable.
   */
  detail: z.string().nullable().optional(),
  /** The latest refund asked for this payment, or null when none was. */
  refund: ledgerRefund.nullable(),
});
export type LedgerPayment = z.infer<typeof ledgerPayment>;

export const ledgerFilter = z.enum(['all', 'exception', 'unmatched', 'unconfirmed'], {
  error: 'status must be all, exception, unmatched or unconfirmed',
});
export type LedgerFilter = z.infer<typeof ledgerFilter>;

export const ledgerListQuery = z.object({ status: ledgerFilter.default('all'), pageNumber: pageNumberParam });

export const ledgerPage = z.object({
  payments: z.array(ledgerPayment),
  page: z.number(),
  pages: z.number(),
});
export type LedgerPage = z.infer<typeof ledgerPage>;

/** For the Admin menu's badge. */
export const ledgerSummary = z.object({ openExceptions: z.number() });
export type LedgerSummary = z.infer<typeof ledgerSummary>;

const receiptField = z
  .string({ error: 'Enter the M-Pesa receipt number' })
  .trim()
  .max(40, { error: 'An M-Pesa receipt is 8 to 20 letters and digits, like SKL4A7K2QZ' })
  .toUpperCase()
  .regex(/^[A-Z0-9]{8,20}$/, { error: 'An M-Pesa receipt is 8 to 20 letters and digits, like SKL4A7K2QZ' });

export const ORDER_NUMBER_ERROR = 'An order number is 8 letters and digits, like AFK785AQ';

/** An order's number as a person types it (case, spaces and dashes ignored), read as the number. */
const orderNumberField = z
  .string({ error: ORDER_NUMBER_ERROR })
  .max(40, { error: ORDER_NUMBER_ERROR })
  .transform((typed, ctx) => {
    const number = normaliseOrderNumber(typed);
    if (!number) ctx.addIssue({ code: 'custom', message: ORDER_NUMBER_ERROR });
    return number ?? typed;
  });

/**
 * The order an admin gives a payment to: by its id, or by its number, which is what the shopper
 * typed as the Paybill account and what the merchant's M-Pesa statement shows. One of the two.
 */
const orderReference = {
  orderId: entityId.optional(),
  orderNumber: orderNumberField.optional(),
};
const namesOneOrder = (body: { orderId?: string | undefined; orderNumber?: string | undefined }) =>
  (body.orderId === undefined) !== (body.orderNumber === undefined);
const ONE_ORDER = { error: 'Name the order by its orderId or by its orderNumber (one of the two)', path: ['orderId'] };

/** An admin records a payment from the merchant's M-Pesa statement. */
export const manualPaymentBody = z
  .object({
    ...orderReference,
    receipt: receiptField,
    amount: z.preprocess(
      fromFormText,
      z.number({ error: 'Amount must be a number' }).positive({ error: 'Amount must be more than 0' }).max(1_000_000),
    ),
    phone: z.string().trim().max(20).optional(),
  })
  .refine(namesOneOrder, ONE_ORDER);
export type ManualPaymentBody = z.infer<typeof manualPaymentBody>;

export const assignPaymentBody = z.object(orderReference).refine(namesOneOrder, ONE_ORDER);
export type AssignPaymentBody = z.infer<typeof assignPaymentBody>;
export const resolvePaymentBody = z.object({
  note: z.string({ error: 'Write a note' }).trim().min(1, { error: 'Write a note' }).max(500),
  /**
   * Only for an unanswered refund, and required there: whether the merchant's M-Pesa statement
   * shows the reversal (true: the payment is refunded) or not (false: it may be refunded again).
   */
  refunded: z.boolean({ error: 'refunded must be true or false' }).optional(),
});

/** What the order page shows about paying: the order's state and its latest prompt. */
/** Paying an order by Lipa na M-Pesa Paybill, when the prompt does not come: the shop's number, the order's account number. */
export const paybillDetails = z.object({
  businessNumber: z.string(),
  accountNumber: z.string(),
  /** Whole shillings still to pay. */
  amount: z.number(),
});
/** Paying an order by Lipa na M-Pesa Buy Goods: a till payment carries no account number. */
export const tillDetails = z.object({
  tillNumber: z.string(),
  amount: z.number(),
});

export const paymentStatus = z.object({
  orderId: z.string(),
  orderNumber: z.string(),
  isPaid: z.boolean(),
  paidAt: z.string().nullable(),
  receipt: z.string().nullable(),
  /** The whole shillings M-Pesa charges for this order (its total rounded up). */
  amountDue: z.number(),
  lastAttempt: paymentAttempt.nullable(),
  /** Every M-Pesa payment recorded against the order, oldest first (phones masked). */
  payments: z.array(ledgerPayment),
  /** What M-Pesa charged for the payments that credited this order, in shillings. */
  amountPaid: z.number(),
  /** How to pay without the prompt, for a Paybill shop; null once the order is paid. */
  paybill: paybillDetails.nullable().optional(),
  /** How to pay without the prompt, for a Till shop; null once the order is paid. */
  till: tillDetails.nullable().optional(),
  /** A demo shop (M-Pesa simulator) only: the order page may make a Paybill payment for the shopper. */
  paybillSimulator: z.boolean(),
  /** When the money that paid this order was all refunded (the order is unpaid again); null otherwise. */
  refundedAt: z.string().nullable(),
});

/** A demo shop's "Simulate a Paybill payment": from this phone (the sandbox's test number if none). */
export const simulatePaybillBody = z
  .object({ phoneNumber: z.string().max(20).optional() })
  .optional()
  .default({});
export type PaybillDetails = z.infer<typeof paybillDetails>;
export type TillDetails = z.infer<typeof tillDetails>;
export type PaymentStatus = z.infer<typeof paymentStatus>;

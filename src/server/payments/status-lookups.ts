import { and, eq, inArray, sql } from 'drizzle-orm';
import type { PaymentSource } from '../../shared/schemas/payments.js';
import type { Queryable } from '../db/client.js';
import { mpesaPayments, paymentAttempts } from '../db/schema.js';
import { isHeld } from '../domain/payments/coverage.js';
import {
  AWAITING_CONFIRMATION,
  applyMpesaWord,
  fillReceipt,
  type LedgerRow,
  lockPayment,
  refuseConfirmation,
} from '../domain/payments/ledger.js';
import { parseDarajaDate } from '../mpesa/daraja-callback.js';
import { type InitiatorResult, parseInitiatorResult, text } from '../mpesa/initiator-result.js';
import type { PaymentDeps } from './deps.js';
import { answersOwnRequest, recordInitiatorRequest } from './initiator-requests.js';
import { shopShortcodes } from './lipa-na-mpesa.js';

/**
 * Transaction Status (docs/payments.md, Reversal, Transaction Status and the SecurityCredential;
 * Results and queue timeouts): the shop asks M-Pesa whether a Paybill receipt is a completed
 * payment to the shop (a confirmation), and for the receipt of a payment known only from the STK
 * status query (a missing receipt). Each lookup's Result comes to a URL naming the payment
 * (initiator.ts takes it in); what it proves is written to the ledger.
 */

/** Sends one Transaction Status request for a payment; a request that could not be sent does not count. */
async function sendStatusLookup(
  deps: PaymentDeps,
  payment: LedgerRow,
  by: { transactionId: string } | { originalConversationId: string },
  remarks: string,
): Promise<void> {
  const { initiator, db } = deps;
  if (!initiator.credentials) return;
  try {
    const accepted = await deps.daraja.transactionStatus({
      ...by,
      initiator: initiator.credentials.name,
      securityCredential: await initiator.credentials.securityCredential(),
      partyA: initiator.shortcode,
      identifierType: initiator.identifierType,
      resultUrl: initiator.hookUrl('ts', payment.id, 'result'),
      queueTimeoutUrl: initiator.hookUrl('ts', payment.id, 'timeout'),
      remarks,
      occasion: payment.id.slice(0, 8),
    });
    await recordInitiatorRequest(db, 'status', payment.id, accepted);
    deps.log.info({ paymentId: payment.id, lookup: payment.receiptLookups, ...accepted }, 'M-Pesa Transaction Status asked');
  } catch (error) {
    deps.log.warn({ err: error, paymentId: payment.id }, 'M-Pesa Transaction Status could not be sent; will retry');
    await db
      .update(mpesaPayments)
      .set({ receiptLookups: sql`greatest(${mpesaPayments.receiptLookups} - 1, 0)`, receiptLookupAt: null })
      .where(eq(mpesaPayments.id, payment.id));
  }
}

/**
 * Asks M-Pesa whether a Paybill receipt is a completed payment to the shop, right after its
 * confirmation came; the reconciler asks again when no Result comes (lookUpMissingReceipts).
 */
export async function sendConfirmationLookup(deps: PaymentDeps, payment: LedgerRow): Promise<void> {
  if (!payment.receipt) return;
  const [claimed] = await deps.db
    .update(mpesaPayments)
    .set({ receiptLookups: sql`${mpesaPayments.receiptLookups} + 1`, receiptLookupAt: sql`now()` })
    .where(and(eq(mpesaPayments.id, payment.id), eq(mpesaPayments.detail, AWAITING_CONFIRMATION)))
    .returning();
  if (claimed) await sendStatusLookup(deps, claimed, { transactionId: payment.receipt }, 'Confirm a Paybill payment');
}

/**
 * Payments the shop is waiting on M-Pesa for, looked up by Transaction Status a bounded number of
 * times, a few at a time (SKIP LOCKED, so instances share them):
 * - Paybill receipts awaiting confirmation (and receipts an admin recorded that a confirmation
 *   named), by the receipt itself. Unanswered after every lookup, they stay unconfirmed, with why.
 * - Query-settled payments still without their receipt after MPESA_RECEIPT_LOOKUP_AFTER_MS, with
 *   the prompt's ids: whether M-Pesa takes an STK push's CheckoutRequestID or its MerchantRequestID
 *   as the OriginalConversationID is not documented, so the lookups alternate between the two.
 *   Without an answer the payment stays listed as "receipt missing" for the admin.
 */
export async function lookUpMissingReceipts(deps: PaymentDeps): Promise<number> {
  const { initiator, db } = deps;
  if (!initiator.credentials) return 0;
  await giveUpUnansweredConfirmations(deps);
  const claimed = await db
    .update(mpesaPayments)
    .set({ receiptLookups: sql`${mpesaPayments.receiptLookups} + 1`, receiptLookupAt: sql`now()` })
    .where(
      inArray(
        mpesaPayments.id,
        sql`(SELECT id FROM ${mpesaPayments}
              WHERE ((exception = 'receipt_missing' AND receipt IS NULL AND checkout_request_id IS NOT NULL
                      AND status IN ('credited', 'exception')
                      AND created_at < now() - ${initiator.receiptLookupAfterMs} * interval '1 millisecond')
                     OR (detail = ${AWAITING_CONFIRMATION} AND receipt IS NOT NULL))
                AND receipt_lookups < ${initiator.receiptLookupMaxAttempts}
                AND (receipt_lookup_at IS NULL OR receipt_lookup_at < now() - ${initiator.resultWaitMs} * interval '1 millisecond')
              ORDER BY created_at
              LIMIT 10
              FOR UPDATE SKIP LOCKED)`,
      ),
    )
    .returning();
  for (const payment of claimed) {
    if (payment.receipt !== null) {
      await sendStatusLookup(deps, payment, { transactionId: payment.receipt }, 'Confirm a Paybill payment');
      continue;
    }
    const checkoutRequestId = payment.checkoutRequestId as string;
    let id = checkoutRequestId;
    // Odd attempts by CheckoutRequestID, even ones by MerchantRequestID (when the prompt has one).
    if (payment.receiptLookups % 2 === 0) {
      const [attempt] = await db
        .select({ merchantRequestId: paymentAttempts.merchantRequestId })
        .from(paymentAttempts)
        .where(eq(paymentAttempts.checkoutRequestId, checkoutRequestId));
      id = attempt?.merchantRequestId || checkoutRequestId;
    }
    await sendStatusLookup(deps, payment, { originalConversationId: id }, 'Receipt of a paid order');
  }
  return claimed.length;
}

/** Confirmations M-Pesa never answered, after every lookup and the wait for the last: they stay unconfirmed. */
async function giveUpUnansweredConfirmations(deps: PaymentDeps): Promise<void> {
  const { initiator, db } = deps;
  const stale = await db
    .select()
    .from(mpesaPayments)
    .where(
      and(
        eq(mpesaPayments.detail, AWAITING_CONFIRMATION),
        sql`${mpesaPayments.receiptLookups} >= ${initiator.receiptLookupMaxAttempts}`,
        sql`(${mpesaPayments.receiptLookupAt} IS NULL OR ${mpesaPayments.receiptLookupAt} < now() - ${initiator.resultWaitMs} * interval '1 millisecond')`,
      ),
    )
    .limit(10);
  for (const payment of stale) {
    await db.transaction(async (tx) => {
      const locked = await lockPayment(tx, payment.id);
      if (locked.detail !== AWAITING_CONFIRMATION) return;
      await refuseConfirmation(
        tx,
        deps,
        locked,
        `M-Pesa did not answer ${locked.receiptLookups} Transaction Status lookups for this receipt.`,
      );
    });
  }
}

/** Transaction Status values after which a payment will never complete. */
const FINAL_FAILURES = new Set(['Cancelled', 'Declined', 'Expired', 'Failed']);

type StatusVerdict = { completed: { amountCents: number } } | { refused: string } | 'inconclusive';

/**
 * What a Transaction Status Result says of one receipt: a completed payment to the shop with its
 * amount, a payment that will never be (with why), or nothing yet.
 */
export function judgeStatusResult(result: InitiatorResult, receipt: string, shortcodes: string[]): StatusVerdict {
  // "The OriginalTransactionID is invalid": M-Pesa has no such transaction. The payment stays in
  // the ledger, unconfirmed, for the merchant to check against the statement.
  if (result.resultCode === 'R000002') return { refused: 'M-Pesa knows no transaction with this receipt.' };
  if (result.resultCode !== '0') return 'inconclusive';
  const status = text(result.parameters.get('TransactionStatus'));
  const seenReceipt = text(result.parameters.get('ReceiptNo'))?.toUpperCase() ?? null;
  if (seenReceipt !== null && seenReceipt !== receipt)
    return { refused: `M-Pesa answered for another receipt (${seenReceipt}).` };
  if (status && FINAL_FAILURES.has(status)) return { refused: `M-Pesa says this payment was ${status.toLowerCase()}.` };
  if (status !== 'Completed' || seenReceipt === null) return 'inconclusive';
  const creditParty = text(result.parameters.get('CreditPartyName')) ?? '';
  const creditShortcode = /^\s*(\d+)/.exec(creditParty)?.[1] ?? '';
  if (!shortcodes.includes(creditShortcode)) {
    return { refused: `M-Pesa says this money went to ${creditParty || 'another account'}, not the shop’s shortcode.` };
  }
  const amountCents = Math.round(Number(result.parameters.get('Amount')) * 100);
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) return 'inconclusive';
  return { completed: { amountCents } };
}

/** A Transaction Status Result for a payment the shop is waiting on: its receipt, or its confirmation. */
export async function applyStatusResult(deps: PaymentDeps, paymentId: string, body: string): Promise<string> {
  const result = parseInitiatorResult(body);
  if (!result) return 'not_a_result';
  return deps.db.transaction(async (tx) => {
    const [payment] = await tx.select().from(mpesaPayments).where(eq(mpesaPayments.id, paymentId)).for('update');
    if (!payment) return 'unknown_payment';
    if (!(await answersOwnRequest(tx, 'status', paymentId, result))) {
      deps.log.warn(
        { paymentId, conversationId: result.conversationId },
        'M-Pesa status Result answering no request of the shop ignored',
      );
      return 'uncorrelated';
    }
    if (payment.receipt === null) return fillFromStatus(tx, deps, payment, result, body);
    if (payment.detail !== AWAITING_CONFIRMATION) return 'duplicate';
    const verdict = judgeStatusResult(result, payment.receipt, shopShortcodes(deps.lipaNaMpesa, deps.initiator.shortcode));
    if (verdict === 'inconclusive') {
      // The next lookup may be sent at once, within the bound.
      await tx.update(mpesaPayments).set({ receiptLookupAt: null }).where(eq(mpesaPayments.id, paymentId));
      return 'lookup_inconclusive';
    }
    const held = isHeld(payment);
    if ('refused' in verdict) {
      if (held) await refuseConfirmation(tx, deps, payment, verdict.refused);
      else await tx.update(mpesaPayments).set({ detail: verdict.refused }).where(eq(mpesaPayments.id, paymentId));
      return 'not_confirmed';
    }
    const { amountCents } = verdict.completed;
    if (held && payment.exception === 'unconfirmed' && amountCents !== payment.amountCents) {
      // Not credited: the confirmation lied about the amount. The money M-Pesa holds is real, so
      // the ledger keeps M-Pesa's amount, and an admin who assigns it from the statement puts
      // that on the order, never the claimed one.
      const claimed = payment.amountCents;
      await tx.update(mpesaPayments).set({ amountCents, updatedAt: sql`now()` }).where(eq(mpesaPayments.id, paymentId));
      await refuseConfirmation(
        tx,
        deps,
        { ...payment, amountCents },
        `M-Pesa says Ksh ${amountCents / 100} was paid; the confirmation said Ksh ${claimed / 100}.`,
      );
      return 'not_confirmed';
    }
    await applyMpesaWord(tx, deps, payment, { amountCents, raw: null });
    return 'confirmed';
  });
}

/** A receipt lookup's Result for a query-settled payment: it fills in the receipt when it proves it. */
async function fillFromStatus(
  tx: Queryable,
  deps: PaymentDeps,
  payment: LedgerRow,
  result: InitiatorResult,
  body: string,
): Promise<string> {
  const receipt = text(result.parameters.get('ReceiptNo'))?.toUpperCase() ?? null;
  const status = text(result.parameters.get('TransactionStatus'));
  const amount = Number(result.parameters.get('Amount'));
  const found = result.resultCode === '0' && status === 'Completed' && receipt !== null && /^[A-Z0-9]{6,20}$/.test(receipt);
  if (!found || Math.round(amount * 100) !== payment.amountCents) {
    // Inconclusive: the next lookup (by the other id) may be sent at once, within the bound.
    await tx.update(mpesaPayments).set({ receiptLookupAt: null }).where(eq(mpesaPayments.id, payment.id));
    deps.log.warn(
      { paymentId: payment.id, resultCode: result.resultCode, status, receipt },
      'M-Pesa Transaction Status did not give the receipt',
    );
    return 'lookup_inconclusive';
  }
  const [elsewhere] = await tx.select({ id: mpesaPayments.id }).from(mpesaPayments).where(eq(mpesaPayments.receipt, receipt));
  if (elsewhere) return 'receipt_elsewhere';
  await fillReceipt(tx, deps, payment, {
    receipt,
    amountCents: payment.amountCents,
    phone: null,
    source: payment.source as PaymentSource,
    checkoutRequestId: payment.checkoutRequestId,
    raw: body,
    transactionAt: parseDarajaDate(result.parameters.get('FinalisedTime')) ?? payment.transactionAt,
  });
  return 'receipt_filled';
}

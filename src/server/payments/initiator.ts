import { and, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { LedgerPayment, PaymentSource } from '../../shared/schemas/payments.js';
import type { Queryable } from '../db/client.js';
import { mpesaInitiatorRequests, mpesaPayments, paymentAttempts } from '../db/schema.js';
import {
  AWAITING_CONFIRMATION,
  applyMpesaWord,
  fillReceipt,
  type LedgerRow,
  ledgerJsonOf,
  lockPayment,
  type RefundRow,
  refuseConfirmation,
} from '../domain/payments/ledger.js';
import {
  claimDueRefunds,
  completeRefund,
  failRefund,
  markQueueTimeout,
  markRefundUnanswered,
  openRefund,
  recordReversalAccepted,
  refundTarget,
} from '../domain/payments/refunds.js';
import { AppError } from '../errors.js';
import { parseDarajaDate } from '../mpesa/daraja-callback.js';
import { DarajaError } from '../mpesa/daraja-client.js';
import { type InitiatorResult, parseInitiatorResult, text } from '../mpesa/initiator-result.js';
import { finishCallback, type PaymentDeps, storeCallback } from './stk.js';

/**
 * Daraja's initiator APIs (docs/payments.md, Reversal, Transaction Status, SecurityCredential,
 * Results): refunds by Reversal, and receipts recovered by Transaction Status. Both answer at once
 * with an acknowledgement, then POST a Result (or a queue-timeout notice) to URLs that carry the
 * shop's callback secret and the id of the refund or payment concerned. Every such body is stored
 * in mpesa_callbacks before it is acted on, like the STK and C2B callbacks.
 */

export interface InitiatorDeps {
  /** Null when MPESA_INITIATOR_NAME/PASSWORD are unset: no refunds, no receipt lookups. */
  credentials: { name: string; securityCredential: () => Promise<string> } | null;
  /** The shop's Paybill or Till: the party that received the payments. */
  shortcode: string;
  /** Transaction Status IdentifierType of that party: 4 for a shortcode, 2 for a till. */
  identifierType: string;
  reversalIdentifierType: string;
  /** The ResultURL or QueueTimeOutURL for a refund ('rev') or a receipt lookup ('ts'). */
  hookUrl: (kind: HookKind, id: string, what: 'result' | 'timeout') => string;
  resultWaitMs: number;
  reversalMaxAttempts: number;
  receiptLookupAfterMs: number;
  receiptLookupMaxAttempts: number;
}

export type HookKind = 'rev' | 'ts';

export const CALLBACK_KINDS = {
  rev: { result: 'reversal_result', timeout: 'reversal_timeout' },
  ts: { result: 'status_result', timeout: 'status_timeout' },
} as const;

type InitiatorCallbackKind = (typeof CALLBACK_KINDS)[HookKind]['result' | 'timeout'];
const INITIATOR_KINDS = new Set<string>(Object.values(CALLBACK_KINDS).flatMap((k) => Object.values(k)));

export function isInitiatorCallback(kind: string): kind is InitiatorCallbackKind {
  return INITIATOR_KINDS.has(kind);
}

/** Why M-Pesa refused a reversal, in the merchant's words (docs/payments.md, Reversal result codes). */
export function reversalFailureReason(resultCode: string, resultDesc: string): string {
  const said = resultDesc ? ` M-Pesa said: “${resultDesc}”` : '';
  switch (resultCode) {
    case '1':
      return `There is not enough money in the shop’s M-Pesa account to send this payment back. Top it up, then refund again.${said}`;
    case 'R000002':
      return `M-Pesa does not know this receipt as a payment to the shop, so it cannot be reversed.${said}`;
    case '11':
    case '2006':
      return `The shop’s M-Pesa account is not active for reversals; ask Safaricom.${said}`;
    case '21':
      return `The initiator (MPESA_INITIATOR_NAME) is not allowed to reverse payments: ask Safaricom to give it the “Org Reversals Initiator” role.${said}`;
    case '2001':
      return `M-Pesa did not accept the initiator’s credentials: check MPESA_INITIATOR_NAME, MPESA_INITIATOR_PASSWORD and the certificate (MPESA_CERT_PATH).${said}`;
    case '2028':
      return `The shop’s shortcode is not enabled for reversals; ask Safaricom.${said}`;
    case '8006':
      return `The initiator’s password is locked after too many wrong attempts; the M-Pesa org portal’s Business Administrator must unlock it.${said}`;
    default:
      return `M-Pesa could not reverse the payment (${resultCode}).${said}`;
  }
}

// ------------------------------------------------------------------------------------------------
// Refunds
// ------------------------------------------------------------------------------------------------

/** Sends (or sends again) the Reversal of one refund. Returns what the caller should tell. */
async function sendReversal(
  deps: PaymentDeps,
  refund: RefundRow,
  payment: LedgerRow,
): Promise<'sent' | 'no_answer' | { refused: string }> {
  const { initiator } = deps;
  if (!initiator.credentials || !payment.receipt) return 'no_answer';
  try {
    const accepted = await deps.daraja.reversal({
      initiator: initiator.credentials.name,
      securityCredential: await initiator.credentials.securityCredential(),
      transactionId: payment.receipt,
      amount: refund.amountCents / 100,
      receiverParty: initiator.shortcode,
      receiverIdentifierType: initiator.reversalIdentifierType,
      resultUrl: initiator.hookUrl('rev', refund.id, 'result'),
      queueTimeoutUrl: initiator.hookUrl('rev', refund.id, 'timeout'),
      remarks: `Refund ${payment.receipt}`,
      occasion: `Refund ${refund.id.slice(0, 8)}`,
    });
    await recordReversalAccepted(deps.db, refund.id, accepted);
    await recordInitiatorRequest(deps.db, 'reversal', refund.id, accepted);
    deps.log.info(
      { refundId: refund.id, receipt: payment.receipt, attempt: refund.attempts, ...accepted },
      'M-Pesa reversal sent',
    );
    return 'sent';
  } catch (error) {
    if (error instanceof DarajaError && (error.kind === 'rejected' || error.kind === 'auth')) {
      // Refused outright: nothing was queued, so the refund failed and may be asked again.
      await failRefund(deps.db, deps, refund.id, { resultCode: error.errorCode ?? 'refused', reason: error.message });
      return { refused: error.message };
    }
    // Lost answer or Daraja busy: the reconciler sends it again after MPESA_RESULT_WAIT_MS, which
    // is safe because M-Pesa refuses a second reversal of one receipt ("already reversed").
    deps.log.warn({ err: error, refundId: refund.id }, 'M-Pesa reversal got no answer; the reconciler will send it again');
    return 'no_answer';
  }
}

/** An admin refunds a whole payment by M-Pesa Reversal; the payment is refund_pending until the Result. */
export async function requestRefund(deps: PaymentDeps, paymentId: string, adminId: string | null): Promise<LedgerPayment> {
  const { refund, payment } = await openRefund(deps.db, paymentId, adminId, deps.initiator.credentials !== null);
  const sent = await sendReversal(deps, refund, payment);
  if (typeof sent === 'object') throw new AppError(502, `M-Pesa refused the refund: ${sent.refused}`);
  const [row] = await deps.db.select().from(mpesaPayments).where(eq(mpesaPayments.id, paymentId));
  if (!row) throw new Error('payment vanished');
  return (await ledgerJsonOf(deps.db, [row], 'admin'))[0] as LedgerPayment;
}

/** Refunds whose Reversal timed out in M-Pesa's queue or got no Result: sent again, or listed. */
export async function reconcileRefunds(deps: PaymentDeps): Promise<{ resent: number; unanswered: number }> {
  const { initiator } = deps;
  if (!initiator.credentials) return { resent: 0, unanswered: 0 };
  const { resend, exhausted } = await claimDueRefunds(deps.db, initiator.resultWaitMs, initiator.reversalMaxAttempts);
  let unanswered = 0;
  for (const refund of exhausted) if (await markRefundUnanswered(deps.db, deps, refund.id)) unanswered += 1;
  for (const refund of resend) {
    const target = await refundTarget(deps.db, refund.id);
    if (target) await sendReversal(deps, target.refund, target.payment);
  }
  return { resent: resend.length, unanswered };
}

// ------------------------------------------------------------------------------------------------
// Receipts recovered by Transaction Status
// ------------------------------------------------------------------------------------------------

/** Keeps the ids Daraja gave a Reversal or Transaction Status request: its Result must carry them. */
async function recordInitiatorRequest(
  db: Queryable,
  kind: 'reversal' | 'status',
  subjectId: string,
  accepted: { originatorConversationId: string; conversationId: string },
): Promise<void> {
  await db.insert(mpesaInitiatorRequests).values({ kind, subjectId, ...accepted });
}

/** Whether a Result answers a request the shop made for this refund or payment. */
async function answersOwnRequest(db: Queryable, kind: 'reversal' | 'status', subjectId: string, result: InitiatorResult) {
  const ids: SQL[] = [];
  if (result.conversationId) ids.push(eq(mpesaInitiatorRequests.conversationId, result.conversationId));
  if (result.originatorConversationId) {
    ids.push(eq(mpesaInitiatorRequests.originatorConversationId, result.originatorConversationId));
  }
  if (ids.length === 0) return false;
  const [found] = await db
    .select({ id: mpesaInitiatorRequests.id })
    .from(mpesaInitiatorRequests)
    .where(and(eq(mpesaInitiatorRequests.kind, kind), eq(mpesaInitiatorRequests.subjectId, subjectId), or(...ids)))
    .limit(1);
  return found !== undefined;
}

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
 * confirmation came; the reconciler asks again when no Result comes (lookUpPayments).
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
async function applyStatusResult(deps: PaymentDeps, paymentId: string, body: string): Promise<string> {
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
    const verdict = judgeStatusResult(result, payment.receipt, [deps.initiator.shortcode, ...shopNumbers(deps)]);
    if (verdict === 'inconclusive') {
      // The next lookup may be sent at once, within the bound.
      await tx.update(mpesaPayments).set({ receiptLookupAt: null }).where(eq(mpesaPayments.id, paymentId));
      return 'lookup_inconclusive';
    }
    const held = payment.exception === 'unconfirmed' || payment.exception === 'bad_amount';
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

/** The shop's Paybill or Till number. */
function shopNumbers(deps: Pick<PaymentDeps, 'lipaNaMpesa'>): string[] {
  const shop = deps.lipaNaMpesa;
  return ['paybill' in shop ? shop.paybill : shop.till];
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

// ------------------------------------------------------------------------------------------------
// Callbacks
// ------------------------------------------------------------------------------------------------

/** Stores, then acts on, one Result or queue-timeout notice. Never throws for what the body says. */
export async function receiveInitiatorCallback(
  deps: PaymentDeps,
  kind: HookKind,
  what: 'result' | 'timeout',
  subjectId: string,
  body: string,
  remoteIp: string,
): Promise<void> {
  const stored = await storeCallback(deps.db, body, remoteIp, undefined, CALLBACK_KINDS[kind][what], subjectId);
  try {
    await processInitiatorCallback(deps, stored);
  } catch (error) {
    deps.log.error({ err: error, callbackId: stored.id }, 'M-Pesa result could not be processed; will retry');
  }
}

/** Acts on one stored Result or timeout notice; returns what became of it. */
export async function processInitiatorCallback(
  deps: PaymentDeps,
  stored: { id: string; kind: string; body: string; subjectId: string | null },
): Promise<string> {
  const outcome = await actOn(deps, stored);
  await finishCallback(deps.db, stored.id, outcome);
  return outcome;
}

/** Why a reversal Result is not the answer to this refund's own request; null when it is. */
async function reversalResultRefusal(deps: PaymentDeps, refundId: string, result: InitiatorResult): Promise<string | null> {
  if (!(await answersOwnRequest(deps.db, 'reversal', refundId, result))) return 'uncorrelated';
  if (result.resultCode !== '0') return null;
  const target = await refundTarget(deps.db, refundId);
  if (!target) return 'unknown_refund';
  const reversed = text(result.parameters.get('OriginalTransactionID'))?.toUpperCase() ?? null;
  if (reversed !== null && reversed !== target.payment.receipt) return 'other_receipt';
  const amount = result.parameters.get('Amount');
  if (amount !== undefined && Math.round(Number(amount) * 100) !== target.refund.amountCents) return 'other_amount';
  return null;
}

async function actOn(deps: PaymentDeps, stored: { kind: string; body: string; subjectId: string | null }): Promise<string> {
  const subject = stored.subjectId;
  if (!subject) return 'no_subject';
  switch (stored.kind) {
    case CALLBACK_KINDS.rev.timeout: {
      deps.log.warn({ refundId: subject }, 'M-Pesa reversal timed out in its queue; it will be sent again');
      return markQueueTimeout(deps.db, subject);
    }
    case CALLBACK_KINDS.rev.result: {
      const result = parseInitiatorResult(stored.body);
      if (!result) return 'not_a_result';
      // The URL names the refund, but only the ids of a request the shop made for it, and on
      // success the receipt and amount it reverses, make the Result M-Pesa's answer to it.
      const refusal = await reversalResultRefusal(deps, subject, result);
      if (refusal) {
        deps.log.warn({ refundId: subject, conversationId: result.conversationId, refusal }, 'M-Pesa reversal Result ignored');
        return refusal;
      }
      if (result.resultCode === '0' || result.resultCode === 'R000001') {
        const reversalReceipt = result.resultCode === '0' ? result.transactionId : null;
        return completeRefund(deps.db, deps, subject, { resultCode: result.resultCode, reversalReceipt });
      }
      return failRefund(deps.db, deps, subject, {
        resultCode: result.resultCode,
        reason: reversalFailureReason(result.resultCode, result.resultDesc),
      });
    }
    case CALLBACK_KINDS.ts.timeout: {
      await deps.db
        .update(mpesaPayments)
        .set({ receiptLookupAt: null })
        .where(and(eq(mpesaPayments.id, subject), isNull(mpesaPayments.receipt)));
      return 'timeout';
    }
    case CALLBACK_KINDS.ts.result:
      return applyStatusResult(deps, subject, stored.body);
    default:
      return 'unknown_kind';
  }
}

import { and, eq, isNull } from 'drizzle-orm';
import type { LedgerPayment } from '../../shared/schemas/payments.js';
import { mpesaPayments } from '../db/schema.js';
import type { LedgerRow, RefundRow } from '../domain/payments/ledger.js';
import { ledgerJsonOf } from '../domain/payments/ledger-views.js';
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
import { DarajaError } from '../mpesa/daraja-client.js';
import { type InitiatorResult, parseInitiatorResult, text } from '../mpesa/initiator-result.js';
import { finishCallback, storeCallback } from './callback-store.js';
import type { HookKind, PaymentDeps } from './deps.js';
import { answersOwnRequest, recordInitiatorRequest } from './initiator-requests.js';
import { applyStatusResult } from './status-lookups.js';

/**
 * Daraja's initiator APIs (docs/payments.md, Reversal, Transaction Status, SecurityCredential,
 * Results): refunds by Reversal, here, and receipts recovered by Transaction Status
 * (status-lookups.ts). Both answer at once with an acknowledgement, then POST a Result (or a
 * queue-timeout notice) to URLs that carry the shop's callback secret and the id of the refund or
 * payment concerned. Every such body is stored in mpesa_callbacks before it is acted on, like the
 * STK and C2B callbacks, and handed on from here.
 */

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

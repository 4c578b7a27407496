/** The initiator calls, Reversal and Transaction Status: queued by Daraja, their Results sent later. */
import { DarajaError } from '../daraja-errors.js';
import { isRecord, refused, rejected, type Scrubber, str } from './answers.js';
import type { FamilyContext } from './call-api.js';
import { isHttpUrl } from './config.js';
import type { InitiatorAccepted, InitiatorRequest, ReversalInput, TransactionStatusInput } from './types.js';

/** Throws a 'rejected' DarajaError for initiator fields Daraja would refuse. */
export function validateInitiator(input: InitiatorRequest): void {
  if (typeof input.initiator !== 'string' || input.initiator.trim() === '') throw rejected('The initiator name is missing.');
  if (typeof input.securityCredential !== 'string' || input.securityCredential === '')
    throw rejected('The security credential is missing.');
  if (!isHttpUrl(input.resultUrl) || !isHttpUrl(input.queueTimeoutUrl))
    throw rejected('The result and queue-timeout URLs must be http(s) URLs without spaces.');
  if (typeof input.remarks !== 'string' || input.remarks.length < 2 || input.remarks.length > 100)
    throw rejected('The remarks must be 2 to 100 characters.');
}

/** The acknowledgement of an initiator call: ResponseCode "0" and the two ids, else a refusal. */
export function initiatorAccepted(scrub: Scrubber, op: 'reversal' | 'status', json: unknown, status: number): InitiatorAccepted {
  const body = isRecord(json) ? json : {};
  const responseCode = str(body.ResponseCode);
  if (responseCode !== null && responseCode !== '0') {
    const said = str(body.ResponseDescription) ?? `ResponseCode ${responseCode}`;
    throw refused(scrub, said, status, responseCode);
  }
  const conversationId = str(body.ConversationID)?.trim() ?? '';
  const originatorConversationId = str(body.OriginatorConversationID)?.trim() ?? '';
  if (conversationId === '' && originatorConversationId === '') {
    // Queued or not, nothing ties a Result to it: for a reversal that is an answer lost.
    throw new DarajaError('M-Pesa answered without a ConversationID; the request may still have been queued.', {
      kind: op === 'reversal' ? 'network' : 'unavailable',
      status,
    });
  }
  return { conversationId, originatorConversationId };
}

/**
 * Asks M-Pesa to reverse a payment; the outcome comes later as a Result. Throws DarajaError;
 * 'network' means the request may have reached M-Pesa (never resent here).
 */
export async function reversal(ctx: FamilyContext, input: ReversalInput): Promise<InitiatorAccepted> {
  validateInitiator(input);
  if (!/^[A-Z0-9]{6,20}$/.test(input.transactionId)) throw rejected('The receipt to reverse is malformed.');
  if (!Number.isFinite(input.amount) || input.amount <= 0) throw rejected('The amount to reverse must be more than 0.');
  const answer = await ctx.call('reversal', '/mpesa/reversal/v1/request', () => ({
    Initiator: input.initiator,
    SecurityCredential: input.securityCredential,
    CommandID: 'TransactionReversal',
    TransactionID: input.transactionId,
    Amount: String(input.amount),
    ReceiverParty: input.receiverParty,
    // Daraja's own spelling: the correct one is refused as "Invalid RecieverIdentifierType".
    RecieverIdentifierType: input.receiverIdentifierType,
    ResultURL: input.resultUrl,
    QueueTimeOutURL: input.queueTimeoutUrl,
    Remarks: input.remarks,
    ...(input.occasion && { Occasion: input.occasion }),
  }));
  if (answer.kind !== 'ok') throw new Error('unreachable: reversal answers are never pending');
  return initiatorAccepted(ctx.scrub, 'reversal', answer.json, answer.status);
}

/** Asks M-Pesa where a transaction stands; the answer comes later as a Result. Safe to repeat. */
export async function transactionStatus(ctx: FamilyContext, input: TransactionStatusInput): Promise<InitiatorAccepted> {
  validateInitiator(input);
  const byReceipt = typeof input.transactionId === 'string';
  const id = byReceipt ? input.transactionId : input.originalConversationId;
  if (typeof id !== 'string' || !/^\S{1,100}$/.test(id)) throw rejected('The transaction to look up is missing or malformed.');
  const answer = await ctx.call('status', '/mpesa/transactionstatus/v1/query', () => ({
    Initiator: input.initiator,
    SecurityCredential: input.securityCredential,
    CommandID: 'TransactionStatusQuery',
    // One of the two identifiers, never both.
    ...(byReceipt ? { TransactionID: id } : { OriginalConversationID: id }),
    PartyA: input.partyA,
    IdentifierType: input.identifierType,
    ResultURL: input.resultUrl,
    QueueTimeOutURL: input.queueTimeoutUrl,
    Remarks: input.remarks,
    ...(input.occasion && { Occasion: input.occasion }),
  }));
  if (answer.kind !== 'ok') throw new Error('unreachable: status answers are never pending');
  return initiatorAccepted(ctx.scrub, 'status', answer.json, answer.status);
}

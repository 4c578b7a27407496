/**
 * The Daraja simulator's initiator APIs (part of the test double in index.ts): Reversal and
 * Transaction Status. Each validates the request as Daraja does, answers with an acknowledgement,
 * and later POSTs a Result (or a queue-timeout notice) to the URLs the caller gave.
 *
 * SecurityCredential: the simulator makes its own RSA key pair at start and hands out the public
 * key at GET /__sim/credential-key.pem; a shop in simulator mode encrypts its initiator password
 * with it exactly as it would with Safaricom's certificate. A credential that does not decode to
 * the key's size is refused at once (400.002.02 Invalid SecurityCredential); one that decrypts to
 * the wrong password, or an unknown initiator, gets Result 2001, and 8006 after repeated failures.
 * Node 20 refuses PKCS#1 v1.5 in privateDecrypt (a Marvin-attack mitigation), so the simulator
 * decrypts without padding and checks and strips the v1.5 padding itself.
 *
 * Outcomes of a reversal follow the simulated ledger: an unknown receipt → R000002, a receipt
 * already reversed → R000001, a Utility balance below the amount → 1, else the money moves back.
 * A few payer numbers add faults (the `reversal` column of the outcome table, outcomes.ts).
 * Transaction Status finds a receipt by TransactionID, or by OriginalConversationID: a reversal
 * this simulator started, or an STK push's CheckoutRequestID or MerchantRequestID
 * (`statusLookupBy`). A transaction it cannot find gets ResultCode R000002 ("The
 * OriginalTransactionID is invalid.") with no parameters: the real code is undocumented, and the
 * shop treats any non-zero code alike.
 */
import { constants, generateKeyPairSync, type KeyObject, privateDecrypt, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isCallbackUrl, isTextOfLength, mpesaReceipt, nairobiTimestamp, numericString, SHORTCODE_PATTERN } from './wire.js';

export type ReversalFault = 'queue_timeout_once' | 'no_result' | 'insufficient_once';

/** A payment as the simulated M-Pesa knows it (index.ts's IssuedReceipt, and its prompt's ids). */
export interface KnownPayment {
  receipt: string;
  amount: number;
  phone: string;
  /** The shortcode (or till) it was paid to. */
  shortcode: string;
  checkoutRequestId: string;
  merchantRequestId: string;
  at: Date;
}

/** Every Reversal request the simulator accepted, and what came of it. */
export interface SimulatedReversal {
  transactionId: string;
  amount: number;
  originatorConversationId: string;
  conversationId: string;
  /** reversed | already_reversed | failed (with resultCode) | queue_timeout | no_result, once decided. */
  outcome: 'pending' | 'reversed' | 'already_reversed' | 'failed' | 'queue_timeout' | 'no_result';
  resultCode: string | null;
  /** The reversal's own receipt, on success. */
  reversalReceipt: string | null;
  at: Date;
}

/** A Result or queue-timeout notice the simulator POSTed to the caller. */
export interface ResultDelivery {
  api: 'reversal' | 'status';
  to: 'result' | 'timeout';
  url: string;
  status: number | null;
  error?: string;
  body: unknown;
  at: Date;
}

export interface InitiatorContext {
  /** name → plain password of the API operators the simulated org portal knows. */
  initiators: Record<string, string>;
  resultDelayMs: number;
  /** Which STK id Transaction Status accepts as OriginalConversationID (undocumented on Daraja). */
  statusLookupBy: 'checkout' | 'merchant' | 'none';
  lockAfterFailures: number;
  findPayment(receipt: string): KnownPayment | undefined;
  findPaymentByStkId(by: 'checkout' | 'merchant', id: string): KnownPayment | undefined;
  reversalFaultFor(phone: string): ReversalFault | undefined;
  balances: Map<string, number>;
  /** Receipts issued so far (payments and reversals), so a new one is never a repeat. */
  receiptTaken(receipt: string): boolean;
  schedule(fn: () => void, ms: number): void;
  post(url: string, body: unknown): Promise<{ status: number | null; error?: string }>;
  log(msg: string, data?: Record<string, unknown>): void;
  fail(status: number, errorCode: string, errorMessage: string): Error;
  send(res: ServerResponse, status: number, body: unknown): void;
}

const ACCEPTED = 'Accept the service request successfully.';
const OK_DESC = 'The service request is processed successfully.';

/**
 * The simulated portal's certificate key, one per process: every simulator a process starts (a
 * test file starts several) shares it, since an RSA key costs a tenth of a second or more of CPU.
 */
let portalKey: { publicKey: KeyObject; privateKey: KeyObject } | undefined;

/** One simulator's initiator APIs: its context, the portal key and what it has done so far. */
interface InitiatorState {
  ctx: InitiatorContext;
  privateKey: KeyObject;
  keyBytes: number;
  reversals: SimulatedReversal[];
  resultDeliveries: ResultDelivery[];
  reversed: Map<string, string>; // original receipt → reversal receipt
  failures: Map<string, number>; // initiator → consecutive credential failures
}

/** The ids Daraja gives an accepted initiator request. */
interface RequestIds {
  originatorConversationId: string;
  conversationId: string;
}

export function createInitiatorApis(ctx: InitiatorContext) {
  portalKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { publicKey, privateKey } = portalKey;
  const st: InitiatorState = {
    ctx,
    privateKey,
    keyBytes: 2048 / 8,
    reversals: [],
    resultDeliveries: [],
    reversed: new Map(),
    failures: new Map(),
  };
  return {
    credentialKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    reversals: st.reversals,
    resultDeliveries: st.resultDeliveries,
    handleReversal: (body: Record<string, unknown>, res: ServerResponse) => handleReversal(st, body, res),
    handleStatus: (body: Record<string, unknown>, res: ServerResponse) => handleStatus(st, body, res),
    isReversed: (r: string) => st.reversed.has(r),
  };
}

const invalid = (st: InitiatorState, field: string) => st.ctx.fail(400, '400.002.02', `Bad Request - Invalid ${field}`);

/** Structurally a credential: base64 of exactly the key's size. Anything else is refused at once. */
function checkCredentialShape(st: InitiatorState, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) throw invalid(st, 'SecurityCredential');
  if (Buffer.from(value, 'base64').length !== st.keyBytes) throw invalid(st, 'SecurityCredential');
  return value;
}

/** 0 when the initiator and its password check out; else the Result code Daraja gives later. */
function credentialResult(st: InitiatorState, initiator: string, credential: string): '0' | '2001' | '8006' {
  const { ctx, failures } = st;
  if ((failures.get(initiator) ?? 0) >= ctx.lockAfterFailures) return '8006';
  const expected = ctx.initiators[initiator];
  const password = decryptCredential(st.privateKey, credential, st.keyBytes);
  if (expected !== undefined && password === expected) {
    failures.delete(initiator);
    return '0';
  }
  const count = (failures.get(initiator) ?? 0) + 1;
  failures.set(initiator, count);
  return count >= ctx.lockAfterFailures ? '8006' : '2001';
}

function ids(): RequestIds {
  const hex = randomBytes(10).toString('hex');
  return {
    originatorConversationId: `${hex.slice(0, 4)}-${hex.slice(4, 8)}-${randomBytes(8).toString('hex')}`,
    conversationId: `AG_${nairobiTimestamp(new Date()).slice(0, 8)}_${hex}`,
  };
}

function newReceipt(st: InitiatorState): string {
  let receipt = mpesaReceipt(new Date());
  while (st.ctx.receiptTaken(receipt) || st.reversed.has(receipt)) receipt = mpesaReceipt(new Date());
  return receipt;
}

async function deliver(
  st: InitiatorState,
  api: ResultDelivery['api'],
  to: ResultDelivery['to'],
  url: string,
  body: unknown,
): Promise<void> {
  const delivery: ResultDelivery = { api, to, url, status: null, body, at: new Date() };
  const answer = await st.ctx.post(url, body);
  delivery.status = answer.status;
  if (answer.error !== undefined) delivery.error = answer.error;
  st.resultDeliveries.push(delivery);
  st.ctx.log(`${api}: ${to} sent`, { status: delivery.status, ...(delivery.error !== undefined && { error: delivery.error }) });
}

export function resultBody(
  req: RequestIds,
  code: string | number,
  desc: string,
  transactionId: string,
  parameters?: { Key: string; Value?: string | number }[],
  reference?: { Key: string; Value: string },
) {
  return {
    Result: {
      ResultType: 0,
      ResultCode: code,
      ResultDesc: desc,
      OriginatorConversationID: req.originatorConversationId,
      ConversationID: req.conversationId,
      TransactionID: transactionId,
      ...(parameters && { ResultParameters: { ResultParameter: parameters } }),
      ReferenceData: {
        ReferenceItem: reference ?? { Key: 'QueueTimeoutURL', Value: 'https://simulator.invalid/reversalresults' },
      },
    },
  };
}

/** Initiator, SecurityCredential, ResultURL, QueueTimeOutURL and Remarks, as every initiator call has them. */
function commonFields(st: InitiatorState, body: Record<string, unknown>, remarksMin: number) {
  const initiator = body.Initiator;
  if (typeof initiator !== 'string' || initiator.trim() === '') throw invalid(st, 'Initiator');
  const credential = checkCredentialShape(st, body.SecurityCredential);
  if (!isCallbackUrl(body.ResultURL)) throw invalid(st, 'ResultURL');
  if (!isCallbackUrl(body.QueueTimeOutURL)) throw invalid(st, 'QueueTimeOutURL');
  if (!isTextOfLength(body.Remarks, remarksMin, 100)) throw invalid(st, 'Remarks');
  return { initiator, credential, resultUrl: body.ResultURL, timeoutUrl: body.QueueTimeOutURL };
}

// --- Reversal ------------------------------------------------------------------------------

/** A reversal request's fields as Daraja checks them, in its order. */
function validateReversal(st: InitiatorState, body: Record<string, unknown>) {
  if (body.CommandID !== 'TransactionReversal') throw invalid(st, 'CommandID');
  // Daraja's field is misspelt; the correct spelling is refused as if the field were missing.
  if (body.RecieverIdentifierType === undefined) throw invalid(st, 'RecieverIdentifierType');
  const identifierType = numericString(body.RecieverIdentifierType);
  if (identifierType !== '11' && identifierType !== '4') throw invalid(st, 'RecieverIdentifierType');
  const { initiator, credential, resultUrl, timeoutUrl } = commonFields(st, body, 2);
  const transactionId = body.TransactionID;
  if (typeof transactionId !== 'string' || !/^[A-Z0-9]{10}$/.test(transactionId)) throw invalid(st, 'TransactionID');
  const amountText = typeof body.Amount === 'number' ? String(body.Amount) : body.Amount;
  if (typeof amountText !== 'string' || !/^\d+(\.\d{1,2})?$/.test(amountText) || Number(amountText) <= 0)
    throw invalid(st, 'Amount');
  const receiverParty = numericString(body.ReceiverParty);
  if (receiverParty === null || !SHORTCODE_PATTERN.test(receiverParty)) throw invalid(st, 'ReceiverParty');
  return { initiator, credential, resultUrl, timeoutUrl, transactionId, amount: Number(amountText), receiverParty };
}

type ReversalRequest = ReturnType<typeof validateReversal>;

function handleReversal(st: InitiatorState, body: Record<string, unknown>, res: ServerResponse): void {
  const fields = validateReversal(st, body);
  const { transactionId } = fields;
  const request: SimulatedReversal = {
    transactionId,
    amount: fields.amount,
    ...ids(),
    outcome: 'pending',
    resultCode: null,
    reversalReceipt: null,
    at: new Date(),
  };
  const earlier = st.reversals.filter((r) => r.transactionId === transactionId).length;
  st.reversals.push(request);
  st.ctx.send(res, 200, {
    OriginatorConversationID: request.originatorConversationId,
    ConversationID: request.conversationId,
    ResponseCode: '0',
    ResponseDescription: ACCEPTED,
  });
  st.ctx.log('reversal: accepted', { transactionId, conversationId: request.conversationId });
  st.ctx.schedule(() => settleReversal(st, request, fields, earlier), st.ctx.resultDelayMs);
}

/** Decides an accepted reversal (`earlier`: how many came before it for the same receipt) and sends its Result. */
function settleReversal(st: InitiatorState, request: SimulatedReversal, fields: ReversalRequest, earlier: number) {
  const { initiator, credential, resultUrl, timeoutUrl, transactionId, receiverParty } = fields;
  const fail = (code: string, desc: string) => {
    request.outcome = 'failed';
    request.resultCode = code;
    void deliver(
      st,
      'reversal',
      'result',
      resultUrl,
      resultBody(request, /^\d+$/.test(code) ? Number(code) : code, desc, 'SIM0000000'),
    );
  };
  const credentialCode = credentialResult(st, initiator, credential);
  if (credentialCode === '2001') return fail('2001', 'The initiator information is invalid.');
  if (credentialCode === '8006') return fail('8006', 'The security credential is locked.');
  const payment = st.ctx.findPayment(transactionId);
  if (!payment || payment.shortcode !== receiverParty) return fail('R000002', 'The OriginalTransactionID is invalid.');
  const fault = st.ctx.reversalFaultFor(payment.phone);
  if (fault === 'no_result') {
    request.outcome = 'no_result';
    return;
  }
  if (fault === 'queue_timeout_once' && earlier === 0) {
    request.outcome = 'queue_timeout';
    void deliver(st, 'reversal', 'timeout', timeoutUrl, resultBody(request, 'SVC0001', 'Request timed out in the queue.', ''));
    return;
  }
  if (fault === 'insufficient_once' && earlier === 0) return fail('1', 'The balance is insufficient for the transaction.');
  if (st.reversed.has(transactionId)) {
    request.outcome = 'already_reversed';
    request.resultCode = 'R000001';
    void deliver(
      st,
      'reversal',
      'result',
      resultUrl,
      resultBody(request, 'R000001', 'The transaction has already been reversed.', 'SIM0000000'),
    );
    return;
  }
  if (request.amount !== payment.amount)
    return fail('R000002', 'The amount is invalid: only the whole amount of a transaction can be reversed.');
  const balance = st.ctx.balances.get(payment.shortcode) ?? 0;
  if (balance < payment.amount) return fail('1', 'The balance is insufficient for the transaction.');
  reverse(st, request, payment, balance, resultUrl);
}

/** The money goes back to the customer: the balance falls, a reversal receipt is issued, and the Result says so. */
function reverse(
  st: InitiatorState,
  request: SimulatedReversal,
  payment: KnownPayment,
  balance: number,
  resultUrl: string,
): void {
  const { transactionId } = request;
  const left = balance - payment.amount;
  st.ctx.balances.set(payment.shortcode, left);
  const receipt = newReceipt(st);
  st.reversed.set(transactionId, receipt);
  request.outcome = 'reversed';
  request.resultCode = '0';
  request.reversalReceipt = receipt;
  st.ctx.log('reversal: reversed', { transactionId, reversal: receipt, amount: payment.amount });
  void deliver(
    st,
    'reversal',
    'result',
    resultUrl,
    resultBody(request, 0, OK_DESC, receipt, [
      { Key: 'DebitAccountBalance', Value: `Utility Account|KES|${left.toFixed(2)}|${left.toFixed(2)}|0.00|0.00` },
      { Key: 'Amount', Value: payment.amount },
      { Key: 'TransCompletedTime', Value: Number(nairobiTimestamp(new Date())) },
      { Key: 'OriginalTransactionID', Value: transactionId },
      { Key: 'Charge', Value: 0 },
      { Key: 'CreditPartyPublicName', Value: `${payment.phone} - JOHN DOE` },
      { Key: 'DebitPartyPublicName', Value: `${payment.shortcode} - Duka Demo Shop` },
    ]),
  );
}

// --- Transaction Status --------------------------------------------------------------------

function handleStatus(st: InitiatorState, body: Record<string, unknown>, res: ServerResponse): void {
  // The portal's sample writes some keys with spaces; Daraja itself takes them without.
  if ('Transaction ID' in body || 'Command ID' in body) throw st.ctx.fail(400, '400.002.05', 'Invalid Request Payload');
  if (body.CommandID !== 'TransactionStatusQuery') throw invalid(st, 'CommandID');
  const { initiator, credential, resultUrl } = commonFields(st, body, 1);
  const byReceipt = typeof body.TransactionID === 'string' && body.TransactionID !== '';
  const byConversation = typeof body.OriginalConversationID === 'string' && body.OriginalConversationID !== '';
  if (byReceipt === byConversation) throw invalid(st, 'TransactionID');
  const partyA = numericString(body.PartyA);
  if (partyA === null) throw invalid(st, 'PartyA');
  const identifierType = numericString(body.IdentifierType);
  if (identifierType !== '1' && identifierType !== '2' && identifierType !== '4') throw invalid(st, 'IdentifierType');
  const occasion = typeof body.Occasion === 'string' ? body.Occasion : '';
  const request = ids();
  st.ctx.send(res, 200, {
    OriginatorConversationID: request.originatorConversationId,
    ConversationID: request.conversationId,
    ResponseCode: '0',
    ResponseDescription: ACCEPTED,
  });
  const wanted = (byReceipt ? body.TransactionID : body.OriginalConversationID) as string;
  st.ctx.schedule(() => {
    const credentialCode = credentialResult(st, initiator, credential);
    if (credentialCode !== '0') {
      const desc = credentialCode === '2001' ? 'The initiator information is invalid.' : 'The security credential is locked.';
      void deliver(st, 'status', 'result', resultUrl, resultBody(request, Number(credentialCode), desc, 'SIM0000000'));
      return;
    }
    const payment = byReceipt ? st.ctx.findPayment(wanted) : findByConversation(st, wanted);
    void deliver(st, 'status', 'result', resultUrl, statusResultBody(request, payment, occasion));
  }, st.ctx.resultDelayMs);
}

/** The Result of a Transaction Status query: the payment found, or R000002 with no parameters. */
export function statusResultBody(request: RequestIds, payment: KnownPayment | undefined, occasion: string) {
  if (!payment) return resultBody(request, 'R000002', 'The OriginalTransactionID is invalid.', 'SIM0000000');
  const stamp = Number(nairobiTimestamp(payment.at));
  return resultBody(
    request,
    0,
    OK_DESC,
    'SIM0000000',
    [
      { Key: 'DebitPartyName', Value: `${payment.phone} - JOHN DOE` },
      { Key: 'CreditPartyName', Value: `${payment.shortcode} - Duka Demo Shop` },
      { Key: 'InitiatedTime', Value: stamp },
      { Key: 'FinalisedTime', Value: stamp },
      { Key: 'DebitAccountType', Value: 'MMF Account For Customer' },
      { Key: 'DebitPartyCharges' },
      { Key: 'TransactionReason' },
      { Key: 'ReasonType', Value: 'Pay Bill Online' },
      { Key: 'TransactionStatus', Value: 'Completed' },
      { Key: 'Amount', Value: payment.amount },
      { Key: 'ReceiptNo', Value: payment.receipt },
    ],
    { Key: 'Occasion', Value: occasion },
  );
}

function findByConversation(st: InitiatorState, id: string): KnownPayment | undefined {
  const reversal = st.reversals.find((r) => r.originatorConversationId === id && r.reversalReceipt !== null);
  if (reversal) return st.ctx.findPayment(reversal.transactionId);
  if (st.ctx.statusLookupBy === 'none') return undefined;
  return st.ctx.findPaymentByStkId(st.ctx.statusLookupBy, id);
}

/**
 * RSA decryption of a PKCS#1 v1.5 (type 2) block, done as raw RSA plus a padding check: Node 20's
 * privateDecrypt refuses the v1.5 padding itself. Null when the block is not well formed. Timing
 * leaks do not matter in a test double.
 */
function decryptCredential(key: KeyObject, credential: string, keyBytes: number): string | null {
  let block: Buffer;
  try {
    block = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, Buffer.from(credential, 'base64'));
  } catch {
    return null;
  }
  if (block.length !== keyBytes || block[0] !== 0x00 || block[1] !== 0x02) return null;
  const separator = block.indexOf(0x00, 2);
  // At least 8 bytes of non-zero padding.
  if (separator < 10) return null;
  return block.subarray(separator + 1).toString('utf8');
}

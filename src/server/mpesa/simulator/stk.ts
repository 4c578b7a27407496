/**
 * The Daraja simulator's STK push and query (part of the test double in index.ts): the prompt is
 * accepted, stays open for callbackDelayMs, resolves by the phone-number table (outcomes.ts), and
 * its callback is delivered once, twice, never, or with a fault.
 */
import type { ServerResponse } from 'node:http';
import { deliverStkCallback, SECOND_CALLBACK_GAP_MS } from './delivery.js';
import { darajaError, invalidField, sendJson } from './http.js';
import { outcomeFor } from './outcomes.js';
import { type Checkout, type SimState, schedule } from './state.js';
import {
  checkoutRequestId as formatCheckoutRequestId,
  isCallbackUrl,
  isTextOfLength,
  isValidTimestamp,
  MSISDN_PATTERN,
  maskForLog,
  mpesaReceipt,
  nairobiTransactionDate,
  numericString,
  parseAmount,
  SHORTCODE_PATTERN,
  stkPassword,
} from './wire.js';

const RESULT_DESCRIPTIONS: Record<number, string> = {
  0: 'The service request is processed successfully.',
  1: 'The balance is insufficient for the transaction.',
  1032: 'Request cancelled by user',
  1037: 'DS timeout user cannot be reached',
  2001: 'The initiator information is invalid.',
};

const LOCK_MESSAGE = 'Unable to lock subscriber, a transaction is already in process for the current subscriber';

/** BusinessShortCode, Password and Timestamp: shape first, then merchant, then the password. */
function validateCredentialFields(body: Record<string, unknown>): { shortcode: string; password: string; timestamp: string } {
  const shortcode = numericString(body.BusinessShortCode);
  if (shortcode === null || !SHORTCODE_PATTERN.test(shortcode)) throw invalidField('BusinessShortCode');
  const password = body.Password;
  if (typeof password !== 'string' || password.length === 0) throw invalidField('Password');
  const timestamp = numericString(body.Timestamp);
  if (timestamp === null || !isValidTimestamp(timestamp)) throw invalidField('Timestamp');
  return { shortcode, password, timestamp };
}

function checkMerchantAndPassword(sim: SimState, shortcode: string, password: string, timestamp: string): void {
  if (shortcode !== sim.options.shortcode) throw darajaError(500, '500.001.1001', 'Merchant does not exist');
  if (password !== stkPassword(shortcode, sim.options.passkey, timestamp)) {
    throw darajaError(500, '500.001.1001', 'Wrong credentials');
  }
}

/** The push's fields as Daraja checks them, in its order, up to (not including) the merchant and password. */
function validatePushFields(body: Record<string, unknown>) {
  const { shortcode, password, timestamp } = validateCredentialFields(body);
  const type = body.TransactionType;
  if (type !== 'CustomerPayBillOnline' && type !== 'CustomerBuyGoodsOnline') throw invalidField('TransactionType');
  const amount = parseAmount(body.Amount);
  if (amount === null) throw invalidField('Amount');
  const partyA = numericString(body.PartyA);
  if (partyA === null || !MSISDN_PATTERN.test(partyA)) throw invalidField('PartyA');
  const partyB = numericString(body.PartyB);
  if (partyB === null || !SHORTCODE_PATTERN.test(partyB)) throw invalidField('PartyB');
  const phone = numericString(body.PhoneNumber);
  if (phone === null || !MSISDN_PATTERN.test(phone)) throw invalidField('PhoneNumber');
  const callbackUrl = body.CallBackURL;
  if (!isCallbackUrl(callbackUrl)) throw invalidField('CallBackURL');
  if (!isTextOfLength(body.AccountReference, 1, 12)) throw invalidField('AccountReference');
  if (!isTextOfLength(body.TransactionDesc, 1, 13)) throw invalidField('TransactionDesc');
  return { shortcode, password, timestamp, amount, partyB, phone, callbackUrl };
}

export async function handlePush(sim: SimState, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const { shortcode, password, timestamp, amount, partyB, phone, callbackUrl } = validatePushFields(body);
  checkMerchantAndPassword(sim, shortcode, password, timestamp);
  if (sim.openByPhone.has(phone)) throw darajaError(500, '500.001.1001', LOCK_MESSAGE);

  const now = new Date();
  let id = formatCheckoutRequestId(now, phone);
  for (let bump = 1; sim.checkouts.has(id); bump++) id = formatCheckoutRequestId(new Date(now.getTime() + bump), phone);
  const checkout: Checkout = {
    merchantRequestId: sim.nextMerchantRequestId(),
    checkoutRequestId: id,
    phone,
    amount,
    callbackUrl,
    partyB,
    ...outcomeFor(phone),
    state: 'open',
    queryResultCode: 0,
  };
  checkout.queryResultCode = checkout.resultCode;
  sim.checkouts.set(id, checkout);
  sim.openByPhone.set(phone, checkout);
  if (checkout.fault === 'callback_first') resolveCheckout(sim, checkout);
  else schedule(sim, () => resolveCheckout(sim, checkout), sim.callbackDelayMs);

  sim.log('stkpush: accepted', {
    checkoutRequestId: id,
    phone: maskForLog(phone),
    amount,
    resultCode: checkout.resultCode,
    callback: checkout.callback,
    resolvesInMs: sim.callbackDelayMs,
  });
  if (checkout.fault === 'callback_first') {
    await waitForDelivery(sim, checkout);
  } else if (checkout.fault === 'slow_answer' || checkout.fault === 'lost_then_late') {
    await new Promise<void>((done) => schedule(sim, done, sim.slowAnswerMs));
  }
  if (sim.closed) return;
  sendJson(res, 200, {
    MerchantRequestID: checkout.merchantRequestId,
    CheckoutRequestID: id,
    ResponseCode: '0',
    ResponseDescription: 'Success. Request accepted for processing',
    CustomerMessage: 'Success. Request accepted for processing',
  });
}

export function handleQuery(sim: SimState, body: Record<string, unknown>, res: ServerResponse): void {
  const { shortcode, password, timestamp } = validateCredentialFields(body);
  const id = body.CheckoutRequestID;
  if (typeof id !== 'string' || id.length === 0) throw invalidField('CheckoutRequestID');
  checkMerchantAndPassword(sim, shortcode, password, timestamp);
  const checkout = sim.checkouts.get(id);
  if (!checkout) throw invalidField('CheckoutRequestID');
  if (checkout.state === 'open') {
    throw darajaError(500, '500.001.1001', 'The transaction is being processed', checkout.checkoutRequestId);
  }
  sendJson(res, 200, {
    ResponseCode: '0',
    ResponseDescription: 'The service request has been accepted successfully',
    MerchantRequestID: checkout.merchantRequestId,
    CheckoutRequestID: checkout.checkoutRequestId,
    ResultCode: String(checkout.queryResultCode),
    ResultDesc: RESULT_DESCRIPTIONS[checkout.queryResultCode] ?? 'The service request failed.',
  });
}

// --- Resolution and callbacks ----------------------------------------------------------------

function callbackBody(checkout: Checkout, resultCode: number, receipt: string | null, resolvedAt: Date): unknown {
  const stkCallback: Record<string, unknown> = {
    MerchantRequestID: checkout.merchantRequestId,
    CheckoutRequestID: checkout.checkoutRequestId,
    ResultCode: resultCode,
    ResultDesc: RESULT_DESCRIPTIONS[resultCode] ?? 'The service request failed.',
  };
  if (resultCode === 0 && receipt) {
    stkCallback.CallbackMetadata = {
      Item: [
        { Name: 'Amount', Value: checkout.amount },
        { Name: 'MpesaReceiptNumber', Value: receipt },
        { Name: 'Balance' },
        { Name: 'TransactionDate', Value: nairobiTransactionDate(resolvedAt) },
        { Name: 'PhoneNumber', Value: Number(checkout.phone) },
      ],
    };
  }
  return { Body: { stkCallback } };
}

/** The customer's money moves: a receipt is issued, whether or not a callback ever tells of it. */
function pay(sim: SimState, checkout: Checkout, at: Date): string {
  const { receipts, balances } = sim;
  let receipt = mpesaReceipt(at);
  while (receipts.some((r) => r.receipt === receipt)) receipt = mpesaReceipt(new Date(at.getTime() + receipts.length));
  receipts.push({
    receipt,
    amount: checkout.amount,
    phone: checkout.phone,
    checkoutRequestId: checkout.checkoutRequestId,
    via: 'stk',
    shortcode: checkout.partyB,
    at,
  });
  balances.set(checkout.partyB, (balances.get(checkout.partyB) ?? 0) + checkout.amount);
  checkout.queryResultCode = 0;
  return receipt;
}

function waitForDelivery(sim: SimState, checkout: Checkout): Promise<void> {
  return sim.firstDelivery.get(checkout.checkoutRequestId) ?? Promise.resolve();
}

/** The prompt closes: paid or not by its outcome, and its callback (or callbacks) sent. */
function resolveCheckout(sim: SimState, checkout: Checkout): void {
  const deliver = (body: unknown) => deliverStkCallback(sim, checkout, body);
  checkout.state = 'done';
  if (sim.openByPhone.get(checkout.phone) === checkout) sim.openByPhone.delete(checkout.phone);
  const now = new Date();
  sim.log('stkpush: resolved', {
    checkoutRequestId: checkout.checkoutRequestId,
    resultCode: checkout.resultCode,
    callback: checkout.callback,
    fault: checkout.fault,
  });
  if (checkout.fault === 'late_success') {
    // The phone could not be reached, then the customer paid after all.
    checkout.queryResultCode = 1037;
    sim.firstDelivery.set(checkout.checkoutRequestId, deliver(callbackBody(checkout, 1037, null, now)));
    schedule(
      sim,
      () => {
        const paidAt = new Date();
        void deliver(callbackBody(checkout, 0, pay(sim, checkout, paidAt), paidAt));
      },
      sim.lateCallbackMs,
    );
    return;
  }
  const receipt = checkout.resultCode === 0 ? pay(sim, checkout, now) : null;
  const body = callbackBody(checkout, checkout.resultCode, receipt, now);
  if (checkout.callback === 'never') return;
  if (checkout.fault === 'query_first' || checkout.fault === 'lost_then_late') {
    schedule(sim, () => void deliver(body), sim.lateCallbackMs);
    return;
  }
  const first = deliver(body);
  sim.firstDelivery.set(checkout.checkoutRequestId, first);
  void first.then(() => {
    if (checkout.callback === 'twice') schedule(sim, () => void deliver(body), SECOND_CALLBACK_GAP_MS);
    if (checkout.fault === 'stale_failure') {
      schedule(sim, () => void deliver(callbackBody(checkout, 1037, null, new Date())), SECOND_CALLBACK_GAP_MS);
    }
  });
}

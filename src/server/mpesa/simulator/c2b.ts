/**
 * The Daraja simulator's C2B, Paybill and Till (part of the test double in index.ts): URL
 * registration, the sandbox's simulate call, and the payment from the phone that follows it
 * (validation, receipt, confirmation once, twice or never by outcomes.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { CALLBACK_TIMEOUT_MS, postC2b, SECOND_CALLBACK_GAP_MS } from './delivery.js';
import { darajaError, invalidField, isObject, sendJson } from './http.js';
import { outcomeFor } from './outcomes.js';
import { type Registration, type SimState, schedule } from './state.js';
import {
  isCallbackUrl,
  MSISDN_PATTERN,
  maskForLog,
  mpesaReceipt,
  nairobiTimestamp,
  numericString,
  originForLog,
  parseAmount,
  SHORTCODE_PATTERN,
} from './wire.js';

interface PhonePayment {
  shortcode: string;
  type: string;
  amount: number;
  msisdn: string;
  account: string;
}

const conversationId = () =>
  `${randomUUID().slice(0, 4)}-${randomUUID().slice(0, 4)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;

export function handleRegister(sim: SimState, version: 'v1' | 'v2', body: Record<string, unknown>, res: ServerResponse): void {
  const shortcode = numericString(body.ShortCode);
  if (shortcode === null || !SHORTCODE_PATTERN.test(shortcode)) throw invalidField('ShortCode');
  const responseType = body.ResponseType;
  if (responseType !== 'Completed' && responseType !== 'Cancelled') throw invalidField('ResponseType');
  if (!isCallbackUrl(body.ConfirmationURL)) throw invalidField('ConfirmationURL');
  if (!isCallbackUrl(body.ValidationURL)) throw invalidField('ValidationURL');
  if (sim.options.c2bRegistration === 'production' && sim.registrations.has(shortcode)) {
    throw darajaError(500, '500.003.1001', 'Urls are already registered.');
  }
  sim.registrations.set(shortcode, {
    version,
    responseType,
    confirmationUrl: body.ConfirmationURL,
    validationUrl: body.ValidationURL,
  });
  sim.log('c2b: urls registered', { shortcode, version, responseType, to: originForLog(body.ConfirmationURL) });
  sendJson(res, 200, { OriginatorCoversationID: conversationId(), ResponseCode: '0', ResponseDescription: 'Success' });
}

export function handleSimulate(sim: SimState, body: Record<string, unknown>, res: ServerResponse): void {
  const shortcode = numericString(body.ShortCode);
  if (shortcode === null || !SHORTCODE_PATTERN.test(shortcode)) throw invalidField('ShortCode');
  const command = body.CommandID;
  if (command !== 'CustomerPayBillOnline' && command !== 'CustomerBuyGoodsOnline') throw invalidField('CommandID');
  const amount = parseAmount(body.Amount);
  if (amount === null) throw invalidField('Amount');
  const msisdn = numericString(body.Msisdn);
  if (msisdn === null || !MSISDN_PATTERN.test(msisdn)) throw invalidField('Msisdn');
  const typed = body.BillRefNumber ?? '';
  if (typeof typed !== 'string' || [...typed].length > 20) throw invalidField('BillRefNumber');
  // A till payment carries no account number: the customer has nowhere to type one.
  const account = command === 'CustomerBuyGoodsOnline' ? '' : typed;
  sendJson(res, 200, {
    OriginatorCoversationID: conversationId(),
    ResponseCode: '0',
    ResponseDescription: 'Accept the service request successfully.',
  });
  const type = command === 'CustomerBuyGoodsOnline' ? 'Buy Goods' : 'Pay Bill';
  void payFromPhone(sim, { shortcode, type, amount, msisdn, account }).catch((error: unknown) =>
    sim.log('c2b: payment failed inside the simulator', { error: error instanceof Error ? error.message : String(error) }),
  );
}

/** What the shop sees of the payer's number: v2 masks it, v1 hashes it. */
export function payerFor(registration: Registration | undefined, msisdn: string): string {
  if (registration?.version === 'v1') return createHash('sha256').update(msisdn).digest('hex');
  return `${msisdn.slice(0, 4)} ***** ${msisdn.slice(-3)}`;
}

/** A Paybill payment M-Pesa holds and has told nobody of (the simulator's silent-payment path); answers its TransID. */
export function recordSilentPayment(sim: SimState, body: Record<string, unknown>): { TransID: string } {
  const { receipts, balances } = sim;
  const amount = Number(body.amount);
  const shortcode = typeof body.shortcode === 'string' ? body.shortcode : sim.options.shortcode;
  if (!Number.isFinite(amount) || amount <= 0) throw darajaError(400, '400.002.02', 'Bad Request - Invalid Amount');
  let transId = mpesaReceipt(new Date());
  while (receipts.some((r) => r.receipt === transId)) transId = mpesaReceipt(new Date());
  receipts.push({
    receipt: transId,
    amount,
    phone: typeof body.msisdn === 'string' ? body.msisdn : '254708374149',
    checkoutRequestId: '',
    via: 'c2b',
    account: typeof body.account === 'string' ? body.account : '',
    shortcode,
    at: new Date(),
  });
  balances.set(shortcode, (balances.get(shortcode) ?? 0) + amount);
  return { TransID: transId };
}

/** The fields of a validation or confirmation of this payment. */
function c2bFields(
  payment: PhonePayment,
  registration: Registration | undefined,
  transId: string,
  at: Date,
  balance: string,
  thirdPartyTransId = '',
): Record<string, string> {
  return {
    TransactionType: payment.type,
    TransID: transId,
    TransTime: nairobiTimestamp(at),
    TransAmount: `${payment.amount}.00`,
    BusinessShortCode: payment.shortcode,
    BillRefNumber: payment.account,
    InvoiceNumber: '',
    OrgAccountBalance: balance,
    ThirdPartyTransID: thirdPartyTransId,
    MSISDN: payerFor(registration, payment.msisdn),
    FirstName: 'JOHN',
    MiddleName: '',
    LastName: '',
  };
}

/**
 * Asks the registered ValidationURL when external validation is on: null when the payment is
 * refused, else the ThirdPartyTransID the shop gave ('' if none).
 */
async function validate(
  sim: SimState,
  payment: PhonePayment,
  registration: Registration | undefined,
  transId: string,
): Promise<string | null> {
  if (!sim.options.c2bValidation || !registration) return '';
  const fields = c2bFields(payment, registration, transId, new Date(), '');
  const answer = await postC2b(sim, 'validation', registration.validationUrl, transId, fields, sim.c2bValidationTimeoutMs);
  const code = isObject(answer) ? String(answer.ResultCode ?? '') : '';
  const accepted = code === '0' ? true : code.startsWith('C2B') ? false : registration.responseType === 'Completed';
  if (!accepted) {
    sim.log('c2b: payment refused by validation', { transId, resultCode: code || '(no answer)' });
    return null;
  }
  if (isObject(answer) && typeof answer.ThirdPartyTransID === 'string') return answer.ThirdPartyTransID;
  return '';
}

async function payFromPhone(sim: SimState, payment: PhonePayment): Promise<void> {
  const { receipts, balances } = sim;
  const registration = sim.registrations.get(payment.shortcode);
  let transId = mpesaReceipt(new Date());
  while (receipts.some((r) => r.receipt === transId)) transId = mpesaReceipt(new Date());

  const thirdPartyTransId = await validate(sim, payment, registration, transId);
  if (thirdPartyTransId === null) return;

  const paidAt = new Date();
  const balance = (balances.get(payment.shortcode) ?? 0) + payment.amount;
  balances.set(payment.shortcode, balance);
  receipts.push({
    receipt: transId,
    amount: payment.amount,
    phone: payment.msisdn,
    checkoutRequestId: '',
    via: 'c2b',
    account: payment.account,
    shortcode: payment.shortcode,
    at: paidAt,
  });
  sim.log('c2b: paid', { transId, shortcode: payment.shortcode, amount: payment.amount, phone: maskForLog(payment.msisdn) });
  // With no URLs registered M-Pesa still takes the money; nobody is told.
  if (!registration) return;
  const { callback } = outcomeFor(payment.msisdn);
  if (callback === 'never') return;
  const confirmation = c2bFields(payment, registration, transId, paidAt, `${balance}.00`, thirdPartyTransId);
  const url = registration.confirmationUrl;
  await postC2b(sim, 'confirmation', url, transId, confirmation, CALLBACK_TIMEOUT_MS);
  if (callback === 'twice') {
    schedule(
      sim,
      () => void postC2b(sim, 'confirmation', url, transId, confirmation, CALLBACK_TIMEOUT_MS),
      SECOND_CALLBACK_GAP_MS,
    );
  }
}

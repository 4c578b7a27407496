/** M-Pesa Express: the STK push that prompts the customer's phone, and the query of its outcome. */
import { MSISDN_PATTERN } from '../../../shared/phone.js';
import { DarajaError } from '../daraja-errors.js';
import { isRecord, refused, rejected, str } from './answers.js';
import type { FamilyContext } from './call-api.js';
import { isHttpUrl } from './config.js';
import type { StkPushAccepted, StkPushInput, StkQueryResult } from './types.js';

const MAX_AMOUNT = 250_000;
const ACCOUNT_REFERENCE_PATTERN = /^[A-Za-z0-9]{1,12}$/;
const DESCRIPTION_PATTERN = /^[A-Za-z0-9 -]{1,13}$/;

/** Throws a 'rejected' DarajaError for an input Daraja would refuse, before anything is sent. */
export function validatePush(input: StkPushInput): void {
  if (typeof input.amount !== 'number' || !Number.isInteger(input.amount) || input.amount < 1 || input.amount > MAX_AMOUNT) {
    throw rejected(`The amount must be a whole number of shillings from 1 to ${MAX_AMOUNT.toLocaleString('en-KE')}.`);
  }
  if (typeof input.phone !== 'string' || !MSISDN_PATTERN.test(input.phone)) {
    throw rejected('The phone number must be a Safaricom number in the form 2547XXXXXXXX or 2541XXXXXXXX.');
  }
  if (typeof input.accountReference !== 'string' || !ACCOUNT_REFERENCE_PATTERN.test(input.accountReference)) {
    throw rejected('The account reference must be 1 to 12 letters or digits.');
  }
  if (typeof input.description !== 'string' || !DESCRIPTION_PATTERN.test(input.description)) {
    throw rejected('The transaction description must be 1 to 13 letters, digits, spaces or dashes.');
  }
  if (!isHttpUrl(input.callbackUrl)) {
    throw rejected('The callback URL must be an http(s) URL without spaces.');
  }
}

/** Throws DarajaError. 'network' means the outcome is unknown: the prompt may have been sent. */
export async function stkPush(ctx: FamilyContext, input: StkPushInput): Promise<StkPushAccepted> {
  validatePush(input);
  const { cfg } = ctx;
  const answer = await ctx.call('push', '/mpesa/stkpush/v1/processrequest', (timestamp, password) => ({
    BusinessShortCode: cfg.shortcode,
    Password: password,
    Timestamp: timestamp,
    TransactionType: cfg.transactionType,
    Amount: input.amount,
    PartyA: input.phone,
    PartyB: cfg.partyB,
    PhoneNumber: input.phone,
    CallBackURL: input.callbackUrl,
    AccountReference: input.accountReference,
    TransactionDesc: input.description,
  }));
  if (answer.kind !== 'ok') throw new Error('unreachable: push answers are never pending');
  const json = isRecord(answer.json) ? answer.json : {};
  const responseCode = str(json.ResponseCode);
  const checkoutRequestId = str(json.CheckoutRequestID)?.trim() ?? '';
  if (responseCode !== null && responseCode !== '0') {
    const said = str(json.ResponseDescription) ?? str(json.CustomerMessage) ?? `ResponseCode ${responseCode}`;
    throw refused(ctx.scrub, said, answer.status, responseCode);
  }
  if (checkoutRequestId === '') {
    // Accepted or not, we cannot tell without a CheckoutRequestID: treat it like a lost answer.
    throw new DarajaError(
      'M-Pesa answered the payment request without a CheckoutRequestID; the prompt may still have been sent. Check the payment status before sending another.',
      { kind: 'network', status: answer.status },
    );
  }
  return {
    merchantRequestId: str(json.MerchantRequestID) ?? '',
    checkoutRequestId,
    customerMessage: str(json.CustomerMessage) ?? str(json.ResponseDescription) ?? '',
  };
}

/** Throws DarajaError; "The transaction is being processed" is { state: 'pending' }, not an error. */
export async function stkQuery(ctx: FamilyContext, checkoutRequestId: string): Promise<StkQueryResult> {
  if (typeof checkoutRequestId !== 'string' || !/^\S{1,100}$/.test(checkoutRequestId)) {
    throw rejected('The CheckoutRequestID to query is missing or malformed.');
  }
  const { cfg } = ctx;
  const answer = await ctx.call('query', '/mpesa/stkpushquery/v1/query', (timestamp, password) => ({
    BusinessShortCode: cfg.shortcode,
    Password: password,
    Timestamp: timestamp,
    CheckoutRequestID: checkoutRequestId,
  }));
  if (answer.kind === 'pending') return { state: 'pending' };
  if (!isRecord(answer.json)) {
    throw new DarajaError('M-Pesa sent an unreadable answer to the status query.', {
      kind: 'unavailable',
      status: answer.status,
    });
  }
  const json = answer.json;
  const resultCode = str(json.ResultCode)?.trim() ?? '';
  if (resultCode !== '') return { state: 'completed', resultCode, resultDesc: str(json.ResultDesc) ?? '' };
  const responseCode = str(json.ResponseCode);
  if (responseCode !== null && responseCode !== '0') {
    const said = str(json.ResponseDescription) ?? `ResponseCode ${responseCode}`;
    throw refused(ctx.scrub, said, answer.status, responseCode);
  }
  // Accepted but no result yet: the same as "being processed".
  return { state: 'pending' };
}

/** C2B: registering the confirmation and validation URLs, and the sandbox's simulated payments. */
import { DarajaError } from '../daraja-errors.js';
import { isRecord, refused, type Scrubber, str } from './answers.js';
import type { FamilyContext } from './call-api.js';
import type { C2bPayment, C2bRegistration } from './types.js';

/** A C2B answer: ResponseCode "0", or a refusal in its ResponseDescription. */
export function checkC2bAnswer(scrub: Scrubber, json: unknown, status: number): void {
  const body = isRecord(json) ? json : {};
  const responseCode = str(body.ResponseCode);
  // Older answers had no ResponseCode at all; only a code other than "0" is a refusal.
  if (responseCode === null || responseCode === '0') return;
  const said = str(body.ResponseDescription) ?? `ResponseCode ${responseCode}`;
  throw refused(scrub, said, status, responseCode);
}

/**
 * Registers the C2B confirmation and validation URLs. 'already' when M-Pesa keeps an earlier
 * registration (production registers once; changing it is done on the Daraja portal).
 */
export async function registerC2bUrls(ctx: FamilyContext, input: C2bRegistration): Promise<'registered' | 'already'> {
  try {
    const answer = await ctx.call('register', `/mpesa/c2b/${input.version}/registerurl`, () => ({
      ShortCode: input.shortCode,
      ResponseType: input.responseType,
      ConfirmationURL: input.confirmationUrl,
      ValidationURL: input.validationUrl,
    }));
    if (answer.kind !== 'ok') throw new Error('unreachable: registration answers are never pending');
    const said = isRecord(answer.json) ? (str(answer.json.ResponseDescription) ?? '') : '';
    if (/already registered/i.test(said)) return 'already';
    checkC2bAnswer(ctx.scrub, answer.json, answer.status);
    return 'registered';
  } catch (error) {
    if (error instanceof DarajaError && /already registered/i.test(error.message)) return 'already';
    throw error;
  }
}

/** The sandbox's (and the simulator's) way to make a Paybill or Till payment; production has none. */
export async function simulateC2bPayment(ctx: FamilyContext, version: 'v1' | 'v2', input: C2bPayment): Promise<void> {
  const answer = await ctx.call('simulate', `/mpesa/c2b/${version}/simulate`, () => ({
    ShortCode: input.shortCode,
    CommandID: input.commandId,
    Amount: String(input.amount),
    Msisdn: input.msisdn,
    BillRefNumber: input.billRefNumber,
  }));
  if (answer.kind !== 'ok') throw new Error('unreachable: simulate answers are never pending');
  checkC2bAnswer(ctx.scrub, answer.json, answer.status);
}

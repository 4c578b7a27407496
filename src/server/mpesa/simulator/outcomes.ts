/**
 * The Daraja simulator's outcome table (part of the test double in index.ts): what a prompt or a
 * payment from a given phone number comes to, and which fault, if any, it adds.
 */
import type { ReversalFault } from './initiator.js';

/** Outcomes by the PhoneNumber of the push. Any number not listed succeeds (ResultCode 0, callback once). */
/**
 * Faults, for the shop's payment chaos tests: what goes wrong between Daraja and the shop.
 * - slow_answer: the push's HTTP answer is held for slowAnswerMs (the client gives up first); the
 *   prompt itself goes on and is paid.
 * - callback_first: the success callback is delivered before the push is answered.
 * - late_success: the prompt first looks timed out (the query and a first callback say 1037);
 *   the customer pays anyway and the success callback comes lateCallbackMs later.
 * - query_first: paid, and the query says so at once; the callback comes lateCallbackMs later.
 * - stale_failure: the success callback, then a contradicting 1037 callback for the same prompt.
 * - lost_then_late: the push's answer is held like slow_answer, and the success callback comes
 *   lateCallbackMs after the prompt resolves: the shop learns of the payment only from a callback
 *   whose CheckoutRequestID it never saw, after it may have given the prompt up.
 */
export type SimulatorFault =
  | 'slow_answer'
  | 'callback_first'
  | 'late_success'
  | 'query_first'
  | 'stale_failure'
  | 'lost_then_late';

export const SIMULATOR_OUTCOMES: ReadonlyArray<{
  msisdn: string;
  local: string;
  outcome: string;
  resultCode: number | null;
  callback: 'once' | 'twice' | 'never';
  fault?: SimulatorFault;
  /** What goes wrong when a payment from this number is reversed. */
  reversal?: ReversalFault;
}> = Object.freeze([
  {
    msisdn: '254708374149',
    local: '0708374149',
    outcome: "success (Daraja's sandbox test number)",
    resultCode: 0,
    callback: 'once',
  },
  { msisdn: '254700000001', local: '0700000001', outcome: 'cancelled by the customer', resultCode: 1032, callback: 'once' },
  { msisdn: '254700000002', local: '0700000002', outcome: 'no response, timed out', resultCode: 1037, callback: 'once' },
  { msisdn: '254700000003', local: '0700000003', outcome: 'wrong PIN', resultCode: 2001, callback: 'once' },
  { msisdn: '254700000004', local: '0700000004', outcome: 'insufficient funds', resultCode: 1, callback: 'once' },
  { msisdn: '254700000005', local: '0700000005', outcome: 'success, callback sent twice', resultCode: 0, callback: 'twice' },
  {
    msisdn: '254700000006',
    local: '0700000006',
    outcome: 'success, callback never sent (only the query knows)',
    resultCode: 0,
    callback: 'never',
  },
  {
    msisdn: '254700000007',
    local: '0700000007',
    outcome: "success, but Daraja's answer to the push comes too late (the shop's request times out)",
    resultCode: 0,
    callback: 'once',
    fault: 'slow_answer',
  },
  {
    msisdn: '254700000008',
    local: '0700000008',
    outcome: 'first times out (1037), then the customer pays: a late success callback',
    resultCode: 0,
    callback: 'once',
    fault: 'late_success',
  },
  {
    msisdn: '254700000009',
    local: '0700000009',
    outcome: 'success, the callback arrives before the answer to the push',
    resultCode: 0,
    callback: 'once',
    fault: 'callback_first',
  },
  {
    msisdn: '254700000010',
    local: '0700000010',
    outcome: 'success, then a stale 1037 callback for the same prompt',
    resultCode: 0,
    callback: 'once',
    fault: 'stale_failure',
  },
  {
    msisdn: '254700000011',
    local: '0700000011',
    outcome: 'success the query reports at once; the callback comes late',
    resultCode: 0,
    callback: 'once',
    fault: 'query_first',
  },
  {
    msisdn: '254700000012',
    local: '0700000012',
    outcome: 'success; its first reversal times out in the queue (QueueTimeOutURL, no money moved), the next succeeds',
    resultCode: 0,
    callback: 'once',
    reversal: 'queue_timeout_once',
  },
  {
    msisdn: '254700000013',
    local: '0700000013',
    outcome: 'success; a reversal of it is acknowledged but never answered (no money moved)',
    resultCode: 0,
    callback: 'once',
    reversal: 'no_result',
  },
  {
    msisdn: '254700000014',
    local: '0700000014',
    outcome: 'success; its first reversal fails: insufficient balance (1), the next succeeds',
    resultCode: 0,
    callback: 'once',
    reversal: 'insufficient_once',
  },
  {
    msisdn: '254700000015',
    local: '0700000015',
    outcome: "success, but Daraja's answer to the push comes too late and the callback comes late too",
    resultCode: 0,
    callback: 'once',
    fault: 'lost_then_late',
  },
] as const);

/** What a push from this number comes to; any number not listed succeeds, callback once, no fault. */
export function outcomeFor(msisdn: string): {
  resultCode: number;
  callback: 'once' | 'twice' | 'never';
  fault: SimulatorFault | undefined;
} {
  const row = SIMULATOR_OUTCOMES.find((o) => o.msisdn === msisdn);
  return { resultCode: row?.resultCode ?? 0, callback: row?.callback ?? 'once', fault: row?.fault };
}

/** What goes wrong when a payment from this number is reversed, if anything. */
export function reversalFaultFor(phone: string): ReversalFault | undefined {
  return SIMULATOR_OUTCOMES.find((o) => o.msisdn === phone)?.reversal;
}

/**
 * The Daraja simulator's public types (part of the test double in index.ts, which re-exports them):
 * its options, and what it records of the payments it completed and the calls it made.
 */
import type { ResultDelivery, SimulatedReversal } from './initiator.js';

export interface SimulatorOptions {
  host?: string; // default '127.0.0.1' (loopback only)
  port?: number; // default 0 (any free port)
  consumerKey: string;
  consumerSecret: string;
  shortcode: string; // e.g. '174379'
  passkey: string;
  tokenTtlSeconds?: number; // default 3599 (tests set it short)
  expiresInAsNumber?: boolean; // default false: "expires_in": "3599" as a string
  callbackDelayMs?: number; // default 1500
  /** Faults 'slow_answer' and 'lost_then_late': how long the push's HTTP answer is held (past the client's timeout). */
  slowAnswerMs?: number; // default 15000
  /** Faults 'late_success', 'query_first' and 'lost_then_late': how long after the prompt resolves the late callback comes. */
  lateCallbackMs?: number; // default 30000
  /** External validation on the shortcode (off by default, as on a real one until Safaricom enables it). */
  c2bValidation?: boolean;
  /** How long M-Pesa waits for the validation answer before the registered ResponseType decides. */
  c2bValidationTimeoutMs?: number; // default 8000
  /** 'sandbox' overwrites a registration; 'production' refuses a second one ("Urls are already registered."). */
  c2bRegistration?: 'sandbox' | 'production';
  /** API operators (initiator name → plain password); default Daraja's sandbox testapi. */
  initiators?: Record<string, string>;
  /** How long after its acknowledgement a Reversal or Transaction Status Result comes (default callbackDelayMs). */
  resultDelayMs?: number;
  /** Which STK id Transaction Status takes as OriginalConversationID (Daraja does not say): default checkout. */
  statusLookupBy?: 'checkout' | 'merchant' | 'none';
  log?: (msg: string, data?: Record<string, unknown>) => void;
}
export interface CallbackDelivery {
  checkoutRequestId: string;
  url: string;
  status: number | null;
  error?: string;
  body: unknown;
  at: Date;
}
/** A payment the simulated M-Pesa completed: money that moved, whether or not anyone was told. */
export interface IssuedReceipt {
  receipt: string;
  amount: number;
  phone: string;
  /** The STK prompt it paid; '' for a C2B (Paybill/Till) payment. */
  checkoutRequestId: string;
  /** 'c2b': paid from the phone to the Paybill/Till; its account number as typed. */
  via: 'stk' | 'c2b';
  account?: string;
  /** The Paybill, store or till number the money went to. */
  shortcode: string;
  at: Date;
}
/** A C2B call the simulated M-Pesa made to the shop: a validation or a confirmation. */
export interface C2bDelivery {
  kind: 'validation' | 'confirmation';
  transId: string;
  url: string;
  status: number | null;
  /** What the shop answered (validation: its ResultCode decides the payment). */
  answer: unknown;
  error?: string;
  body: Record<string, string>;
  at: Date;
}
export interface DarajaSimulator {
  url: string; // e.g. http://127.0.0.1:41234 (no trailing slash)
  deliveries: CallbackDelivery[]; // every callback POST attempted, in order
  receipts: IssuedReceipt[]; // every successful payment, in order: what the merchant's statement would list
  c2bDeliveries: C2bDelivery[]; // every validation and confirmation POST attempted, in order
  tokensIssued: number; // how many OAuth tokens were handed out
  reversals: SimulatedReversal[]; // every Reversal request accepted, in order, with its outcome
  resultDeliveries: ResultDelivery[]; // every Result and queue-timeout notice POSTed, in order
  /** The public key (SPKI PEM) a SecurityCredential must be encrypted with; also at GET /__sim/credential-key.pem. */
  credentialKeyPem: string;
  /** The simulated Utility account balance of a shortcode, in shillings. */
  balanceOf(shortcode: string): number;
  close(): Promise<void>; // stops the server and every pending timer
}

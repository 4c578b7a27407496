import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import type { Notifications } from '../mail/notifications.js';
import type { DarajaClient } from '../mpesa/daraja-client.js';
import type { LipaNaMpesa } from './lipa-na-mpesa.js';

/**
 * What the payment code is given to work with: the database, the mail, the Daraja client, the
 * shop's M-Pesa settings and its initiator (Reversal and Transaction Status).
 */

export interface PaymentDeps {
  db: Db;
  notify: Notifications;
  daraja: DarajaClient;
  /** The CallBackURL, known once the server listens. */
  callbackUrl: () => string;
  log: FastifyBaseLogger;
  promptCooldownMs: number;
  /** A lost push answer is matched to a later callback within this window. */
  giveUpAfterMs: number;
  /** Re-check each success callback with an STK query before crediting it. */
  confirmCallbacks: boolean;
  /** How long a query-settled payment's mail waits for its receipt. */
  receiptWaitMs: number;
  /** The shop's Paybill or Till, for paying without the prompt. */
  lipaNaMpesa: LipaNaMpesa;
  /**
   * A demo shop's simulator, which can make a Paybill/Till payment for the shopper over Daraja's
   * C2B simulate call, with the C2B version the URLs were registered with; null against Safaricom.
   */
  paybillSimulation: { version: 'v1' | 'v2' } | null;
  /** Reversal (refunds) and Transaction Status (missing receipts): the initiator and its URLs. */
  initiator: InitiatorDeps;
}

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

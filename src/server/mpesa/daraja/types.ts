/** The Daraja client's configuration, inputs and answers (re-exported by ../daraja-client.ts). */
export type MpesaEnv = 'simulator' | 'sandbox' | 'production';

export interface DarajaConfig {
  /** https://sandbox.safaricom.co.ke, https://api.safaricom.co.ke, or the simulator's url. */
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** BusinessShortCode: the paybill, or the store/HO number for tills. */
  shortcode: string;
  passkey: string;
  transactionType: 'paybill' | 'till';
  /** PartyB for till; paybill uses shortcode. */
  tillNumber?: string;
  /** Per HTTP call, default 10000. */
  timeoutMs?: number;
  /** Network-error retries, default 2, with backoff. */
  retries?: number;
  /** For tests of the timestamp. */
  now?: () => Date;
}

export interface StkPushInput {
  /** Whole shillings, 1..250000. */
  amount: number;
  /** 2547XXXXXXXX or 2541XXXXXXXX. */
  phone: string;
  /** 1..12 letters and digits, shown to the customer. */
  accountReference: string;
  /** 1..13 of letters, digits, space and '-'. */
  description: string;
  /** http(s) URL without whitespace. */
  callbackUrl: string;
}

export interface StkPushAccepted {
  merchantRequestId: string;
  checkoutRequestId: string;
  customerMessage: string;
}

export type StkQueryResult = { state: 'pending' } | { state: 'completed'; resultCode: string; resultDesc: string };

export interface C2bRegistration {
  /** The Paybill or Till number the confirmations are for. */
  shortCode: string;
  /** Must match the C2B product of the Daraja app: v1 sends the payer hashed, v2 masked. */
  version: 'v1' | 'v2';
  confirmationUrl: string;
  validationUrl: string;
  /** What M-Pesa does when the ValidationURL does not answer in time. */
  responseType: 'Completed' | 'Cancelled';
}

export interface C2bPayment {
  shortCode: string;
  commandId: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  /** Whole shillings. */
  amount: number;
  /** 2547XXXXXXXX. */
  msisdn: string;
  /** The account number the customer types (blank for a till). */
  billRefNumber: string;
}

/** What every initiator call (Reversal, Transaction Status) carries besides its own fields. */
export interface InitiatorRequest {
  /** The API operator's user name on the M-Pesa org portal. */
  initiator: string;
  /** The initiator password encrypted with Safaricom's certificate (security-credential.ts). */
  securityCredential: string;
  resultUrl: string;
  queueTimeoutUrl: string;
  /** 2 to 100 characters. */
  remarks: string;
  occasion?: string;
}

export interface ReversalInput extends InitiatorRequest {
  /** The receipt of the payment to reverse. */
  transactionId: string;
  /** The whole original amount, in shillings. */
  amount: number;
  /** The shortcode that received the payment. */
  receiverParty: string;
  /** "11" as documented (sent under Daraja's misspelt key RecieverIdentifierType). */
  receiverIdentifierType: string;
}

/** Exactly one of transactionId (a receipt) and originalConversationId. */
export type TransactionStatusInput = InitiatorRequest & {
  partyA: string;
  /** "4" for an organisation shortcode. */
  identifierType: string;
} & (
    | { transactionId: string; originalConversationId?: undefined }
    | { originalConversationId: string; transactionId?: undefined }
  );

/** Daraja queued the request; its Result comes later to the ResultURL, carrying these ids. */
export interface InitiatorAccepted {
  originatorConversationId: string;
  conversationId: string;
}

export interface DarajaClient {
  /** Throws DarajaError. 'network' means the outcome is unknown: the prompt may have been sent. */
  stkPush(input: StkPushInput): Promise<StkPushAccepted>;
  /** Throws DarajaError; "The transaction is being processed" is { state: 'pending' }, not an error. */
  stkQuery(checkoutRequestId: string): Promise<StkQueryResult>;
  /**
   * Registers the C2B confirmation and validation URLs. 'already' when M-Pesa keeps an earlier
   * registration (production registers once; changing it is done on the Daraja portal).
   */
  registerC2bUrls(input: C2bRegistration): Promise<'registered' | 'already'>;
  /** The sandbox's (and the simulator's) way to make a Paybill or Till payment; production has none. */
  simulateC2bPayment(version: 'v1' | 'v2', input: C2bPayment): Promise<void>;
  /**
   * Asks M-Pesa to reverse a payment; the outcome comes later as a Result. Throws DarajaError;
   * 'network' means the request may have reached M-Pesa (never resent here).
   */
  reversal(input: ReversalInput): Promise<InitiatorAccepted>;
  /** Asks M-Pesa where a transaction stands; the answer comes later as a Result. Safe to repeat. */
  transactionStatus(input: TransactionStatusInput): Promise<InitiatorAccepted>;
}

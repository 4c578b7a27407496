/**
 * The state of one running Daraja simulator (part of the test double in index.ts): its options
 * with their defaults, what it has issued and recorded, and its timers. Every handler takes it
 * explicitly.
 */
import type { SimulatorFault } from './outcomes.js';
import type { C2bDelivery, CallbackDelivery, IssuedReceipt, SimulatorOptions } from './types.js';
import { merchantRequestIdSequence } from './wire.js';

export interface Checkout {
  merchantRequestId: string;
  checkoutRequestId: string;
  phone: string;
  amount: number;
  callbackUrl: string;
  /** The Paybill or till the money goes to. */
  partyB: string;
  resultCode: number;
  callback: 'once' | 'twice' | 'never';
  fault: SimulatorFault | undefined;
  state: 'open' | 'done';
  /** What the status query reports once the prompt is done (late_success: 1037 until paid). */
  queryResultCode: number;
}

/** A shortcode's registered C2B URLs. */
export interface Registration {
  version: 'v1' | 'v2';
  responseType: 'Completed' | 'Cancelled';
  confirmationUrl: string;
  validationUrl: string;
}

export interface SimState {
  options: SimulatorOptions;
  host: string;
  tokenTtlSeconds: number;
  callbackDelayMs: number;
  slowAnswerMs: number;
  lateCallbackMs: number;
  c2bValidationTimeoutMs: number;
  log: (msg: string, data?: Record<string, unknown>) => void;
  tokens: Map<string, number>; // token → expiry (epoch ms)
  balances: Map<string, number>; // ShortCode (or till) → simulated Utility account balance
  checkouts: Map<string, Checkout>; // CheckoutRequestID → checkout
  openByPhone: Map<string, Checkout>; // PhoneNumber → open prompt
  firstDelivery: Map<string, Promise<void>>; // CheckoutRequestID → its first callback
  registrations: Map<string, Registration>; // ShortCode → its URLs
  deliveries: CallbackDelivery[];
  receipts: IssuedReceipt[];
  c2bDeliveries: C2bDelivery[];
  timers: Set<NodeJS.Timeout>;
  shutdown: AbortController;
  nextMerchantRequestId: () => string;
  tokensIssued: number;
  closed: boolean;
}

export function createState(options: SimulatorOptions): SimState {
  return {
    options,
    host: options.host ?? '127.0.0.1',
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3599,
    callbackDelayMs: options.callbackDelayMs ?? 1500,
    slowAnswerMs: options.slowAnswerMs ?? 15_000,
    lateCallbackMs: options.lateCallbackMs ?? 30_000,
    c2bValidationTimeoutMs: options.c2bValidationTimeoutMs ?? 8_000,
    log: options.log ?? (() => {}),
    tokens: new Map(),
    balances: new Map(),
    checkouts: new Map(),
    openByPhone: new Map(),
    firstDelivery: new Map(),
    registrations: new Map(),
    deliveries: [],
    receipts: [],
    c2bDeliveries: [],
    timers: new Set(),
    shutdown: new AbortController(),
    nextMerchantRequestId: merchantRequestIdSequence(),
    tokensIssued: 0,
    closed: false,
  };
}

/** Runs `fn` after `ms` unless the simulator is closed first. */
export function schedule(sim: SimState, fn: () => void, ms: number): void {
  if (sim.closed) return;
  const timer = setTimeout(() => {
    sim.timers.delete(timer);
    if (!sim.closed) fn();
  }, ms);
  sim.timers.add(timer);
}

import type { FastifyBaseLogger } from 'fastify';
import type { MpesaConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { sharedSecret } from '../db/meta.js';
import type { Notifications } from '../mail/notifications.js';
import { createDarajaClient, type DarajaClient } from './daraja-client.js';
import { lipaNaMpesaOf } from './lipa-na-mpesa.js';
import { type LocalSimulator, startLocalSimulator } from './local-simulator.js';
import { type PaymentDeps, reconcilePendingPayments } from './payments.js';

/**
 * The shop's M-Pesa wiring: the Daraja client (pointed at Safaricom, or at the local simulator
 * started here when MPESA_ENV=simulator), the callback URL with its secret, and the reconciler
 * that confirms prompts whose callback never came.
 */
export interface MpesaRuntime {
  deps: PaymentDeps;
  callbackSecret: () => string;
  /** Tells the runtime where the shop listens (the simulator calls back there). */
  listening(url: string): void;
  startReconciler(): void;
  /** One reconciliation pass now (tests and the interval use it). */
  reconcileNow(): ReturnType<typeof reconcilePendingPayments>;
  close(): Promise<void>;
}

export async function startMpesa(
  config: MpesaConfig,
  publicUrl: string,
  db: Db,
  notify: Notifications,
  log: FastifyBaseLogger,
): Promise<MpesaRuntime> {
  const secret = config.callbackSecret ?? (await sharedSecret(db, 'mpesa_callback_secret'));
  let simulator: LocalSimulator | undefined;
  let baseUrl = config.baseUrl;
  if (config.env === 'simulator' && config.simulatorUrl) {
    baseUrl = config.simulatorUrl;
    log.info({ url: baseUrl }, 'M-Pesa simulator shared with the other processes (MPESA_SIMULATOR_URL)');
  } else if (config.env === 'simulator') {
    simulator = await startLocalSimulator(config, log);
    baseUrl = simulator.url;
  }
  if (!baseUrl) throw new Error('no Daraja base URL');

  const daraja: DarajaClient = createDarajaClient({
    baseUrl,
    consumerKey: config.consumerKey,
    consumerSecret: config.consumerSecret,
    shortcode: config.shortcode,
    passkey: config.passkey,
    transactionType: config.transactionType,
    timeoutMs: config.httpTimeoutMs,
    ...(config.tillNumber && { tillNumber: config.tillNumber }),
  });

  let listenUrl = publicUrl;
  const callbackBase = () => (config.env === 'simulator' ? listenUrl : (config.callbackBaseUrl ?? publicUrl));
  const deps: PaymentDeps = {
    db,
    notify,
    daraja,
    log,
    promptCooldownMs: config.promptCooldownMs,
    giveUpAfterMs: config.giveUpAfterMs,
    confirmCallbacks: config.confirmCallbacks,
    receiptWaitMs: config.receiptWaitMs,
    lipaNaMpesa: lipaNaMpesaOf(config),
    callbackUrl: () => `${callbackBase()}/api/hooks/daraja/stk/${secret}`,
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const reconcileNow = () =>
    reconcilePendingPayments(deps, { olderThanMs: config.reconcileAfterMs, giveUpAfterMs: config.giveUpAfterMs });

  return {
    deps,
    callbackSecret: () => secret,
    listening(url) {
      listenUrl = url;
    },
    startReconciler() {
      timer = setInterval(() => {
        if (running) return;
        running = reconcileNow()
          .catch((error: unknown) => log.warn({ err: error }, 'M-Pesa reconciliation failed; will retry'))
          .finally(() => {
            running = undefined;
          });
      }, config.reconcileIntervalMs);
      timer.unref();
    },
    reconcileNow,
    async close() {
      if (timer) clearInterval(timer);
      await running;
      await simulator?.close();
    },
  };
}

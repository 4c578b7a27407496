import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { MpesaConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { sharedSecret } from '../db/meta.js';
import { type HookSecretKind, hookSecret } from '../lib/hook-secrets.js';
import type { Notifications } from '../mail/notifications.js';
import { createDarajaClient, type DarajaClient } from '../mpesa/daraja-client.js';
import { type LocalSimulator, startLocalSimulator } from '../mpesa/local-simulator.js';
import { credentialKeyFrom, securityCredential } from '../mpesa/security-credential.js';
import type { InitiatorDeps, PaymentDeps } from './deps.js';
import { lipaNaMpesaOf } from './lipa-na-mpesa.js';
import { reconcilePendingPayments } from './reconciler.js';

/**
 * The shop's M-Pesa wiring: the Daraja client (pointed at Safaricom, or at the local simulator
 * started here when MPESA_ENV=simulator), the callback URLs with their secrets, and the reconciler
 * that confirms prompts whose callback never came.
 */
export interface MpesaRuntime {
  deps: PaymentDeps;
  /** MPESA_CALLBACK_SECRET (or the one generated and kept in the database): no URL carries it. */
  callbackSecret: () => string;
  /** The secret in the path of one kind of callback's URLs, derived from callbackSecret (lib/hook-secrets.ts). */
  hookSecret: (kind: HookSecretKind) => string;
  /**
   * Tells the runtime where the shop listens (the simulator calls back there), and registers the
   * C2B URLs when MPESA_C2B_REGISTER is on and c2bRegistrationRefusal allows it; resolves once
   * they are registered with the simulator.
   */
  listening(url: string): Promise<void>;
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
  const secrets: Record<HookSecretKind, string> = {
    stk: hookSecret(secret, 'stk'),
    c2b: hookSecret(secret, 'c2b'),
    rev: hookSecret(secret, 'rev'),
    ts: hookSecret(secret, 'ts'),
  };
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

  const credentialKey = await credentialKeySource(config, baseUrl, log);
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
    paybillSimulation: config.env === 'simulator' ? { version: config.c2bVersion } : null,
    callbackUrl: () => `${callbackBase()}/api/hooks/daraja/stk/${secrets.stk}`,
    initiator: initiatorDeps(
      config,
      credentialKey,
      (kind, id, what) => `${callbackBase()}/api/hooks/daraja/${kind}/${secrets[kind]}/${id}/${what}`,
    ),
  };

  const c2bRefused = config.c2bRegister ? c2bRegistrationRefusal(config) : null;
  if (c2bRefused) log.error(c2bRefused);

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const reconcileNow = () =>
    reconcilePendingPayments(deps, { olderThanMs: config.reconcileAfterMs, giveUpAfterMs: config.giveUpAfterMs });

  return {
    deps,
    callbackSecret: () => secret,
    hookSecret: (kind) => secrets[kind],
    listening(url) {
      listenUrl = url;
      if (!config.c2bRegister || c2bRefused) return Promise.resolve();
      const registration = registerC2b(config, daraja, log, `${callbackBase()}/api/hooks/daraja/c2b/${secrets.c2b}`);
      // The local simulator answers at once, and a demo payment made right after start must find
      // the URLs; Safaricom may be slow, and the shop need not wait for it to serve.
      return config.env === 'simulator' ? registration : Promise.resolve();
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

/**
 * Tells M-Pesa where to send the Paybill/Till confirmations (and validations, if Safaricom has
 * enabled them for the shortcode). A failure is logged and the shop runs on: the payments still
 * happen, and the reconciler and the admin see them once the URLs are registered.
 */
async function registerC2b(
  config: MpesaConfig,
  daraja: DarajaClient,
  log: FastifyBaseLogger,
  /** The shop's C2B hook URL, without its /confirm or /validate. */
  hooks: string,
): Promise<void> {
  const shop = lipaNaMpesaOf(config);
  const shortCode = 'paybill' in shop ? shop.paybill : shop.till;
  try {
    const outcome = await daraja.registerC2bUrls({
      shortCode,
      version: config.c2bVersion,
      confirmationUrl: `${hooks}/confirm`,
      validationUrl: `${hooks}/validate`,
      // Should M-Pesa not reach the validation URL in time, the payment goes through: the shop
      // can match or refund it afterwards, while a refused payment is a lost sale.
      responseType: 'Completed',
    });
    log.info({ shortCode, version: config.c2bVersion, outcome }, 'M-Pesa C2B URLs registered');
  } catch (error) {
    log.error(
      { err: error, shortCode },
      'M-Pesa C2B URL registration failed: Paybill/Till payments will not be confirmed to the shop until it succeeds (restart to retry)',
    );
  }
}

/**
 * Why the shop must not register its C2B URLs, or null when it may. In production, a Paybill
 * confirmation is a claim that money moved, and only Transaction Status (which needs the
 * initiator) can check it with M-Pesa; without the initiator, the allow-list of Safaricom's
 * addresses is what stands between a forged confirmation and a paid order. Neither: no URLs.
 */
export function c2bRegistrationRefusal(
  config: Pick<MpesaConfig, 'env' | 'initiatorName' | 'initiatorPassword' | 'callbackAllowedIps'>,
): string | null {
  if (config.env !== 'production') return null;
  if (config.initiatorName && config.initiatorPassword) return null;
  if (config.callbackAllowedIps && config.callbackAllowedIps.length > 0) return null;
  return (
    'M-Pesa C2B URLs not registered: without MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD the shop cannot check a Paybill/Till ' +
    "confirmation with M-Pesa (Transaction Status), so it takes them only from Safaricom's addresses: set MPESA_CALLBACK_ALLOWED_IPS " +
    '(or the initiator) and restart'
  );
}

/**
 * Where the SecurityCredential's key comes from: MPESA_CERT_PATH (read now, so a wrong path stops
 * the start), or with the simulator its own key, fetched from it when first needed. Null when no
 * initiator is configured.
 */
async function credentialKeySource(
  config: MpesaConfig,
  baseUrl: string,
  log: FastifyBaseLogger,
): Promise<(() => Promise<KeyObject>) | null> {
  if (!config.initiatorName || !config.initiatorPassword) {
    log.warn(
      'M-Pesa refunds and receipt lookups are off: set MPESA_INITIATOR_NAME, MPESA_INITIATOR_PASSWORD and MPESA_CERT_PATH to enable them',
    );
    return null;
  }
  if (config.certPath) {
    let key: KeyObject;
    try {
      key = credentialKeyFrom(readFileSync(config.certPath));
    } catch (error) {
      throw new Error(
        `MPESA_CERT_PATH: cannot read Safaricom's certificate at ${config.certPath} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    return () => Promise.resolve(key);
  }
  if (config.env !== 'simulator') throw new Error(`MPESA_ENV=${config.env} needs MPESA_CERT_PATH to refund`);
  let fetched: Promise<KeyObject> | null = null;
  return () => {
    fetched ??= fetch(`${baseUrl}/__sim/credential-key.pem`)
      .then(async (res) => {
        if (!res.ok) throw new Error(`the simulator answered ${res.status} for its credential key`);
        return credentialKeyFrom(await res.text());
      })
      .catch((error: unknown) => {
        fetched = null; // try again next time
        throw error;
      });
    return fetched;
  };
}

function initiatorDeps(
  config: MpesaConfig,
  key: (() => Promise<KeyObject>) | null,
  hookUrl: InitiatorDeps['hookUrl'],
): InitiatorDeps {
  const shop = lipaNaMpesaOf(config);
  const name = config.initiatorName;
  const password = config.initiatorPassword;
  return {
    credentials:
      key && name && password ? { name, securityCredential: async () => securityCredential(password, await key()) } : null,
    shortcode: 'paybill' in shop ? shop.paybill : shop.till,
    identifierType: 'paybill' in shop ? '4' : '2',
    reversalIdentifierType: config.reversalIdentifierType,
    hookUrl,
    resultWaitMs: config.resultWaitMs,
    reversalMaxAttempts: config.reversalMaxAttempts,
    receiptLookupAfterMs: config.receiptLookupAfterMs,
    receiptLookupMaxAttempts: config.receiptLookupMaxAttempts,
  };
}

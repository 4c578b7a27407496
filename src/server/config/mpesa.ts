import path from 'node:path';
import type { z } from 'zod';
import { reachableBySafaricom } from './addresses.js';
import type { Environment } from './environment.js';

/** Daraja's public sandbox shortcode and passkey (docs/payments.md); the simulator uses them too. */
const SANDBOX_SHORTCODE = '174379';
const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const DARAJA_URLS = { sandbox: 'https://sandbox.safaricom.co.ke', production: 'https://api.safaricom.co.ke' } as const;

/** The simulator's test initiator (Daraja's sandbox values), so that a demo shop can refund. */
export const SIMULATOR_INITIATOR_NAME = 'testapi';
export const SIMULATOR_INITIATOR_PASSWORD = 'Safaricom999!*!';

/** The M-Pesa settings the environment gives, with the defaults of its mode (MPESA_ENV). */
function mpesaSettingsOf(env: Environment) {
  const mode = env.MPESA_ENV;
  const simulator = mode === 'simulator';
  const live = mode === 'production';
  return {
    env: mode,
    /** Daraja's base URL; in simulator mode the shop starts the simulator and uses its address. */
    baseUrl: simulator ? undefined : (env.MPESA_BASE_URL ?? DARAJA_URLS[mode]),
    consumerKey: env.MPESA_CONSUMER_KEY ?? (simulator ? 'duka-simulator-key' : ''),
    consumerSecret: env.MPESA_CONSUMER_SECRET ?? (simulator ? 'duka-simulator-secret' : ''),
    shortcode: env.MPESA_SHORTCODE ?? (live ? '' : SANDBOX_SHORTCODE),
    passkey: env.MPESA_PASSKEY ?? (live ? '' : SANDBOX_PASSKEY),
    transactionType: env.MPESA_TRANSACTION_TYPE,
    tillNumber: env.MPESA_TILL_NUMBER,
    /** Base of the CallBackURL Daraja posts to (PUBLIC_URL unless set); the secret path is appended. */
    callbackBaseUrl: env.MPESA_CALLBACK_BASE_URL,
    /** The secret path token of the callback; generated once and kept in the database when unset. */
    callbackSecret: env.MPESA_CALLBACK_SECRET,
    /** A prompt with no answer after this long is confirmed with an STK query. */
    reconcileAfterMs: env.MPESA_RECONCILE_AFTER_MS,
    reconcileIntervalMs: env.MPESA_RECONCILE_INTERVAL_MS,
    /** A prompt still unresolved after this long is given up as timed out. */
    giveUpAfterMs: env.MPESA_GIVE_UP_AFTER_MS,
    /** How long a shopper waits before another prompt for the same order. */
    promptCooldownMs: env.MPESA_PROMPT_COOLDOWN_MS,
    promptsPerUser: { max: env.RATE_LIMIT_STKPUSH_MAX, windowMs: env.RATE_LIMIT_STKPUSH_WINDOW_MS },
    /** Simulator only: delay before it answers a prompt. */
    simulatorDelayMs: env.MPESA_SIMULATOR_DELAY_MS,
    /**
     * Simulator only: the address of a Daraja simulator already running, used instead of starting
     * one. Cluster mode's primary starts one and gives its workers this, so that every worker's
     * reconciler can query a prompt another worker sent.
     */
    simulatorUrl: simulator ? env.MPESA_SIMULATOR_URL : undefined,
    /**
     * Simulator only: the port the demo's simulator listens on (127.0.0.1), so that its CLI can pay
     * by Paybill (`npm run simulator -- pay …`); any free port when this one is taken.
     */
    simulatorPort: env.MPESA_SIMULATOR_PORT,
    /**
     * How long the "payment received" mail of a payment known only from the status query waits for
     * the callback that brings its receipt, before it goes without it.
     */
    receiptWaitMs: env.MPESA_RECEIPT_WAIT_MS,
    /** How long one Daraja HTTP call may take before its answer counts as lost. */
    httpTimeoutMs: env.MPESA_HTTP_TIMEOUT_MS,
    /**
     * Re-check every success callback with an STK query before crediting it, so that a forged
     * callback through a leaked URL pays nothing.
     */
    confirmCallbacks: env.MPESA_CONFIRM_CALLBACKS ?? true,
    /** When set, callbacks from other addresses are kept but never acted on. */
    callbackAllowedIps: env.MPESA_CALLBACK_ALLOWED_IPS,
    /**
     * Register the C2B confirmation and validation URLs at start (Paybill/Till payments made
     * without the prompt). On by default with the simulator, so the demo's Paybill path works.
     */
    c2bRegister: env.MPESA_C2B_REGISTER ?? simulator,
    /** The C2B API version of the Daraja app's product: v2 (payer masked) or v1 (payer hashed). */
    c2bVersion: env.MPESA_C2B_VERSION,
    /**
     * The API operator ("initiator") of the M-Pesa org portal that Reversal and Transaction Status
     * run as, and its plain password (encrypted per call into the SecurityCredential). Unset, the
     * shop cannot refund or look up receipts. The simulator's test initiator by default there.
     */
    initiatorName: env.MPESA_INITIATOR_NAME ?? (simulator ? SIMULATOR_INITIATOR_NAME : undefined),
    initiatorPassword: env.MPESA_INITIATOR_PASSWORD ?? (simulator ? SIMULATOR_INITIATOR_PASSWORD : undefined),
    /**
     * Safaricom's certificate (PEM or DER) for the SecurityCredential. Required against Safaricom;
     * with the simulator, unset means the simulator's own key, fetched from it.
     */
    certPath: env.MPESA_CERT_PATH ? path.resolve(env.MPESA_CERT_PATH) : undefined,
    /** Reversal's RecieverIdentifierType: "11" as documented; some integrations report "4". */
    reversalIdentifierType: env.MPESA_REVERSAL_IDENTIFIER_TYPE ?? '11',
    /** How long a Reversal or Transaction Status request waits for its Result before it is sent again. */
    resultWaitMs: env.MPESA_RESULT_WAIT_MS,
    /** Reversal requests per refund (the first included) before it is listed as unanswered. */
    reversalMaxAttempts: env.MPESA_REVERSAL_MAX_ATTEMPTS,
    /** A query-settled payment still without its receipt after this long is looked up by Transaction Status. */
    receiptLookupAfterMs: env.MPESA_RECEIPT_LOOKUP_AFTER_MS,
    /** Transaction Status lookups per payment before it is left for the admin. */
    receiptLookupMaxAttempts: env.MPESA_RECEIPT_LOOKUP_MAX_ATTEMPTS,
  };
}

type MpesaSettings = ReturnType<typeof mpesaSettingsOf>;

/**
 * What stops the M-Pesa settings from working, one line per variable to fix (empty when nothing
 * does). `publicUrl` is PUBLIC_URL, the callbacks' address when MPESA_CALLBACK_BASE_URL is unset.
 */
export function mpesaProblems(mpesa: MpesaSettings, publicUrl: string | undefined): string[] {
  const mode = mpesa.env;
  const simulator = mode === 'simulator';
  const live = mode === 'production';
  const problems: string[] = [];
  if (Boolean(mpesa.initiatorName) !== Boolean(mpesa.initiatorPassword)) {
    problems.push(
      'MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD go together: set both (refunds and receipt lookups) or neither',
    );
  }
  if (!simulator && mpesa.initiatorName && !mpesa.certPath) {
    problems.push(
      `MPESA_INITIATOR_NAME is set, so MPESA_ENV=${mode} needs MPESA_CERT_PATH: the path of Safaricom's ${mode} certificate (from the Daraja portal), which encrypts the initiator password`,
    );
  }
  if (live && !reachableBySafaricom(mpesa.callbackBaseUrl ?? publicUrl ?? '')) {
    problems.push(
      'MPESA_ENV=production needs an https callback: set MPESA_CALLBACK_BASE_URL (or PUBLIC_URL) to a public https:// address, not localhost or a private network’s',
    );
  }
  if (!simulator) {
    const credentials = {
      MPESA_CONSUMER_KEY: mpesa.consumerKey,
      MPESA_CONSUMER_SECRET: mpesa.consumerSecret,
      MPESA_SHORTCODE: mpesa.shortcode,
      MPESA_PASSKEY: mpesa.passkey,
    };
    const missing = Object.entries(credentials)
      .filter(([, value]) => !value)
      .map(([name]) => name);
    if (missing.length > 0) problems.push(`MPESA_ENV=${mode} needs ${missing.join(', ')}`);
    if (mpesa.transactionType === 'till' && !mpesa.tillNumber) {
      problems.push('MPESA_TRANSACTION_TYPE=till needs MPESA_TILL_NUMBER');
    }
  }
  return problems;
}

/** The M-Pesa settings, each of their problems an issue of the parse (configSchema). */
export function mpesaSettings(env: Environment, ctx: z.RefinementCtx): MpesaSettings {
  const mpesa = mpesaSettingsOf(env);
  for (const message of mpesaProblems(mpesa, env.PUBLIC_URL)) ctx.addIssue({ code: 'custom', message });
  return mpesa;
}

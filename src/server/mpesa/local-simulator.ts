import type { MpesaConfig } from '../config.js';

/** The part of a logger (Fastify's or pino's) that the simulator's log lines go to. */
interface InfoLogger {
  info(fields: Record<string, unknown>, msg: string): void;
}

export interface LocalSimulator {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the Daraja simulator for MPESA_ENV=simulator with the shop's simulator-mode key, secret,
 * shortcode and passkey, so that the shop's own Daraja client can talk to it over HTTP. Used by a
 * single process (payments/runtime.ts) and by the cluster primary for all its workers (cluster.ts).
 *
 * The simulator is imported only here and only when called: a shop pointed at Safaricom never
 * loads the test double.
 */
export async function startLocalSimulator(config: MpesaConfig, log: InfoLogger): Promise<LocalSimulator> {
  const { startDarajaSimulator } = await import('./simulator/index.js');
  const options = {
    consumerKey: config.consumerKey,
    consumerSecret: config.consumerSecret,
    shortcode: config.shortcode,
    passkey: config.passkey,
    callbackDelayMs: config.simulatorDelayMs,
    log: (msg: string, data?: Record<string, unknown>) => log.info({ simulator: true, ...data }, msg),
  };
  let simulator: LocalSimulator;
  try {
    simulator = await startDarajaSimulator({ ...options, port: config.simulatorPort });
  } catch (error) {
    // Another shop (or a test) has the port: this one's simulator still works, on any port.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    simulator = await startDarajaSimulator({ ...options, port: 0 });
  }
  log.info(
    { url: simulator.url },
    `M-Pesa simulator started (MPESA_ENV=simulator); pay by Paybill with: npm run simulator -- pay --url ${simulator.url} --account ORDERNUMBER --amount SHILLINGS`,
  );
  return simulator;
}

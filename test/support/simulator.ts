import { SANDBOX_PASSKEY, SANDBOX_SHORTCODE } from '../../src/server/mpesa/daraja-client.js';
import { type DarajaSimulator, type SimulatorOptions, startDarajaSimulator } from '../../src/server/mpesa/simulator/index.js';

/**
 * A Daraja simulator that a test shop in simulator mode can use through MPESA_SIMULATOR_URL: it
 * takes the shop's simulator-mode key, secret, shortcode and passkey (src/server/config.ts), and
 * the timings the test chooses.
 */
export function startShopSimulator(
  timing: Pick<SimulatorOptions, 'callbackDelayMs' | 'slowAnswerMs' | 'lateCallbackMs' | 'resultDelayMs' | 'statusLookupBy'>,
): Promise<DarajaSimulator> {
  return startDarajaSimulator({
    consumerKey: 'duka-simulator-key',
    consumerSecret: 'duka-simulator-secret',
    shortcode: SANDBOX_SHORTCODE,
    passkey: SANDBOX_PASSKEY,
    ...timing,
  });
}

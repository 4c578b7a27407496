import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SANDBOX_PASSKEY, SANDBOX_SHORTCODE } from '../../src/server/mpesa/daraja-client.js';
import { type DarajaSimulator, type SimulatorOptions, startDarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import { typescriptProcess } from './node-process.js';

/**
 * A Daraja simulator that a test shop in simulator mode can use through MPESA_SIMULATOR_URL: it
 * takes the shop's simulator-mode key, secret, shortcode and passkey (src/server/config/mpesa.ts), and
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

/**
 * A Paybill payment made the way the README shows a person making one in the demo: the simulator's
 * command line, against the simulator at `simulatorUrl`. Resolves with what the command printed.
 */
export async function payByPaybillCommand(
  simulatorUrl: string,
  payment: { account: string; amount: number; phone: string },
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    typescriptProcess(
      'src/server/mpesa/simulator/cli.ts',
      'pay',
      '--url',
      simulatorUrl,
      '--account',
      payment.account,
      '--amount',
      String(payment.amount),
      '--phone',
      payment.phone,
    ),
  );
  return stdout;
}

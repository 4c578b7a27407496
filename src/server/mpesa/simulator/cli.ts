/**
 * Runs the Daraja simulator (a test double for Safaricom's M-Pesa API, see index.ts) on its own:
 *
 *   npx tsx src/server/mpesa/simulator/cli.ts            (npm run simulator)
 *
 * or, against a simulator already running (the demo shop's listens on 127.0.0.1:4010), pays by
 * Paybill from a phone, the way a shopper whose prompt never came does:
 *
 *   npm run simulator -- pay --account K7MX4QPA --amount 1250 --phone 0712345678 [--till] [--url URL]
 *
 * Environment (all optional):
 *   PORT                          port to listen on (default 4010)
 *   DARAJA_SIM_HOST               address to bind (default 127.0.0.1 — keep it on loopback)
 *   DARAJA_SIM_CONSUMER_KEY       default 'duka-simulator-key'
 *   DARAJA_SIM_CONSUMER_SECRET    default 'duka-simulator-secret'
 *   DARAJA_SIM_SHORTCODE          default '174379' (Daraja's sandbox paybill)
 *   DARAJA_SIM_PASSKEY            default: Daraja's public sandbox passkey
 *   DARAJA_SIM_CALLBACK_DELAY_MS  how long a prompt stays open before its callback (default 1500)
 *
 * Point the shop at it with MPESA_ENV=simulator and the base URL printed below. Stops on Ctrl-C.
 */
import { parseArgs } from 'node:util';
import { SIMULATOR_OUTCOMES, startDarajaSimulator } from './index.js';

const SANDBOX_PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const DEFAULT_KEY = 'duka-simulator-key';
const DEFAULT_SECRET = 'duka-simulator-secret';

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`daraja-simulator: ${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    process.exit(2);
  }
  return n;
}

const env = (name: string, fallback: string): string => {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
};

/** `pay`: a C2B payment through a running simulator's own Daraja API (OAuth, then C2B simulate). */
async function pay(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      account: { type: 'string' },
      amount: { type: 'string' },
      phone: { type: 'string', default: '0708374149' },
      till: { type: 'boolean', default: false },
      url: { type: 'string', default: process.env.DARAJA_SIM_URL ?? 'http://127.0.0.1:4010' },
      shortcode: { type: 'string', default: env('DARAJA_SIM_SHORTCODE', '174379') },
    },
  });
  const usage = 'usage: pay --account ORDERNUMBER --amount SHILLINGS [--phone 07XXXXXXXX] [--till] [--url URL]';
  if (!values.till && !values.account) throw new Error(`--account is required for a Paybill payment\n${usage}`);
  if (!values.amount || !/^\d+$/.test(values.amount)) throw new Error(`--amount must be whole shillings\n${usage}`);
  const msisdn = values.phone.replace(/^\+/, '').replace(/^0(?=[17])/, '254');
  const key = env('DARAJA_SIM_CONSUMER_KEY', DEFAULT_KEY);
  const secret = env('DARAJA_SIM_CONSUMER_SECRET', DEFAULT_SECRET);
  const oauth = await fetch(`${values.url}/oauth/v1/generate?grant_type=client_credentials`, {
    headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}` },
  });
  const { access_token: token } = (await oauth.json()) as { access_token?: string };
  if (!token) throw new Error(`the simulator at ${values.url} refused the consumer key and secret`);
  const answer = await fetch(`${values.url}/mpesa/c2b/v2/simulate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      ShortCode: values.shortcode,
      CommandID: values.till ? 'CustomerBuyGoodsOnline' : 'CustomerPayBillOnline',
      Amount: values.amount,
      Msisdn: msisdn,
      BillRefNumber: values.till ? '' : values.account,
    }),
  });
  const body = (await answer.json()) as Record<string, unknown>;
  if (answer.status !== 200) throw new Error(`the simulator refused the payment: ${JSON.stringify(body)}`);
  console.log(
    `Paid Ksh ${values.amount} from ${msisdn} to ${values.till ? 'till' : 'Paybill'} ${values.shortcode}${values.till ? '' : `, account ${values.account}`}; the confirmation goes to the shop's registered URL.`,
  );
}

if (process.argv[2] === 'pay') {
  try {
    await pay(process.argv.slice(3));
    process.exit(0);
  } catch (error) {
    console.error(`daraja-simulator: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
}

const port = envInt('PORT', 4010, 0, 65535);
const callbackDelayMs = envInt('DARAJA_SIM_CALLBACK_DELAY_MS', 1500, 0, 600_000);
const host = env('DARAJA_SIM_HOST', '127.0.0.1');
const consumerKey = env('DARAJA_SIM_CONSUMER_KEY', DEFAULT_KEY);
const consumerSecret = env('DARAJA_SIM_CONSUMER_SECRET', DEFAULT_SECRET);
const shortcode = env('DARAJA_SIM_SHORTCODE', '174379');
const passkey = env('DARAJA_SIM_PASSKEY', SANDBOX_PASSKEY);

const stamp = () => new Date().toISOString().slice(11, 23);

const sim = await startDarajaSimulator({
  host,
  port,
  consumerKey,
  consumerSecret,
  shortcode,
  passkey,
  callbackDelayMs,
  log: (msg, data) => console.log(`${stamp()} ${msg}${data ? ` ${JSON.stringify(data)}` : ''}`),
});

const rows: string[][] = [
  ['PhoneNumber', 'Local', 'ResultCode', 'Callback', 'Outcome'],
  ...SIMULATOR_OUTCOMES.map((o) => [o.msisdn, o.local, String(o.resultCode ?? '-'), o.callback, o.outcome]),
  ['(any other)', '', '0', 'once', 'success'],
];
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
const table = rows.map((r) => `  ${r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd()).join('\n');

console.log(`
Daraja simulator (test double — not Safaricom) listening on ${sim.url}
  OAuth      GET  ${sim.url}/oauth/v1/generate?grant_type=client_credentials
  STK push   POST ${sim.url}/mpesa/stkpush/v1/processrequest
  STK query  POST ${sim.url}/mpesa/stkpushquery/v1/query
  C2B        POST ${sim.url}/mpesa/c2b/v2/registerurl, ${sim.url}/mpesa/c2b/v2/simulate (v1 too)
  Reversal   POST ${sim.url}/mpesa/reversal/v1/request (initiator testapi / Safaricom999!*!)
  Tx status  POST ${sim.url}/mpesa/transactionstatus/v1/query
  Credential GET  ${sim.url}/__sim/credential-key.pem (encrypt the initiator password with this key)
  Shortcode ${shortcode}; consumer key ${consumerKey === DEFAULT_KEY ? `'${DEFAULT_KEY}' (default)` : '(from DARAJA_SIM_CONSUMER_KEY)'}; secret ${consumerSecret === DEFAULT_SECRET ? `'${DEFAULT_SECRET}' (default)` : '(from DARAJA_SIM_CONSUMER_SECRET)'}; passkey ${passkey === SANDBOX_PASSKEY ? 'Daraja sandbox passkey (default)' : '(from DARAJA_SIM_PASSKEY)'}
  Prompts stay open ${callbackDelayMs} ms, then the callback is POSTed to the CallBackURL.

Outcomes by PhoneNumber:
${table}
`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${stamp()} ${signal}: stopping (${sim.deliveries.length} callbacks sent, ${sim.tokensIssued} tokens issued)`);
  await sim.close();
  process.exit(0);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));

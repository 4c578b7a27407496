import { createPublicKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDarajaClient, type DarajaClient, DarajaError } from '../../src/server/mpesa/daraja-client.js';
import { parseInitiatorResult } from '../../src/server/mpesa/initiator-result.js';
import { securityCredential } from '../../src/server/mpesa/security-credential.js';
import { type DarajaSimulator, startDarajaSimulator } from '../../src/server/mpesa/simulator/index.js';

/**
 * The simulator's Reversal and Transaction Status, driven by the shop's own Daraja client over real
 * HTTP: the SecurityCredential check, the misspelt field, the ledger-driven results, and the
 * Results POSTed to a receiver started here.
 */

const SHORTCODE = '174379';
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';

let sim: DarajaSimulator;
let client: DarajaClient;
let receiver: Server;
let receiverUrl = '';
const results = new Map<string, string[]>(); // path → bodies

beforeAll(async () => {
  sim = await startDarajaSimulator({
    consumerKey: 'k',
    consumerSecret: 's',
    shortcode: SHORTCODE,
    passkey: PASSKEY,
    callbackDelayMs: 50,
    resultDelayMs: 20,
    statusLookupBy: 'merchant',
  });
  client = createDarajaClient({
    baseUrl: sim.url,
    consumerKey: 'k',
    consumerSecret: 's',
    shortcode: SHORTCODE,
    passkey: PASSKEY,
    transactionType: 'paybill',
    retries: 0,
  });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      results.set(path, [...(results.get(path) ?? []), Buffer.concat(chunks).toString('utf8')]);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ResultCode":0,"ResultDesc":"Accepted"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await client.registerC2bUrls({
    shortCode: SHORTCODE,
    version: 'v2',
    confirmationUrl: `${receiverUrl}/c2b/confirm`,
    validationUrl: `${receiverUrl}/c2b/validate`,
    responseType: 'Completed',
  });
});
afterAll(async () => {
  await sim?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const key = () => createPublicKey(sim.credentialKeyPem);
let seq = 0;

async function resultOf(path: string) {
  await expect.poll(() => results.get(path)?.length ?? 0).toBeGreaterThan(0);
  const parsed = parseInitiatorResult(results.get(path)?.[0] ?? '');
  if (!parsed) throw new Error(`not a Result: ${results.get(path)?.[0]}`);
  return parsed;
}

async function paybillPayment(amount: number): Promise<string> {
  const before = sim.receipts.length;
  await client.simulateC2bPayment('v2', {
    shortCode: SHORTCODE,
    commandId: 'CustomerPayBillOnline',
    amount,
    msisdn: '254708374149',
    billRefNumber: 'ANYORDER',
  });
  await expect.poll(() => sim.receipts.length).toBe(before + 1);
  return sim.receipts[before]?.receipt as string;
}

function reversal(receipt: string, amount: number, password = 'Safaricom999!*!', initiator = 'testapi') {
  const path = `/rev/${++seq}`;
  return {
    path,
    send: () =>
      client.reversal({
        initiator,
        securityCredential: securityCredential(password, key()),
        transactionId: receipt,
        amount,
        receiverParty: SHORTCODE,
        receiverIdentifierType: '11',
        resultUrl: `${receiverUrl}${path}/result`,
        queueTimeoutUrl: `${receiverUrl}${path}/timeout`,
        remarks: 'Refund test',
      }),
  };
}

describe('simulated Reversal', () => {
  it('reverses a payment once: the money moves back, a second reversal is "already reversed"', async () => {
    const receipt = await paybillPayment(300);
    const balance = sim.balanceOf(SHORTCODE);
    const first = reversal(receipt, 300);
    const ack = await first.send();
    expect(ack.conversationId).toMatch(/^AG_\d{8}_/);
    const result = await resultOf(`${first.path}/result`);
    expect(result.resultCode).toBe('0');
    expect(result.parameters.get('OriginalTransactionID')).toBe(receipt);
    expect(result.transactionId).toMatch(/^[A-Z0-9]{10}$/);
    expect(result.transactionId).not.toBe(receipt);
    expect(sim.balanceOf(SHORTCODE)).toBe(balance - 300);

    const second = reversal(receipt, 300);
    await second.send();
    expect((await resultOf(`${second.path}/result`)).resultCode).toBe('R000001');
    expect(sim.balanceOf(SHORTCODE)).toBe(balance - 300);
  });

  it('answers R000002 for a receipt it never issued, and refuses a partial amount', async () => {
    const unknown = reversal('SZZ0000000', 100);
    await unknown.send();
    expect((await resultOf(`${unknown.path}/result`)).resultCode).toBe('R000002');
    const receipt = await paybillPayment(500);
    const partial = reversal(receipt, 200);
    await partial.send();
    expect((await resultOf(`${partial.path}/result`)).resultCode).toBe('R000002');
  });

  it('checks the SecurityCredential: malformed is refused at once, a wrong password is 2001, then locked (8006)', async () => {
    const receipt = await paybillPayment(120);
    const malformed = client.reversal({
      initiator: 'testapi',
      securityCredential: 'bm90IGEgY3JlZGVudGlhbA==',
      transactionId: receipt,
      amount: 120,
      receiverParty: SHORTCODE,
      receiverIdentifierType: '11',
      resultUrl: `${receiverUrl}/x/result`,
      queueTimeoutUrl: `${receiverUrl}/x/timeout`,
      remarks: 'Refund test',
    });
    await expect(malformed).rejects.toSatisfy(
      (e) => e instanceof DarajaError && e.kind === 'rejected' && /Invalid SecurityCredential/.test(e.message),
    );
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const wrong = reversal(receipt, 120, 'not-the-password', 'lockme');
      await wrong.send();
      codes.push((await resultOf(`${wrong.path}/result`)).resultCode);
    }
    expect(codes).toEqual(['2001', '2001', '8006']);
    // Nothing moved for any of them.
    expect(sim.reversals.filter((r) => r.transactionId === receipt).every((r) => r.outcome === 'failed')).toBe(true);
  });

  it('refuses the correctly spelt ReceiverIdentifierType, as Daraja does', async () => {
    const token = await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: `Basic ${Buffer.from('k:s').toString('base64')}` },
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const res = await fetch(`${sim.url}/mpesa/reversal/v1/request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        Initiator: 'testapi',
        SecurityCredential: securityCredential('Safaricom999!*!', key()),
        CommandID: 'TransactionReversal',
        TransactionID: 'SZZ0000001',
        Amount: '100',
        ReceiverParty: SHORTCODE,
        ReceiverIdentifierType: '11',
        ResultURL: `${receiverUrl}/y/result`,
        QueueTimeOutURL: `${receiverUrl}/y/timeout`,
        Remarks: 'Refund test',
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      errorCode: '400.002.02',
      errorMessage: 'Bad Request - Invalid RecieverIdentifierType',
    });
  });
});

describe('simulated Transaction Status', () => {
  it('finds a payment by its receipt, and an STK payment by the id the simulator is set to take', async () => {
    const receipt = await paybillPayment(250);
    const path = `/ts/${++seq}`;
    await client.transactionStatus({
      initiator: 'testapi',
      securityCredential: securityCredential('Safaricom999!*!', key()),
      transactionId: receipt,
      partyA: SHORTCODE,
      identifierType: '4',
      resultUrl: `${receiverUrl}${path}/result`,
      queueTimeoutUrl: `${receiverUrl}${path}/timeout`,
      remarks: 'Lookup',
      occasion: 'ORD1',
    });
    const found = await resultOf(`${path}/result`);
    expect(found.resultCode).toBe('0');
    expect(found.parameters.get('ReceiptNo')).toBe(receipt);
    expect(found.parameters.get('TransactionStatus')).toBe('Completed');
    expect(found.parameters.get('Amount')).toBe(250);

    // An STK payment: this simulator takes the MerchantRequestID, not the CheckoutRequestID.
    const pushed = await client.stkPush({
      amount: 99,
      phone: '254708374149',
      accountReference: 'ORD2',
      description: 'Duka order',
      callbackUrl: `${receiverUrl}/stk`,
    });
    await expect.poll(() => sim.receipts.some((r) => r.checkoutRequestId === pushed.checkoutRequestId)).toBe(true);
    const lookups: Record<string, string> = {};
    for (const [name, id] of [
      ['checkout', pushed.checkoutRequestId],
      ['merchant', pushed.merchantRequestId],
    ] as const) {
      const p = `/ts/${++seq}`;
      await client.transactionStatus({
        initiator: 'testapi',
        securityCredential: securityCredential('Safaricom999!*!', key()),
        originalConversationId: id,
        partyA: SHORTCODE,
        identifierType: '4',
        resultUrl: `${receiverUrl}${p}/result`,
        queueTimeoutUrl: `${receiverUrl}${p}/timeout`,
        remarks: 'Lookup',
      });
      lookups[name] = (await resultOf(`${p}/result`)).resultCode;
    }
    expect(lookups).toEqual({ checkout: 'R000002', merchant: '0' });
  });
});

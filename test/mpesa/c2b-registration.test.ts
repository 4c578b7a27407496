import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MpesaConfig } from '../../src/server/config.js';
import { type DarajaSimulator, startDarajaSimulator } from '../../src/server/mpesa/simulator/index.js';
import { c2bRegistrationRefusal } from '../../src/server/payments/runtime.js';
import { startTestShop } from '../support/shop.js';

/**
 * In production, a shop without the initiator (MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD)
 * cannot check a Paybill confirmation with M-Pesa by Transaction Status: it registers its C2B URLs
 * only when MPESA_CALLBACK_ALLOWED_IPS keeps everyone but Safaricom out, and says so at start.
 */

type Rule = Pick<MpesaConfig, 'env' | 'initiatorName' | 'initiatorPassword' | 'callbackAllowedIps'>;
const bare: Rule = { env: 'production', initiatorName: undefined, initiatorPassword: undefined, callbackAllowedIps: undefined };

describe('c2bRegistrationRefusal', () => {
  it('refuses in production with neither the initiator nor the allow-list, naming both settings', () => {
    const refusal = c2bRegistrationRefusal(bare);
    expect(refusal).toMatch(/MPESA_CALLBACK_ALLOWED_IPS/);
    expect(refusal).toMatch(/MPESA_INITIATOR_NAME and MPESA_INITIATOR_PASSWORD/);
    expect(c2bRegistrationRefusal({ ...bare, callbackAllowedIps: [] })).toBe(refusal);
    expect(c2bRegistrationRefusal({ ...bare, initiatorName: 'api-op' })).toBe(refusal);
  });

  it('allows it with the allow-list, with the initiator, or outside production', () => {
    expect(c2bRegistrationRefusal({ ...bare, callbackAllowedIps: ['196.201.214.200'] })).toBeNull();
    expect(c2bRegistrationRefusal({ ...bare, initiatorName: 'api-op', initiatorPassword: 'pw' })).toBeNull();
    expect(c2bRegistrationRefusal({ ...bare, env: 'sandbox' })).toBeNull();
    expect(c2bRegistrationRefusal({ ...bare, env: 'simulator' })).toBeNull();
  });
});

describe('a production shop told to register its C2B URLs', () => {
  const KEY = 'prod-key';
  const SECRET = 'prod-secret';
  const SHORTCODE = '600000';
  const PASSKEY = 'prod-passkey';
  let daraja: DarajaSimulator;
  const registrations: Record<string, unknown>[] = [];

  beforeAll(async () => {
    daraja = await startDarajaSimulator({
      consumerKey: KEY,
      consumerSecret: SECRET,
      shortcode: SHORTCODE,
      passkey: PASSKEY,
      c2bRegistration: 'production',
      log: (msg, data) => {
        if (msg === 'c2b: urls registered') registrations.push(data ?? {});
      },
    });
  });
  afterAll(() => daraja?.close());

  /** A production shop (its Daraja the simulator started here), and every line it logged. */
  async function productionShop(env: Record<string, string>) {
    const lines: string[] = [];
    const shop = await startTestShop(
      {
        LOG_LEVEL: 'info',
        PUBLIC_URL: 'https://shop.example.co.ke',
        MPESA_ENV: 'production',
        MPESA_BASE_URL: daraja.url,
        MPESA_CONSUMER_KEY: KEY,
        MPESA_CONSUMER_SECRET: SECRET,
        MPESA_SHORTCODE: SHORTCODE,
        MPESA_PASSKEY: PASSKEY,
        MPESA_C2B_REGISTER: 'true',
        MPESA_RECONCILE_INTERVAL_MS: '3600000',
        ...env,
      },
      { logStream: { write: (line: string) => void lines.push(...line.split('\n').filter((l) => l.trim() !== '')) } },
    );
    return { shop, lines };
  }

  it('without the initiator or MPESA_CALLBACK_ALLOWED_IPS, registers nothing and logs why at start', async () => {
    const { shop, lines } = await productionShop({});
    try {
      const refusal = lines
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .find((l) => l.msg.includes('C2B URLs not registered'));
      expect(refusal?.level).toBe(50);
      expect(refusal?.msg).toMatch(/MPESA_CALLBACK_ALLOWED_IPS/);
      expect(refusal?.msg).toMatch(/MPESA_INITIATOR_NAME/);
      // Registration would have been under way by now (it is not awaited in production): the wait
      // is the test, nothing may be registered within it.
      await sleep(500);
      expect(registrations).toEqual([]);
    } finally {
      await shop.stop();
    }
  });

  it('with MPESA_CALLBACK_ALLOWED_IPS, registers the URLs', async () => {
    const { shop, lines } = await productionShop({ MPESA_CALLBACK_ALLOWED_IPS: '196.201.214.200' });
    try {
      await expect.poll(() => registrations.length, { timeout: 10_000 }).toBe(1);
      expect(registrations[0]).toMatchObject({ shortcode: SHORTCODE, to: 'https://shop.example.co.ke' });
      await expect.poll(() => lines.some((l) => l.includes('M-Pesa C2B URLs registered'))).toBe(true);
      expect(lines.some((l) => l.includes('C2B URLs not registered'))).toBe(false);
    } finally {
      await shop.stop();
    }
  });
});

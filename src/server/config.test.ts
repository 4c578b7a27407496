import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const LIVE = {
  MPESA_CONSUMER_KEY: 'key',
  MPESA_CONSUMER_SECRET: 'secret',
  MPESA_SHORTCODE: '600000',
  MPESA_PASSKEY: 'passkey',
};

describe('M-Pesa settings', () => {
  it('has production callbacks on https only; the sandbox may use http', () => {
    expect(() => loadConfig({ ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: 'http://shop.example.co.ke' })).toThrow(
      /MPESA_ENV=production needs an https callback/,
    );
    expect(() =>
      loadConfig({ ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: 'http://shop', MPESA_CALLBACK_BASE_URL: 'http://x.co.ke' }),
    ).toThrow(/https/);
    const live = loadConfig({ ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: 'https://shop.example.co.ke' });
    expect(live.mpesa.env).toBe('production');
    expect(loadConfig({ ...LIVE, MPESA_ENV: 'sandbox', PUBLIC_URL: 'http://10.0.0.5:3000' }).mpesa.env).toBe('sandbox');
  });

  it('reads the Daraja timeout, the callback allow-list and confirmation', () => {
    const config = loadConfig({
      MPESA_HTTP_TIMEOUT_MS: '2500',
      MPESA_CALLBACK_ALLOWED_IPS: '196.201.214.200, 196.201.214.206 2001:db8::1',
      MPESA_CONFIRM_CALLBACKS: 'false',
    }).mpesa;
    expect(config.httpTimeoutMs).toBe(2500);
    expect(config.callbackAllowedIps).toEqual(['196.201.214.200', '196.201.214.206', '2001:db8::1']);
    expect(config.confirmCallbacks).toBe(false);
    const defaults = loadConfig({}).mpesa;
    expect(defaults).toMatchObject({ httpTimeoutMs: 10_000, callbackAllowedIps: undefined, confirmCallbacks: true });
    expect(() => loadConfig({ MPESA_CALLBACK_ALLOWED_IPS: 'safaricom.co.ke' })).toThrow(/must list IP addresses/);
    expect(() => loadConfig({ MPESA_HTTP_TIMEOUT_MS: '0' })).toThrow(/at least 1/);
  });
});

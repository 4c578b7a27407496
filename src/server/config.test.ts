import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, productionProblems } from './config.js';

const LIVE = {
  MPESA_CONSUMER_KEY: 'key',
  MPESA_CONSUMER_SECRET: 'secret',
  MPESA_SHORTCODE: '600000',
  MPESA_PASSKEY: 'passkey',
};

const PRODUCTION = {
  ...LIVE,
  NODE_ENV: 'production',
  MPESA_ENV: 'production',
  SEED_DEMO: 'false',
  PUBLIC_URL: 'https://shop.example.co.ke',
  METRICS_TOKEN: 'token',
};

describe('a production configuration', () => {
  it('starts with every setting a real shop needs', () => {
    expect(productionProblems(PRODUCTION)).toEqual([]);
    expect(loadConfig(PRODUCTION).nodeEnv).toBe('production');
  });

  it('names each demo default it refuses, one line each', () => {
    const problems = productionProblems({ NODE_ENV: 'production' });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/MPESA_ENV[^\n]*\n[^\n]*SEED_DEMO[^\n]*\n[^\n]*PUBLIC_URL[^\n]*\n[^\n]*METRICS_TOKEN/);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
  });

  it('allows the simulator and open metrics only when asked for explicitly', () => {
    expect(productionProblems({ ...PRODUCTION, MPESA_ENV: 'simulator' })).toEqual([
      expect.stringContaining('ALLOW_SIMULATOR_IN_PRODUCTION=true'),
    ]);
    expect(productionProblems({ ...PRODUCTION, MPESA_ENV: 'simulator', ALLOW_SIMULATOR_IN_PRODUCTION: 'true' })).toEqual([]);
    expect(productionProblems({ ...PRODUCTION, METRICS_TOKEN: undefined, METRICS_PUBLIC: 'true' })).toEqual([]);
    expect(productionProblems({ ...PRODUCTION, METRICS_TOKEN: '' })).toEqual([expect.stringContaining('METRICS_TOKEN')]);
  });

  it('refuses http and localhost addresses', () => {
    for (const url of [
      'http://shop.example.co.ke',
      'https://localhost',
      'https://LOCALHOST.:8443/x',
      'https://shop.localhost',
      'nonsense',
    ]) {
      expect(productionProblems({ ...PRODUCTION, PUBLIC_URL: url }), url).toEqual([expect.stringContaining('PUBLIC_URL')]);
      expect(productionProblems({ ...PRODUCTION, MPESA_CALLBACK_BASE_URL: url }), url).toEqual([
        expect.stringContaining('MPESA_CALLBACK_BASE_URL'),
      ]);
    }
    // Outside production only the live M-Pesa callback is held to https (and never localhost).
    expect(() => loadConfig({ ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: 'https://localhost:3000' })).toThrow(/not localhost/);
  });
});

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

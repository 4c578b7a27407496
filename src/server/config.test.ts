import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, productionProblems, trustProxyOption } from './config.js';

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

  it('refuses a password hash cost below the default, naming the variable', () => {
    expect(productionProblems({ ...PRODUCTION, ARGON2_MEMORY_KIB: '8' })).toEqual([
      'NODE_ENV=production needs ARGON2_MEMORY_KIB of at least 19456 (the default), got "8": a lower cost makes stolen password hashes quick to guess',
    ]);
    expect(productionProblems({ ...PRODUCTION, ARGON2_TIME_COST: '1' })).toEqual([
      expect.stringContaining('ARGON2_TIME_COST of at least 2'),
    ]);
    expect(productionProblems({ ...PRODUCTION, ARGON2_TIME_COST: 'lots' })).toEqual([
      expect.stringContaining('ARGON2_TIME_COST'),
    ]);
    expect(() => loadConfig({ ...PRODUCTION, ARGON2_MEMORY_KIB: '8', ARGON2_TIME_COST: '1' })).toThrow(
      /ARGON2_MEMORY_KIB[^\n]*\n[^\n]*ARGON2_TIME_COST/,
    );
    // A higher cost is the operator's choice; unset is the default.
    const stronger = loadConfig({ ...PRODUCTION, ARGON2_MEMORY_KIB: '65536', ARGON2_TIME_COST: '3' });
    expect(stronger.passwordCost).toEqual({ memoryKib: 65_536, timeCost: 3 });
    expect(loadConfig(PRODUCTION).passwordCost).toEqual({ memoryKib: 19_456, timeCost: 2 });
    // Outside production (the tests) the cost may go down to Argon2's least.
    expect(loadConfig({ NODE_ENV: 'test', ARGON2_MEMORY_KIB: '8', ARGON2_TIME_COST: '1' }).passwordCost).toEqual({
      memoryKib: 8,
      timeCost: 1,
    });
    expect(() => loadConfig({ NODE_ENV: 'test', ARGON2_MEMORY_KIB: '4' })).toThrow(
      'ARGON2_MEMORY_KIB must be a whole number of at least 8',
    );
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

  it('refuses a live callback to an address Safaricom cannot reach: this machine, or a private network', () => {
    for (const url of [
      'https://127.0.0.1',
      'https://10.0.0.5',
      'https://192.168.1.20:8443',
      'https://[fd00::1]',
      'https://100.64.0.9',
    ]) {
      expect(() => loadConfig({ ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: url }), url).toThrow(
        /MPESA_ENV=production needs an https callback/,
      );
      expect(
        () =>
          loadConfig({
            ...LIVE,
            MPESA_ENV: 'production',
            PUBLIC_URL: 'https://shop.example.co.ke',
            MPESA_CALLBACK_BASE_URL: url,
          }),
        url,
      ).toThrow(/MPESA_CALLBACK_BASE_URL/);
    }
    // A public address, written as a number, is reachable.
    expect(loadConfig({ ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: 'https://41.90.64.10' }).mpesa.env).toBe('production');
  });

  it('refunds with the initiator and, against Safaricom, its certificate; the demo has the simulator’s test initiator', () => {
    const demo = loadConfig({}).mpesa;
    expect(demo).toMatchObject({ initiatorName: 'testapi', initiatorPassword: 'Safaricom999!*!', certPath: undefined });
    const live = { ...LIVE, MPESA_ENV: 'production', PUBLIC_URL: 'https://shop.example.co.ke' };
    expect(loadConfig(live).mpesa.initiatorName).toBeUndefined();
    expect(() => loadConfig({ ...live, MPESA_INITIATOR_NAME: 'shopapi', MPESA_INITIATOR_PASSWORD: 'pw' })).toThrow(
      /MPESA_ENV=production needs MPESA_CERT_PATH/,
    );
    expect(() => loadConfig({ ...live, MPESA_INITIATOR_NAME: 'shopapi' })).toThrow(/go together/);
    const withCert = loadConfig({
      ...live,
      MPESA_INITIATOR_NAME: 'shopapi',
      MPESA_INITIATOR_PASSWORD: 'pw',
      MPESA_CERT_PATH: 'certs/prod.cer',
    });
    expect(withCert.mpesa.certPath).toMatch(/certs\/prod\.cer$/);
    expect(withCert.mpesa).toMatchObject({ resultWaitMs: 600_000, reversalMaxAttempts: 3, reversalIdentifierType: '11' });
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

describe('every variable', () => {
  it('has a default, so that no configuration at all runs the demo shop on the embedded database', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      webConcurrency: 1,
      host: '0.0.0.0',
      databaseUrl: undefined,
      pgliteSharedBuffersMb: 128,
      publicUrl: 'http://localhost:3000',
      adminEmail: 'admin@example.com',
      seedDemo: true,
      trustProxy: false,
      secureCookies: false,
      mail: { pollIntervalMs: 5_000, retryBaseMs: 30_000, maxAttempts: 8 },
      rateLimits: { login: { max: 10, windowMs: 15 * 60_000 } },
    });
    expect(config.mpesa).toMatchObject({
      env: 'simulator',
      shortcode: '174379',
      transactionType: 'paybill',
      giveUpAfterMs: 600_000,
    });
  });

  it('reads its value in the forms an operator writes', () => {
    const config = loadConfig({
      PORT: '8080',
      SEED_DEMO: 'No',
      SECURE_COOKIES: 'ON',
      PUBLIC_URL: 'https://shop.example.co.ke//',
      ADMIN_EMAIL: ' Owner@Example.com ',
      TRUST_PROXY: '10.0.0.0/8',
      WEB_CONCURRENCY: 'auto',
      DATA_DIR: '',
      PGLITE_SHARED_BUFFERS_MB: '32',
    });
    expect(config).toMatchObject({
      port: 8080,
      seedDemo: false,
      secureCookies: true,
      publicUrl: 'https://shop.example.co.ke',
      adminEmail: 'owner@example.com',
      trustProxy: ['10.0.0.0/8'],
      // "auto" on the embedded database is the one process it allows.
      webConcurrency: 1,
      pgliteSharedBuffersMb: 32,
    });
    expect(config.dataDir).toMatch(/data$/);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be a port number'],
    [{ PORT: '70000' }, 'PORT must be a port number'],
    [{ SESSION_DAYS: '1.5' }, 'SESSION_DAYS must be a whole number'],
    [{ MAIL_MAX_ATTEMPTS: '-1' }, 'MAIL_MAX_ATTEMPTS must be a whole number'],
    [{ PGLITE_SHARED_BUFFERS_MB: '0' }, 'PGLITE_SHARED_BUFFERS_MB must be a whole number of at least 1'],
    [{ WEB_CONCURRENCY: 'many' }, 'WEB_CONCURRENCY must be a whole number of at least 1, or auto'],
    [{ WEB_CONCURRENCY: '2' }, 'WEB_CONCURRENCY=2 needs DATABASE_URL'],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO must be true or false, got "maybe"'],
    [{ MPESA_ENV: 'live' }, 'MPESA_ENV must be simulator, sandbox or production, got "live"'],
    [{ MPESA_TRANSACTION_TYPE: 'cash' }, 'MPESA_TRANSACTION_TYPE must be paybill or till'],
    [{ DATABASE_URL: 'mysql://nope' }, 'DATABASE_URL must start with postgres://'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL must look like redis://'],
    [{ SMTP_URL: 'mail.example.com' }, 'SMTP_URL must look like smtp://'],
    [{ MPESA_ENV: 'sandbox' }, 'MPESA_ENV=sandbox needs MPESA_CONSUMER_KEY, MPESA_CONSUMER_SECRET'],
    [{ ...LIVE, MPESA_ENV: 'sandbox', MPESA_TRANSACTION_TYPE: 'till' }, 'MPESA_TRANSACTION_TYPE=till needs MPESA_TILL_NUMBER'],
  ])('refuses %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('names every bad variable at once, one line each', () => {
    try {
      loadConfig({ PORT: 'x', SEED_DEMO: 'perhaps', MPESA_HTTP_TIMEOUT_MS: '0' });
      expect.unreachable('the configuration was accepted');
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'PORT must be a port number (0 to 65535)',
        'SEED_DEMO must be true or false, got "perhaps"',
        'MPESA_HTTP_TIMEOUT_MS must be a whole number of at least 1',
      ]);
    }
  });
});

describe('TRUST_PROXY', () => {
  it('lists the reverse proxies by address or CIDR range, IPv4 and IPv6, separated by commas or spaces', () => {
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7 ,::1 2001:DB8::/32,loopback ' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      '2001:db8::/32',
      'loopback',
    ]);
    // The list is what production takes too.
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
  });

  it('trusts no proxy when unset, blank or false', () => {
    for (const value of [undefined, '', '  ', 'false', 'FALSE']) {
      expect(loadConfig({ TRUST_PROXY: value }).trustProxy, String(value)).toBe(false);
    }
  });

  it('refuses in production a value that believes every peer, naming TRUST_PROXY and what to set instead', () => {
    for (const value of ['true', 'TRUE', '*', 'all', '0.0.0.0/0', '127.0.0.1, ::/0']) {
      const problems = productionProblems({ ...PRODUCTION, TRUST_PROXY: value });
      expect(problems, value).toEqual([expect.stringContaining(`NODE_ENV=production refuses TRUST_PROXY=${value}`)]);
      expect(problems[0]).toContain("Set TRUST_PROXY to the reverse proxies' addresses or CIDR ranges (e.g. 127.0.0.1");
      expect(() => loadConfig({ ...PRODUCTION, TRUST_PROXY: value }), value).toThrow(ConfigError);
    }
  });

  it('still lets a shop outside production believe every peer with true, * or all', () => {
    for (const value of ['true', '*', 'all', 'True']) expect(loadConfig({ TRUST_PROXY: value }).trustProxy, value).toBe(true);
  });

  it('takes a whole number as a hop count (0 trusts no one), and gives Fastify a trust function for it', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toEqual({ hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow('a hop count is at most 10 proxies');
    const trust = trustProxyOption({ hops: 2 });
    if (typeof trust !== 'function') throw new Error('a hop count is a trust function');
    expect([0, 1, 2].map((hop) => trust('203.0.113.7', hop))).toEqual([true, true, false]);
  });

  it.each([
    ['nginx.internal'],
    ['10.0.0.0/33'],
    ['::1/129'],
    ['10.0.0.0/'],
    ['10.0.0/8'],
    ['127.0.0.1;10.0.0.1'],
    ['10.0.0.0/255.0.0.0'],
    ['yes'],
  ])('refuses %s, naming the variable and the form it takes', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      "TRUST_PROXY must be false, or the reverse proxies' addresses or CIDR ranges separated by commas (e.g. 127.0.0.1 or 10.0.0.0/8, fd00::/8), got",
    );
  });
});

describe('C2B registration settings', () => {
  it('registers the Paybill URLs by default only with the simulator, in v2 unless told v1', () => {
    expect(loadConfig({}).mpesa).toMatchObject({ c2bRegister: true, c2bVersion: 'v2' });
    expect(loadConfig({ ...LIVE, MPESA_ENV: 'sandbox' }).mpesa.c2bRegister).toBe(false);
    expect(
      loadConfig({ ...LIVE, MPESA_ENV: 'sandbox', MPESA_C2B_REGISTER: 'true', MPESA_C2B_VERSION: 'v1' }).mpesa,
    ).toMatchObject({
      c2bRegister: true,
      c2bVersion: 'v1',
    });
    expect(() => loadConfig({ MPESA_C2B_VERSION: 'v3' })).toThrow(/MPESA_C2B_VERSION/);
    expect(() => loadConfig({ MPESA_C2B_REGISTER: 'maybe' })).toThrow('MPESA_C2B_REGISTER must be true or false, got "maybe"');
  });
});

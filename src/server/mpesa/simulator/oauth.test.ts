import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DarajaSimulator, type SimulatorOptions, startDarajaSimulator } from './index.js';

/** The Daraja simulator over real HTTP: OAuth tokens, and the answers to unknown paths and wrong methods. */

const SHORTCODE = '174379';
const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
const KEY = 'test-key';
const SECRET = 'test-secret';

const BASE_OPTIONS: SimulatorOptions = {
  consumerKey: KEY,
  consumerSecret: SECRET,
  shortcode: SHORTCODE,
  passkey: PASSKEY,
  callbackDelayMs: 250,
};

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function reply(response: Response): Promise<Reply> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('Daraja simulator: OAuth and routing', () => {
  let sim: DarajaSimulator;

  beforeAll(async () => {
    sim = await startDarajaSimulator(BASE_OPTIONS);
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('OAuth', () => {
    it('issues a token with expires_in as a string', async () => {
      const before = sim.tokensIssued;
      const r = await reply(
        await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, {
          headers: { authorization: basic(KEY, SECRET) },
        }),
      );
      expect(r.status).toBe(200);
      expect(r.body.access_token).toMatch(/^[A-Za-z0-9]{28}$/);
      expect(r.body.expires_in).toBe('3599');
      expect(sim.tokensIssued).toBe(before + 1);
    });

    it('rejects missing, non-Basic and wrong credentials with 400.008.01', async () => {
      for (const authorization of [undefined, 'Bearer abc', basic(KEY, 'wrong'), basic('wrong', SECRET)]) {
        const headers: Record<string, string> = authorization ? { authorization } : {};
        const r = await reply(await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { headers }));
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ errorCode: '400.008.01', requestId: expect.any(String) });
        expect(r.body.errorMessage).toEqual(expect.any(String));
      }
    });

    it('rejects a missing or wrong grant type with 400.008.02', async () => {
      for (const qs of ['', '?grant_type=password']) {
        const r = await reply(
          await fetch(`${sim.url}/oauth/v1/generate${qs}`, { headers: { authorization: basic(KEY, SECRET) } }),
        );
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ errorCode: '400.008.02', errorMessage: 'Invalid grant type passed' });
      }
    });

    it('sends expires_in as a number when asked to', async () => {
      const other = await startDarajaSimulator({ ...BASE_OPTIONS, expiresInAsNumber: true, tokenTtlSeconds: 120 });
      try {
        const r = await reply(
          await fetch(`${other.url}/oauth/v1/generate?grant_type=client_credentials`, {
            headers: { authorization: basic(KEY, SECRET) },
          }),
        );
        expect(r.body.expires_in).toBe(120);
      } finally {
        await other.close();
      }
    });
  });

  describe('routing', () => {
    it('answers an unknown path with 404.001.01 and a wrong method with 405.001', async () => {
      const notFound = await reply(await fetch(`${sim.url}/mpesa/b2c/v3/paymentrequest`, { method: 'POST' }));
      expect(notFound.status).toBe(404);
      expect(notFound.body).toMatchObject({ errorCode: '404.001.01', errorMessage: 'Resource not found' });

      const wrongMethod = await reply(await fetch(`${sim.url}/mpesa/stkpush/v1/processrequest`));
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.body).toMatchObject({ errorCode: '405.001', errorMessage: 'Method Not Allowed' });

      const postToken = await reply(
        await fetch(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { method: 'POST' }),
      );
      expect(postToken.status).toBe(405);
    });
  });
});

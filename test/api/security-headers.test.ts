import fastifyHelmet from '@fastify/helmet';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import securityHeaders, { helmetOptions } from '../../src/server/plugins/packages/security-headers.js';
import { buildTestApp, type TestShop } from '../support/shop.js';

/**
 * The shop works helmet's headers out once, at start (src/server/plugins/packages/security-headers.ts), instead of
 * registering @fastify/helmet, which runs helmet on every request. Its answers must carry exactly
 * the headers @fastify/helmet would send with the same options, so a helmet upgrade that changes
 * them, or a change to the plugin, shows here.
 */

type Headers = LightMyRequestResponse['headers'];

/** The same routes on every app, so that what differs between two apps is what their plugins add. */
function withRoutes(app: FastifyInstance): FastifyInstance {
  app.get('/page', (_request, reply) => reply.type('text/html; charset=utf-8').send('<!doctype html><title>Duka</title>'));
  app.get('/json', () => ({ products: [] }));
  app.get('/refused', () => {
    throw Object.assign(new Error('not valid'), { statusCode: 400 });
  });
  app.get('/failed', () => {
    throw new Error('a bug');
  });
  app.get('/moved', (_request, reply) => reply.redirect('/page', 303));
  // As /uploads/:name sets a policy of its own: the route's header must win in both.
  app.get('/own-policy', (_request, reply) => reply.header('content-security-policy', "default-src 'none'").send('image'));
  app.register(async (scope) => {
    // An error handler that fails itself, so Fastify's last-resort handler answers.
    scope.setErrorHandler(() => {
      throw new Error('the error handler failed');
    });
    scope.get('/handler-failed', () => {
      throw new Error('a bug');
    });
  });
  return app;
}

async function ready(app: FastifyInstance): Promise<FastifyInstance> {
  await app.ready();
  return app;
}

/** A tiny app with @fastify/helmet, given the options the shop's plugin gives helmet. */
function withFastifyHelmet(secureCookies: boolean): Promise<FastifyInstance> {
  const app = Fastify();
  app.register(fastifyHelmet, helmetOptions(secureCookies));
  return ready(withRoutes(app));
}

/** Every header but the date, which two answers given a second apart need not share. */
function comparable({ date: _, ...headers }: Headers): Headers {
  return headers;
}

const REQUESTS: [string, InjectOptions][] = [
  ['an HTML page', { method: 'GET', url: '/page' }],
  ['a JSON answer', { method: 'GET', url: '/json' }],
  ['a HEAD request', { method: 'HEAD', url: '/page' }],
  ['an unknown path', { method: 'GET', url: '/nowhere' }],
  ['a refused request', { method: 'GET', url: '/refused' }],
  ['a failure', { method: 'GET', url: '/failed' }],
  ["a failure of the error handler's own", { method: 'GET', url: '/handler-failed' }],
  ['a redirect', { method: 'GET', url: '/moved' }],
  ['a route with a policy of its own', { method: 'GET', url: '/own-policy' }],
];

// secureCookies is the one thing the plugin's headers depend on (HSTS, upgrade-insecure-requests).
describe.each([
  ['over plain http (secureCookies false)', false],
  ['behind HTTPS (secureCookies true)', true],
])('the shop plugin and @fastify/helmet %s', (_where, secureCookies) => {
  let ours: FastifyInstance;
  let theirs: FastifyInstance;
  beforeAll(async () => {
    const app = Fastify();
    app.register(securityHeaders, { secureCookies });
    ours = await ready(withRoutes(app));
    theirs = await withFastifyHelmet(secureCookies);
  });
  afterAll(async () => {
    await ours?.close();
    await theirs?.close();
  });

  it.each(REQUESTS)('send the same headers on %s', async (_what, request) => {
    const [mine, helmets] = await Promise.all([ours.inject(request), theirs.inject(request)]);
    expect(mine.statusCode).toBe(helmets.statusCode);
    expect(comparable(mine.headers)).toEqual(comparable(helmets.headers));
  });

  it('are compared on headers there are: helmet sends its policy, and HSTS only behind HTTPS', async () => {
    const { headers } = await theirs.inject({ method: 'GET', url: '/json' });
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['strict-transport-security'] !== undefined).toBe(secureCookies);
  });
});

/**
 * Headers of the shop's answers that differ from @fastify/helmet's on purpose: by path prefix,
 * each header with the reason. Each is checked to differ still, so the list stays true.
 */
const DELIBERATE: Record<string, Record<string, string>> = {
  '/uploads/': {
    'content-security-policy':
      'uploaded files are served under a sandboxing policy of their own (routes/images.ts), so even a crafted file runs nothing',
  },
};

describe("the shop's answers", () => {
  let shop: TestShop;
  let theirs: FastifyInstance;
  /** The headers @fastify/helmet adds to an answer: those a bare app's same answer lacks. */
  let helmetNames: string[];

  beforeAll(async () => {
    shop = await buildTestApp();
    theirs = await withFastifyHelmet(shop.config.secureCookies);
    const bare = await ready(withRoutes(Fastify()));
    try {
      const [withHelmet, without] = await Promise.all([theirs.inject('/json'), bare.inject('/json')]);
      helmetNames = Object.keys(withHelmet.headers).filter((name) => !(name in without.headers));
    } finally {
      await bare.close();
    }
  });
  afterAll(async () => {
    await theirs?.close();
    await shop?.stop();
  });

  const pick = (headers: Headers, names: string[]) => Object.fromEntries(names.map((name) => [name, headers[name]]));

  it.each([
    ['an HTML page', '/'],
    ['a JSON answer', '/api/products'],
    ['an API path that does not exist', '/api/nope'],
    ['a refused request', '/api/products/not-an-id'],
    ['a missing uploaded image', '/uploads/0123456789abcdef01234567.webp'],
  ])('carry the headers @fastify/helmet would send on %s', async (_what, url) => {
    expect(helmetNames).toContain('content-security-policy');
    const [mine, helmets] = await Promise.all([shop.app.inject(url), theirs.inject('/json')]);
    const deliberate = Object.entries(DELIBERATE).find(([prefix]) => url.startsWith(prefix))?.[1] ?? {};
    for (const name of Object.keys(deliberate)) {
      expect(mine.headers[name], `${name} on ${url}: ${deliberate[name]}`).not.toEqual(helmets.headers[name]);
    }
    const compared = helmetNames.filter((name) => !(name in deliberate));
    expect(pick(mine.headers, compared)).toEqual(pick(helmets.headers, compared));
  });
});

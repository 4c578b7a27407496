import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentEtag, sendConditional } from './conditional.js';

const ETAG = '"abc123"';

describe('conditional GET', () => {
  const app = Fastify();
  beforeAll(async () => {
    app.get('/thing', (request, reply) => sendConditional(request, reply, ETAG, () => 'the body'));
    app.post('/thing', (request, reply) => sendConditional(request, reply, ETAG, () => 'posted'));
    await app.ready();
  });
  afterAll(() => app.close());

  const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/thing', headers });

  it.each([
    ['the strong tag', ETAG],
    ['the weak form a compressing proxy makes', `W/${ETAG}`],
    ['a list holding it', `"other", ${ETAG}`],
    ['a list holding its weak form', `W/"other",W/${ETAG}`],
    ['any tag', '*'],
  ])('answers 304 with no body for %s', async (_what, ifNoneMatch) => {
    const res = await get({ 'if-none-match': ifNoneMatch });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(ETAG);
  });

  it.each([
    ['another tag', '"abc1234"'],
    ['another weak tag', 'W/"abc12"'],
    ['a list without it', '"a", "b"'],
  ])('answers 200 with the body for %s', async (_what, ifNoneMatch) => {
    const res = await get({ 'if-none-match': ifNoneMatch });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('the body');
  });

  it('answers 200 without If-None-Match', async () => {
    expect((await get({})).statusCode).toBe(200);
    expect((await get({ 'if-modified-since': new Date().toUTCString() })).statusCode).toBe(200);
  });

  it("answers 304 to a revalidation that also says no-cache, as fetch() sends them (it is the caches' directive)", async () => {
    expect((await get({ 'if-none-match': ETAG, 'cache-control': 'no-cache', pragma: 'no-cache' })).statusCode).toBe(304);
  });

  it('never answers 304 to an unsafe method', async () => {
    const res = await app.inject({ method: 'POST', url: '/thing', headers: { 'if-none-match': '*' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('posted');
  });
});

describe('contentEtag', () => {
  it('is a strong tag that follows the bytes, the same on every instance', () => {
    const tag = contentEtag(Buffer.from('a picture'));
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(contentEtag('a picture')).toBe(tag);
    expect(contentEtag(Buffer.from('another picture'))).not.toBe(tag);
  });
});

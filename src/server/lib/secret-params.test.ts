import { describe, expect, it } from 'vitest';
import { redactedUrl } from './secret-params.js';

/** A request as Fastify hands it to the log serializer, matched to `route`. */
const matched = (url: string, route: string, secretParams?: readonly string[]) => ({
  url,
  routeOptions: { url: route, config: secretParams ? { secretParams } : {} },
});
/** A request no route of Fastify's matched (a page the web app draws, a 404). */
const unmatched = (url: string) => ({ url, routeOptions: { url: undefined, config: {} } });

describe('redactedUrl', () => {
  it('redacts the segments the matched route declares secret, and only those', () => {
    expect(
      redactedUrl(matched('/api/hooks/daraja/rev/s3cr3t/1234/result', '/api/hooks/daraja/rev/:token/:id/result', ['token'])),
    ).toBe('/api/hooks/daraja/rev/[redacted]/1234/result');
    expect(redactedUrl(matched('/api/keys/k3y/use/v4lue', '/api/keys/:key/use/:value', ['key', 'value']))).toBe(
      '/api/keys/[redacted]/use/[redacted]',
    );
    expect(redactedUrl(matched('/api/orders/abc', '/api/orders/:id'))).toBe('/api/orders/abc');
  });

  it('takes a parameter named token as secret on any route, declared or not', () => {
    expect(redactedUrl(matched('/api/hooks/new/s3cr3t', '/api/hooks/new/:token'))).toBe('/api/hooks/new/[redacted]');
  });

  it('keeps the query and a trailing slash, and a secret that is percent-encoded or holds %2F stays one segment', () => {
    expect(redactedUrl(matched('/api/hooks/daraja/stk/s3cr3t/?a=s3cr3t', '/api/hooks/daraja/stk/:token'))).toBe(
      '/api/hooks/daraja/stk/[redacted]/?a=s3cr3t',
    );
    expect(redactedUrl(matched('/api/hooks/daraja/stk/a%2Fb%20c', '/api/hooks/daraja/stk/:token'))).toBe(
      '/api/hooks/daraja/stk/[redacted]',
    );
  });

  it('shows the pattern, secrets redacted, when the URL cannot be lined up with it', () => {
    expect(redactedUrl(matched('/files/s3cr3t/a/b/c', '/files/:token/*'))).toBe('/files/[redacted]/*');
    expect(redactedUrl(matched('/pair/s3cr3t-x', '/pair/:token-:other'))).toBe('/pair/[redacted]-:other');
  });

  it('redacts the reset token of the page the mail links to, which the web app draws without a route of its own', () => {
    expect(redactedUrl(unmatched('/reset-password/abc123'))).toBe('/reset-password/[redacted]');
    expect(redactedUrl(unmatched('/Reset-Password/abc123/?utm=mail'))).toBe('/Reset-Password/[redacted]/?utm=mail');
    expect(redactedUrl(unmatched('/products/abc123'))).toBe('/products/abc123');
  });

  it('returns an unmatched or odd URL as it came, without throwing', () => {
    expect(redactedUrl(unmatched('/api/nope/s3cr3t'))).toBe('/api/nope/s3cr3t');
    expect(redactedUrl(unmatched('/reset-password/%E0%A4%A'))).toBe('/reset-password/%E0%A4%A');
    expect(redactedUrl({})).toBe('');
    expect(redactedUrl({ url: '/x' })).toBe('/x');
  });
});

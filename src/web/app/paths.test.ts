import { describe, expect, it } from 'vitest';
import { safeRedirect } from './paths';

describe('safeRedirect', () => {
  it('keeps paths of this site', () => {
    for (const path of ['/', '/shipping', '/products/abc?x=1#reviews', '/search/chai%20masala', '/admin/orderlist']) {
      expect(safeRedirect(path)).toBe(path);
    }
  });

  it('sends everything else home', () => {
    const payloads = [
      null,
      '',
      'shipping',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/%09/evil.example',
      '/\n/evil.example',
      '/\r\n/evil.example',
      '/%0a/evil.example',
      '/%0d/evil.example',
      '%2F%2Fevil.example',
      '/%2F/evil.example',
      '/%5Cevil.example',
      'https://evil.example/',
      'http:evil.example',
      'javascript:alert(1)',
      '/\u0000/evil.example',
      '/%E0%A4%A',
    ];
    for (const payload of payloads) expect(safeRedirect(payload), JSON.stringify(payload)).toBe('/');
  });
});

import { describe, expect, it } from 'vitest';
import { sameSecret } from './same-secret.js';

describe('sameSecret', () => {
  it('accepts the secret itself and nothing else', () => {
    expect(sameSecret('s3cret-token', 's3cret-token')).toBe(true);
    expect(sameSecret('s3cret-tokeN', 's3cret-token')).toBe(false);
    expect(sameSecret('s3cret', 's3cret-token')).toBe(false);
    expect(sameSecret('s3cret-token-and-more', 's3cret-token')).toBe(false);
    expect(sameSecret('', 's3cret-token')).toBe(false);
    // Compared as text: the same characters in another Unicode form are another secret.
    expect(sameSecret('caf\u00e9', 'cafe\u0301')).toBe(false);
  });
});

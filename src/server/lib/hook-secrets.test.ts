import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HOOK_KINDS, hookSecret } from './hook-secrets.js';

describe('hookSecret', () => {
  it('is HMAC-SHA256 of the kind under the callback secret, in base64url: one per kind, none the secret', () => {
    const master = 'a-callback-secret-of-forty-characters-00';
    const secrets = HOOK_KINDS.map((kind) => hookSecret(master, kind));
    expect(secrets[0]).toBe(createHmac('sha256', master).update('stk').digest('base64url'));
    expect(new Set(secrets).size).toBe(HOOK_KINDS.length);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(secret).not.toContain(master);
    }
    // The same every time (the URLs given to Daraja outlive a restart), and another secret's differ.
    expect(hookSecret(master, 'c2b')).toBe(secrets[1]);
    expect(hookSecret(`${master}1`, 'c2b')).not.toBe(secrets[1]);
  });
});

import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a secret someone sent (a token, a cookie, a URL's secret path) is the expected one, in
 * time that depends on neither where they differ nor their lengths: both are hashed to 32 bytes
 * first, so an attacker timing the answers learns nothing about the secret.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * A fresh Idempotency-Key: 128 random bits as hex. crypto.getRandomValues rather than randomUUID,
 * which browsers give only to secure pages, and a shop tried over http://192.168.… is not one.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

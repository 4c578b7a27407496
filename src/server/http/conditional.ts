import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';

/**
 * Whether the browser's copy is still good, so the answer is a 304 with no body. The shop's
 * validators are strong ETags, but what the browser holds may be a weak one: a proxy that
 * compresses an answer (nginx's gzip, as deploy/nginx.conf ships) turns `"x"` into `W/"x"`.
 * If-None-Match compares weakly (RFC 9110 §13.1.2), takes a list (`"a", "b"`) and `*`, which
 * `fresh` (the validator check of Express and `send`) implements. Only If-None-Match is given to
 * it: fresh also treats a request's `Cache-Control: no-cache` as "send it all", but that directive
 * is for caches on the way, not for the origin, and fetch() adds it to every request that carries
 * its own If-None-Match, so such revalidations would never get their 304.
 */
export function isNotModified(request: FastifyRequest, etag: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const ifNoneMatch = request.headers['if-none-match'];
  return ifNoneMatch !== undefined && fresh({ 'if-none-match': ifNoneMatch }, { etag });
}

/** A strong ETag for content: the same bytes get the same tag on every instance and after restarts. */
export function contentEtag(content: string | Buffer): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 32)}"`;
}

/**
 * Sends `body` under `etag`, or a 304 when the browser's copy is that one. The caller has set
 * cache-control and content type; a 304 repeats the ETag and cache-control, as it must.
 */
export async function sendConditional(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  body: () => string | Buffer,
): Promise<void> {
  reply.header('etag', etag);
  if (isNotModified(request, etag)) reply.status(304).send();
  else reply.send(body());
  // The send finishes asynchronously (onSend hooks): wait for it, or Fastify would send again.
  await reply;
}

import type { FastifyInstance } from 'fastify';

/** Statuses whose answer has no body, which a fetch Response refuses to carry one for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch that hands each request to `app.inject` instead of a socket, for ApiClient: the request
 * is built as fetch builds it (so a FormData upload gets its multipart body and boundary), and the
 * answer comes back as a fetch Response, every Set-Cookie line kept.
 */
export function injectFetch(app: FastifyInstance): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const answer = await app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers,
      ...(body && { payload: body }),
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(one));
    }
    const content =
      NULL_BODY_STATUSES.has(answer.statusCode) || request.method === 'HEAD' ? null : new Uint8Array(answer.rawPayload);
    return new Response(content, { status: answer.statusCode, statusText: answer.statusMessage, headers: responseHeaders });
  };
}

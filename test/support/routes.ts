import type { ApiClient } from './client.js';

export interface RouteInfo {
  method: string;
  /** As OpenAPI writes it: /api/products/{id} */
  path: string;
}

/** Every /api route the server documents; the OpenAPI document is generated from the route table. */
export async function listApiRoutes(client: ApiClient): Promise<RouteInfo[]> {
  const res = await client.get<{ paths: Record<string, Record<string, unknown>> }>('/api/docs/json');
  if (res.status !== 200) throw new Error(`no OpenAPI document: ${res.status}`);
  return Object.entries(res.body.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => ({ method: m.toUpperCase(), path })),
  );
}

export const routeKey = (r: RouteInfo) => `${r.method} ${r.path}`;

/**
 * Every call Daraja makes into the shop: no browser session, no XSRF token, a secret path token,
 * and an acknowledgement whatever it is sent (an error answer only makes Safaricom retry or give up).
 */
export const DARAJA_HOOK_ROUTES: readonly string[] = [
  'POST /api/hooks/daraja/stk/{token}',
  'POST /api/hooks/daraja/c2b/{token}/confirm',
  'POST /api/hooks/daraja/c2b/{token}/validate',
  'POST /api/hooks/daraja/rev/{token}/{id}/result',
  'POST /api/hooks/daraja/rev/{token}/{id}/timeout',
  'POST /api/hooks/daraja/ts/{token}/{id}/result',
  'POST /api/hooks/daraja/ts/{token}/{id}/timeout',
];

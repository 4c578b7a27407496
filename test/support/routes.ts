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

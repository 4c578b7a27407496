import type { PublicUser } from '../../src/shared/schemas/users.js';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** The error body every failure answers with. */
export interface ErrorResponse {
  errors: { msg: string; path?: string }[];
}

type Body = unknown;

/**
 * A small HTTP client that behaves like the shop's web client in a browser: it keeps cookies,
 * and echoes the XSRF-TOKEN cookie in the X-XSRF-TOKEN header on unsafe requests.
 */
export class ApiClient {
  readonly cookies = new Map<string, string>();
  user: PublicUser | undefined;

  /** `fetchImpl` lets a test reach a server the global fetch cannot, e.g. TLS with a test CA. */
  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private remember(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Sends a request; `raw` skips the XSRF header and JSON encoding for tests of hostile input. */
  async request<T = unknown>(
    method: string,
    path: string,
    options: { json?: Body; body?: BodyInit; headers?: Record<string, string>; xsrf?: boolean } = {},
  ): Promise<ApiResponse<T>> {
    if (method !== 'GET' && method !== 'HEAD' && !this.cookies.has('XSRF-TOKEN') && options.xsrf !== false) {
      await this.request('GET', '/api/health');
    }
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    const xsrf = this.cookies.get('XSRF-TOKEN');
    if (xsrf && options.xsrf !== false) headers['x-xsrf-token'] = xsrf;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await this.fetchImpl(this.baseUrl + path, { method, headers, body: body ?? null, redirect: 'manual' });
    this.remember(response.headers);
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('application/json') && text) parsed = JSON.parse(text);
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = unknown>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = unknown>(path: string, json?: Body) {
    return this.request<T>('POST', path, json === undefined ? {} : { json });
  }
  put<T = unknown>(path: string, json?: Body) {
    return this.request<T>('PUT', path, json === undefined ? {} : { json });
  }
  delete<T = unknown>(path: string) {
    return this.request<T>('DELETE', path);
  }

  async signIn(email: string, password: string): Promise<PublicUser> {
    const res = await this.post<PublicUser>('/api/users/auth', { email, password });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.user = res.body;
    return res.body;
  }

  async signUp(name: string, email: string, password: string): Promise<PublicUser> {
    const res = await this.post<PublicUser>('/api/users', { name, email, password });
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.user = res.body;
    return res.body;
  }
}

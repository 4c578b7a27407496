import net from 'node:net';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/server/db/client.js';

/**
 * The fuzz suite's HTTP side: a raw request that may carry any bytes with any content type, with
 * a hard time limit (no answer in time counts as a hang), a cookie jar shared with ApiClient, the
 * judgement of each answer, and a snapshot of the tables a refused request must never change.
 */

/** A cookie jar: ApiClient's `cookies` map can be passed as it is. */
export type Jar = Map<string, string>;

export interface RawRequest {
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Blob | FormData;
  /** false leaves out the X-XSRF-TOKEN header. */
  xsrf?: boolean;
}

export interface Answer {
  /** 0 when no answer came (see error). */
  status: number;
  contentType: string;
  text: string;
  body: unknown;
  ms: number;
  /** A transport failure: no answer in time, connection reset, a body that is not the JSON it says it is. */
  error?: string;
}

function remember(jar: Jar, headers: Headers) {
  for (const line of headers.getSetCookie()) {
    const [pair = '', ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
    if (expired || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}

function cookieHeader(jar: Jar): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

export async function send(baseUrl: string, jar: Jar, request: RawRequest, timeoutMs: number): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  if (jar.size > 0) headers.cookie = cookieHeader(jar);
  const xsrf = jar.get('XSRF-TOKEN');
  if (xsrf && request.xsrf !== false) headers['x-xsrf-token'] = xsrf;
  const started = performance.now();
  try {
    const response = await fetch(baseUrl + request.url, {
      method: request.method,
      headers,
      body: request.body ?? null,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    remember(jar, response.headers);
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    const answer: Answer = { status: response.status, contentType, text, body: text, ms: performance.now() - started };
    if (contentType.includes('application/json') && text !== '') {
      try {
        answer.body = JSON.parse(text);
      } catch {
        answer.error = 'the answer says it is JSON but is not';
      }
    }
    return answer;
  } catch (error) {
    const ms = performance.now() - started;
    const name = error instanceof Error ? error.name : '';
    const reason =
      name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms (a hang)`
        : `no answer: ${String(error)} ${describeCause(error)}`;
    return { status: 0, contentType: '', text: '', body: undefined, ms, error: reason };
  }
}

function describeCause(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause ? `(${cause.code ?? ''} ${cause.message ?? ''})` : '';
}

/**
 * A client that goes away in the middle of its body: the headers promise `declaredLength`
 * bytes, only `prefix` is sent, the connection stays open for `stallMs` (during which `whileStalled`
 * runs — the server must go on serving others) and is then dropped without a word.
 */
export async function sendAndVanish(
  baseUrl: string,
  jar: Jar,
  request: { method: string; url: string; contentType: string; prefix: Buffer; declaredLength: number },
  whileStalled: () => Promise<void>,
): Promise<{ answered: string }> {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect({ host: hostname, port: Number(port) });
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const lines = [
    `${request.method} ${request.url} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Content-Type: ${request.contentType}`,
    `Content-Length: ${request.declaredLength}`,
  ];
  if (jar.size > 0) lines.push(`Cookie: ${cookieHeader(jar)}`);
  const xsrf = jar.get('XSRF-TOKEN');
  if (xsrf) lines.push(`X-XSRF-TOKEN: ${xsrf}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(request.prefix);
  try {
    await whileStalled();
  } finally {
    socket.destroy();
  }
  return { answered: received.split('\r\n')[0] ?? '' };
}

/** What may come back. */
export type Expectation = 'refused' | 'acknowledged' | 'any';

/**
 * Why an answer is wrong, or undefined when it is right: never a 5xx, never a hang; every 4xx in
 * the `{ errors: [{ msg }] }` shape; a request built to be refused gets a 4xx; the M-Pesa callback
 * (which must acknowledge whatever Daraja sends) gets its acknowledgement or a 4xx.
 */
export function judge(answer: Answer, expectation: Expectation): string | undefined {
  if (answer.error) return answer.error;
  const { status } = answer;
  if (status >= 500) return `server error ${status}`;
  if (status >= 400) {
    const errors = (answer.body as { errors?: unknown } | undefined)?.errors;
    if (!Array.isArray(errors) || errors.length === 0) {
      return `${status} without an errors array: ${answer.text.slice(0, 160)}`;
    }
    const bad = errors.find((e) => typeof (e as { msg?: unknown } | null)?.msg !== 'string' || (e as { msg: string }).msg === '');
    if (bad !== undefined) return `${status} with an error that has no msg: ${JSON.stringify(bad)}`;
    return undefined;
  }
  if (status < 200 || status >= 300) return `unexpected status ${status}`;
  if (expectation === 'refused') return `accepted (${status}) a request that must be refused`;
  // Daraja's shapes: 0 acknowledges a result or confirmation; a validation accepts with "0" or
  // refuses an unknown account with "C2B00012".
  const resultCode = (answer.body as { ResultCode?: unknown } | undefined)?.ResultCode;
  if (expectation === 'acknowledged' && resultCode !== 0 && resultCode !== '0' && resultCode !== 'C2B00012') {
    return `callback answered ${status} without the acknowledgement`;
  }
  return undefined;
}

/** The tables whose rows a refused request must leave alone (sessions, rate limits, mail and shop_meta change legitimately). */
export const GUARDED_TABLES = [
  'products',
  'users',
  'orders',
  'order_items',
  'reviews',
  'payment_attempts',
  'password_reset_tokens',
] as const;

export type Snapshot = Record<string, string>;

/** Each guarded table's row count and an md5 of all its rows. */
export async function snapshot(db: Db): Promise<Snapshot> {
  const result: Snapshot = {};
  for (const table of GUARDED_TABLES) {
    const { rows } = (await db.execute(
      sql.raw(`SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS sum FROM ${table} t`),
    )) as unknown as { rows: { n: number; sum: string }[] };
    const row = rows[0];
    result[table] = `${row?.n ?? '?'} rows, md5 ${row?.sum ?? '?'}`;
  }
  return result;
}

/** The tables whose contents differ between two snapshots. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  return Object.keys(before).filter((table) => before[table] !== after[table]);
}

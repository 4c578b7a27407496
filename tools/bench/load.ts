import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type CapturedResponse, HOP_HEADERS } from './captures.js';

/** One request of a case; a case rotates over several (product ids, shoppers, orders). */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadRun {
  requests: number;
  seconds: number;
  /** Every response time, ms. */
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** The generator's CPU time ÷ wall time, 0 to 1 (one thread): near 1, it was the limit. */
  generatorBusy?: number;
}

/**
 * Loads `baseUrl` with autocannon for `seconds`, rotating over `specs` in turn. autocannon runs in
 * a process of its own, so it does not share a thread with the bench's other work (order streams,
 * bookkeeping); the CPU it used says whether the generator, not the server, was the limit.
 */
/**
 * With `amount`, the load stops after that many requests instead of after `seconds`: a case whose
 * every request must be new (distinct typo searches) sends each of its requests exactly once.
 */
export async function load(
  baseUrl: string,
  specs: RequestSpec[],
  connections: number,
  seconds: number,
  amount?: number,
): Promise<LoadRun> {
  const child = fork(fileURLToPath(new URL('./load-worker.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    return await new Promise<LoadRun>((resolve, reject) => {
      child.once('message', (message) => resolve(message as LoadRun));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the load generator exited with ${code}`)));
      child.send({ baseUrl, specs, connections, seconds, amount });
    });
  } finally {
    child.kill();
  }
}

/** The same load, in this process: what the generator's process runs. */
export async function loadHere(
  baseUrl: string,
  specs: RequestSpec[],
  connections: number,
  seconds: number,
  amount?: number,
): Promise<LoadRun> {
  const first = specs[0];
  if (!first) throw new Error('a case needs at least one request');
  let next = 0;
  const rotate = specs.length > 1;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  let finish: (result: autocannon.Result) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: baseUrl,
      connections,
      ...(amount === undefined ? { duration: seconds } : { amount }),
      timeout: 30,
      requests: [
        {
          method: first.method,
          path: first.path,
          headers: first.headers ?? {},
          ...(first.body !== undefined && { body: first.body }),
          ...(rotate && {
            setupRequest: (request: autocannon.Request) => {
              const spec = specs[next++ % specs.length] ?? first;
              return {
                ...request,
                method: spec.method,
                path: spec.path,
                headers: spec.headers ?? {},
                ...(spec.body !== undefined && { body: spec.body }),
              };
            },
          }),
        },
      ],
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await done;
  return {
    requests: latencies.length,
    seconds: (performance.now() - started) / 1000,
    latencies,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

export function mergeRuns(runs: LoadRun[]): LoadRun {
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [code, n] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  return {
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    seconds: runs.reduce((sum, r) => sum + r.seconds, 0),
    latencies: runs.flatMap((r) => r.latencies),
    statuses,
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    timeouts: runs.reduce((sum, r) => sum + r.timeouts, 0),
    generatorBusy: Math.max(0, ...runs.map((r) => r.generatorBusy ?? 0)),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export interface Summary {
  requests: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  /** See LoadRun. */
  generatorBusy: number;
}

export function summarise(run: LoadRun): Summary {
  const sorted = Float64Array.from(run.latencies).sort();
  const values = Array.from(sorted);
  return {
    requests: run.requests,
    reqPerSec: run.requests / run.seconds,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.at(-1) ?? Number.NaN,
    statuses: run.statuses,
    errors: run.errors,
    timeouts: run.timeouts,
    generatorBusy: run.generatorBusy ?? 0,
  };
}

export interface RawResponse {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

/** One request with its answer exactly as sent: status, raw headers and body bytes. */
export function send(baseUrl: string, spec: RequestSpec): Promise<RawResponse> {
  const url = new URL(spec.path, baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: spec.method,
        headers: {
          ...spec.headers,
          ...(spec.body !== undefined && { 'content-length': String(Buffer.byteLength(spec.body)) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, rawHeaders: response.rawHeaders, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(spec.body);
  });
}

export function toCapture(response: RawResponse): CapturedResponse {
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
    const name = response.rawHeaders[i] ?? '';
    if (!HOP_HEADERS.has(name.toLowerCase())) headers.push([name, response.rawHeaders[i + 1] ?? '']);
  }
  return { status: response.status, headers, bodyBase64: response.body.toString('base64') };
}

/** The cookies a response sets, name → value. */
export function setCookies(response: RawResponse): Map<string, string> {
  const cookies = new Map<string, string>();
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
    if (response.rawHeaders[i]?.toLowerCase() !== 'set-cookie') continue;
    const pair = (response.rawHeaders[i + 1] ?? '').split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq > 0) cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return cookies;
}

/** What a steady background stream (orders, anonymous POSTs) got while a load ran. */
export interface StreamResult {
  sent: number;
  perSec: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

/**
 * Sends `specs` in turn at `perSec` requests a second, each on its own, until `stop()` is called,
 * measuring each answer's time: the orders that come in while shoppers browse.
 */
export function stream(baseUrl: string, specs: RequestSpec[], perSec: number): { stop(): Promise<StreamResult> } {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const pending = new Set<Promise<void>>();
  let next = 0;
  const started = performance.now();
  const fire = () => {
    const spec = specs[next++ % specs.length];
    if (!spec) return;
    const sentAt = performance.now();
    const done = send(baseUrl, spec)
      .then(
        (response) => {
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        },
        () => {
          statuses.error = (statuses.error ?? 0) + 1;
        },
      )
      .then(() => {
        latencies.push(performance.now() - sentAt);
        pending.delete(done);
      });
    pending.add(done);
  };
  const timer = perSec > 0 ? setInterval(fire, 1000 / perSec) : undefined;
  return {
    async stop() {
      if (timer) clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(pending);
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        sent: latencies.length,
        perSec: latencies.length / seconds,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        statuses,
      };
    },
  };
}

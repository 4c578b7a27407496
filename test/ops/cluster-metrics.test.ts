import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { metricValue, parseMetrics } from '../support/metrics.js';
import { typescriptProcess } from '../support/node-process.js';
import { PGLITE_EMPTY_ENV } from '../support/pglite-env.js';
import { freePort } from '../support/ports.js';

/**
 * Cluster mode: a scrape lands on one worker, which must answer for all of them. Two real worker
 * processes share one port (test/ops/cluster-metrics-app.ts); every request opens its own
 * connection, so the primary spreads them over both workers.
 */

const WORKERS = 2;
const MAILS = 3;
let child: ChildProcess;
let port: number;

beforeAll(async () => {
  port = await freePort();
  child = spawn(process.execPath, typescriptProcess('test/ops/cluster-metrics-app.ts'), {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      WORKERS: String(WORKERS),
      MAILS: String(MAILS),
      ...(process.env[PGLITE_EMPTY_ENV] && { [PGLITE_EMPTY_ENV]: process.env[PGLITE_EMPTY_ENV] }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  // Two PGlite databases to migrate: slow on a busy machine.
  await vi
    .waitUntil(() => child.exitCode !== null || output.includes(`ready ${port}`), { timeout: 110_000, interval: 100 })
    .catch(() => undefined);
  if (!output.includes(`ready ${port}`)) throw new Error(`the cluster did not start: ${output}`);
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** One GET on a connection of its own (no keep-alive), so the cluster may hand it to any worker. */
function get(path: string): Promise<{ status: number; worker: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, worker: String(res.headers['x-worker']), body }));
    });
    req.on('error', reject);
  });
}

describe('metrics in cluster mode', () => {
  it('any worker scraped answers the sum over all workers', async () => {
    const HITS = 12;
    const hitWorkers = new Set<string>();
    for (let i = 0; i < HITS; i++) {
      const res = await get('/hit');
      expect(res.status).toBe(200);
      hitWorkers.add(res.worker);
    }
    expect(hitWorkers.size).toBe(WORKERS);

    const scrapeWorkers = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const res = await get('/metrics');
      expect(res.status, res.body).toBe(200);
      scrapeWorkers.add(res.worker);
      const samples = parseMetrics(res.body);
      expect(metricValue(samples, 'duka_orders_placed_total')).toBe(HITS);
      expect(metricValue(samples, 'http_request_duration_seconds_count', { route: '/hit', status_code: '200' })).toBe(HITS);
      // Each worker reads the same mail table in a real cluster: the depth is one worker's, not the sum.
      expect(metricValue(samples, 'duka_mail_queue_depth', { status: 'queued' })).toBe(MAILS);
      // Pools are per worker: they add up (PGlite is one connection each).
      expect(metricValue(samples, 'duka_db_pool_connections', { state: 'total' })).toBe(WORKERS);
      expect(metricValue(samples, 'duka_db_queries_total')).toBeGreaterThan(0);
    }
    // Scrapes are requests too, counted in each later scrape.
    const last = parseMetrics((await get('/metrics')).body);
    expect(metricValue(last, 'http_request_duration_seconds_count', { route: '/metrics' })).toBe(4);
    expect(scrapeWorkers.size).toBe(WORKERS);
    console.log(
      `cluster metrics: ${WORKERS} workers, ${HITS} hits and 5 scrapes spread over both; every scrape reported the sum`,
    );
  });
});

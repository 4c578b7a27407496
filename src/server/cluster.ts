import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import { setupClusterMetrics } from './metrics.js';
import { type LocalSimulator, startLocalSimulator } from './mpesa/local-simulator.js';

/**
 * Cluster mode (WEB_CONCURRENCY > 1): this process, the primary, serves nothing itself. It forks
 * the workers, each of which runs the whole shop (startShop) on the same port — node:cluster hands
 * the connections round-robin to them — restarts a worker that dies unexpectedly, and on SIGTERM or
 * SIGINT tells every worker to drain and exits once they all have.
 *
 * What must happen once is safe with several workers because it is in the database: migrations and
 * the seed (with the printed admin password) run under a PostgreSQL advisory lock, so the first
 * worker does them and the others find them done; the mail worker and the M-Pesa reconciler claim
 * their rows with FOR UPDATE SKIP LOCKED. The one thing that is per process is the Daraja
 * simulator (MPESA_ENV=simulator): a prompt lives only in the simulator that received it, so the
 * primary runs a single simulator for all workers (MPESA_SIMULATOR_URL), and any worker's
 * reconciler can query any prompt.
 */

/** A worker that lived this long before dying was healthy: its next restart is immediate again. */
const HEALTHY_AFTER_MS = 30_000;
const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** Workers get this long to finish in-flight requests on shutdown (each also has its own 15 s limit). */
const SHUTDOWN_LIMIT_MS = 20_000;

interface Slot {
  worker: Worker | undefined;
  startedAt: number;
  /** Consecutive early deaths, for the backoff. */
  failures: number;
  restartTimer: NodeJS.Timeout | undefined;
}

export async function runPrimary(config: AppConfig, log: Logger): Promise<void> {
  const workerEnv: Record<string, string> = {};
  let simulator: LocalSimulator | undefined;
  if (config.mpesa.env === 'simulator' && !config.mpesa.simulatorUrl) {
    // One simulator for all workers: a prompt lives only in the simulator that received it.
    simulator = await startLocalSimulator(config.mpesa, log);
    workerEnv.MPESA_SIMULATOR_URL = simulator.url;
  }

  const slots: Slot[] = [];
  let stopping = false;
  let anyListening = false;

  const fork = (slot: Slot) => {
    slot.restartTimer = undefined;
    slot.startedAt = Date.now();
    slot.worker = cluster.fork(workerEnv);
  };

  cluster.on('listening', (worker) => {
    anyListening = true;
    log.info({ workerPid: worker.process.pid, worker: worker.id }, 'worker listening');
  });

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.find((s) => s.worker === worker);
    if (!slot) return;
    slot.worker = undefined;
    if (stopping) {
      if (slots.every((s) => !s.worker)) finish(0);
      return;
    }
    if (!anyListening) {
      // No worker ever started: the configuration or the database is wrong, and restarting would
      // only repeat the error. Exit so that the service manager reports the failure.
      log.fatal({ workerPid: worker.process.pid, code, signal }, 'a worker failed to start; stopping');
      shutdown('startup failure', 1);
      return;
    }
    const lived = Date.now() - slot.startedAt;
    slot.failures = lived > HEALTHY_AFTER_MS ? 0 : slot.failures + 1;
    const delay = slot.failures === 0 ? 0 : Math.min(FIRST_RESTART_DELAY_MS * 2 ** (slot.failures - 1), MAX_RESTART_DELAY_MS);
    log.error({ workerPid: worker.process.pid, code, signal, restartInMs: delay }, 'worker died unexpectedly; restarting it');
    slot.restartTimer = setTimeout(() => fork(slot), delay);
  });

  let exitCode = 0;
  let forceTimer: NodeJS.Timeout | undefined;
  const finish = (code: number) => {
    if (forceTimer) clearTimeout(forceTimer);
    const close = simulator ? simulator.close() : Promise.resolve();
    close
      .catch((error: unknown) => log.warn({ err: error }, 'could not stop the M-Pesa simulator'))
      .finally(() => {
        log.info('all workers stopped');
        process.exit(Math.max(code, exitCode));
      });
  };

  const shutdown = (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    log.info({ reason }, 'shutting down: telling every worker to finish its in-flight requests');
    for (const slot of slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
      // Each worker drains on SIGTERM exactly as a single process does (main.ts).
      slot.worker?.process.kill('SIGTERM');
    }
    if (slots.every((s) => !s.worker)) {
      finish(code);
      return;
    }
    forceTimer = setTimeout(() => {
      log.error(`workers still running after ${SHUTDOWN_LIMIT_MS / 1000} s; killing them`);
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      exitCode = 1;
    }, SHUTDOWN_LIMIT_MS);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // A scrape of /metrics lands on one worker; the primary sums every worker's figures for it.
  // Before the first fork: the workers learn from their environment that they report here.
  setupClusterMetrics();
  log.info({ workers: config.webConcurrency, port: config.port, database: 'postgres' }, 'cluster mode: starting workers');
  for (let index = 0; index < config.webConcurrency; index += 1) {
    const slot: Slot = { worker: undefined, startedAt: 0, failures: 0, restartTimer: undefined };
    slots.push(slot);
    fork(slot);
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { vi } from 'vitest';
import { typescriptProcess } from '../support/node-process.js';

/**
 * The shop's real entry point (src/server/main.ts) as a child process, for the fault tests: it can
 * be started, killed with SIGKILL mid-request, and started again on the same data.
 */

/** Rejects when `promise` has not settled within `ms`: a request that hangs is a failure, not a wait. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  // Once the time is up, the promise's own failure (the killed shop's ECONNRESET) has no one left
  // to hear it, and would fail the run as an unhandled rejection.
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const MAX_OUTPUT_CHARS = 400_000;

export class ShopProcess {
  private output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.output += chunk.toString();
      if (this.output.length > MAX_OUTPUT_CHARS) this.output = this.output.slice(-MAX_OUTPUT_CHARS / 2);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `node --import tsx src/server/main.ts` and waits until GET /api/health answers 200. */
  static async start(env: Record<string, string>, timeoutMs = 90_000): Promise<ShopProcess> {
    const port = env.PORT;
    if (!port) throw new Error('ShopProcess.start needs PORT');
    const child = spawn(process.execPath, typescriptProcess('src/server/main.ts'), {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const shop = new ShopProcess(child, `http://127.0.0.1:${port}`);
    const state = await vi
      .waitUntil(
        async () => {
          if (child.exitCode !== null || child.signalCode !== null) return 'exited';
          try {
            const res = await fetch(`${shop.url}/api/health`, { signal: AbortSignal.timeout(2000) });
            await res.arrayBuffer();
            return res.status === 200 && 'up';
          } catch {
            return false; // not listening yet
          }
        },
        { timeout: timeoutMs, interval: 100 },
      )
      .catch(() => 'silent' as const);
    if (state === 'exited') throw new Error(`the shop exited while starting:\n${shop.log()}`);
    if (state === 'silent') {
      child.kill('SIGKILL');
      throw new Error(`the shop did not answer /api/health within ${timeoutMs} ms:\n${shop.log()}`);
    }
    return shop;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the process printed (its warn/error log lines), the tail when it was long. */
  log(): string {
    return this.output;
  }

  /** SIGKILL: no shutdown handler runs, in-flight requests and transactions are cut where they stand. */
  async kill(): Promise<void> {
    if (!this.alive) throw new Error(`the shop had already exited:\n${this.log()}`);
    this.child.kill('SIGKILL');
    const { signal } = await this.exited;
    if (signal !== 'SIGKILL') throw new Error(`the shop exited on its own (${signal}) before the kill:\n${this.log()}`);
  }

  /** SIGTERM: the clean shutdown; resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (!this.alive) return (await this.exited).code;
    this.child.kill('SIGTERM');
    return (await within(this.exited, 30_000, 'shutdown on SIGTERM')).code;
  }
}

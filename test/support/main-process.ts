import { type ChildProcess, spawn } from 'node:child_process';
import { typescriptProcess } from './node-process.js';

/**
 * The shop's real entry point (`src/server/main.ts`) as a process of its own, as `npm start` runs
 * it, with all it prints kept: for the startup tests and the production shop of the web-security
 * tests. (The shutdown tests leave its output unread on purpose, and the fault tests keep only the
 * tail of hours of logs: they start it themselves.)
 */
export interface MainProcess {
  child: ChildProcess;
  /** All it wrote to stdout and stderr so far. */
  output(): string;
  /** What it wrote to stderr alone: where a refusal to start is reported. */
  stderr(): string;
  /** Its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves as soon as its output holds `text`; rejects, with the output, if it exits first or
   * `ms` pass. Waits on the output itself, not on a polling interval.
   */
  printed(text: string, ms: number): Promise<void>;
  /** SIGKILL if it still runs, then waits for the exit: for cleanups. */
  kill(): Promise<void>;
}

/**
 * Starts the entry point with `env`, PATH and HOME, and nothing else of the test's environment:
 * the shop must start from what an operator gives it. Its output is always read, so a chatty log
 * never fills the pipe and blocks the process.
 */
export function spawnMain(env: Record<string, string>): MainProcess {
  const child = spawn(process.execPath, typescriptProcess('src/server/main.ts'), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    keep(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // 'close' comes once its output has ended as well: nothing more can be printed after it.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const printed = (text: string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        waiters.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (output.includes(text)) done();
      };
      const timer = setTimeout(() => done(new Error(`"${text}" not printed within ${ms} ms:\n${output}`)), ms);
      waiters.add(check);
      void closed.then(() => {
        if (waiters.has(check))
          done(new Error(`exited (${child.exitCode ?? child.signalCode}) before printing "${text}":\n${output}`));
      });
      check();
    });

  return {
    child,
    output: () => output,
    stderr: () => stderr,
    exited,
    printed,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Starts the entry point and waits up to `ms` for it to say it is open; kills it if it does not,
 * so a failed start leaves no process behind.
 */
export async function startMain(env: Record<string, string>, ms: number): Promise<MainProcess> {
  const shop = spawnMain(env);
  await shop.printed('Duka is open', ms).catch(async (error: unknown) => {
    await shop.kill();
    throw error;
  });
  return shop;
}

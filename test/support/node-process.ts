import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/server/paths.js';

/**
 * Node's flags for every Node process the tests run: the test workers (vitest.config.ts) and the
 * shops, command lines and simulators the tests start as processes of their own.
 *
 * PGlite is PostgreSQL compiled to WebAssembly, and V8 compiles it twice: first with its baseline
 * compiler (Liftoff), then again in background threads with its optimising one (TurboFan) for the
 * functions that run hot. A test's shop lives for seconds, not long enough to repay the second
 * compile: without it a shop process starts on about a third less CPU. The code behaves the same.
 */
export const TEST_NODE_FLAGS = ['--liftoff-only'];

/**
 * The arguments to `process.execPath` that run one of the project's TypeScript files as a process.
 * A file of the server (src/server, src/shared) runs from the build the global setup made at the
 * start of the run (server-build.ts), as `npm start` runs the shop; any other file through tsx.
 */
export function typescriptProcess(file: string, ...args: string[]): string[] {
  const relative = path.relative(projectRoot, path.resolve(projectRoot, file));
  if (!/^src\/(server|shared)\//.test(relative)) return tsxProcess(file, ...args);
  const built = path.join(projectRoot, 'dist', relative.replace(/\.ts$/, '.js'));
  if (!fs.existsSync(built)) {
    throw new Error(`${relative} has no build at ${built}: vitest's global setup makes it (server-build.ts)`);
  }
  return [...TEST_NODE_FLAGS, built, ...args];
}

/** The same file run from its source through tsx, as the npm scripts that use tsx run it. */
export function tsxProcess(file: string, ...args: string[]): string[] {
  return [...TEST_NODE_FLAGS, '--import', 'tsx', file, ...args];
}

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

/** The arguments to `process.execPath` that run one of the project's TypeScript files as a process. */
export function typescriptProcess(file: string, ...args: string[]): string[] {
  return [...TEST_NODE_FLAGS, '--import', 'tsx', file, ...args];
}

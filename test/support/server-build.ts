import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/server/paths.js';

/**
 * Builds the server into `dist/`, as `npm start` does, for the shops, command lines and
 * simulators the tests start as processes of their own (`typescriptProcess()`): Node runs the
 * JavaScript as it ships instead of compiling every module through tsx's loader, about a second of
 * CPU less for each of the run's few dozen processes. It only emits (`--noCheck`, about a second):
 * `npm test` type-checks before it, and a type error fails there. The global setup runs it at the
 * start of a run and, in watch mode, before each rerun, so a process never runs code older than
 * the test.
 */
export function buildServer(): Promise<void> {
  return runBuild("the server's build", path.join(projectRoot, 'node_modules', '.bin', 'tsc'), [
    '-p',
    'tsconfig.build.json',
    '--noCheck',
  ]);
}

/**
 * The production build of the web app (`npm run build:web`: the browser's bundle and the server's
 * renderer of first screens), which the browser tests and the tests of what each screen downloads
 * run against. The global setup runs it beside the server's build and the PGlite template: the
 * template keeps one core busy for several seconds, and vite's build fills the other.
 */
export function buildWeb(): Promise<void> {
  // Without vitest's NODE_ENV=test (and its VITEST variables), which would give the bundle React's
  // development build: the tests run the app as it ships.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST')),
  );
  return runBuild("the web app's build", 'npm', ['run', 'build:web'], env);
}

/** Runs a build command in the project, failing with its output if it fails. */
async function runBuild(what: string, command: string, args: string[], env = process.env): Promise<void> {
  await promisify(execFile)(command, args, { cwd: projectRoot, env, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${what} for the tests failed:\n${error.stderr || error.stdout || error.message}`);
    },
  );
}

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
export async function buildServer(): Promise<void> {
  const tsc = path.join(projectRoot, 'node_modules', '.bin', 'tsc');
  await promisify(execFile)(tsc, ['-p', 'tsconfig.build.json', '--noCheck'], { cwd: projectRoot }).catch(
    (error: { stdout?: string; message: string }) => {
      throw new Error(`the server's build for the tests failed:\n${error.stdout || error.message}`);
    },
  );
}

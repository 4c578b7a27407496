import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../src/server/paths.js';

const BUILT_ENV = 'DUKA_TEST_SERVER_BUILT';

/**
 * Builds the server into `dist/` once a run, as `npm start` does, for the shops, command lines and
 * simulators the tests start as processes of their own (`typescriptProcess()`): Node runs the
 * JavaScript as it ships instead of compiling every module through tsx's loader, about a second of
 * CPU less for each of the run's few dozen processes. It only emits (`--noCheck`, about a second):
 * `npm test` type-checks before it, and a type error fails there. In watch mode it builds again
 * before each rerun, so a process never runs code older than the test.
 */
export async function buildServerOnce(project: TestProject): Promise<void> {
  // Every project of vitest.config.ts names the global setup and all run in one process: the first builds.
  if (process.env[BUILT_ENV]) return;
  process.env[BUILT_ENV] = '1';
  project.onTestsRerun(buildServer);
  await buildServer();
}

async function buildServer(): Promise<void> {
  const tsc = path.join(projectRoot, 'node_modules', '.bin', 'tsc');
  await promisify(execFile)(tsc, ['-p', 'tsconfig.build.json', '--noCheck'], { cwd: projectRoot }).catch(
    (error: { stdout?: string; message: string }) => {
      throw new Error(`the server's build for the tests failed:\n${error.stdout || error.message}`);
    },
  );
}

import type { TestProject } from 'vitest/node';
import makePgliteTemplate from './pglite-template.js';
import { buildServer } from './server-build.js';

const DONE_ENV = 'DUKA_TEST_GLOBAL_SETUP_DONE';

/**
 * Vitest's global setup: the server's build (a tsc process) and the PGlite template (in this
 * process) at once, since every test file waits for both.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // Every project of vitest.config.ts names this setup, and all run in one process: the first does
  // the work for all. The shop's modules are imported only then, once: a second copy of them would
  // register its metrics again in prom-client's one registry.
  if (process.env[DONE_ENV]) return undefined;
  process.env[DONE_ENV] = '1';
  project.onTestsRerun(buildServer);
  const [, removeTemplate] = await Promise.all([buildServer(), makePgliteTemplate()]);
  return removeTemplate;
}

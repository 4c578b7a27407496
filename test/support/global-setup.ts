import type { TestProject } from 'vitest/node';
import makePgliteTemplate from './pglite-template.js';
import { buildServer, buildWeb } from './server-build.js';

const DONE_ENV = 'DUKA_TEST_GLOBAL_SETUP_DONE';

/**
 * Vitest's global setup: the server's build (a tsc process), the web app's build (vite, in a
 * process of its own) and the PGlite template (in this process) at once, since the test files wait
 * for them.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // Every project of vitest.config.ts names this setup, and all run in one process: the first does
  // the work for all. The shop's modules are imported only then, once: a second copy of them would
  // register its metrics again in prom-client's one registry.
  if (process.env[DONE_ENV]) return undefined;
  process.env[DONE_ENV] = '1';
  project.onTestsRerun(() => Promise.all([buildServer(), buildWeb()]).then(() => undefined));
  const [, , removeTemplate] = await Promise.all([buildServer(), buildWeb(), makePgliteTemplate()]);
  return removeTemplate;
}

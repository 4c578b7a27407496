import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../src/server/paths.js';
import makePgliteTemplate from './pglite-template.js';
import { buildServer, buildWeb } from './server-build.js';

const DONE_ENV = 'DUKA_TEST_GLOBAL_SETUP_DONE';

/**
 * TEST_REUSE_BUILD=1: the builds in dist/ are the ones of this tree (a second run right after a
 * first, as CI's run on PostgreSQL follows the one on PGlite), so they are used as they are.
 */
async function buildsOfThisTree(): Promise<void> {
  if (process.env.TEST_REUSE_BUILD !== '1') {
    await Promise.all([buildServer(), buildWeb()]);
    return;
  }
  for (const built of ['dist/src/server/main.js', 'dist/web/index.html', 'dist/web/.ssr/entry-server.js']) {
    if (!existsSync(path.join(projectRoot, built))) throw new Error(`TEST_REUSE_BUILD=1, but ${built} is not built`);
  }
}

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
  const [, removeTemplate] = await Promise.all([buildsOfThisTree(), makePgliteTemplate()]);
  return removeTemplate;
}

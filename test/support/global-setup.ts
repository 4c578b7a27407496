import type { TestProject } from 'vitest/node';
import makePgliteTemplate from './pglite-template.js';
import { buildServerOnce } from './server-build.js';

/**
 * Vitest's global setup: the server's build (a tsc process) and the PGlite template (in this
 * process) at once, since every test file waits for both.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const [, removeTemplate] = await Promise.all([buildServerOnce(project), makePgliteTemplate()]);
  return removeTemplate;
}

import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest in a full run (30–90 s each on this project's 2-core machine),
 * longest first. They wait on child processes, simulated M-Pesa callbacks or a browser for much
 * of that time, so they are best started first, while short files keep the cores busy beside them.
 *
 * Vitest starts the slowest files first only when it has a record of an earlier run. A clean clone
 * (CI) has none, so it goes by file size instead, and these files are mostly short: they started
 * last, and the run ended with one of them going on alone on a core and the other core idle.
 * Leaving a file off this list (or a stale order) costs time, never a result.
 */
export const LONGEST_FILES = [
  'test/ops/transfer.test.ts',
  'test/e2e/payments.test.ts',
  'test/api/startup.test.ts',
  'test/api/authorization.test.ts',
  'test/security/web-production.test.ts',
  'test/security/web-xss.test.ts',
  'test/security/web-forgery.test.ts',
  'test/security/web-csp.test.ts',
  'test/ops/backup.test.ts',
  'test/api/shutdown.test.ts',
  'test/api/product-browsing-plans.test.ts',
  'test/e2e/admin.test.ts',
  'test/reliability/faults.test.ts',
  'test/e2e/storefront.test.ts',
  'test/e2e/accessibility.test.ts',
  'test/security/fuzz.test.ts',
  'test/e2e/browsing.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/e2e/admin-payments.test.ts',
  'test/api/refunds.test.ts',
];

/**
 * Vitest's own order (projects in turn; with a record of an earlier run, the slowest files first),
 * except that within a project the LONGEST_FILES come first, in their order.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const gone = LONGEST_FILES.filter((file) => !fs.existsSync(path.join(root, file)));
    if (gone.length > 0) throw new Error(`test/support/sequencer.ts lists test files that do not exist: ${gone.join(', ')}`);
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FILES.indexOf(path.relative(root, spec.moduleId));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    const projectOrder = [...new Set(sorted.map((spec) => spec.project.name))];
    return sorted
      .map((spec, position) => ({ spec, position, project: projectOrder.indexOf(spec.project.name), rank: rank(spec) }))
      .sort((a, b) => a.project - b.project || a.rank - b.rank || a.position - b.position)
      .map(({ spec }) => spec);
  }
}

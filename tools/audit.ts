/**
 * The dependency audit, honestly reported: `npm audit --json`, read rather than trusted by its
 * exit code. Exit 0 when the advisory database answered and no high or critical advisory
 * applies; 1 when one does; 2 when the audit could not run ("audit unavailable"), which is not
 * a pass. Run by .ci/run; record the last known result in SECURITY.md.
 */
import { spawnSync } from 'node:child_process';

interface AuditReport {
  statusCode?: number;
  message?: string;
  metadata?: { vulnerabilities?: Record<string, number>; dependencies?: { total?: number } };
}

const run = spawnSync('npm', ['audit', '--json'], { encoding: 'utf8', timeout: 120_000 });
let report: AuditReport | undefined;
try {
  report = JSON.parse(run.stdout) as AuditReport;
} catch {
  report = undefined;
}

const date = new Date().toISOString().slice(0, 10);
const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  const why = report?.statusCode
    ? `the advisory service answered ${report.statusCode}${report.message ? ` (${report.message})` : ''}`
    : `npm audit gave no report (exit ${run.status ?? run.signal ?? 'unknown'})`;
  console.log(`dependency audit ${date}: audit unavailable: ${why}; NOT passed`);
  process.exit(2);
}
const summary = ['critical', 'high', 'moderate', 'low', 'info'].map((level) => `${counts[level] ?? 0} ${level}`).join(', ');
const serious = (counts.critical ?? 0) + (counts.high ?? 0);
console.log(`dependency audit ${date}: ${summary}${serious > 0 ? '; FAILED' : '; passed'}`);
process.exit(serious > 0 ? 1 : 0);

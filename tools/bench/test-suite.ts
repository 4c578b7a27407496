import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, stripVTControlCharacters } from 'node:util';

/**
 * `npm run bench:tests`: the wall time of `npm test` on PGlite, the figure the test harness is
 * judged by. With `--against <commit>` it first runs that commit's own `npm test` from a clean
 * checkout (its own `npm ci`), then this tree's, back to back on the same machine, and prints the
 * ratio: two runs hours apart on a shared machine differ by more than the change being measured.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const { values: args } = parseArgs({ options: { against: { type: 'string' } } });

interface SuiteRun {
  label: string;
  wallSeconds: number;
  loadBefore: string;
  loadAfter: string;
  /** vitest's own summary line, e.g. "902 passed | 41 skipped (943)". */
  tests: string;
  exitCode: number | null;
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function runNpmTest(cwd: string, label: string): Promise<SuiteRun> {
  const env = { ...process.env };
  // The PGlite run: a database URL in the environment would turn it into the PostgreSQL one.
  delete env.TEST_DATABASE_URL;
  const loadBefore = loadAverage();
  const started = process.hrtime.bigint();
  const child = spawn('npm', ['test'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('exit', (exitCode) => {
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const tests = /^\s*Tests\s+(.+)$/m.exec(stripVTControlCharacters(output))?.[1]?.trim() ?? 'no vitest summary';
      if (exitCode !== 0) process.stderr.write(output.slice(-4000));
      resolve({ label, wallSeconds, loadBefore, loadAfter: loadAverage(), tests, exitCode });
    });
  });
}

function checkout(commit: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'duka-bench-tests-'));
  const git = (...gitArgs: string[]) => {
    const result = spawnSync('git', gitArgs, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`git ${gitArgs.join(' ')} failed`);
  };
  git('worktree', 'add', '--detach', dir, commit);
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  if (install.status !== 0) throw new Error(`npm ci failed in the checkout of ${commit}`);
  return dir;
}

function print(run: SuiteRun): void {
  console.log(
    `${run.label}: npm test ${run.wallSeconds.toFixed(1)} s wall, exit ${run.exitCode}; tests ${run.tests}; ` +
      `load ${run.loadBefore} → ${run.loadAfter}`,
  );
}

const runs: SuiteRun[] = [];
if (args.against) {
  const dir = checkout(args.against);
  try {
    runs.push(await runNpmTest(dir, args.against));
  } finally {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'inherit' });
  }
  print(runs[0] as SuiteRun);
}
const current = await runNpmTest(root, 'this tree');
runs.push(current);
print(current);
const before = runs.length === 2 ? runs[0] : undefined;
if (before) console.log(`ratio: ${(current.wallSeconds / before.wallSeconds).toFixed(2)} of ${before.label}'s wall time`);
process.exitCode = runs.every((run) => run.exitCode === 0) ? 0 : 1;

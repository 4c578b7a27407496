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
 * `--rounds <n>` alternates the two n times (commit, tree, commit, tree, …), so that a machine
 * that slows down or speeds up during the hour weighs on both, and prints the ratio of the medians.
 *
 * Every run starts without vitest's record of earlier runs (node_modules/.vite/vitest), as a clean
 * clone does: with it, vitest runs the files that were slowest last time first.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const { values: args } = parseArgs({ options: { against: { type: 'string' }, rounds: { type: 'string', default: '1' } } });
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number from 1: ${args.rounds}`);

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
  fs.rmSync(path.join(cwd, 'node_modules', '.vite', 'vitest'), { recursive: true, force: true });
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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const baseline: SuiteRun[] = [];
const current: SuiteRun[] = [];
const dir = args.against ? checkout(args.against) : undefined;
try {
  for (let round = 1; round <= rounds; round++) {
    const suffix = rounds > 1 ? ` (round ${round})` : '';
    if (dir && args.against) {
      const run = await runNpmTest(dir, `${args.against}${suffix}`);
      baseline.push(run);
      print(run);
    }
    const run = await runNpmTest(root, `this tree${suffix}`);
    current.push(run);
    print(run);
  }
} finally {
  if (dir) spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'inherit' });
}
if (baseline.length > 0) {
  const before = median(baseline.map((run) => run.wallSeconds));
  const after = median(current.map((run) => run.wallSeconds));
  const what = rounds > 1 ? `median of ${rounds}: ` : '';
  console.log(
    `ratio: ${what}${after.toFixed(1)} s / ${before.toFixed(1)} s = ${(after / before).toFixed(2)} of ${args.against}'s wall time`,
  );
}
process.exitCode = [...baseline, ...current].every((run) => run.exitCode === 0) ? 0 : 1;

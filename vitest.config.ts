import { defineConfig } from 'vitest/config';
import { TEST_NODE_FLAGS } from './test/support/node-process.js';
import { LongestFirstSequencer } from './test/support/sequencer.js';

/**
 * The one file that reads process-wide figures as a whole (prom-client's default registry) gets a
 * fresh worker. The rest share one per worker, as a server does: they import the shop's modules
 * once (Fastify, drizzle, PGlite's WebAssembly) instead of once per file, and start and stop their
 * own shops, child processes and browsers, so nothing but those modules outlives a file.
 */
const ISOLATED = ['test/ops/metrics.test.ts'];
/**
 * The web app's tests run in a simulated DOM (happy-dom). They are a project of their own because
 * vitest keeps a worker for the next file only when that file needs the same environment: mixed
 * in with the server's files, each would replace the worker before it and the one after it.
 * Projects run in the order of their names, so these come after the server's.
 */
const WEB_APP_TESTS = ['src/web/**/*.test.{ts,tsx}'];

export default defineConfig({
  test: {
    // Each file starts its own shop on its own database. A file spends about half its time waiting
    // (on Chromium, a child process, a simulated payment's callback): four at a time keep two cores busy.
    pool: 'forks',
    // Node's flags for the workers, as for every process the tests start (test/support/node-process.ts).
    execArgv: TEST_NODE_FLAGS,
    maxWorkers: 4,
    // The server's build for the processes tests start, and one migrated, seeded PGlite that every
    // test shop on PGlite starts from a copy of.
    globalSetup: ['test/support/global-setup.ts'],
    // The slowest files first, on a clean clone too (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Browser journeys, child processes and whole-shop copies take 5–20 s a test on a quiet machine
    // and twice that on a busy one. A stuck browser step still fails by name after 15 s
    // (test/e2e/support/browser.ts).
    testTimeout: 60_000,
    // CI collects the counts of each run (PGlite, PostgreSQL) from this file.
    ...(process.env.VITEST_JSON && {
      reporters: ['default', 'json'],
      outputFile: { json: process.env.VITEST_JSON },
    }),
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s unless told otherwise, and a browser page drawn on a busy
    // 2-core machine can take longer than that to show what the test waits for (a CI run failed
    // so). The same 15 s as a browser step: what never comes still fails by name.
    expect: { poll: { timeout: 15_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
        },
      },
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.{ts,tsx}', 'src/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'],
          exclude: [...ISOLATED, ...WEB_APP_TESTS],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: WEB_APP_TESTS,
          environment: 'happy-dom',
          isolate: false,
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Files that start processes, or read process-wide state (metrics, signals), each get a fresh
 * worker. The rest share one per worker, as a server does: they import the shop's modules once
 * (Fastify, drizzle, PGlite's WebAssembly) instead of once per file, and start and stop their own
 * shops and browsers, so nothing but those modules outlives a file.
 */
const ISOLATED = [
  'test/ops/**/*.test.ts',
  'test/reliability/**/*.test.ts',
  'test/security/web.test.ts',
  'test/api/startup.test.ts',
  'test/api/shutdown.test.ts',
];

export default defineConfig({
  test: {
    // Each API test file starts its own shop on its own database; a couple at a time suits 2 cores.
    pool: 'forks',
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    // One migrated, seeded PGlite that every test shop on PGlite starts from a copy of.
    globalSetup: ['test/support/pglite-template.ts'],
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
          exclude: ISOLATED,
          isolate: false,
        },
      },
    ],
  },
});

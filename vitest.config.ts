import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}', 'src/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'],
    // Each API test file starts its own shop on its own database; a couple at a time suits 2 cores.
    pool: 'forks',
    maxWorkers: 2,
    // One migrated, seeded PGlite that every test shop on PGlite starts from a copy of.
    globalSetup: ['test/support/pglite-template.ts'],
    testTimeout: 30_000,
    // CI collects the counts of each run (PGlite, PostgreSQL) from this file.
    ...(process.env.VITEST_JSON && {
      reporters: ['default', 'json'],
      outputFile: { json: process.env.VITEST_JSON },
    }),
    hookTimeout: 60_000,
  },
});

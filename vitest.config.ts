import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}', 'src/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'],
    // Each API test file starts its own shop on its own database; a couple at a time suits 2 cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    // CI collects the counts of each run (PGlite, PostgreSQL) from this file.
    ...(process.env.VITEST_JSON && {
      reporters: ['default', 'json'],
      outputFile: { json: process.env.VITEST_JSON },
    }),
    hookTimeout: 60_000,
  },
});

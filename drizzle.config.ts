import { defineConfig } from 'drizzle-kit';

// Migrations are generated from src/server/db/schema.ts (which gathers db/schema/*.ts) and applied by the
// server at start-up.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/server/db/schema.ts',
  out: './src/server/db/migrations',
});

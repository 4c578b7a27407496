import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database, Db } from '../../src/server/db/client.js';
import * as schema from '../../src/server/db/schema.js';
import { getProductDetail, topProducts } from '../../src/server/domain/catalogue.js';
import { listProducts } from '../../src/server/domain/catalogue-listing.js';
import { loadDashboard } from '../../src/server/domain/dashboard.js';
import { listOrdersPage } from '../../src/server/domain/orders.js';
import { DEFAULT_LOW_STOCK_THRESHOLD } from '../../src/shared/constants.js';

/**
 * EXPLAIN ANALYZE of the very statements the server runs for the read cases: the catalogue
 * functions are called on a drizzle that records each statement, so the plans follow the code.
 */

export interface ExplainedQuery {
  case: string;
  sql: string;
  params: unknown[];
  executionMs: number | null;
  plan: string[];
}

interface QueryClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Both drivers keep their client on the drizzle object as $client. */
function clientOf(database: Database): QueryClient {
  return (database.db as unknown as { $client: QueryClient }).$client;
}

/**
 * A drizzle over the same connection that records each statement it sends, and the list it records
 * into: domain functions called on it show exactly what they ask the database.
 */
export function recordingDb(database: Database): { db: Db; recorded: { sql: string; params: unknown[] }[] } {
  const client = clientOf(database);
  const recorded: { sql: string; params: unknown[] }[] = [];
  const logger = { logQuery: (query: string, params: unknown[]) => recorded.push({ sql: query, params }) };
  const db = (database.kind === 'pglite'
    ? drizzlePglite(client as never, { schema, logger })
    : drizzlePg(client as never, { schema, logger })) as unknown as Db;
  return { db, recorded };
}

/** The plan of one recorded statement, as EXPLAIN (ANALYZE, BUFFERS) prints it, a line per row. */
export async function explainStatement(database: Database, statement: { sql: string; params: unknown[] }): Promise<string[]> {
  const result = await clientOf(database).query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
  return result.rows.map((row) => String(Object.values(row)[0]));
}

export async function explainReadQueries(database: Database, probe: { productId: string }): Promise<ExplainedQuery[]> {
  const { db: recording, recorded } = recordingDb(database);

  const cases: [string, () => Promise<unknown>][] = [
    ['listing page 1', () => listProducts(recording, { page: 1, keyword: '' })],
    ['listing page 500', () => listProducts(recording, { page: 500, keyword: '' })],
    ['search "samsung"', () => listProducts(recording, { page: 1, keyword: 'samsung' })],
    ['search "samsng" (typo)', () => listProducts(recording, { page: 1, keyword: 'samsng' })],
    ['search "phone" (broad: capped at 1,000)', () => listProducts(recording, { page: 1, keyword: 'phone' })],
    ['product detail', () => getProductDetail(recording, probe.productId)],
    ['top products', () => topProducts(recording)],
    ['admin dashboard', () => loadDashboard(recording, { lowStockThreshold: DEFAULT_LOW_STOCK_THRESHOLD })],
    ['admin orders to deliver, page 1', () => listOrdersPage(recording, { pageNumber: 1, isPaid: true, isDelivered: false })],
  ];
  const explained: ExplainedQuery[] = [];
  for (const [name, run] of cases) {
    recorded.length = 0;
    await run(); // also warms the caches, as a running shop has them
    for (const statement of [...recorded]) {
      const plan = await explainStatement(database, statement);
      const time = plan.map((line) => /Execution Time: ([\d.]+) ms/.exec(line)?.[1]).find(Boolean);
      explained.push({ case: name, sql: statement.sql, params: statement.params, executionMs: time ? Number(time) : null, plan });
    }
  }
  return explained;
}

import cluster from 'node:cluster';
import { readFile } from 'node:fs/promises';
import Fastify from 'fastify';
import { openDatabase } from '../../src/server/db/client.js';
import { openExceptionCounts } from '../../src/server/domain/payments/ledger-views.js';
import { enqueueMail, mailQueueDepth } from '../../src/server/mail/queue.js';
import { ordersPlaced, setupClusterMetrics, watchShop } from '../../src/server/metrics.js';
import metrics from '../../src/server/plugins/shop/metrics.js';
import { PGLITE_EMPTY_ENV } from '../support/pglite-env.js';

/**
 * A tiny cluster for test/ops/cluster-metrics.test.ts: the primary sets up cluster metrics and
 * forks WORKERS workers sharing PORT, as the shop's cluster mode does. Each worker has its own
 * in-memory database with MAILS queued messages, serves GET /metrics through the real plugin, and
 * counts an order for every GET /hit.
 */
const port = Number(process.env.PORT);
const workers = Number(process.env.WORKERS ?? 2);

if (cluster.isPrimary) {
  setupClusterMetrics();
  let listening = 0;
  cluster.on('listening', () => {
    listening += 1;
    if (listening === workers) console.log(`ready ${port}`);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  // The test's initialised, empty cluster when it gives one: the worker then skips initdb.
  const empty = process.env[PGLITE_EMPTY_ENV];
  const database = await openDatabase({ pgliteTemplate: empty ? new Blob([await readFile(empty)]) : undefined });
  await database.migrate();
  for (let i = 0; i < Number(process.env.MAILS ?? 3); i++) {
    await enqueueMail(database.db, 'order_placed', {
      to: `w${i}@example.com`,
      subject: 'Order',
      text: 'Thanks',
      html: '<p>Thanks</p>',
    });
  }
  watchShop({
    mailQueueDepth: () => mailQueueDepth(database.db),
    openPaymentExceptions: () => openExceptionCounts(database.db),
    dbPool: () => database.poolStats(),
  });
  const app = Fastify();
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-worker', String(process.pid));
  });
  await app.register(metrics, { token: undefined });
  app.get('/hit', async () => {
    ordersPlaced.inc();
    return { pid: process.pid };
  });
  await app.listen({ port, host: '127.0.0.1' });
}

import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, register } from 'prom-client';

/**
 * The shop's Prometheus metrics. They live in prom-client's global registry: one shop runs per
 * process, and in cluster mode prom-client's AggregatorRegistry collects that registry from
 * every worker. Domain code bumps the counters below with one line; GET /metrics
 * (plugins/shop/metrics.ts) renders them with {@link renderMetrics}.
 */

collectDefaultMetrics();

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by route pattern (request rate from _count)',
  labelNames: ['method', 'route', 'status_code'] as const,
  // 1 ms (a cached product page) to 5 s (a shop in trouble).
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

export const ordersPlaced = new Counter({ name: 'duka_orders_placed_total', help: 'Orders placed by shoppers' });

/**
 * M-Pesa prompts and their outcomes: prompt_sent (Daraja accepted it), prompt_rejected (Daraja
 * refused it), prompt_error (Daraja unreachable or failing), then per prompt settled: paid,
 * cancelled (1032), timed_out (1037, may still be paid), failed (any other code), given_up (no
 * answer learnable before MPESA_GIVE_UP_AFTER_MS).
 */
const PAYMENT_OUTCOMES = [
  'prompt_sent',
  'prompt_rejected',
  'prompt_error',
  'paid',
  'cancelled',
  'timed_out',
  'failed',
  'given_up',
] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number];

export const payments = new Counter({
  name: 'duka_payments_total',
  help: 'M-Pesa prompts sent and their outcomes',
  labelNames: ['outcome'] as const,
});
// Every outcome is shown from the start at 0, so rate() and alerts see it before the first one.
for (const outcome of PAYMENT_OUTCOMES) payments.inc({ outcome }, 0);

export function countPayment(outcome: PaymentOutcome): void {
  payments.inc({ outcome });
}

/** What a settled Daraja result code counts as. */
export function paymentOutcomeOf(resultCode: string): PaymentOutcome {
  if (resultCode === '0') return 'paid';
  if (resultCode === '1032') return 'cancelled';
  if (resultCode === '1037') return 'timed_out';
  return 'failed';
}

/**
 * Refunds by M-Pesa Reversal: requested (an admin asked), refunded (M-Pesa reversed it, or said it
 * already was), failed (M-Pesa refused it), unanswered (no Result after every retry).
 */
const REFUND_OUTCOMES = ['requested', 'refunded', 'failed', 'unanswered'] as const;
export const refunds = new Counter({
  name: 'duka_refunds_total',
  help: 'M-Pesa refunds asked for and their outcomes',
  labelNames: ['outcome'] as const,
});
for (const outcome of REFUND_OUTCOMES) refunds.inc({ outcome }, 0);

export function countRefund(outcome: (typeof REFUND_OUTCOMES)[number]): void {
  refunds.inc({ outcome });
}

/** Payments the ledger recorded as exceptions, by reason, since the process started. */
export const paymentExceptionsRaised = new Counter({
  name: 'duka_payment_exceptions_raised_total',
  help: 'M-Pesa payments recorded as exceptions (double payment, unmatched, short, receipt missing, …)',
  labelNames: ['reason'] as const,
});

export function countPaymentException(reason: string): void {
  paymentExceptionsRaised.inc({ reason });
}

export const dbQueries = new Counter({
  name: 'duka_db_queries_total',
  help: 'SQL statements sent to the database (BEGIN and COMMIT count too)',
});

/** Called by db/client.ts for every statement; kept as a function so the hot path is one call. */
export function countDbQuery(): void {
  dbQueries.inc();
}

/** What the running shop reports at scrape time (see {@link watchShop}). */
export interface MetricsSource {
  /** Messages in the mail queue by status. */
  mailQueueDepth(): Promise<Record<string, number>>;
  /** Open M-Pesa payment exceptions by reason, from the ledger. */
  openPaymentExceptions(): Promise<Record<string, number>>;
  /** Database connections: total, idle, and requests waiting for one. */
  dbPool(): { total: number; idle: number; waiting: number };
}

const sources = new Set<MetricsSource>();

/**
 * Registers the running shop's database as the source of the gauges read at scrape time; the
 * returned function removes it on shutdown. Tests may run several shops in one process: their
 * figures are added up.
 */
export function watchShop(source: MetricsSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

new Gauge({
  name: 'duka_mail_queue_depth',
  help: 'Messages in the mail queue by status, read from the database at scrape time',
  labelNames: ['status'] as const,
  // Every worker reads the same table: the cluster figure is one worker's, not the sum.
  aggregator: 'max',
  async collect() {
    this.reset();
    // With the database down the gauge is left out rather than failing the whole scrape.
    const depths = await Promise.allSettled([...sources].map((s) => s.mailQueueDepth()));
    if (depths.some((d) => d.status === 'rejected')) return;
    const total: Record<string, number> = { queued: 0, sending: 0, sent: 0, failed: 0 };
    for (const depth of depths) {
      if (depth.status === 'fulfilled')
        for (const [status, n] of Object.entries(depth.value)) total[status] = (total[status] ?? 0) + n;
    }
    for (const [status, n] of Object.entries(total)) this.set({ status }, n);
  },
});

const EXCEPTION_REASONS = [
  'double_payment',
  'unmatched',
  'amount_short',
  'overpaid',
  'receipt_missing',
  'unconfirmed',
  'refund_unanswered',
  'amount_mismatch',
  'bad_amount',
  'other_shortcode',
  'callback_parked',
];

new Gauge({
  name: 'duka_payment_exceptions',
  help: 'Open M-Pesa payment exceptions waiting for the merchant, by reason, read from the ledger at scrape time',
  labelNames: ['reason'] as const,
  // Every worker reads the same ledger: the cluster figure is one worker's, not the sum.
  aggregator: 'max',
  async collect() {
    this.reset();
    const counts = await Promise.allSettled([...sources].map((s) => s.openPaymentExceptions()));
    if (counts.some((c) => c.status === 'rejected')) return;
    const total: Record<string, number> = Object.fromEntries(EXCEPTION_REASONS.map((r) => [r, 0]));
    for (const c of counts) {
      if (c.status === 'fulfilled') for (const [reason, n] of Object.entries(c.value)) total[reason] = (total[reason] ?? 0) + n;
    }
    for (const [reason, n] of Object.entries(total)) this.set({ reason }, n);
  },
});

new Gauge({
  name: 'duka_db_pool_connections',
  help: 'Database connections by state (total, idle, waiting requests); PGlite is one connection',
  labelNames: ['state'] as const,
  collect() {
    const total = { total: 0, idle: 0, waiting: 0 };
    for (const source of sources) {
      const pool = source.dbPool();
      total.total += pool.total;
      total.idle += pool.idle;
      total.waiting += pool.waiting;
    }
    for (const [state, n] of Object.entries(total)) this.set({ state }, n);
  },
});

// ------------------------------------------------------------------------------------------------
// Cluster mode: a scrape lands on one worker, which asks the primary for every worker's figures.
// ------------------------------------------------------------------------------------------------

const REQUEST = 'duka:metrics:request';
const ANSWER = 'duka:metrics:answer';
/** Set by the primary for the workers it forks, so a worker knows the primary will answer. */
const CLUSTER_METRICS_ENV = 'DUKA_CLUSTER_METRICS';
const ANSWER_TIMEOUT_MS = 10_000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: string;
}
interface MetricsAnswer {
  type: typeof ANSWER;
  id: string;
  text?: string;
  error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/**
 * Call once in the cluster primary, before forking the workers. It aggregates every worker's
 * registry (prom-client's AggregatorRegistry) and answers a worker that was scraped.
 */
export function setupClusterMetrics(): void {
  if (!cluster.isPrimary) throw new Error('setupClusterMetrics() belongs in the cluster primary');
  process.env[CLUSTER_METRICS_ENV] = '1';
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<MetricsRequest>(message, REQUEST)) return;
    const reply = (answer: Omit<MetricsAnswer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer } satisfies MetricsAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

const pending = new Map<string, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();

if (cluster.isWorker) {
  // Constructing an AggregatorRegistry in a worker installs prom-client's listener that hands
  // this worker's registry to the primary when it aggregates.
  new AggregatorRegistry();
  process.on('message', (message: unknown) => {
    if (!isMessage<MetricsAnswer>(message, ANSWER)) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.text !== undefined) waiting.resolve(message.text);
    else waiting.reject(new Error(`cluster metrics: ${message.error ?? 'no answer'}`));
  });
}

function askPrimary(): Promise<string> {
  return new Promise((resolve, reject) => {
    const id = randomUUID();
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('cluster metrics: the primary did not answer'));
    }, ANSWER_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    process.send?.({ type: REQUEST, id } satisfies MetricsRequest);
  });
}

export const METRICS_CONTENT_TYPE = register.contentType;

/**
 * The exposition text GET /metrics answers: every worker's figures added up in a cluster whose
 * primary called {@link setupClusterMetrics}, this process's otherwise.
 */
export async function renderMetrics(): Promise<string> {
  if (cluster.isWorker && process.env[CLUSTER_METRICS_ENV] === '1') return askPrimary();
  return register.metrics();
}

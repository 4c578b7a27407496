import type { ExplainedQuery } from './explain.js';
import type { FrontendResults } from './frontend.js';
import type { Summary } from './load.js';

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  postgres: string | null;
  pglite: string | null;
  date: string;
  /** One-minute load average at the start and the end: other work on the machine skews the figures. */
  loadAverage: number;
  loadAverageEnd?: number;
}

export type CaseKind =
  | 'listing'
  | 'listing-last'
  | 'search-exact'
  | 'search-typo'
  | 'search-typos'
  | 'detail'
  | 'top'
  | 'page'
  | 'revalidate'
  | 'mix'
  | 'sign-in'
  | 'orders'
  | 'admin';

export interface CaseResult {
  key: string;
  label: string;
  kind: CaseKind;
  duka: Summary;
  limit: Summary;
  /** Duka's req/s ÷ the reference server's. */
  ratio: number;
  /** SQL statements per completed request; null while the server has no duka_db_queries_total. */
  sqlPerRequest: number | null;
  /** VmHWM of the server after this case, MiB. */
  peakRssMiB: number | null;
  /** The machine's one-minute load average as the case ended: other work skews its figures. */
  loadAverage: number;
  /** A stream sent beside the load (orders, anonymous POSTs), and what it got. */
  stream?: { label: string; sent: number; perSec: number; p50: number; p99: number; statuses: Record<string, number> };
  /** The same load without the stream, measured in rounds alternating with the stream's. */
  withoutStream?: Summary;
}

/** A listing page read right after an edit moved the listing version: what a miss costs. */
export interface UncachedResult {
  page: number;
  samples: number;
  p50: number;
  p99: number;
  loadAverage: number;
}

export interface OrdersCheck {
  ordersPerSec: number;
  placed: number;
  failures: Record<string, number>;
  products: number;
  unitsSold: number;
  /** Products whose stock went below 0 or whose units sold do not add up to the stock taken. */
  mismatched: number;
  oversold: number;
  scarceSoldOut: string;
}

export interface DatabaseRun {
  database: 'pglite' | 'postgres';
  serverVersion: string;
  products: number;
  seedSeconds: number;
  /** The order history the admin cases read (absent in runs from before they were measured). */
  seededOrders?: { orders: number; seconds: number };
  cases: CaseResult[];
  /** Listing page 1 and the last page as misses (absent in runs from before it was measured). */
  uncached?: UncachedResult[];
  orders: OrdersCheck | null;
  peakRssMiB: number | null;
  explain: ExplainedQuery[];
}

export interface BenchResults {
  machine: Machine;
  options: { products: number; duration: number; connections: number; rounds: number };
  runs: DatabaseRun[];
  frontend: unknown;
  totalSeconds: number;
}

function isFrontendResults(value: unknown): value is FrontendResults {
  return typeof value === 'object' && value !== null && 'assets' in value && 'lighthouse' in value;
}

/** First-load sizes per route and the Lighthouse runs, against the issue's targets. */
function frontendTables(frontend: FrontendResults): string[] {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  return [
    '## Front end',
    '',
    'What each route loads first, gzip (targets for the home page: JS ≤ 130 KB, CSS ≤ 20 KB):',
    '',
    '| Route | JS KB | JS files | CSS KB | CSS files |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...frontend.assets.map((a) => `| ${a.route} | ${kb(a.jsGzip)} | ${a.jsFiles} | ${kb(a.cssGzip)} | ${a.cssFiles} |`),
    '',
    'Lighthouse 12.8, mobile, simulated throttling, the median of three runs by LCP (targets: performance ≥ 95, accessibility 100, LCP ≤ 2.0 s):',
    '',
    '| Page | Performance | Accessibility | LCP s | LCP of each run, s | TBT ms | CLS |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: |',
    ...frontend.lighthouse.map(
      (l) =>
        `| ${l.route} | ${l.performance} | ${l.accessibility} | ${(l.lcpMs / 1000).toFixed(2)} | ${(l.lcpRunsMs ?? [l.lcpMs]).map((ms) => (ms / 1000).toFixed(2)).join(', ')} | ${Math.round(l.tbtMs)} | ${l.cls} |`,
    ),
    '',
    'Where each LCP went (Lighthouse: the LCP element, then its phases):',
    '',
    ...frontend.lighthouse.map((l) => `- ${l.route}: \`${l.lcpElement}\`; ${l.lcpPhases}`),
    '',
  ];
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const tick = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

function target(run: DatabaseRun, c: CaseResult): string {
  switch (c.kind) {
    case 'listing':
    case 'detail':
    case 'top':
      return `${tick(c.ratio >= 0.5 && c.duka.p99 < 20)} (≥0.5, p99<20)`;
    case 'search-typo':
      return `${tick(c.duka.p99 < 50)} (p99<50)`;
    case 'search-typos': {
      const floor = run.database === 'postgres' ? 500 : 200;
      return `${tick(c.duka.reqPerSec >= floor && c.duka.p99 < 200)} (≥${floor}/s, p99<200)`;
    }
    case 'listing-last': {
      const first = run.cases.find((other) => other.key === 'listing-1');
      return first ? `÷ page 1: ${fmt(c.duka.reqPerSec / first.duka.reqPerSec, 2)}` : '';
    }
    case 'page': {
      const json = run.cases.find((other) => other.key === 'listing-1');
      return json ? `${tick(c.duka.reqPerSec >= 0.5 * json.duka.reqPerSec)} (≥0.5 of the JSON listing)` : '';
    }
    case 'mix': {
      const calm = run.cases.find((other) => other.key === 'mix-0');
      if (!calm || calm === c) return '';
      const share = c.duka.reqPerSec / calm.duka.reqPerSec;
      if (c.withoutStream) {
        // A stream that should change nothing is judged against its own rounds without it: the
        // no-order mix was measured minutes earlier, before the orders' cases.
        const paired = c.duka.reqPerSec / c.withoutStream.reqPerSec;
        return `${fmt(paired, 2)} of its rounds without: ${fmt(c.withoutStream.reqPerSec, 0)} req/s (${fmt(share, 2)} of the no-order mix): ${tick(paired >= 0.9)} (≥0.9: nothing measurable)`;
      }
      const floor = run.database === 'postgres' ? 0.5 : 0.3;
      return `${fmt(share, 2)} of no orders: ${tick(share >= floor && c.duka.p99 < 50 && (c.stream?.p99 ?? 0) < 500)} (≥${floor}, p99<50, stream p99<500)`;
    }
    case 'revalidate':
      return `${tick((c.duka.statuses['304'] ?? 0) === c.duka.requests)} (all 304)`;
    case 'orders': {
      const o = run.orders;
      if (!o) return '';
      const stock = o.mismatched === 0 && o.oversold === 0;
      return run.database === 'postgres'
        ? `${tick(o.ordersPerSec >= 300 && stock)} (≥300/s, stock exact)`
        : `stock ${stock ? 'exact' : 'WRONG'}`;
    }
    case 'sign-in':
      return 'argon2-bound by design';
    default:
      return '';
  }
}

function statuses(s: Summary): string {
  const other = Object.entries(s.statuses)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}×${n}`);
  if (s.errors) other.push(`err×${s.errors}`);
  if (s.timeouts) other.push(`timeout×${s.timeouts}`);
  return other.join(' ') || '0';
}

export function markdown(results: BenchResults): string {
  const m = results.machine;
  const lines: string[] = [
    '# Duka benchmark',
    '',
    `${m.date} · ${m.cpu} · ${m.cores} cores · ${fmt(m.ramGiB)} GiB RAM · Node ${m.node} · PostgreSQL ${m.postgres ?? 'n/a'} · PGlite ${m.pglite ?? 'n/a'} · load average ${fmt(m.loadAverage)} at the start, ${fmt(m.loadAverageEnd ?? Number.NaN)} at the end`,
    '',
    `${results.options.products.toLocaleString('en')} products · ${results.options.connections} connections · ${results.options.duration} s per case per server in ${results.options.rounds} alternating rounds · total ${fmt(results.totalSeconds, 0)} s`,
    '',
  ];
  for (const run of results.runs) {
    lines.push(
      `## ${run.database} (${run.serverVersion}) — seeded ${run.products.toLocaleString('en')} products in ${fmt(run.seedSeconds)} s${run.seededOrders ? ` and ${run.seededOrders.orders.toLocaleString('en')} orders in ${fmt(run.seededOrders.seconds)} s` : ''}, peak RSS ${fmt(run.peakRssMiB ?? Number.NaN, 0)} MiB`,
      '',
      '| Case | Duka answers | Duka req/s | p50 ms | p99 ms | Limit req/s | Limit p50 | Limit p99 | Duka ÷ limit | SQL/req | Non-2xx | RSS MiB | Load avg | Target |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |',
    );
    for (const c of run.cases) {
      lines.push(
        `| ${c.label} | ${c.duka.requests} | ${fmt(c.duka.reqPerSec, 0)} | ${fmt(c.duka.p50)} | ${fmt(c.duka.p99)} | ${fmt(c.limit.reqPerSec, 0)} | ${fmt(c.limit.p50)} | ${fmt(c.limit.p99)} | ${fmt(c.ratio, 2)}${c.limit.generatorBusy >= 0.9 || c.duka.generatorBusy >= 0.9 ? ' (generator-bound)' : ''} | ${c.sqlPerRequest === null ? 'n/a' : fmt(c.sqlPerRequest, 2)} | ${statuses(c.duka)} | ${fmt(c.peakRssMiB ?? Number.NaN, 0)} | ${fmt(c.loadAverage, 2)} | ${target(run, c)} |`,
      );
    }
    if (run.uncached && run.uncached.length > 0) {
      const [first, last] = run.uncached;
      const ratio = first && last ? last.p50 / first.p50 : Number.NaN;
      lines.push(
        '',
        'Listing pages uncached (each read right after an admin edit moved the listing version):',
        '',
        '| Page | Misses | p50 ms | p99 ms | Load avg |',
        '| ---: | ---: | ---: | ---: | ---: |',
        ...run.uncached.map((u) => `| ${u.page} | ${u.samples} | ${fmt(u.p50)} | ${fmt(u.p99)} | ${fmt(u.loadAverage, 2)} |`),
        '',
        `Last page ÷ page 1 (p50): ${fmt(ratio, 2)} — ${tick(ratio <= 3)} (within 3×)`,
      );
    }
    const streams = run.cases.filter((c) => c.stream);
    if (streams.length > 0) {
      lines.push(
        '',
        '| Case | Beside it | Sent | Per s | p50 ms | p99 ms | Statuses |',
        '| --- | --- | ---: | ---: | ---: | ---: | --- |',
      );
      for (const c of streams) {
        const st = c.stream;
        if (!st) continue;
        const codes = Object.entries(st.statuses)
          .map(([code, n]) => `${code}×${n}`)
          .join(' ');
        lines.push(`| ${c.label} | ${st.label} | ${st.sent} | ${fmt(st.perSec)} | ${fmt(st.p50)} | ${fmt(st.p99)} | ${codes} |`);
      }
    }
    if (run.orders) {
      const o = run.orders;
      const failures =
        Object.entries(o.failures)
          .map(([kind, n]) => `${kind}: ${n}`)
          .join(', ') || 'none';
      lines.push(
        '',
        `Orders: **${fmt(o.ordersPerSec, 0)} orders/s**, ${o.placed} placed in all; failures ${failures}. Stock check over ${o.products} products: ${o.unitsSold} units sold, ${o.mismatched} mismatched, **${o.oversold} oversold**; ${o.scarceSoldOut}.`,
      );
    }
    lines.push('', '### Query plans (EXPLAIN ANALYZE, statements as the server sends them)', '');
    lines.push('| Case | Statement | Execution ms | Top of plan |', '| --- | --- | ---: | --- |');
    for (const q of run.explain) {
      lines.push(
        `| ${q.case} | ${q.sql.slice(0, 60).replaceAll('|', '\\|').replaceAll('\n', ' ')}… | ${fmt(q.executionMs ?? Number.NaN, 2)} | ${(q.plan[0] ?? '').trim().replaceAll('|', '\\|')} |`,
      );
    }
    lines.push('', '<details><summary>Full plans</summary>', '');
    for (const q of run.explain) {
      lines.push(
        `**${q.case}**: \`${q.sql.replaceAll('`', "'")}\` params ${JSON.stringify(q.params)}`,
        '',
        '```',
        ...q.plan,
        '```',
        '',
      );
    }
    lines.push('</details>', '');
  }
  if (isFrontendResults(results.frontend)) {
    lines.push(...frontendTables(results.frontend));
  }
  return lines.join('\n');
}

/** The short form for the terminal: the tables and the plans' timings, no full plans. */
export function consoleSummary(results: BenchResults): string {
  const full = markdown(results);
  return full.replace(/<details>[\s\S]*?<\/details>/g, '').replace(/\n{3,}/g, '\n\n');
}

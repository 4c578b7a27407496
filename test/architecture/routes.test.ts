import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A route's URL names its file (docs/architecture.md, Finding a route's code from its URL): the
 * routes of /api/orders/… are in src/server/routes/api/orders.ts, those of /api/admin/payments/…
 * in routes/api/admin/payments.ts, /images/<name> in routes/images.ts. Each route file registers
 * its routes on `app` with a literal URL under the prefix its path implies, and no file outside
 * routes/ registers an /api route.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER = 'src/server';
const ROUTES = `${SERVER}/routes`;
const METHODS = 'get|post|put|delete|patch|head|options|all|route';

interface Registration {
  method: string;
  /** The URL as written; a template literal's up to its first `${`. */
  url: string | undefined;
}

/** Every route registered on `app` in a source text; `url` is undefined when it is not a literal. */
function registrations(source: string): Registration[] {
  const pattern = new RegExp(
    `\\bapp\\s*\\.\\s*(${METHODS})\\s*(?:<[^()]*>)?\\s*\\(\\s*(?:(['"\`])((?:(?!\\2)[^\\\\]|\\\\.)*)\\2)?`,
    'g',
  );
  return [...source.matchAll(pattern)].map((match) => {
    const method = match[1]!;
    const literal = match[3];
    if (literal === undefined || method === 'route') return { method, url: undefined };
    return { method, url: match[2] === '`' ? literal.split('${')[0] : literal };
  });
}

/** The URL prefix a route file's path implies: routes/api/admin/payments.ts serves /api/admin/payments. */
function prefixOf(file: string): string {
  return `/${path.posix
    .relative(ROUTES, file)
    .replace(/\.ts$/, '')
    .replace(/(^|\/)index$/, '')}`;
}

const under = (url: string, prefix: string) => url === prefix || url.startsWith(`${prefix}/`);

/** What is wrong with a route file's registrations, one line each. */
function misplaced(file: string, source: string): string[] {
  const prefix = prefixOf(file);
  return registrations(source).flatMap(({ method, url }) => {
    if (url === undefined) return [`${file}: app.${method}(…) without a literal URL; write the URL in the call`];
    return under(url, prefix) ? [] : [`${file}: ${method.toUpperCase()} ${url} is not under ${prefix}`];
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [rel] : [];
  });
}

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('routes by URL', () => {
  it('the checker finds each way a route is written and each misplaced one', () => {
    expect(
      registrations(
        [
          `app.get('/api/orders', {`,
          `app.post("/api/orders/:id/pay", handler)`,
          'app.get<{ Params: { name: string } }>(`/images/:name`, options, handler)',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal as it is written in a route file
          'app.post(`/api/hooks/daraja/${kind}/:token`, {',
          'app.route({ method: "GET", url: "/api/orders" })',
          'app.get(SEARCH_FORM.action, options, handler)',
          `cache.get('/api/orders')`,
        ].join('\n'),
      ),
    ).toEqual([
      { method: 'get', url: '/api/orders' },
      { method: 'post', url: '/api/orders/:id/pay' },
      { method: 'get', url: '/images/:name' },
      { method: 'post', url: '/api/hooks/daraja/' },
      { method: 'route', url: undefined },
      { method: 'get', url: undefined },
    ]);
    expect(prefixOf(`${ROUTES}/api/admin/payments.ts`)).toBe('/api/admin/payments');
    expect(prefixOf(`${ROUTES}/api/orders/index.ts`)).toBe('/api/orders');
    expect(prefixOf(`${ROUTES}/images.ts`)).toBe('/images');
    const file = `${ROUTES}/api/orders.ts`;
    expect(misplaced(file, `app.get('/api/orders/:id/payment', {`)).toEqual([]);
    expect(misplaced(file, `app.get('/api/orders', {`)).toEqual([]);
    expect(misplaced(file, `app.get('/api/ordersheet', {`)).toEqual([`${file}: GET /api/ordersheet is not under /api/orders`]);
    expect(misplaced(file, `app.get('/api/admin/orders', {`)).toHaveLength(1);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal as it is written in a route file
    expect(misplaced(file, 'app.post(`/api/${what}/stkpush`, {')).toHaveLength(1);
    expect(misplaced(file, 'app.get(url, {')).toEqual([`${file}: app.get(…) without a literal URL; write the URL in the call`]);
  });

  it('every route is in the file its URL names', () => {
    const files = sourceFiles(ROUTES);
    const broken = files.flatMap((file) => misplaced(file, read(file)));
    expect(broken).toEqual([]);
    // A routes plugin (a default export) that registered nothing here would be a checker that looks at nothing.
    const plugins = files.filter((file) => /^export default /m.test(read(file)));
    expect(plugins.filter((file) => registrations(read(file)).length === 0)).toEqual([]);
    expect(plugins.length).toBeGreaterThan(10);
  });

  it('no file outside routes/ registers an /api route', () => {
    const elsewhere = sourceFiles(SERVER).filter((file) => !file.startsWith(`${ROUTES}/`));
    const strays = elsewhere.flatMap((file) =>
      registrations(read(file))
        .filter(({ url }) => url !== undefined && under(url, '/api'))
        .map(({ method, url }) => `${file}: ${method.toUpperCase()} ${url}`),
    );
    expect(strays).toEqual([]);
  });
});

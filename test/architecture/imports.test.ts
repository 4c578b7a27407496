import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What may import what (docs/architecture.md). The shipped code under src/ never reaches into
 * tools/ or test/; src/shared depends on nothing of the server or the web app; the server and the
 * web app meet only in src/shared; the Daraja simulator stays a self-contained test double that
 * the shop talks to over HTTP. Static imports, re-exports and dynamic import() are all checked.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SIMULATOR = 'src/server/mpesa/simulator';

/** Every module specifier in a source text: `from '…'`, `import '…'` and `import('…')`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const pattern = /\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(pattern)) found.push((match[1] ?? match[2] ?? match[3])!);
  return found;
}

/** The repository folder a relative import lands in (posix, from the root), or undefined for a package. */
function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
}

const within = (p: string, folder: string) => p === folder || p.startsWith(`${folder}/`);

/** Why `file` may not import `specifier`, or undefined when it may. */
function violation(file: string, specifier: string): string | undefined {
  const to = target(file, specifier);
  if (within(file, SIMULATOR) && !file.endsWith('.test.ts')) {
    if (to === undefined) return specifier.startsWith('node:') ? undefined : 'the simulator uses only node: built-ins';
    return within(to, SIMULATOR) ? undefined : 'the simulator imports nothing of the shop';
  }
  if (to === undefined) return undefined;
  if (!within(to, 'src')) return 'src/ imports nothing outside src/ (tools/ and test/ are not shipped)';
  if (within(file, 'src/shared') && !within(to, 'src/shared')) return 'src/shared imports only src/shared';
  if (within(file, 'src/server') && within(to, 'src/web')) return 'the server does not import the web app';
  if (within(file, 'src/web') && within(to, 'src/server')) return 'the web app does not import the server';
  // The payment rules (domain/) and the wire (mpesa/) know nothing of each other; payments/ joins them.
  if (within(file, 'src/server/mpesa') && (within(to, 'src/server/domain') || within(to, 'src/server/payments'))) {
    return 'mpesa/ is the wire: it imports no payment rules';
  }
  if (within(file, 'src/server/domain') && (within(to, 'src/server/mpesa') || within(to, 'src/server/payments'))) {
    return 'domain/ holds the rules: it imports nothing of M-Pesa';
  }
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(rel);
    return /\.(ts|tsx)$/.test(entry.name) ? [rel] : [];
  });
}

describe('import boundaries', () => {
  it('the checker recognises each kind of import and each forbidden edge', () => {
    expect(
      specifiers(`import a from './a.js';\nexport { b } from "../b.js";\nimport './c.css';\nawait import('./d.js');`),
    ).toEqual(['./a.js', '../b.js', './c.css', './d.js']);
    expect(violation('src/server/cluster.ts', '../../tools/daraja-simulator/index.js')).toMatch(/outside src/);
    expect(violation('src/server/payments/runtime.ts', '../../../test/support/shop.js')).toMatch(/outside src/);
    expect(violation('src/server/mpesa/daraja-client.ts', '../domain/payments/ledger.js')).toMatch(/imports no payment rules/);
    expect(violation('src/server/domain/payments/ledger.ts', '../../mpesa/daraja-client.js')).toMatch(/nothing of M-Pesa/);
    expect(violation('src/server/payments/stk.ts', '../domain/payments/ledger.js')).toBeUndefined();
    expect(violation('src/shared/pricing.ts', '../server/config.js')).toMatch(/src\/shared/);
    expect(violation('src/web/app/api.ts', '../../server/app.js')).toMatch(/web app/);
    expect(violation(`${SIMULATOR}/index.ts`, '../daraja-client.js')).toMatch(/simulator/);
    expect(violation(`${SIMULATOR}/index.ts`, 'zod')).toMatch(/simulator/);
    expect(violation(`${SIMULATOR}/index.ts`, './wire.js')).toBeUndefined();
    expect(violation('src/server/mpesa/local-simulator.ts', './simulator/index.js')).toBeUndefined();
    expect(violation('src/web/app/api.ts', '../../shared/schemas/orders')).toBeUndefined();
  });

  it('no file under src/ crosses a boundary', () => {
    const files = sourceFiles('src');
    expect(files.length).toBeGreaterThan(100);
    const broken = files.flatMap((file) =>
      specifiers(readFileSync(path.join(ROOT, file), 'utf8')).flatMap((specifier) => {
        const why = violation(file, specifier);
        return why ? [`${file}: '${specifier}' — ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });
});

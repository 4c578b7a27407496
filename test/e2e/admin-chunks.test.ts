import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { webDistDir } from '../../src/server/paths.js';

/**
 * The chart library is the admin's: the storefront's first download (the entry script and what it
 * imports statically) must not carry it, and the dashboard must load it lazily. Read from the
 * production build's manifest and source maps (vite build runs before the browser tests).
 */
interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

const CHART_LIBRARY = /node_modules\/uplot\//;

function manifest(): Record<string, Chunk> {
  const file = path.join(webDistDir, '.vite', 'manifest.json');
  if (!fs.existsSync(file)) throw new Error('dist/web is not built: npm test builds it first (vite build)');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Chunk>;
}

/** The chunks loaded with a chunk before it runs: itself and its static imports, transitively. */
function staticClosure(chunks: Record<string, Chunk>, key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of chunks[key]?.imports ?? []) staticClosure(chunks, imported, seen);
  return seen;
}

/** The source files bundled into a built script, from its source map (none for the bundler's tiny runtime). */
function sourcesOf(file: string): string[] {
  const mapFile = path.join(webDistDir, `${file}.map`);
  if (!fs.existsSync(mapFile)) return [];
  return (JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[] }).sources;
}

describe('the admin chart library in the build', () => {
  const chunks = manifest();
  const entry = Object.entries(chunks).find(([, chunk]) => chunk.isEntry)?.[0] ?? '';

  it('is not in the storefront’s entry script or anything it imports statically', () => {
    expect(entry).toBe('index.html');
    const loaded = [...staticClosure(chunks, entry)].map((key) => chunks[key]?.file ?? '');
    expect(loaded.length).toBeGreaterThan(1);
    expect(sourcesOf(chunks[entry]?.file ?? '').length).toBeGreaterThan(0);
    for (const file of loaded) {
      expect(
        sourcesOf(file).filter((source) => CHART_LIBRARY.test(source)),
        file,
      ).toEqual([]);
      expect(fs.readFileSync(path.join(webDistDir, file), 'utf8')).not.toContain('u-over');
    }
  });

  it('is in a chunk the dashboard imports dynamically, which the storefront never imports', () => {
    const withChart = Object.entries(chunks).filter(([, chunk]) => sourcesOf(chunk.file).some((s) => CHART_LIBRARY.test(s)));
    expect(withChart.map(([key]) => key)).toEqual(['features/admin/SalesChart.tsx']);
    expect(fs.readFileSync(path.join(webDistDir, withChart[0]?.[1].file ?? ''), 'utf8')).toContain('u-over');
    const dashboard = chunks['features/admin/DashboardScreen.tsx'];
    expect(dashboard?.dynamicImports).toContain('features/admin/SalesChart.tsx');
    expect(dashboard?.imports ?? []).not.toContain('features/admin/SalesChart.tsx');
    // Nothing but the dashboard asks for it.
    const askers = Object.entries(chunks).filter(
      ([, chunk]) =>
        chunk.imports?.includes('features/admin/SalesChart.tsx') ||
        chunk.dynamicImports?.includes('features/admin/SalesChart.tsx'),
    );
    expect(askers.map(([key]) => key)).toEqual(['features/admin/DashboardScreen.tsx']);
  });
});

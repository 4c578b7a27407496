import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { webDistDir } from '../../src/server/paths.js';
import { manifest, sourcesOf, staticClosure } from './support/build.js';

/**
 * The chart library is the admin's: the storefront's first download (the entry script and what it
 * imports statically) must not carry it, and the dashboard must load it lazily. Read from the
 * production build's manifest and source maps (vite build runs before the browser tests).
 */
const CHART_LIBRARY = /node_modules\/uplot\//;

describe('the admin chart library in the build', () => {
  const chunks = manifest();
  const entry = 'index.html';

  it('is not in the storefront’s entry script or anything it imports statically', () => {
    // The build's two entries: the app, and the loader of drawn pages, which imports nothing.
    expect(
      Object.entries(chunks)
        .filter(([, chunk]) => chunk.isEntry)
        .map(([key]) => key)
        .sort(),
    ).toEqual(['after-photo.ts', entry]);
    expect(chunks['after-photo.ts']?.imports ?? []).toEqual([]);
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
    expect(withChart.map(([key]) => key)).toEqual(['features/dashboard/sales-chart.tsx']);
    expect(fs.readFileSync(path.join(webDistDir, withChart[0]?.[1].file ?? ''), 'utf8')).toContain('u-over');
    const dashboard = chunks['features/dashboard/dashboard-screen.tsx'];
    expect(dashboard?.dynamicImports).toContain('features/dashboard/sales-chart.tsx');
    expect(dashboard?.imports ?? []).not.toContain('features/dashboard/sales-chart.tsx');
    // Nothing but the dashboard asks for it.
    const askers = Object.entries(chunks).filter(
      ([, chunk]) =>
        chunk.imports?.includes('features/dashboard/sales-chart.tsx') ||
        chunk.dynamicImports?.includes('features/dashboard/sales-chart.tsx'),
    );
    expect(askers.map(([key]) => key)).toEqual(['features/dashboard/dashboard-screen.tsx']);
  });
});

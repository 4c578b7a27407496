import fs from 'node:fs';
import path from 'node:path';
import { webDistDir } from '../../../src/server/paths.js';

/**
 * The production build of the web app as its manifest and source maps describe it, for tests of
 * what each screen downloads (vitest's global setup runs vite build).
 */
export interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export function manifest(): Record<string, Chunk> {
  const file = path.join(webDistDir, '.vite', 'manifest.json');
  if (!fs.existsSync(file)) throw new Error('dist/web is not built: the global setup of the tests builds it (npm run build:web)');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Chunk>;
}

/** The chunks loaded with a chunk before it runs: itself and its static imports, transitively. */
export function staticClosure(chunks: Record<string, Chunk>, key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of chunks[key]?.imports ?? []) staticClosure(chunks, imported, seen);
  return seen;
}

/** The source files bundled into a built script, from its source map (none for the bundler's tiny runtime). */
export function sourcesOf(file: string): string[] {
  const mapFile = path.join(webDistDir, `${file}.map`);
  if (!fs.existsSync(mapFile)) return [];
  return (JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[] }).sources;
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';

/**
 * Units a reader can hold in their head (docs/architecture.md, Short units): no source file in
 * src/ over 500 lines, and no function over 120, from its first line to its last, whatever its
 * kind: a declaration, an arrow, a React component, a Fastify plugin's callback, a test's
 * `describe`. Biome's noExcessiveLinesPerFunction and noExcessiveLinesPerFile say the same in the
 * editor; this test measures with a parser, as a reader counts.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 120;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative] : [];
  });
}

interface Span {
  start: number;
  end: number;
}

/** The start and end offsets of every function in a parsed program, nested ones included. */
function functionSpans(node: unknown, found: Span[] = []): Span[] {
  if (Array.isArray(node)) {
    for (const child of node) functionSpans(child, found);
  } else if (node && typeof node === 'object') {
    const { type, start, end } = node as { type?: unknown; start?: number; end?: number };
    if (typeof type === 'string' && type.includes('Function') && start !== undefined && end !== undefined) {
      found.push({ start, end });
    }
    for (const value of Object.values(node)) if (value && typeof value === 'object') functionSpans(value, found);
  }
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The functions of a source text over the limit, as `file:line: n lines`. */
function longFunctions(file: string, text: string): string[] {
  const program = parseAst(text, { lang: file.endsWith('.tsx') ? 'tsx' : 'ts' }, file);
  return functionSpans(program).flatMap(({ start, end }) => {
    const first = lineOf(text, start);
    const lines = lineOf(text, end) - first + 1;
    return lines > MAX_FUNCTION_LINES ? [`${file}:${first}: ${lines} lines`] : [];
  });
}

const files = sourceFiles('src').map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));

describe('short units in src/', () => {
  it('finds the source files it measures, and counts a function as a reader does', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files.some(({ file }) => file.endsWith('.tsx'))).toBe(true);
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    // 2 lines of its own around the body: 119 lines of body make 121.
    const component = `export default function Screen() {\n${body(118)}\n  return <p />;\n}\n`;
    expect(longFunctions('screen.tsx', component)).toEqual(['screen.tsx:1: 121 lines']);
    const plugin = `app.register(async (app: unknown) => {\n${body(117)}\n});\n`;
    expect(longFunctions('plugin.ts', plugin)).toEqual([]);
    expect(longFunctions('plugin.ts', plugin.replace('{\n', '{\n  const extra = 0;\n  const more = 1;\n'))).toEqual([
      'plugin.ts:1: 121 lines',
    ]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map(({ file, text }) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap(({ file, text }) => longFunctions(file, text))).toEqual([]);
  });
});

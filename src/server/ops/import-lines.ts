import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import { z } from 'zod';
import { OpsError } from './errors.js';

/** An export's lines as the import reads them: parsed, numbered, and each checked against the schema of its kind. */

/** A line of the file as JSON.parse made it, and where it stands, for messages. */
export interface NumberedLine {
  number: number;
  value: unknown;
}

/** Reads the export line by line; a gzip or JSON error becomes a message about the file. */
export async function* readLines(file: string): AsyncGenerator<NumberedLine> {
  const input = createReadStream(file);
  const gunzip = createGunzip();
  const reader = readline.createInterface({ input: input.pipe(gunzip), crlfDelay: Number.POSITIVE_INFINITY });
  input.on('error', (error) => gunzip.destroy(error));
  let number = 0;
  try {
    for await (const line of reader) {
      number += 1;
      if (line === '') continue;
      try {
        yield { number, value: JSON.parse(line) };
      } catch {
        throw new OpsError(`${file} is damaged: line ${number} is not JSON`);
      }
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new OpsError(`${file} does not exist`);
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code === 'Z_STREAM_ERROR') {
      throw new OpsError(`${file} is damaged or cut short (${(error as Error).message}); nothing was imported`);
    }
    throw error;
  } finally {
    reader.close();
    input.destroy();
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Zod's own words, but for a field the line lacks, which it would call "received undefined". */
const lineErrors: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'missing' : undefined;

/** A line checked against the schema of its kind, or an error that says which line and what is wrong with it. */
export function checkLine<T>(file: string, line: NumberedLine, kind: string, schema: z.ZodType<T>): T {
  const checked = schema.safeParse(line.value, { error: lineErrors });
  if (checked.success) return checked.data;
  const problems = checked.error.issues.map((issue) =>
    issue.path.length > 0 ? `${z.core.toDotPath(issue.path)}: ${issue.message}` : issue.message,
  );
  return damaged(file, line, `(${kind}): ${problems.join('; ')}`);
}

export function damaged(file: string, line: NumberedLine, what: string): never {
  throw new OpsError(`${file} is damaged: line ${line.number} ${what}`);
}

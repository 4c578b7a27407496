import { z } from 'zod';

/** The zod schema of one environment variable, by the kind of value it holds. */

export type Env = Record<string, string | undefined>;

/** An empty or blank variable counts as unset, as a shell's `VAR=` means. */
const blank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** Text that may be unset. */
export const text = () => z.preprocess(blank, z.string().optional());

export function wholeNumber(name: string, fallback: number, min = 0) {
  const error = min === 0 ? `${name} must be a whole number` : `${name} must be a whole number of at least ${min}`;
  return z.preprocess(blank, z.coerce.number({ error }).int({ error }).min(min, { error }).default(fallback));
}

export function portNumber(name: string, fallback: number) {
  const error = `${name} must be a port number (0 to 65535)`;
  return z.preprocess(blank, z.coerce.number({ error }).int({ error }).min(0, { error }).max(65535, { error }).default(fallback));
}

/** true/false, also as 1/0, yes/no, on/off in any case; unset stays undefined for a default that depends on others. */
export function flag(name: string) {
  return z.preprocess(
    blank,
    z
      .stringbool({
        truthy: ['1', 'true', 'yes', 'on'],
        falsy: ['0', 'false', 'no', 'off'],
        case: 'insensitive',
        error: (issue) => `${name} must be true or false, got "${String(issue.input)}"`,
      })
      .optional(),
  );
}

export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T, fallback: T[number]) {
  const error = (issue: { input?: unknown }) =>
    `${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}, got "${String(issue.input)}"`;
  return z.preprocess(blank, z.enum(values, { error }).default(fallback));
}

export function urlLike(name: string, pattern: RegExp, example: string) {
  return z.preprocess(
    blank,
    z
      .string()
      .regex(pattern, { error: `${name} must ${example}` })
      .optional(),
  );
}

/** A base URL without its trailing slashes (they would double in the paths appended to it). */
export const baseUrl = () => text().transform((url) => url?.replace(/\/+$/, '') || undefined);

import { z } from 'zod';

/**
 * Building blocks for request schemas. Bodies arrive as JSON or as form data (the admin edit
 * screens send FormData), so numbers and booleans also accept their text form.
 */

export const errorBody = z.object({
  errors: z.array(z.object({ msg: z.string(), path: z.string().optional() })),
});
export type ErrorBody = z.infer<typeof errorBody>;

export const messageBody = z.object({ msg: z.string() });
export type MessageBody = z.infer<typeof messageBody>;

/** Ids are UUIDs exposed as opaque strings. */
export const entityId = z.uuid({ error: 'Not a valid id' });
export const idParams = z.object({ id: entityId });

/** A required, trimmed line of text. */
export function requiredText(label: string, max = 200) {
  return z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, { error: `${label} is required` })
    .max(max, { error: `${label} must be at most ${max} characters` });
}

/** Decimal notation only: "12", "-3", "2499.50", ".5". Not "0x10", "1e3", "0b1", "Infinity". */
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;

/**
 * A number sent as form text becomes a number only when it is written in decimals; anything else
 * stays text, which the number schema then refuses ("must be a number").
 */
export function fromFormText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  return DECIMAL.test(text) ? Number(text) : value;
}

/** A number sent as JSON or as form text ("12.50"). */
export function formNumber(label: string) {
  return z.preprocess(
    fromFormText,
    z.number({ error: `${label} must be a number` }).refine(Number.isFinite, {
      error: `${label} must be a number`,
    }),
  );
}

/** A whole number sent as JSON or as form text. */
export function formInteger(label: string) {
  return z.preprocess(
    fromFormText,
    z.number({ error: `${label} must be a whole number` }).int({ error: `${label} must be a whole number` }),
  );
}

/** A boolean sent as JSON or as form text ("true"/"false", or "on" from a checkbox). */
export function formBoolean(label: string) {
  return z.preprocess(
    (value) => {
      if (value === 'true' || value === 'on' || value === '1') return true;
      if (value === 'false' || value === 'off' || value === '0') return false;
      return value;
    },
    z.boolean({ error: `${label} must be true or false` }),
  );
}

/**
 * The largest amount a price may be: amounts are stored as integer cents, whose column holds at
 * most 21,474,836.47 Ksh, and an order of one unit adds 15% tax. (The limit was 100,000,000, which
 * the column cannot hold: the fuzz suite got a 500 for a price of 99,999,999.99.)
 */
export const MAX_KSH_AMOUNT = 10_000_000;

/** Ksh with at most two decimals, never negative. */
export function kshAmount(label: string) {
  return formNumber(label)
    .refine((n) => n >= 0, { error: `${label} cannot be negative` })
    .refine((n) => n <= MAX_KSH_AMOUNT, { error: `${label} is too large` })
    .refine((n) => Math.abs(Math.round(n * 100) - n * 100) < 1e-6, { error: `${label} can have at most 2 decimals` });
}

/** `pageNumber` of a paginated list: a whole number from 1, 1 when absent. */
export const pageNumberParam = z.preprocess(
  (v) => (v === undefined || v === '' ? 1 : Number(v)),
  z
    .number({ error: 'pageNumber must be a whole number from 1' })
    .int({ error: 'pageNumber must be a whole number from 1' })
    .min(1, { error: 'pageNumber must be a whole number from 1' })
    .max(1_000_000, { error: 'pageNumber is too large' }),
);

/** A search of the admin lists: trimmed, at most 100 characters. */
export const listKeyword = z
  .string({ error: 'keyword must be text' })
  .trim()
  .max(100, { error: 'Search at most 100 characters' })
  .optional();

/** `pageNumber` when given: a whole number from 1 (absent stays absent, so the plain list is kept). */
export const optionalPageNumber = z.preprocess(
  (v) => (v === undefined || v === '' ? undefined : Number(v)),
  z
    .number({ error: 'pageNumber must be a whole number from 1' })
    .int({ error: 'pageNumber must be a whole number from 1' })
    .min(1, { error: 'pageNumber must be a whole number from 1' })
    .max(1_000_000, { error: 'pageNumber is too large' })
    .optional(),
);

/** A list query with no parameter given at all: the list answers its plain array. */
export function isPlainList(query: Record<string, unknown>): boolean {
  return Object.values(query).every((value) => value === undefined);
}

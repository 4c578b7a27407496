import { useState } from 'react';
import { type FieldValues, get, type Path, type UseFormReturn } from 'react-hook-form';
import { errorMessages } from '../lib/errors';

/** One of a refusal's errors: the server answers `{ errors: [{ msg, path? }] }`, `path` naming the body's field. */
interface ServerError {
  msg: string;
  path?: string;
}

function serverErrors(error: unknown): ServerError[] {
  const data = (error as { data?: { errors?: unknown } } | null | undefined)?.data;
  if (!Array.isArray(data?.errors)) return [];
  return data.errors.flatMap((e: { msg?: unknown; path?: unknown } | null) =>
    typeof e?.msg === 'string' && e.msg !== '' ? [{ msg: e.msg, ...(typeof e.path === 'string' && { path: e.path }) }] : [],
  );
}

// A form of any output type will do: only its fields' names and errors are used.
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnyForm<Fields extends FieldValues> = UseFormReturn<Fields, unknown, any>;

export interface ServerErrorOptions<Fields extends FieldValues> {
  /** The form's name for a field the server names otherwise, e.g. `{ orderNumber: 'orderId' }`. */
  rename?: Record<string, Path<Fields>>;
  /**
   * The field that takes the messages of no field, for a form with no place above its fields (a
   * one-field form): they are shown under it, together.
   */
  fallback?: Path<Fields>;
}

/**
 * Puts a failed call's messages on a react-hook-form form: each one whose path is a field of the
 * form under that field (the first for each field), and returns the others, for the form's top.
 * A failure with no such messages (offline, a proxy's page) returns its general message. With a
 * `fallback` field, the messages of no field go under it and nothing is returned.
 */
export function placeServerErrors<Fields extends FieldValues>(
  form: AnyForm<Fields>,
  error: unknown,
  { rename, fallback }: ServerErrorOptions<Fields> = {},
): string[] {
  const values = form.getValues();
  const placed = new Map<Path<Fields>, string>();
  const rest: string[] = [];
  const errors = serverErrors(error);
  for (const { msg, path } of errors) {
    const field = path === undefined ? undefined : (rename?.[path] ?? (path as Path<Fields>));
    if (field !== undefined && get(values, field) !== undefined && !placed.has(field)) placed.set(field, msg);
    else rest.push(msg);
  }
  if (errors.length === 0) rest.push(...errorMessages(error));
  if (fallback && rest.length > 0) {
    placed.set(fallback, [placed.get(fallback), ...rest].filter(Boolean).join(' '));
    rest.length = 0;
  }
  for (const [field, message] of placed) form.setError(field, { type: 'server', message });
  return rest;
}

/**
 * placeServerErrors for a form that shows the messages of no field at its top: it keeps them
 * until the next failure or `clear` (a new attempt).
 */
export function useServerErrors<Fields extends FieldValues>(form: AnyForm<Fields>, options?: ServerErrorOptions<Fields>) {
  const [formErrors, setFormErrors] = useState<string[]>([]);
  return {
    /** The last failure's messages of no field, for the top of the form. */
    formErrors,
    /** Puts a failed call's messages on the form and keeps the others for its top. */
    show(error: unknown): void {
      setFormErrors(placeServerErrors(form, error, options));
    },
    clear(): void {
      setFormErrors([]);
    },
  };
}

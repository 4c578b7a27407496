import { zodResolver } from '@hookform/resolvers/zod';
import { type DefaultValues, type FieldErrors, type FieldValues, type Resolver, useForm } from 'react-hook-form';
import type { z } from 'zod';

/**
 * A react-hook-form form checked by a shared zod schema: the screen refuses exactly what the
 * server would, with the same messages, before anything is sent. `Fields` is the form as typed
 * (text, and booleans for checkboxes); the handler gets the schema's output, numbers parsed and
 * text trimmed. First checked on submit, then again on every change, so a corrected field stops
 * complaining at once.
 */
export function useZodForm<Fields extends FieldValues, Output>(schema: z.ZodType<Output>, defaultValues: DefaultValues<Fields>) {
  // The shared schemas take form text (numbers and booleans as text, see schemas/common.ts), so
  // the resolver is typed from the form's own fields rather than from the schema's input type.
  const resolver = zodResolver(schema as z.ZodType<Output, Fields>) as unknown as Resolver<Fields, unknown, Output>;
  return useForm<Fields, unknown, Output>({ resolver, defaultValues, mode: 'onSubmit', reValidateMode: 'onChange' });
}

/** Each message of a refused form, one per field, in the form's order: for the forms that also toast them. */
export function fieldMessages(errors: FieldErrors): string[] {
  return Object.values(errors)
    .map((error) => error?.message)
    .filter((message): message is string => typeof message === 'string' && message !== '');
}

import { z } from 'zod';

/** The limits a form control can enforce itself: maxLength on text, min/max on numbers. */
export interface FieldLimits {
  maxLength?: number;
  min?: number;
  max?: number;
}

/** The schema a wrapper stands for: the value inside optional(), default(), a pipe's first real step. */
function unwrap(schema: z.ZodType): z.ZodType[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) {
    return unwrap(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) {
    // z.preprocess(fn, s) is a pipe from a transform into s; email() is a string piped into a format.
    const steps = [schema.in, schema.out].filter((step) => !(step instanceof z.ZodTransform)) as z.ZodType[];
    return steps.flatMap(unwrap);
  }
  return [schema];
}

/** int() alone bounds a number by the safe integers: that is no limit worth giving a control. */
const isDeclared = (value: number | null): value is number => value !== null && Math.abs(value) < Number.MAX_SAFE_INTEGER;

/**
 * Reads the limits a field's schema declares (a string's `.max()`, a number's `.min()`/`.max()`),
 * so a screen gives its control the same limits as the shared schema and never a copy of them.
 * Limits checked by a refine() are not readable: those the schema still enforces on submit.
 */
export function limitsOf(schema: z.ZodType): FieldLimits {
  const limits: FieldLimits = {};
  for (const step of unwrap(schema)) {
    if (step instanceof z.ZodString && step.maxLength !== null) limits.maxLength ??= step.maxLength;
    if (step instanceof z.ZodNumber) {
      if (isDeclared(step.minValue)) limits.min ??= step.minValue;
      if (isDeclared(step.maxValue)) limits.max ??= step.maxValue;
    }
  }
  return limits;
}

import { z } from 'zod';
import { describeVariant } from '../variant-names.js';
import { entityId, formInteger, kshAmount } from './common.js';
import { imageRef, type ProductOption } from './products.js';

/**
 * A product's options and variants as the admin sets them (PUT /api/products/{id}/variants).
 * How a variant is named ("Size 42 / Black") is ../variant-names.ts, which the storefront imports
 * without zod. docs/product-rules.md, Variants.
 */

export const VARIANT_LIMITS = {
  /** Options of one product (Size, Colour, Material). */
  options: 3,
  /** Values of one option. */
  values: 30,
  /** Characters of an option's name or value. */
  text: 30,
  /** Variants of one product. */
  variants: 500,
  /** Characters of a SKU. */
  sku: 64,
} as const;

function optionText(label: string) {
  return z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, { error: `${label} is required` })
    .max(VARIANT_LIMITS.text, { error: `${label} must be at most ${VARIANT_LIMITS.text} characters` });
}

/** Absent, null and "" are all "none". */
const orNone = (value: unknown) => (value === null || (typeof value === 'string' && value.trim() === '') ? undefined : value);

export const productOptionInput = z.object({
  name: optionText('Option name'),
  values: z
    .array(optionText('Option value'), { error: 'An option needs a list of values' })
    .min(1, { error: 'An option needs at least one value' })
    .max(VARIANT_LIMITS.values, { error: `An option can have at most ${VARIANT_LIMITS.values} values` }),
});

export const productVariantInput = z.object({
  /** Kept when given: orders and carts that name the variant still find it. */
  _id: entityId.optional(),
  options: z.record(z.string(), z.string({ error: 'An option value must be text' }).trim(), {
    error: 'A variant needs its options, as option name → value',
  }),
  price: kshAmount('Price'),
  countInStock: formInteger('Count In Stock')
    .refine((n) => n >= 0, { error: 'Count In Stock cannot be negative' })
    .refine((n) => n <= 1_000_000, { error: 'Count In Stock is too large' }),
  sku: z.preprocess(
    orNone,
    z
      .string({ error: 'SKU must be text' })
      .trim()
      .max(VARIANT_LIMITS.sku, { error: `SKU must be at most ${VARIANT_LIMITS.sku} characters` })
      .optional(),
  ),
  image: z.preprocess(orNone, imageRef.optional()),
});
export type ProductVariantInput = z.infer<typeof productVariantInput>;

type Issue = { message: string; path: (string | number)[] };

/** Option names unique without regard to case, each option's values unique. */
function optionIssues(options: readonly z.infer<typeof productOptionInput>[]): Issue[] {
  const issues: Issue[] = [];
  const names = new Set<string>();
  options.forEach((option, i) => {
    const key = option.name.toLowerCase();
    if (names.has(key)) issues.push({ message: `Option ${option.name} is listed twice`, path: ['options', i, 'name'] });
    names.add(key);
    const values = new Set<string>();
    option.values.forEach((value, j) => {
      if (values.has(value)) {
        issues.push({ message: `${option.name} ${value} is listed twice`, path: ['options', i, 'values', j] });
      }
      values.add(value);
    });
  });
  return issues;
}

/** One value of every option, from its values, and nothing else. */
function choiceIssues(options: readonly ProductOption[], variant: ProductVariantInput, i: number): Issue[] {
  const issues: Issue[] = [];
  const at = ['variants', i, 'options'];
  for (const option of options) {
    const value = variant.options[option.name];
    if (value === undefined) issues.push({ message: `Variant ${i + 1} has no ${option.name}`, path: at });
    else if (!option.values.includes(value)) {
      issues.push({ message: `${value} is not one of the values of ${option.name}`, path: [...at, option.name] });
    }
  }
  for (const name of Object.keys(variant.options)) {
    if (!options.some((option) => option.name === name)) {
      issues.push({ message: `Variant ${i + 1} names ${name}, which is not an option of this product`, path: [...at, name] });
    }
  }
  return issues;
}

/** Every variant's choice valid, no combination, SKU or id twice. */
function variantIssues(options: readonly ProductOption[], variants: readonly ProductVariantInput[]): Issue[] {
  if (options.length === 0) {
    return variants.length === 0 ? [] : [{ message: 'A product without options has no variants', path: ['variants'] }];
  }
  if (variants.length === 0) return [{ message: 'A product with options needs at least one variant', path: ['variants'] }];
  const issues: Issue[] = [];
  const combinations = new Set<string>();
  const skus = new Set<string>();
  const ids = new Set<string>();
  variants.forEach((variant, i) => {
    const choice = choiceIssues(options, variant, i);
    issues.push(...choice);
    if (choice.length === 0) {
      const combination = JSON.stringify(options.map((option) => variant.options[option.name]));
      const described = describeVariant(options, variant.options);
      if (combinations.has(combination))
        issues.push({ message: `${described} is listed twice`, path: ['variants', i, 'options'] });
      combinations.add(combination);
    }
    if (variant.sku !== undefined) {
      const sku = variant.sku.toLowerCase();
      if (skus.has(sku)) issues.push({ message: `SKU ${variant.sku} is listed twice`, path: ['variants', i, 'sku'] });
      skus.add(sku);
    }
    if (variant._id !== undefined) {
      if (ids.has(variant._id)) issues.push({ message: `Variant ${variant._id} is listed twice`, path: ['variants', i, '_id'] });
      ids.add(variant._id);
    }
  });
  return issues;
}

/**
 * PUT /api/products/{id}/variants: the product's options and its variants, replacing what it had.
 * `{options: [], variants: []}` makes it a product sold as one thing again.
 */
export const productVariantsBody = z
  .object({
    options: z
      .array(productOptionInput, { error: 'Options must be a list' })
      .max(VARIANT_LIMITS.options, { error: `A product can have at most ${VARIANT_LIMITS.options} options` }),
    variants: z
      .array(productVariantInput, { error: 'Variants must be a list' })
      .max(VARIANT_LIMITS.variants, { error: `A product can have at most ${VARIANT_LIMITS.variants} variants` }),
  })
  .superRefine((body, ctx) => {
    const issues = optionIssues(body.options);
    // Choices are checked against options that are themselves sound.
    if (issues.length === 0) issues.push(...variantIssues(body.options, body.variants));
    for (const issue of issues) ctx.addIssue({ code: 'custom', input: body, ...issue });
  });
export type ProductVariantsBody = z.infer<typeof productVariantsBody>;

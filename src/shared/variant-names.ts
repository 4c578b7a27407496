/**
 * How a variant is named wherever it is shown (the cart, the order, mails, the packing slip, the
 * CSV export), with no zod: the storefront's first screens import it (docs/product-rules.md, Variants).
 */

interface NamedOption {
  name: string;
}

/** "Size 42 / Colour Black": each option's name and the variant's value, in the options' order. */
export function describeVariant(options: readonly NamedOption[], chosen: Readonly<Record<string, string>>): string {
  return options.map((option) => `${option.name} ${chosen[option.name] ?? ''}`).join(' / ');
}

/** A line's name with its variant after it: "Court Sneaker (Size 42 / Colour Black)". */
export function nameWithVariant(name: string, variant: string | null | undefined): string {
  return variant ? `${name} (${variant})` : name;
}

/** Whether a product's variants have more than one price: its price then reads "from". */
export function pricesDiffer(product: { variants?: readonly { price: number }[] }): boolean {
  return new Set((product.variants ?? []).map((v) => v.price)).size > 1;
}

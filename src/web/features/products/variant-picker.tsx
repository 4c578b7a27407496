import { useState } from 'react';
import type { ProductDetail, ProductOption, ProductVariant, VariantOptions } from '../../../shared/schemas/products';

/** A shopper's choice among a product's variants (docs/product-rules.md, Variants). */
export interface VariantChoice {
  options: readonly ProductOption[];
  chosen: VariantOptions;
  choose: (option: string, value: string) => void;
  /** Whether some variant with this value, and the other values chosen, is in stock. */
  available: (option: string, value: string) => boolean;
  /** The variant the chosen values name, once every option is chosen. */
  variant: ProductVariant | undefined;
  /** The first option still to choose. */
  missing: string | undefined;
}

function fits(variant: ProductVariant, chosen: VariantOptions, options: readonly ProductOption[], except?: string): boolean {
  return options.every((o) => o.name === except || chosen[o.name] === undefined || variant.options[o.name] === chosen[o.name]);
}

/** The choice for a product sold in variants; undefined for a product without options. */
export function useVariantChoice(product: ProductDetail): VariantChoice | undefined {
  const [chosen, setChosen] = useState<VariantOptions>({});
  const options = product.options ?? [];
  const variants = product.variants ?? [];
  if (options.length === 0) return undefined;

  const available = (option: string, value: string, among: VariantOptions = chosen) =>
    variants.some((v) => v.options[option] === value && v.countInStock > 0 && fits(v, among, options, option));

  function choose(option: string, value: string) {
    const next: VariantOptions = { ...chosen, [option]: value };
    // A value chosen earlier that this choice leaves without stock is let go, to be chosen again.
    for (const other of options) {
      const kept = next[other.name];
      if (other.name !== option && kept !== undefined && !available(other.name, kept, next)) delete next[other.name];
    }
    setChosen(next);
  }

  const complete = options.every((o) => chosen[o.name] !== undefined);
  return {
    options,
    chosen,
    choose,
    available: (option, value) => available(option, value),
    variant: complete ? variants.find((v) => options.every((o) => v.options[o.name] === chosen[o.name])) : undefined,
    missing: options.find((o) => chosen[o.name] === undefined)?.name,
  };
}

/**
 * Each option as a row of values to tap (44 px targets); a value with no stock left, given the
 * other values chosen, is crossed out and cannot be chosen.
 */
export default function VariantPicker({ choice }: { choice: VariantChoice }) {
  return (
    <div className="variant-picker mb-3">
      {choice.options.map((option) => (
        <fieldset key={option.name} className="mb-3">
          <legend className="fs-6 fw-semibold mb-2">
            {option.name}
            {choice.chosen[option.name] !== undefined && <span className="fw-normal">: {choice.chosen[option.name]}</span>}
          </legend>
          <div className="d-flex flex-wrap gap-2">
            {option.values.map((value) => {
              const inStock = choice.available(option.name, value);
              const on = choice.chosen[option.name] === value;
              return (
                <button
                  key={value}
                  type="button"
                  className={`btn variant-value ${on ? 'btn-dark' : 'btn-outline-dark'}`}
                  aria-pressed={on}
                  disabled={!inStock}
                  aria-label={inStock ? `${option.name} ${value}` : `${option.name} ${value}, out of stock`}
                  onClick={() => choice.choose(option.name, value)}
                >
                  {inStock ? value : <s>{value}</s>}
                </button>
              );
            })}
          </div>
        </fieldset>
      ))}
    </div>
  );
}

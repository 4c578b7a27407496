import { describe, expect, it } from 'vitest';
import { describeVariant, nameWithVariant, pricesDiffer } from './variant-names.js';

describe('naming a variant', () => {
  const shoe = [{ name: 'Size' }, { name: 'Colour' }];

  it('names the values in the options’ order, a value starting with a digit after its option', () => {
    expect(describeVariant(shoe, { Colour: 'Black', Size: '42' })).toBe('Size 42 / Black');
    expect(describeVariant([{ name: 'Storage' }, { name: 'Colour' }], { Storage: '128GB', Colour: 'Blue' })).toBe(
      'Storage 128GB / Blue',
    );
    expect(describeVariant([{ name: 'Size' }], { Size: 'M' })).toBe('M');
  });

  it('puts the variant after the product’s name, and leaves a plain line’s name alone', () => {
    expect(nameWithVariant('Court Sneaker', 'Size 42 / Black')).toBe('Court Sneaker (Size 42 / Black)');
    expect(nameWithVariant('Kettle', null)).toBe('Kettle');
    expect(nameWithVariant('Kettle', undefined)).toBe('Kettle');
  });

  it('reads a price as "from" only when the variants’ prices differ', () => {
    expect(pricesDiffer({})).toBe(false);
    expect(pricesDiffer({ variants: [{ price: 10 }, { price: 10 }] })).toBe(false);
    expect(pricesDiffer({ variants: [{ price: 10 }, { price: 12 }] })).toBe(true);
  });
});

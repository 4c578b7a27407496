import { act, cleanup, fireEvent, render, renderHook, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProductDetail, ProductVariant } from '../../../shared/schemas/products';
import VariantPicker, { useVariantChoice } from './variant-picker';

const variant = (id: string, size: string, colour: string, countInStock: number, price = 3500): ProductVariant => ({
  _id: id,
  options: { Size: size, Colour: colour },
  price,
  countInStock,
  sku: null,
  image: null,
});

const shoe = {
  _id: 'p1',
  name: 'Court Sneaker',
  price: 3500,
  countInStock: 9,
  options: [
    { name: 'Size', values: ['41', '42', '43'] },
    { name: 'Colour', values: ['Black', 'White'] },
  ],
  variants: [variant('v41b', '41', 'Black', 0), variant('v42b', '42', 'Black', 4), variant('v43w', '43', 'White', 5, 3800)],
} as ProductDetail;

afterEach(cleanup);

describe('choosing a variant', () => {
  it('finds the variant once every option is chosen, and names the option still to choose', () => {
    const { result } = renderHook(() => useVariantChoice(shoe));
    expect(result.current?.missing).toBe('Size');
    expect(result.current?.variant).toBeUndefined();
    act(() => result.current?.choose('Size', '42'));
    expect(result.current?.missing).toBe('Colour');
    act(() => result.current?.choose('Colour', 'Black'));
    expect(result.current?.missing).toBeUndefined();
    expect(result.current?.variant?._id).toBe('v42b');
  });

  it('offers only the values some variant in stock has with the others chosen, and lets go of one a new choice rules out', () => {
    const { result } = renderHook(() => useVariantChoice(shoe));
    expect(result.current?.available('Size', '41')).toBe(false);
    act(() => result.current?.choose('Colour', 'Black'));
    expect(['41', '42', '43'].map((size) => result.current?.available('Size', size))).toEqual([false, true, false]);
    act(() => result.current?.choose('Size', '42'));
    // Size 43 comes only in White: choosing it lets Black go.
    act(() => result.current?.choose('Size', '43'));
    expect(result.current?.chosen).toEqual({ Size: '43' });
    expect(result.current?.missing).toBe('Colour');
  });

  it('is no choice at all for a product without options', () => {
    const plain = { ...shoe, options: undefined, variants: undefined } as ProductDetail;
    expect(renderHook(() => useVariantChoice(plain)).result.current).toBeUndefined();
  });

  it('shows each option as buttons, a sold-out value crossed out and disabled, the chosen one pressed', () => {
    function Picker() {
      const choice = useVariantChoice(shoe);
      return choice ? <VariantPicker choice={choice} /> : null;
    }
    render(<Picker />);
    const soldOut = screen.getByRole('button', { name: 'Size 41, out of stock' });
    expect(soldOut).toHaveProperty('disabled', true);
    expect(soldOut.querySelector('s')?.textContent).toBe('41');
    fireEvent.click(screen.getByRole('button', { name: 'Size 42' }));
    expect(screen.getByRole('button', { name: 'Size 42' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('button', { name: 'Colour White, out of stock' })).toHaveProperty('disabled', true);
    expect(screen.getByText('Size').closest('legend')?.textContent).toBe('Size: 42');
  });
});

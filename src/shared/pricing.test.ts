import { describe, expect, it } from 'vitest';
import { formatKsh, toCents, twoDecimals } from './money.js';
import { orderTotals } from './pricing.js';

describe('orderTotals (docs/product-rules.md, Constants)', () => {
  it('charges Ksh 100 shipping up to and including Ksh 5,000 of items, nothing above', () => {
    expect(orderTotals([{ price: 5000, qty: 1 }]).shippingPrice).toBe(100);
    expect(orderTotals([{ price: 5000.01, qty: 1 }]).shippingPrice).toBe(0);
    expect(orderTotals([{ price: 2500.01, qty: 2 }]).shippingPrice).toBe(0);
  });

  it('adds 15% tax on the items and sums to the cent without float drift', () => {
    // 0.1 + 0.2 style sums must not leak into prices.
    const totals = orderTotals([
      { price: 0.1, qty: 1 },
      { price: 0.2, qty: 1 },
    ]);
    expect(totals.itemsPrice).toBe(0.3);
    expect(totals.taxPrice).toBe(0.05); // 4.5 cents rounds half up
    expect(totals.totalPrice).toBe(100.35);
  });

  it('matches a worked example', () => {
    expect(
      orderTotals([
        { price: 1499.5, qty: 2 },
        { price: 249.99, qty: 3 },
      ]),
    ).toEqual({ itemsPrice: 3748.97, shippingPrice: 100, taxPrice: 562.35, totalPrice: 4411.32 });
  });

  it('totals an empty cart as shipping only', () => {
    expect(orderTotals([])).toEqual({ itemsPrice: 0, shippingPrice: 100, taxPrice: 0, totalPrice: 100 });
  });
});

describe('money', () => {
  it('converts Ksh to whole cents', () => {
    expect(toCents(1299.99)).toBe(129999);
    expect(toCents(0.07)).toBe(7);
  });

  it('formats Ksh with the label and two decimals', () => {
    expect(formatKsh(1234.5)).toBe('Ksh. 1,234.50');
    expect(twoDecimals(3)).toBe('3.00');
    expect(twoDecimals(4411.320000001)).toBe('4411.32');
  });
});

import { describe, expect, it } from 'vitest';
import { formatKsh, toCents, twoDecimals } from './money.js';
import { DEFAULT_PRICING, orderTotals } from './pricing.js';

describe('orderTotals with the default settings (docs/product-rules.md, Constants)', () => {
  it('charges Ksh 100 shipping up to and including Ksh 5,000 of items, nothing above', () => {
    expect(orderTotals([{ price: 5000, qty: 1 }], DEFAULT_PRICING).shippingPrice).toBe(100);
    expect(orderTotals([{ price: 5000.01, qty: 1 }], DEFAULT_PRICING).shippingPrice).toBe(0);
    expect(orderTotals([{ price: 2500.01, qty: 2 }], DEFAULT_PRICING).shippingPrice).toBe(0);
  });

  it('adds 15% tax on the items and sums to the cent without float drift', () => {
    // 0.1 + 0.2 style sums must not leak into prices.
    const totals = orderTotals(
      [
        { price: 0.1, qty: 1 },
        { price: 0.2, qty: 1 },
      ],
      DEFAULT_PRICING,
    );
    expect(totals.itemsPrice).toBe(0.3);
    expect(totals.taxPrice).toBe(0.05); // 4.5 cents rounds half up
    expect(totals.totalPrice).toBe(100.35);
  });

  it('matches a worked example', () => {
    expect(
      orderTotals(
        [
          { price: 1499.5, qty: 2 },
          { price: 249.99, qty: 3 },
        ],
        DEFAULT_PRICING,
      ),
    ).toEqual({ itemsPrice: 3748.97, shippingPrice: 100, taxPrice: 562.35, totalPrice: 4411.32 });
  });

  it('totals an empty cart as shipping only', () => {
    expect(orderTotals([], DEFAULT_PRICING)).toEqual({ itemsPrice: 0, shippingPrice: 100, taxPrice: 0, totalPrice: 100 });
  });
});

describe('orderTotals with the merchant’s settings', () => {
  const lines = [{ price: 1000, qty: 3 }];

  it('charges the fee up to and including the threshold, nothing above', () => {
    const pricing = { taxPercent: 16, shippingFee: 250.5, freeShippingThreshold: 3000 };
    expect(orderTotals(lines, pricing)).toEqual({ itemsPrice: 3000, shippingPrice: 250.5, taxPrice: 480, totalPrice: 3730.5 });
    expect(orderTotals([{ price: 3000.01, qty: 1 }], pricing).shippingPrice).toBe(0);
  });

  it('taxes at a rate with decimals, rounded to the cent', () => {
    // 16.5% of 3,000.03 is 495.00495: 495.00.
    const totals = orderTotals([{ price: 3000.03, qty: 1 }], { taxPercent: 16.5, shippingFee: 0, freeShippingThreshold: 0 });
    expect(totals).toEqual({ itemsPrice: 3000.03, shippingPrice: 0, taxPrice: 495, totalPrice: 3495.03 });
    // 8.25% of 0.10 is 0.00825: one cent, half up.
    expect(orderTotals([{ price: 0.1, qty: 1 }], { taxPercent: 8.25, shippingFee: 0, freeShippingThreshold: 0 }).taxPrice).toBe(
      0.01,
    );
  });

  it('a zero fee and zero tax leave the items alone', () => {
    expect(orderTotals(lines, { taxPercent: 0, shippingFee: 0, freeShippingThreshold: 0 })).toEqual({
      itemsPrice: 3000,
      shippingPrice: 0,
      taxPrice: 0,
      totalPrice: 3000,
    });
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

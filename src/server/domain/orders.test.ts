import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountPaysOrder } from './orders.js';

describe('amountPaysOrder (the payment prompt’s Amount)', () => {
  it('takes the total with its cents and the total rounded up to whole shillings, nothing else', () => {
    expect(amountPaysOrder(3203.85, 320385)).toBe(true);
    expect(amountPaysOrder(3204, 320385)).toBe(true);
    expect(amountPaysOrder(3203, 320385)).toBe(false);
    expect(amountPaysOrder(3203.86, 320385)).toBe(false);
    expect(amountPaysOrder(3203.851, 320385)).toBe(false);
    expect(amountPaysOrder(1250, 125000)).toBe(true);
  });

  it('compares in cents, so no total is missed or matched by float rounding', () => {
    // Every total the orders table can hold (integer cents), as a client writes it in shillings.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_147_483_647 }), fc.integer({ min: -500, max: 500 }), (totalCents, off) => {
        const due = Math.ceil(totalCents / 100);
        expect(amountPaysOrder(totalCents / 100, totalCents)).toBe(true);
        expect(amountPaysOrder(due, totalCents)).toBe(true);
        expect(amountPaysOrder(Number((totalCents / 100).toFixed(2)), totalCents)).toBe(true);
        const other = totalCents + off;
        expect(amountPaysOrder(other / 100, totalCents)).toBe(other === totalCents || other === due * 100);
      }),
      { numRuns: 2000 },
    );
  });
});

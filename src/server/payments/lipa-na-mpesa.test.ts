import { describe, expect, it } from 'vitest';
import { amountStillDue, howToPayWithout, lipaNaMpesaOf } from './lipa-na-mpesa.js';

describe('paying without the prompt', () => {
  it('is the shortcode as Paybill, or the till number for a Till shop', () => {
    expect(lipaNaMpesaOf({ transactionType: 'paybill', shortcode: '888880', tillNumber: undefined })).toEqual({
      paybill: '888880',
    });
    expect(lipaNaMpesaOf({ transactionType: 'till', shortcode: '174379', tillNumber: '5123456' })).toEqual({ till: '5123456' });
  });

  it('asks for what is still due in whole shillings, nothing once it is covered', () => {
    expect(amountStillDue(349_250, 0)).toBe(3493);
    expect(amountStillDue(349_250, 100_000)).toBe(2493);
    expect(amountStillDue(349_250, 349_300)).toBe(0);
  });

  it('gives the Paybill with the order number as account, a Till without one, and neither when nothing is due', () => {
    expect(howToPayWithout({ paybill: '888880' }, 'K7Q3M9XD', 3493)).toEqual({
      paybill: { businessNumber: '888880', accountNumber: 'K7Q3M9XD', amount: 3493 },
    });
    expect(howToPayWithout({ till: '5123456' }, 'K7Q3M9XD', 3493)).toEqual({ till: { tillNumber: '5123456', amount: 3493 } });
    expect(howToPayWithout({ paybill: '888880' }, 'K7Q3M9XD', 0)).toEqual({ paybill: null });
  });
});

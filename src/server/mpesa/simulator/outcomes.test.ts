import { describe, expect, it } from 'vitest';
import { outcomeFor, reversalFaultFor, SIMULATOR_OUTCOMES } from './outcomes.js';

/** The outcome table by phone number, on its own. */

describe('the outcome table', () => {
  it('lists each number once, its local form matching its international one', () => {
    const numbers = SIMULATOR_OUTCOMES.map((row) => row.msisdn);
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const row of SIMULATOR_OUTCOMES) expect(row.local).toBe(`0${row.msisdn.slice(3)}`);
  });

  it('gives a number not listed a success with one callback and no fault', () => {
    expect(outcomeFor('254712345678')).toEqual({ resultCode: 0, callback: 'once', fault: undefined });
    expect(reversalFaultFor('254712345678')).toBeUndefined();
  });

  it('looks a listed number up by its international form only', () => {
    expect(outcomeFor('254700000001')).toEqual({ resultCode: 1032, callback: 'once', fault: undefined });
    expect(outcomeFor('254700000005')).toEqual({ resultCode: 0, callback: 'twice', fault: undefined });
    expect(outcomeFor('254700000006')).toMatchObject({ callback: 'never' });
    expect(outcomeFor('254700000015')).toEqual({ resultCode: 0, callback: 'once', fault: 'lost_then_late' });
    expect(outcomeFor('0700000001')).toEqual({ resultCode: 0, callback: 'once', fault: undefined });
  });

  it('picks reversal faults by the payer', () => {
    expect(reversalFaultFor('254700000012')).toBe('queue_timeout_once');
    expect(reversalFaultFor('254700000013')).toBe('no_result');
    expect(reversalFaultFor('254700000014')).toBe('insufficient_once');
    expect(reversalFaultFor('254700000001')).toBeUndefined();
  });
});

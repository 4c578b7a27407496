import { describe, expect, it } from 'vitest';
import { nairobiDay, nairobiMinute } from './dates.js';

describe('Nairobi dates', () => {
  it('shows an order placed at 01:00 EAT on its Nairobi day, not the UTC day before', () => {
    // 01:00 on 25 November in Nairobi is 22:00 on 24 November in UTC.
    expect(nairobiDay('2026-11-24T22:00:00.000Z')).toBe('2026-11-25');
    expect(nairobiMinute('2026-11-24T22:00:00.000Z')).toBe('2026-11-25 01:00');
    expect(nairobiDay(new Date(Date.UTC(2026, 10, 24, 22, 0)))).toBe('2026-11-25');
  });

  it('turns the day at midnight Nairobi time, 21:00 UTC, across months and years', () => {
    expect(nairobiDay('2026-11-25T20:59:59.999Z')).toBe('2026-11-25');
    expect(nairobiDay('2026-11-25T21:00:00.000Z')).toBe('2026-11-26');
    expect(nairobiDay('2026-12-31T21:30:00Z')).toBe('2027-01-01');
    expect(nairobiMinute('2026-12-31T20:59:00Z')).toBe('2026-12-31 23:59');
  });

  it('leaves no timestamp empty and a text that is not a date as it is', () => {
    expect(nairobiDay(null)).toBe('');
    expect(nairobiDay(undefined)).toBe('');
    expect(nairobiMinute('soon')).toBe('soon');
  });
});

import { describe, expect, it } from 'vitest';
import { addDays, monthStart, nairobiDay, nairobiDayStart, nairobiMinute, nairobiSecond, weekStart } from './dates.js';

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

  it('gives a moment to the second, and the first instant of a Nairobi day', () => {
    expect(nairobiSecond('2026-11-24T22:00:09.400Z')).toBe('2026-11-25 01:00:09');
    expect(nairobiDayStart('2026-11-25').toISOString()).toBe('2026-11-24T21:00:00.000Z');
  });

  it('counts calendar days, weeks from Monday and months across their ends', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
    expect(addDays('2026-11-25', -29)).toBe('2026-10-27');
    // 25 November 2026 is a Wednesday; 23 November the Monday before it; a Monday is its own start.
    expect(weekStart('2026-11-25')).toBe('2026-11-23');
    expect(weekStart('2026-11-23')).toBe('2026-11-23');
    expect(weekStart('2026-11-29')).toBe('2026-11-23');
    expect(weekStart('2027-01-01')).toBe('2026-12-28');
    expect(monthStart('2026-11-25')).toBe('2026-11-01');
  });
});

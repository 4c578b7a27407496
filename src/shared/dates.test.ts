import { describe, expect, it } from 'vitest';
import { addDays, monthStart, nairobiDay, nairobiDayRange, nairobiMinute, nairobiSecond, weekStart } from './dates.js';

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

  it('gives a moment to the second', () => {
    expect(nairobiSecond('2026-11-24T22:00:09.400Z')).toBe('2026-11-25 01:00:09');
  });

  it('gives a Nairobi day as the UTC instants from its midnight to the next, across months and years', () => {
    const range = (day: string) => {
      const { start, end } = nairobiDayRange(day);
      return [start.toISOString(), end.toISOString()];
    };
    expect(range('2026-11-25')).toEqual(['2026-11-24T21:00:00.000Z', '2026-11-25T21:00:00.000Z']);
    expect(range('2026-11-30')).toEqual(['2026-11-29T21:00:00.000Z', '2026-11-30T21:00:00.000Z']);
    expect(range('2027-01-01')).toEqual(['2026-12-31T21:00:00.000Z', '2027-01-01T21:00:00.000Z']);
    expect(range('2028-02-29')).toEqual(['2028-02-28T21:00:00.000Z', '2028-02-29T21:00:00.000Z']);
  });

  it('puts an order placed at 01:30 EAT in the range of its Nairobi day, not of the UTC day it is stored on', () => {
    const placed = new Date('2026-11-24T22:30:00.000Z'); // 01:30 on 25 November in Nairobi
    const within = (day: string) => {
      const { start, end } = nairobiDayRange(day);
      return start <= placed && placed < end;
    };
    expect(within('2026-11-25')).toBe(true);
    expect(within('2026-11-24')).toBe(false);
    expect(nairobiDay(placed)).toBe('2026-11-25');
  });

  it('agrees with nairobiDay at every boundary: the start is on the day, the instant before the start is not', () => {
    for (const day of ['2026-01-01', '2026-03-01', '2026-11-25', '2026-12-31']) {
      const { start, end } = nairobiDayRange(day);
      expect(nairobiDay(start)).toBe(day);
      expect(nairobiDay(new Date(start.getTime() - 1))).toBe(addDays(day, -1));
      expect(nairobiDay(new Date(end.getTime() - 1))).toBe(day);
      expect(nairobiDay(end)).toBe(addDays(day, 1));
    }
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

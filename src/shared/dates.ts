/**
 * Dates as the shop shows them: in Nairobi time (EAT, UTC+3 all year), whatever the time zone of
 * the server or the browser. Timestamps are stored in UTC, so an order placed at 01:00 in Nairobi
 * is stored on the previous day; cutting the stored text would show that day.
 */
export const SHOP_TIME_ZONE = 'Africa/Nairobi';

const nairobiClock = new Intl.DateTimeFormat('en-GB', {
  timeZone: SHOP_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

type Timestamp = string | Date | null | undefined;

/** The Nairobi calendar fields of a moment, or undefined when it is not one. */
function nairobiFields(
  timestamp: string | Date,
): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> | undefined {
  const date = typeof timestamp === 'string' ? new Date(timestamp) : timestamp;
  if (Number.isNaN(date.getTime())) return undefined;
  const fields = { year: '', month: '', day: '', hour: '', minute: '', second: '' };
  for (const part of nairobiClock.formatToParts(date)) {
    if (part.type in fields) fields[part.type as keyof typeof fields] = part.value;
  }
  return fields;
}

/** "2026-11-25": the day in Nairobi; '' for no timestamp, the text itself when it is not a date. */
export function nairobiDay(timestamp: Timestamp): string {
  if (!timestamp) return '';
  const f = nairobiFields(timestamp);
  return f ? `${f.year}-${f.month}-${f.day}` : String(timestamp);
}

/** "2026-11-25 01:05": the day and minute in Nairobi; '' for no timestamp, the text itself when it is not a date. */
export function nairobiMinute(timestamp: Timestamp): string {
  if (!timestamp) return '';
  const f = nairobiFields(timestamp);
  return f ? `${f.year}-${f.month}-${f.day} ${f.hour}:${f.minute}` : String(timestamp);
}

/** "2026-11-25 01:05:09": the moment in Nairobi to the second, as spreadsheets read a date-time; '' for none. */
export function nairobiSecond(timestamp: Timestamp): string {
  if (!timestamp) return '';
  const f = nairobiFields(timestamp);
  return f ? `${f.year}-${f.month}-${f.day} ${f.hour}:${f.minute}:${f.second}` : String(timestamp);
}

/** Nairobi keeps UTC+3 all year (no daylight saving): its day starts at 21:00 UTC the day before. */
export const NAIROBI_UTC_OFFSET_HOURS = 3;

/** The first instant of a Nairobi day ("2026-11-25"): its midnight in UTC, less the offset. */
function nairobiDayStart(day: string): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) - NAIROBI_UTC_OFFSET_HOURS * 60 * 60 * 1000);
}

/**
 * The instants of a Nairobi day ("2026-11-25"): from its first, included, to the next day's first,
 * excluded. Every day boundary the shop computes (filters, exports, the dashboard) is this one, so
 * an order counts on the day the lists show it.
 */
export function nairobiDayRange(day: string): { start: Date; end: Date } {
  return { start: nairobiDayStart(day), end: nairobiDayStart(addDays(day, 1)) };
}

/** The calendar day `days` after a day (before it when negative). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The Monday of a day's week: Kenyan calendars, like ISO 8601, start the week on Monday. */
export function weekStart(day: string): string {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

/** The first day of a day's month. */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

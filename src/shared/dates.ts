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
  hourCycle: 'h23',
});

type Timestamp = string | Date | null | undefined;

/** The Nairobi calendar fields of a moment, or undefined when it is not one. */
function nairobiFields(timestamp: string | Date): Record<'year' | 'month' | 'day' | 'hour' | 'minute', string> | undefined {
  const date = typeof timestamp === 'string' ? new Date(timestamp) : timestamp;
  if (Number.isNaN(date.getTime())) return undefined;
  const fields = { year: '', month: '', day: '', hour: '', minute: '' };
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

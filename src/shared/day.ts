// One UTC day in milliseconds. History counts lookups per UTC day, a date-only `to` bound covers its
// whole day, and the consumption chart lists days: all of them in the same unit, from here.
export const DAY_MS = 86_400_000;

/** The `count` calendar days (yyyy-mm-dd) ending on `last`, oldest first (calendar arithmetic: no zone, no DST). */
export function daysEndingOn(last: string, count: number): string[] {
  const end = Date.parse(`${last}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(end - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

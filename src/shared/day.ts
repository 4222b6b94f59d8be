// One UTC day in milliseconds. History counts lookups per UTC day, a date-only `to` bound covers its
// whole day, and the consumption chart lists days: all of them in the same unit, from here.
export const DAY_MS = 86_400_000;

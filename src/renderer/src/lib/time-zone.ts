// The time zone the screens show times in. What the core writes or counts for a screen (the CSV
// exports' times, the consumption chart's days) is asked in it: in browser mode the core may run in
// another zone than the browser.
export function screenTimeZone(): string | undefined {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
}

// An instant as a wall clock in a time zone shows it: what a person in that zone calls its day and
// time. The desktop's exports and its consumption chart speak in the screen's zone (the browser's in
// browser mode), not in UTC: a lookup at 23:50 in Buenos Aires belongs to that day, not the next.
export type WallClockParts = Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;

/** The parts of an instant's wall-clock time in a zone (this process's when undefined). */
export function wallClock(timeZone: string | undefined): (at: number) => WallClockParts {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return (at) => {
    const parts = { year: '', month: '', day: '', hour: '', minute: '', second: '' };
    for (const part of format.formatToParts(at)) if (part.type in parts) parts[part.type as keyof typeof parts] = part.value;
    return parts;
  };
}

/** The calendar day (yyyy-mm-dd) of an instant in a zone (this process's when undefined). */
export function calendarDay(timeZone: string | undefined): (at: number) => string {
  const clock = wallClock(timeZone);
  return (at) => {
    const t = clock(at);
    return `${t.year}-${t.month}-${t.day}`;
  };
}

// Where a history page lies, worked out from per-day counts instead of by skipping rows.
//
// A `from`/`to` range is cut into whole UTC days (counted by `lookup_daily_counts`) and at most two
// partial edge days (counted on the index, a day's rows at most). Walking those counts newest first
// finds the one day that holds the page's first row and the day that holds its last: the page query
// then skips rows within that one day only, and reads no further back than the last day.
import { DAY_MS, dayOf } from './daily-counts';

/** The instants every history row lies within (JavaScript's Date range); the default bounds. */
export const EARLIEST_MS = -8.64e15;
export const LATEST_MS = 8.64e15 - 1;

/** A span of history, newest first, with how many matching rows it holds. Bounds are inclusive ms. */
export interface Span {
  lo: number;
  hi: number;
  count: number;
}

export interface RangeSplit {
  /** Whole days to read from the daily counts (firstDay > lastDay when there are none). */
  firstDay: number;
  lastDay: number;
  /** Partial days to count on the index, newest first: after the whole days, then before them. */
  newerEdge: { lo: number; hi: number } | null;
  olderEdge: { lo: number; hi: number } | null;
}

const dayStart = (day: number): number => day * DAY_MS;

/** Cuts [lo, hi] into whole days and the partial days around them. */
export function splitRange(lo: number, hi: number): RangeSplit {
  const firstDay = lo === dayStart(dayOf(lo)) ? dayOf(lo) : dayOf(lo) + 1;
  const lastDay = hi === dayStart(dayOf(hi) + 1) - 1 ? dayOf(hi) : dayOf(hi) - 1;
  if (firstDay > lastDay) {
    // No whole day inside: the range is within one or two partial days, counted on the index.
    return { firstDay, lastDay, newerEdge: { lo, hi }, olderEdge: null };
  }
  return {
    firstDay,
    lastDay,
    newerEdge: hi > dayStart(lastDay + 1) - 1 ? { lo: dayStart(lastDay + 1), hi } : null,
    olderEdge: lo < dayStart(firstDay) ? { lo, hi: dayStart(firstDay) - 1 } : null,
  };
}

export interface PageWindow {
  /** Read rows with createdAt in [lo, hi], newest first, skipping `skip` of them. */
  lo: number;
  hi: number;
  skip: number;
}

/**
 * The narrowest window holding rows offset..offset+limit-1 of `spans` (newest first), or null when
 * the page starts past the last row.
 */
export function locatePage(spans: readonly Span[], offset: number, limit: number): PageWindow | null {
  let before = 0;
  let start: { hi: number; skip: number } | null = null;
  for (const span of spans) {
    if (span.count === 0) continue;
    if (!start && before + span.count > offset) start = { hi: span.hi, skip: offset - before };
    before += span.count;
    if (start && before >= offset + limit) return { lo: span.lo, hi: start.hi, skip: start.skip };
  }
  if (!start) return null;
  // The page runs to the oldest row: no lower bound beyond the oldest span's.
  return { lo: spans[spans.length - 1]!.lo, hi: start.hi, skip: start.skip };
}

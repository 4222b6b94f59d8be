// Where a history page lies, worked out from per-day counts instead of by skipping rows.
//
// A `from`/`to` range is cut into whole UTC days (counted by `lookup_daily_counts`) and at most two
// partial edge days (counted on the index, a day's rows at most). Walking those counts from the
// nearer end of the history finds the one day that holds the page's newest row and the day that
// holds its oldest: the page query then skips rows within that one day only, and reads no further
// back than the oldest day.
import { DAY_MS } from '../../../shared/day';
import { dayOf } from './daily-counts';

/** The instants every history row lies within (JavaScript's Date range); the default bounds. */
export const EARLIEST_MS = -8.64e15;
export const LATEST_MS = 8.64e15 - 1;

/** A span of history with how many matching rows it holds. Bounds are inclusive ms. */
export interface Span {
  lo: number;
  hi: number;
  count: number;
}

export interface Edge {
  lo: number;
  hi: number;
}

export interface RangeSplit {
  /** Whole days to read from the daily counts (firstDay > lastDay when there are none). */
  firstDay: number;
  lastDay: number;
  /** Parts of days to count on the index: the one after the whole days, the one before them. */
  newerEdge: Edge | null;
  olderEdge: Edge | null;
}

export const dayStart = (day: number): number => day * DAY_MS;
export const dayEnd = (day: number): number => (day + 1) * DAY_MS - 1;

/** Cuts [lo, hi] into whole days and the partial days around them; each edge lies within one day. */
export function splitRange(lo: number, hi: number): RangeSplit {
  const firstDay = lo === dayStart(dayOf(lo)) ? dayOf(lo) : dayOf(lo) + 1;
  const lastDay = hi === dayEnd(dayOf(hi)) ? dayOf(hi) : dayOf(hi) - 1;
  if (firstDay > lastDay) {
    // No whole day inside: part of one day, or the end of one day and the start of the next.
    if (dayOf(lo) === dayOf(hi)) return { firstDay, lastDay, newerEdge: { lo, hi }, olderEdge: null };
    return { firstDay, lastDay, newerEdge: { lo: dayStart(dayOf(hi)), hi }, olderEdge: { lo, hi: dayEnd(dayOf(lo)) } };
  }
  return {
    firstDay,
    lastDay,
    newerEdge: hi > dayEnd(lastDay) ? { lo: dayStart(lastDay + 1), hi } : null,
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
 * The narrowest window holding rows offset..offset+limit-1 (newest first) of `spans` given newest
 * first, or null when the page starts past the last row. Stops reading spans once the page is placed.
 */
export function locateFromNewest(spans: Iterable<Span>, offset: number, limit: number): PageWindow | null {
  let before = 0;
  let start: { hi: number; skip: number } | null = null;
  let oldest: Span | null = null;
  for (const span of spans) {
    oldest = span;
    if (span.count === 0) continue;
    if (!start && before + span.count > offset) start = { hi: span.hi, skip: offset - before };
    before += span.count;
    if (start && before >= offset + limit) return { lo: span.lo, hi: start.hi, skip: start.skip };
  }
  // The page runs to the oldest row: no lower bound beyond the oldest span's.
  return start && oldest ? { lo: oldest.lo, hi: start.hi, skip: start.skip } : null;
}

/**
 * The same window found from the other end: `spans` given oldest first, `total` rows in all. Pages
 * in the older half of a long history are placed after reading the older half of the days only.
 */
export function locateFromOldest(spans: Iterable<Span>, total: number, offset: number, limit: number): PageWindow | null {
  if (offset >= total) return null;
  // Positions counted from the oldest row: the page is [oldestRow, newestRow].
  const oldestRow = total - Math.min(offset + limit, total);
  const newestRow = total - 1 - offset;
  let before = 0;
  let lo: number | null = null;
  for (const span of spans) {
    if (span.count === 0) continue;
    if (lo === null && before + span.count > oldestRow) lo = span.lo;
    before += span.count;
    if (before > newestRow) return { lo: lo!, hi: span.hi, skip: before - 1 - newestRow };
  }
  return null;
}

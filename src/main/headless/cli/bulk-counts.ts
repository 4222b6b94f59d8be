// How the CLI says numbers, and a bulk job's outcome counts: the same words and the same numbers on
// the progress line, in the summary of `bulk run`/`bulk resume` and in `bulk cancel`. Each used to
// count on its own, and `bulk cancel` called "errors" the errors plus the identifiers the data
// source could not answer, which the run's summary did not.
import type { BulkProgress } from '../../../shared/api/bulk';

const fmt = new Intl.NumberFormat('en-US');
export const count = (n: number) => fmt.format(n);
/** "1 row", "2,500 rows": a count with its noun in the singular for one. */
export const counted = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/**
 * "found 3", "not found 1", "errors 0" (done items answered another error, PA006), and, when there
 * are any, "unavailable 2": items the data source could not answer (GE500, not charged), still
 * pending — a resume tries them again.
 */
export function outcomeCounts(p: BulkProgress): string[] {
  return [
    `found ${count(p.found)}`,
    `not found ${count(p.notFound)}`,
    `errors ${count(p.errors)}`,
    ...(p.retryable > 0 ? [`unavailable ${count(p.retryable)}`] : []),
  ];
}

/** "found 3, not found 1, errors 0; 4 credits charged in total": a summary's counts. */
export function countsSummary(p: BulkProgress): string {
  return `${outcomeCounts(p).join(', ')}; ${counted(p.charged, 'credit', 'credits')} charged in total`;
}

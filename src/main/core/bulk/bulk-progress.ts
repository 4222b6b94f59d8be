// Progress of a bulk job: the counts from its items, plus the rate and ETA of a run in progress.
// The rate is measured over a sliding window so the ETA follows the current speed (a run that
// slows down because the machine got busy shows a longer ETA within seconds).
import type { BulkProgress } from '../../../shared/api/bulk';
import type { BulkCounts } from './bulk-jobs';

const WINDOW_MS = 5_000;
/** Below this much measured time the rate is noise: no rate and no ETA yet. */
const MIN_SPAN_MS = 500;

export class RateMeter {
  readonly #samples: { at: number; done: number }[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Records the number of items done so far in this run. */
  sample(done: number): void {
    const at = this.now();
    this.#samples.push({ at, done });
    while (this.#samples.length > 2 && at - this.#samples[1]!.at >= WINDOW_MS) this.#samples.shift();
  }

  /** Items per second over the window, or null while too little time has passed. */
  rate(): number | null {
    const first = this.#samples[0];
    const last = this.#samples.at(-1);
    if (!first || !last || last.at - first.at < MIN_SPAN_MS) return null;
    return ((last.done - first.done) * 1000) / (last.at - first.at);
  }
}

export function progressOf(total: number, counts: BulkCounts, ratePerSecond: number | null): BulkProgress {
  const remaining = Math.max(0, total - counts.done);
  const rate = ratePerSecond === null ? null : Math.round(ratePerSecond * 10) / 10;
  return {
    total,
    done: counts.done,
    remaining,
    charged: counts.charged,
    found: counts.found,
    notFound: counts.notFound,
    errors: counts.errors,
    retryable: counts.retryable,
    ratePerSecond: rate,
    etaSeconds: rate !== null && rate > 0 ? Math.ceil(remaining / rate) : null,
  };
}

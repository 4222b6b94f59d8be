// Runs one bulk job: its pending items in file order through the lookup service (source BULK, the
// starter's name on every history entry, live credits), with a bounded number in flight so the
// group commit writes many lookups per transaction.
//
// Why a restart never charges twice: each item is marked done by the lookup's own transaction
// (LookupContext.onCommit), and the mark only applies to a pending item. A run killed at any point
// leaves every item either done with its one charge, or pending with none.
//
// How a run ends:
//   completed       every item is done
//   out_of_credits  a lookup answered 402: nothing more is dispatched, the rest stays pending
//   paused          stopped by the caller (pause, Ctrl-C, shutdown), or items answered GE500 remain
//   cancelled       stopped by the caller for good
import { saidPlainly } from '../db/plain-faults';
import type { WriteAlone } from '../db/commit-queue';
import type { CommittedOutcome, LookupAnswer, LookupContext, LookupService } from '../lookup/lookup-service';
import { RESUMABLE_STATUSES, type BulkJobStatus, type BulkProgress } from '../../../shared/api/bulk';
import { BulkItemAlreadyDone, BulkJobStopped, type BulkCounts, type BulkJobRow, type BulkJobStore, type PendingItem } from './bulk-jobs';
import { RateMeter, progressOf } from './bulk-progress';

export const DEFAULT_CONCURRENCY = 64;
export const MAX_CONCURRENCY = 256;
const PAGE_SIZE = 1_000;
const DEFAULT_PROGRESS_INTERVAL_MS = 200;

export type BulkRunEnd = 'completed' | 'out_of_credits' | 'paused' | 'cancelled';
/** Why a caller stops a run: the status the job is left in. */
export type BulkStopReason = 'paused' | 'cancelled';

export interface BulkRunOptions {
  concurrency?: number;
  onProgress?: (progress: BulkProgress) => void;
  progressIntervalMs?: number;
}

export interface BulkRunResult {
  jobId: string;
  end: BulkRunEnd;
  progress: BulkProgress;
  /** Lookups committed by this run (charged or not). */
  lookedUp: number;
  /** A failure that stopped the run (database error...), not a lookup outcome. */
  error: Error | null;
  /** Wall time of this run, from the first dispatch to the final status. */
  durationMs: number;
}

export class BulkRunner {
  #stopReason: BulkStopReason | null = null;
  #outOfCredits = false;
  #error: Error | null = null;
  #counts: BulkCounts = { done: 0, charged: 0, found: 0, notFound: 0, errors: 0, retryable: 0 };
  #lookedUp = 0;
  #doneThisRun = 0;
  readonly #meter = new RateMeter();
  #begun!: () => void;
  /** Settles once the run has marked its job running, or found that it cannot: what `start` answers after. */
  readonly began = new Promise<void>((resolve) => (this.#begun = resolve));

  constructor(
    /** `writeAlone`: the job's own state changes wait for another process's lock between attempts (CommitQueue.writeAlone). */
    private readonly deps: { store: BulkJobStore; lookups: LookupService; writeAlone: WriteAlone },
    readonly job: BulkJobRow,
    private readonly options: BulkRunOptions = {},
  ) {}

  /** Asks the run to stop: nothing more is dispatched, the lookups in flight finish. */
  stop(reason: BulkStopReason): void {
    if (this.#stopReason !== 'cancelled') this.#stopReason = reason;
  }

  get stopping(): boolean {
    return this.#stopReason !== null;
  }

  /** Progress as this run knows it (counts kept in memory, rate over the last seconds). */
  progress(): BulkProgress {
    return progressOf(this.job.total_items, this.#counts, this.#meter.rate());
  }

  async run(): Promise<BulkRunResult> {
    const { store } = this.deps;
    const jobId = this.job.id;
    const started = performance.now();
    let running: boolean;
    try {
      this.#counts = store.counts(jobId);
      running = await this.deps.writeAlone(() => store.transition(jobId, 'running', RESUMABLE_STATUSES, Date.now()));
    } finally {
      this.#begun();
    }
    if (!running) {
      // Cancelled or completed by another process since the caller read the job: nothing to run.
      return { jobId, end: endOf(store.status(jobId)), progress: this.progress(), lookedUp: 0, error: null, durationMs: 0 };
    }
    this.#meter.sample(0);

    const items = this.#pendingItems();
    const next = (): PendingItem | undefined => {
      if (this.#stopReason || this.#outOfCredits || this.#error) return undefined;
      const step = items.next();
      return step.done ? undefined : step.value;
    };
    const concurrency = Math.min(Math.max(1, Math.floor(this.options.concurrency ?? DEFAULT_CONCURRENCY)), MAX_CONCURRENCY);
    const interval = this.options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
    let lastEmit = 0;
    const emit = (force: boolean) => {
      const now = performance.now();
      if (!force && now - lastEmit < interval) return;
      lastEmit = now;
      this.#meter.sample(this.#doneThisRun);
      this.options.onProgress?.(this.progress());
    };

    const worker = async () => {
      for (let item = next(); item; item = next()) {
        await this.#lookUp(item);
        emit(false);
      }
    };
    try {
      await Promise.all(Array.from({ length: concurrency }, worker));
    } catch (error) {
      this.#error ??= failure(error);
    }

    let end: BulkRunEnd = 'paused';
    try {
      // The items tell what is done, also what another process running the same job did.
      this.#counts = store.counts(jobId);
      end = this.#end();
      // Only over this run's own "running": a status another process set meanwhile (a cancel from
      // the CLI, another runner out of credits) stands. Completed stands over any: nothing is left.
      const to = end;
      if (!(await this.deps.writeAlone(() => store.transition(jobId, to, to === 'completed' ? UNFINISHED : ['running'], Date.now())))) end = endOf(store.status(jobId));
    } catch (error) {
      // The database went away (shutdown): the job keeps the status written by whoever closed it.
      this.#error ??= failure(error);
    }
    emit(true);
    return { jobId, end, progress: this.progress(), lookedUp: this.#lookedUp, error: this.#error, durationMs: Math.round(performance.now() - started) };
  }

  #end(): BulkRunEnd {
    // Everything done is completed, even when a stop or the last credit came with the last item.
    if (this.#counts.done >= this.job.total_items) return 'completed';
    if (this.#stopReason === 'cancelled') return 'cancelled';
    if (this.#outOfCredits) return 'out_of_credits';
    return 'paused';
  }

  async #lookUp(item: PendingItem): Promise<void> {
    const { store, lookups } = this.deps;
    let committed: CommittedOutcome | null = null;
    const ctx: LookupContext = {
      orgId: this.job.org_id,
      environment: 'live',
      source: 'BULK',
      userId: this.job.user_id,
      apiKeyId: null,
      // A resumed job runs again the item whose lookup a crash interrupted: a remote upstream that
      // answered it then replays that answer instead of charging it twice.
      rerunId: `bulk:${this.job.id}:${item.key}`,
      onCommit: (outcome) => {
        store.markItem(this.job.id, item.key, { lookupId: outcome.lookupId, status: outcome.status, code: outcome.code, charged: outcome.charged, at: outcome.createdAt });
        committed = outcome;
      },
    };
    let answer: LookupAnswer;
    try {
      answer =
        item.type === 'cuit'
          ? await lookups.lookupCreditReport(ctx, { tax_id: item.identifier })
          : await lookups.lookupAccount(ctx, { identifier: item.identifier, type: item.type });
    } catch (error) {
      if (error instanceof BulkJobStopped) {
        // Stopped elsewhere (paused, cancelled, or out of credits in another runner): nothing more is
        // dispatched, and this lookup's charge rolled back with its item (markItem).
        if (error.status === 'out_of_credits') this.#outOfCredits = true;
        else this.stop(error.status === 'cancelled' ? 'cancelled' : 'paused');
        return;
      }
      if (error instanceof BulkItemAlreadyDone) {
        // Another process ran this item first; its counts are in the database.
        this.#counts = store.counts(this.job.id);
        return;
      }
      this.#error ??= failure(error);
      return;
    }
    if (answer.status === 402) {
      this.#outOfCredits = true;
      return;
    }
    const outcome = committed as CommittedOutcome | null;
    if (!outcome) return;
    this.#lookedUp++;
    const c = this.#counts;
    if (outcome.status >= 500) {
      // A retry of a GE500 item that fails again is already counted as retryable.
      if (!item.retried) c.retryable++;
      return;
    }
    if (item.retried) c.retryable--;
    c.done++;
    this.#doneThisRun++;
    if (outcome.charged) c.charged++;
    if (outcome.status === 200) c.found++;
    else if (outcome.status === 404) c.notFound++;
    else c.errors++;
  }

  /** Pending items in file order, a page at a time; GE500 items are tried once per run. */
  *#pendingItems(): Generator<PendingItem> {
    let after = 0;
    for (;;) {
      const page = this.deps.store.pendingAfter(this.job.id, after, PAGE_SIZE);
      if (page.length === 0) return;
      for (const item of page) yield item;
      after = page.at(-1)!.firstRow;
    }
  }
}

/** Every status but completed: a run that finished every item completes the job from any of them. */
const UNFINISHED: readonly BulkJobStatus[] = ['pending', 'running', 'paused', 'out_of_credits', 'cancelled'];

/** How a run reports a job whose status another process set. */
function endOf(status: BulkJobStatus | null): BulkRunEnd {
  return status === 'completed' || status === 'cancelled' || status === 'out_of_credits' ? status : 'paused';
}

/** What stopped a run, as its job's last error says it (a full disk in words, not SQLite's). */
function failure(error: unknown): Error {
  const said = saidPlainly(error);
  return said instanceof Error ? said : new Error(String(said));
}

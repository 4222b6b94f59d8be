// Bulk jobs as the rest of Titular sees them (`titular.bulk`): create or resume a job from an input,
// run it (awaited by the CLI, in the background for the desktop), pause, cancel, views with progress,
// and the CSV export. Runs live in the process that started them; closing the core pauses them.
import type Database from 'better-sqlite3';
import type { LookupService } from '../lookup/lookup-service';
import type { WriteAlone } from '../db/commit-queue';
import { invalidParameter, notFound, stateRefusal } from '../errors';
import { saidPlainly } from '../db/plain-faults';
import { maskKeys } from '../keys/secrets';
import { analyzeTaxId } from '../../../shared/identifiers/cuit';
import type { ProductSlug } from '../../../shared/api/common';
import { RESUMABLE_STATUSES, type BulkJobView, type BulkResultRow } from '../../../shared/api/bulk';
import { BulkInputError, bulkInputHash, parseBulkInput, type BulkInput } from './bulk-input';
import { BulkJobStore, RUN_STALE_MS, runnerIsGone, type BulkJobRow } from './bulk-jobs';
import { BulkRunner, type BulkRunOptions, type BulkRunResult } from './bulk-runner';
import { progressOf } from './bulk-progress';
import { bulkCsvChunks, bulkResultPage } from './bulk-export';
import type { DamagedAnswers } from '../history/stored-answer';
import type { CsvDialect } from '../export/csv-dialect';
import type { User } from '../users/users';

/** Who looks at bulk jobs: the organization's user, with their role. */
export type JobViewer = Pick<User, 'id' | 'orgId' | 'role'>;

export interface PrepareInput {
  orgId: string;
  /** Who starts the job: the history names this user on every lookup (decisions, "Identities"). */
  userId: string;
  product: ProductSlug;
  name: string;
  content: string;
  /**
   * Refuse (BulkAlreadyCompleted) instead of starting a new job when the same input's last job
   * completed and none is unfinished: the CLI without --again. Decided under the write lock, so a
   * job another process completes meanwhile is not followed by a second, charged one.
   */
  refuseCompleted?: boolean;
  /**
   * Refuse an input none of whose rows is valid instead of making a job with nothing to look up (the
   * CLI: such a job would "complete" at once, and running the fixed file's old version again would
   * then be refused as already looked up).
   */
  refuseAllInvalid?: boolean;
  /**
   * Called with the parsed input of a job about to be made (not when an unfinished one is found);
   * what it throws refuses the input before the job is made or a credit spent (the CLI: a list mostly
   * of CUIT/CUILs run as CBU lookups). Not called for an input refuseAllInvalid refused.
   */
  beforeCreate?: (parsed: BulkInput) => void;
}

/** The input was looked up already (its job completed) and the caller asked not to charge it again. */
export class BulkAlreadyCompleted extends Error {
  override name = 'BulkAlreadyCompleted';
  constructor(readonly completed: BulkJobView) {
    super(`this input was already looked up in job ${completed.id}`);
  }
}

export interface PrepareResult {
  job: BulkJobView;
  /** True when an unfinished job of the same input, user and product was found instead of creating one. */
  resumed: boolean;
  /** A completed job of the same input, when a new one was created (running it again charges again). */
  completedBefore: BulkJobView | null;
}

interface ActiveRun {
  runner: BulkRunner;
  done: Promise<BulkRunResult>;
}

export class BulkService {
  readonly store: BulkJobStore;
  readonly #active = new Map<string, ActiveRun>();
  readonly #lastError = new Map<string, string>();

  readonly #createOnce: Database.Transaction<(input: PrepareInput & { inputHash: string; parsed: BulkInput }) => PrepareResult>;

  /**
   * `writeAlone`: the job's own writes (created, running, paused, cancelled, ended) wait for another
   * process's write lock between attempts, not on the event loop (CommitQueue.writeAlone).
   */
  constructor(
    sqlite: Database.Database,
    private readonly lookups: LookupService,
    private readonly writeAlone: WriteAlone,
  ) {
    this.store = new BulkJobStore(sqlite);
    this.#createOnce = sqlite.transaction((input) => this.#createUnlessUnfinished(input));
  }

  /** Finds the unfinished job of this input (same user and product), or creates one. */
  prepare(input: PrepareInput): PrepareResult {
    const planned = this.#plan(input);
    return 'found' in planned ? planned.found : this.#createOnce.immediate(planned.create);
  }

  /**
   * As prepare, for the desktop: a job to create is written once another process's write lock is free,
   * waiting between attempts rather than on the event loop (the input is read and checked once).
   */
  async prepareWhenFree(input: PrepareInput): Promise<PrepareResult> {
    const planned = this.#plan(input);
    return 'found' in planned ? planned.found : this.writeAlone(() => this.#createOnce.immediate(planned.create));
  }

  /** The unfinished job this input already has, or the parsed input of the job to create. */
  #plan(input: PrepareInput): { found: PrepareResult } | { create: PrepareInput & { inputHash: string; parsed: BulkInput } } {
    const inputHash = bulkInputHash(input.product, input.content);
    const unfinished = this.store.findUnfinished(input.orgId, input.userId, input.product, inputHash);
    if (unfinished) return { found: { job: this.#view(unfinished), resumed: true, completedBefore: null } };
    let parsed;
    try {
      parsed = parseBulkInput(input.content, input.product);
    } catch (error) {
      if (error instanceof BulkInputError) throw invalidParameter(error.message);
      throw error;
    }
    if (parsed.rows.length === 0) throw invalidParameter('The input has no identifiers: one per line, or a CSV with an "identifier" column');
    if (parsed.items.length === 0 && input.refuseAllInvalid) {
      const reasons = [...new Set(parsed.rows.map((r) => r.invalid ?? ''))].slice(0, 3);
      const rows = parsed.rows.length === 1 ? 'Its one row is not a valid identifier' : `None of its ${parsed.rows.length.toLocaleString('en-US')} rows is a valid identifier`;
      // A list of CUITs given as the default product: its rows are "not 22 digits", which hides why.
      const cuits = input.product === 'cbu' && parsed.rows.every((r) => analyzeTaxId(r.raw).ok);
      const why = cuits ? 'they are CUIT/CUILs, which are looked up in a credit report (Informes) job' : reasons.join('; ');
      throw invalidParameter(`${rows} (${why}); nothing was looked up or charged`);
    }
    input.beforeCreate?.(parsed);
    // Created under the write lock (#createOnce, which looks again): two processes given the same file
    // at once (two `titular bulk run`s, the CLI and the desktop) make one job, which both then run, not
    // two jobs that each charge.
    return { create: { ...input, inputHash, parsed } };
  }

  #createUnlessUnfinished(input: PrepareInput & { inputHash: string; parsed: BulkInput }): PrepareResult {
    const { inputHash, parsed } = input;
    const unfinished = this.store.findUnfinished(input.orgId, input.userId, input.product, inputHash);
    if (unfinished) return { job: this.#view(unfinished), resumed: true, completedBefore: null };
    const completed = this.store.findCompleted(input.orgId, input.userId, input.product, inputHash);
    if (completed && input.refuseCompleted) throw new BulkAlreadyCompleted(this.#view(completed));
    // A key pasted as the job's name is stored masked, like one pasted as an identifier.
    const name = maskKeys(input.name.trim()).slice(0, 200) || 'pasted list';
    const job = this.store.create({ orgId: input.orgId, userId: input.userId, product: input.product, name, inputHash, parsed, now: Date.now() });
    return { job: this.#view(job), resumed: false, completedBefore: completed ? this.#view(completed) : null };
  }

  list(orgId: string, options: { userId?: string; limit?: number } = {}): BulkJobView[] {
    return this.store.list(orgId, { userId: options.userId, limit: options.limit ?? 100 }).map((job) => this.#view(job));
  }

  get(orgId: string, id: string): BulkJobView {
    return this.#view(this.#require(orgId, id));
  }

  /**
   * A job as `user` may see and control it (the desktop and the CLI alike): operators their own
   * jobs, admins every job of the organization; another operator's job is "not found".
   */
  visibleTo(user: JobViewer, id: string): BulkJobView {
    const job = this.get(user.orgId, id);
    if (user.role !== 'admin' && job.user.id !== user.id) throw notFound(`No bulk job ${id}`);
    return job;
  }

  /** The jobs `user` may see, newest first (see visibleTo). */
  listFor(user: JobViewer, limit?: number): BulkJobView[] {
    return this.list(user.orgId, { userId: user.role === 'admin' ? undefined : user.id, limit });
  }

  /** The job's rows after row `afterRow` with their outcomes, a page at a time (bulk-export.ts). */
  results(orgId: string, id: string, afterRow: number, limit: number): { rows: BulkResultRow[]; next: number | null } {
    return bulkResultPage(this.store, this.#require(orgId, id).id, afterRow, limit);
  }

  invalidRows(orgId: string, id: string, limit = 100): { row: number; input: string; message: string }[] {
    return this.store.invalidRows(this.#require(orgId, id).id, limit);
  }

  isActive(id: string): boolean {
    return this.#active.has(id);
  }

  /**
   * Runs the job's pending items and resolves when the run ends (completed, out of credits, paused
   * or cancelled). `signal` pauses it (the CLI's Ctrl-C). `joined`: the job comes from `prepare`
   * just now, so one that another process completed since ends this run as completed, not refused.
   */
  run(orgId: string, id: string, options: BulkRunOptions & { signal?: AbortSignal; joined?: boolean } = {}): Promise<BulkRunResult> {
    const job = this.#require(orgId, id);
    if (this.#active.has(job.id)) throw stateRefusal(`Bulk job ${job.id} is already running`);
    if (options.joined && job.status === 'completed') {
      // The caller had just found the job unfinished (prepare) and other processes ran it to the end
      // meanwhile: that end is this run's too, with nothing left for it to look up.
      const progress = progressOf(job.total_items, this.store.counts(job.id), null);
      return Promise.resolve({ jobId: job.id, end: 'completed', progress, lookedUp: 0, error: null, durationMs: 0 });
    }
    if (!RESUMABLE_STATUSES.includes(job.status)) throw stateRefusal(`Bulk job ${job.id} is ${job.status}; it cannot be run again`);
    const runner = new BulkRunner({ store: this.store, lookups: this.lookups, writeAlone: this.writeAlone }, job, options);
    const onAbort = () => runner.stop('paused');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) runner.stop('paused');
    this.#lastError.delete(job.id);
    // Whatever the end, even a failure before the first item (its "running" could not be written on a
    // full disk), the job is no longer this process's: left active, it could never be resumed here.
    const done = runner
      .run()
      .finally(() => {
        this.#active.delete(job.id);
        options.signal?.removeEventListener('abort', onAbort);
      })
      .then((result) => {
        if (result.error) this.#lastError.set(job.id, result.error.message);
        return result;
      });
    this.#active.set(job.id, { runner, done });
    return done;
  }

  /**
   * Starts the job in the background (the desktop polls its progress); answers its view once the run
   * has marked it running. A job that cannot run is refused at once (thrown, not rejected).
   */
  start(orgId: string, id: string, options: BulkRunOptions = {}): Promise<BulkJobView> {
    // Failures are kept as the job's lastError; the promise itself is not awaited by anyone.
    this.run(orgId, id, options).catch((caught: unknown) => {
      const error = saidPlainly(caught);
      this.#lastError.set(id, error instanceof Error ? error.message : String(error));
    });
    const began = this.#active.get(this.#require(orgId, id).id)?.runner.began ?? Promise.resolve();
    return began.then(() => this.get(orgId, id));
  }

  /** Stops dispatching and waits for the lookups in flight; the job can be resumed later. */
  pause(orgId: string, id: string): Promise<BulkJobView> {
    return this.#stop(orgId, id, 'paused');
  }

  /** Stops for good: the pending items are never looked up. */
  cancel(orgId: string, id: string): Promise<BulkJobView> {
    return this.#stop(orgId, id, 'cancelled');
  }

  async #stop(orgId: string, id: string, reason: 'paused' | 'cancelled'): Promise<BulkJobView> {
    const job = this.#require(orgId, id);
    const active = this.#active.get(job.id);
    if (active) {
      active.runner.stop(reason);
      await active.done;
    } else if (RESUMABLE_STATUSES.includes(job.status)) {
      // Not running here (a paused job, or one left "running" by a process that died).
      // Conditional: a runner elsewhere may have completed the job since it was read.
      if (job.status !== reason) await this.writeAlone(() => this.store.transition(job.id, reason, RESUMABLE_STATUSES, Date.now()));
    } else if (job.status === reason) {
      // Cancelled already (another window, a double click): what was asked is so, and nothing is recorded.
    } else {
      throw stateRefusal(`Bulk job ${job.id} is ${job.status}`);
    }
    return this.get(orgId, id);
  }

  /**
   * The export as CSV chunks (one row per input row, file order), in the interchange form unless a
   * dialect is given; rows whose stored answer cannot be read are counted in `damaged`.
   */
  exportCsv(orgId: string, id: string, dialect?: CsvDialect, damaged?: DamagedAnswers): Generator<string> {
    return bulkCsvChunks(this.store, this.#require(orgId, id).id, dialect, damaged);
  }

  /**
   * Called when the core closes: stops every run here and marks it paused now (the database closes
   * right after; the lookups in flight commit with the last group commit or not at all).
   */
  shutdown(): void {
    for (const [id, active] of this.#active) {
      active.runner.stop('paused');
      try {
        this.store.transition(id, 'paused', ['running'], Date.now());
      } catch {
        // the database is already closed
      }
    }
  }

  #require(orgId: string, id: string): BulkJobRow {
    const job = this.store.get(orgId, id);
    if (!job) throw notFound(`No bulk job ${id}`);
    return job;
  }

  #view(job: BulkJobRow): BulkJobView {
    const active = this.#active.get(job.id);
    // A run here knows its counts (kept in memory) and its rate; otherwise the items tell.
    const progress = active ? active.runner.progress() : progressOf(job.total_items, this.store.counts(job.id), null);
    return {
      id: job.id,
      name: job.name,
      product: job.product,
      status: job.status,
      user: { id: job.user_id, name: job.user_name, email: job.user_email },
      createdAt: new Date(job.created_at).toISOString(),
      updatedAt: new Date(job.updated_at).toISOString(),
      finishedAt: job.finished_at === null ? null : new Date(job.finished_at).toISOString(),
      totalRows: job.total_rows,
      totalItems: job.total_items,
      invalidRows: job.invalid_rows,
      duplicateRows: job.total_rows - job.invalid_rows - job.total_items,
      progress,
      active: active !== undefined,
      runningElsewhere:
        active === undefined && job.status === 'running' && Date.now() - job.updated_at < RUN_STALE_MS && !runnerIsGone(job.runner),
      lastError: this.#lastError.get(job.id) ?? null,
    };
  }
}

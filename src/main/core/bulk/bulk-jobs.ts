// The bulk job tables: creating a job from its parsed input (one transaction: the job, every input
// row, the distinct items), finding the unfinished job of the same input, listing, progress counts,
// and the one guarded UPDATE that marks an item done inside its lookup's transaction.
//
// Invalid rows are stored with their message and are never looked up nor charged: a bulk job
// validates its whole input before spending anything, so a typo in a file costs nothing (unlike a
// single API lookup, where PA006 is charged by the contract).
import type Database from 'better-sqlite3';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { uuidv7 } from '../db/ids';
import type { ProductSlug } from '../../../shared/api/common';
import type { BulkJobStatus } from '../../../shared/api/bulk';
import type { BulkInput, BulkItemType } from './bulk-input';

export interface BulkJobRow {
  id: string;
  org_id: string;
  user_id: string;
  product: ProductSlug;
  name: string;
  input_hash: string;
  status: BulkJobStatus;
  total_rows: number;
  total_items: number;
  invalid_rows: number;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** The process that set it running, `host:pid` or `host/pidns-N:pid` (see THIS_RUNNER, runnerIsGone). */
  runner: string | null;
  user_name: string;
  user_email: string;
}

const SELECT_JOB = 'SELECT j.*, u.name AS user_name, u.email AS user_email FROM bulk_jobs j JOIN users u ON u.id = j.user_id';

export interface BulkCounts {
  done: number;
  charged: number;
  found: number;
  notFound: number;
  errors: number;
  retryable: number;
}

export interface PendingItem {
  key: string;
  identifier: string;
  type: BulkItemType;
  firstRow: number;
  /** 1 when an earlier attempt answered GE500 (the item is a retry), else 0. */
  retried: number;
}

/** What the lookup's transaction records for an item (see markItem). */
export interface ItemOutcome {
  lookupId: string;
  status: number;
  code: string | null;
  charged: boolean;
  at: number;
}

export interface ExportRow {
  row: number;
  raw: string;
  invalid: string | null;
  key: string | null;
  identifier: string | null;
  firstRow: number | null;
  lookupId: string | null;
  httpStatus: number | null;
  code: string | null;
  creditConsumed: number | null;
  completedAt: number | null;
  responseData: string | null;
}

/** Thrown inside a lookup's transaction when its item was already done: the savepoint rolls back, charge included. */
export class BulkItemAlreadyDone extends Error {
  override name = 'BulkItemAlreadyDone';
}

/** How often a run refreshes its job's updated_at, at most (one UPDATE in a lookup's transaction). */
const RUN_HEARTBEAT_MS = 5_000;
/**
 * A `running` job whose updated_at is older than this is not being run by anyone: its process died
 * or was killed. Above the longest a lookup may take (a remote source's 60 s timeout).
 */
export const RUN_STALE_MS = 90_000;

/**
 * Where this process's pid means something: the host name and, on Linux, the PID namespace. Two
 * containers may share a host name (and a data directory on a volume) but not their pids: a pid of
 * the other one must not be looked up here, where it names another process or none.
 */
function pidSpace(): string {
  try {
    const namespace = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return namespace ? `${hostname()}/pidns-${namespace}` : hostname();
  } catch {
    return hostname();
  }
}
const THIS_PID_SPACE = pidSpace();

/** The runner a job records: `host:pid`, or `host/pidns-N:pid` on Linux. */
export const THIS_RUNNER = `${THIS_PID_SPACE}:${process.pid}`;

/**
 * Whether the process that set a job running is known to be gone: its pid is of this machine's pid
 * space and no process has it any more. Unknown (another machine or container, an older runner
 * without its namespace, no runner recorded, this very process, which may hold several cores, or a
 * pid reused by another process) counts as not gone, and the job then shows as interrupted only
 * after RUN_STALE_MS without a heartbeat.
 */
export function runnerIsGone(runner: string | null): boolean {
  const match = runner ? /^(.*):(\d+)$/.exec(runner) : null;
  if (!match || match[1] !== THIS_PID_SPACE) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The job stopped running while this process ran it: paused or cancelled by another process (the
 * CLI, the desktop), or out of credits or completed by another process running it too.
 */
export class BulkJobStopped extends Error {
  override name = 'BulkJobStopped';
  constructor(readonly status: Exclude<BulkJobStatus, 'running'>) {
    super(`the bulk job was ${status} elsewhere`);
  }
}

export class BulkJobStore {
  readonly #insertJob: Database.Statement<unknown[]>;
  readonly #insertRow: Database.Statement<unknown[]>;
  readonly #insertItem: Database.Statement<unknown[]>;
  readonly #byId: Database.Statement<[string, string], BulkJobRow>;
  readonly #unfinished: Database.Statement<[string, string, string, string], BulkJobRow>;
  readonly #completed: Database.Statement<[string, string, string, string], BulkJobRow>;
  readonly #list: Database.Statement<[string, number], BulkJobRow>;
  readonly #listForUser: Database.Statement<[string, string, number], BulkJobRow>;
  readonly #counts: Database.Statement<[string], Record<keyof BulkCounts, number | null>>;
  readonly #transition: Database.Statement<unknown[]>;
  readonly #itemDone: Database.Statement<[string, string], number>;
  readonly #statusOf: Database.Statement<[string], BulkJobStatus>;
  readonly #touch: Database.Statement<[number, string, string]>;
  /** When this process last refreshed a running job's updated_at, and with which item's lookup (see markItem). */
  readonly #touched = new Map<string, { at: number; key: string }>();
  readonly #pending: Database.Statement<[string, number, number], PendingItem>;
  readonly #mark: Database.Statement<unknown[]>;
  readonly #invalidRows: Database.Statement<[string, number], { row: number; input: string; message: string }>;
  readonly #exportPage: Database.Statement<[string, number, number], ExportRow>;

  constructor(private readonly sqlite: Database.Database) {
    this.#insertJob = sqlite.prepare(
      `INSERT INTO bulk_jobs (id, org_id, user_id, product, name, input_hash, status, total_rows, total_items, invalid_rows, created_at, updated_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, NULL)`,
    );
    this.#insertRow = sqlite.prepare('INSERT INTO bulk_job_rows (job_id, row_number, raw_input, item_key, invalid_message) VALUES (?, ?, ?, ?, ?)');
    this.#insertItem = sqlite.prepare('INSERT INTO bulk_job_items (job_id, item_key, identifier, type, first_row) VALUES (?, ?, ?, ?, ?)');
    this.#byId = sqlite.prepare(`${SELECT_JOB} WHERE j.org_id = ? AND j.id = ?`);
    this.#unfinished = sqlite.prepare(
      `${SELECT_JOB} WHERE j.org_id = ? AND j.input_hash = ? AND j.user_id = ? AND j.product = ?
          AND j.status IN ('pending', 'running', 'paused', 'out_of_credits')
        ORDER BY j.created_at DESC, j.id DESC LIMIT 1`,
    );
    this.#completed = sqlite.prepare(
      `${SELECT_JOB} WHERE j.org_id = ? AND j.input_hash = ? AND j.user_id = ? AND j.product = ? AND j.status = 'completed'
        ORDER BY j.created_at DESC, j.id DESC LIMIT 1`,
    );
    this.#list = sqlite.prepare(`${SELECT_JOB} WHERE j.org_id = ? ORDER BY j.created_at DESC, j.id DESC LIMIT ?`);
    this.#listForUser = sqlite.prepare(`${SELECT_JOB} WHERE j.org_id = ? AND j.user_id = ? ORDER BY j.created_at DESC, j.id DESC LIMIT ?`);
    this.#counts = sqlite.prepare(
      `SELECT SUM(completed_at IS NOT NULL)                                        AS done,
              SUM(CASE WHEN completed_at IS NOT NULL THEN credit_consumed END)     AS charged,
              SUM(completed_at IS NOT NULL AND http_status = 200)                  AS found,
              SUM(completed_at IS NOT NULL AND http_status = 404)                  AS notFound,
              SUM(completed_at IS NOT NULL AND http_status NOT IN (200, 404))      AS errors,
              SUM(completed_at IS NULL AND lookup_id IS NOT NULL)                  AS retryable
         FROM bulk_job_items WHERE job_id = ?`,
    );
    this.#pending = sqlite.prepare(
      `SELECT item_key AS key, identifier, type, first_row AS firstRow, lookup_id IS NOT NULL AS retried FROM bulk_job_items
        WHERE job_id = ? AND completed_at IS NULL AND first_row > ? ORDER BY first_row LIMIT ?`,
    );
    // Only a pending item of a running job can be marked: a second lookup of a done item (two
    // processes running the same job), or a lookup after another process paused or cancelled the job,
    // matches no row, and markItem throws so that lookup's charge rolls back with it.
    this.#mark = sqlite.prepare(
      `UPDATE bulk_job_items SET lookup_id = ?, http_status = ?, error_code = ?, credit_consumed = ?, completed_at = ?
        WHERE job_id = ? AND item_key = ? AND completed_at IS NULL
          AND (SELECT status FROM bulk_jobs WHERE id = job_id) = 'running'`,
    );
    this.#statusOf = sqlite.prepare<[string], BulkJobStatus>('SELECT status FROM bulk_jobs WHERE id = ?').pluck();
    this.#itemDone = sqlite.prepare<[string, string], number>('SELECT completed_at IS NOT NULL FROM bulk_job_items WHERE job_id = ? AND item_key = ?').pluck();
    this.#transition = sqlite.prepare(
      `UPDATE bulk_jobs SET status = ?, updated_at = ?, finished_at = ?, runner = ?
        WHERE id = ? AND status IN (SELECT value FROM json_each(?))`,
    );
    // The heartbeat names its process too: of several processes sharing a job, the runner is the
    // last one seen alive, so one that died does not make the job look interrupted for the others.
    this.#touch = sqlite.prepare('UPDATE bulk_jobs SET updated_at = ?, runner = ? WHERE id = ?');
    this.#invalidRows = sqlite.prepare(
      `SELECT row_number AS row, raw_input AS input, invalid_message AS message FROM bulk_job_rows
        WHERE job_id = ? AND invalid_message IS NOT NULL ORDER BY row_number LIMIT ?`,
    );
    this.#exportPage = sqlite.prepare(
      `SELECT r.row_number AS row, r.raw_input AS raw, r.invalid_message AS invalid, r.item_key AS key,
              i.identifier, i.first_row AS firstRow, i.lookup_id AS lookupId, i.http_status AS httpStatus,
              i.error_code AS code, i.credit_consumed AS creditConsumed, i.completed_at AS completedAt,
              l.response_data AS responseData
         FROM bulk_job_rows r
         LEFT JOIN bulk_job_items i ON i.job_id = r.job_id AND i.item_key = r.item_key
         LEFT JOIN lookups l ON l.id = i.lookup_id
        WHERE r.job_id = ? AND r.row_number > ?
        ORDER BY r.row_number LIMIT ?`,
    );
  }

  /** Writes the job, its rows and its distinct items in one transaction; returns the job. */
  create(input: { orgId: string; userId: string; product: ProductSlug; name: string; inputHash: string; parsed: BulkInput; now: number }): BulkJobRow {
    const { parsed } = input;
    const id = uuidv7(input.now);
    const invalid = parsed.rows.filter((r) => r.invalid !== null).length;
    this.sqlite.transaction(() => {
      this.#insertJob.run(id, input.orgId, input.userId, input.product, input.name, input.inputHash, parsed.rows.length, parsed.items.length, invalid, input.now, input.now);
      for (const r of parsed.rows) this.#insertRow.run(id, r.row, r.raw, r.item?.key ?? null, r.invalid);
      for (const item of parsed.items) this.#insertItem.run(id, item.key, item.identifier, item.type, item.firstRow);
    }).immediate();
    return this.require(input.orgId, id);
  }

  get(orgId: string, id: string): BulkJobRow | null {
    return this.#byId.get(orgId, id) ?? null;
  }

  require(orgId: string, id: string): BulkJobRow {
    const job = this.get(orgId, id);
    if (!job) throw new Error(`bulk job ${id} not found`);
    return job;
  }

  /** The latest job of the same input, user and product that can still be resumed. */
  findUnfinished(orgId: string, userId: string, product: ProductSlug, inputHash: string): BulkJobRow | null {
    return this.#unfinished.get(orgId, inputHash, userId, product) ?? null;
  }

  findCompleted(orgId: string, userId: string, product: ProductSlug, inputHash: string): BulkJobRow | null {
    return this.#completed.get(orgId, inputHash, userId, product) ?? null;
  }

  list(orgId: string, options: { userId?: string; limit: number }): BulkJobRow[] {
    return options.userId ? this.#listForUser.all(orgId, options.userId, options.limit) : this.#list.all(orgId, options.limit);
  }

  counts(jobId: string): BulkCounts {
    const c = this.#counts.get(jobId);
    return {
      done: c?.done ?? 0,
      charged: c?.charged ?? 0,
      found: c?.found ?? 0,
      notFound: c?.notFound ?? 0,
      errors: c?.errors ?? 0,
      retryable: c?.retryable ?? 0,
    };
  }

  /**
   * Sets the status only while the job is in one of `from`, and says whether it did. A job set
   * running records this process as its runner; any other status clears it. Every change a
   * run or a stop makes goes through here: the status was read before, and another process (the CLI
   * cancelling, a second runner finding no credits) may have changed it since; a blind write would
   * undo that, and a cancelled job made resumable again would be looked up and charged.
   */
  transition(jobId: string, to: BulkJobStatus, from: readonly BulkJobStatus[], now: number): boolean {
    return this.#transition.run(to, now, finishedAt(to, now), to === 'running' ? THIS_RUNNER : null, jobId, JSON.stringify(from)).changes === 1;
  }

  status(jobId: string): BulkJobStatus | null {
    return this.#statusOf.get(jobId) ?? null;
  }

  /** Pending items after `afterRow`, in file order (keyset pages over the pending index). */
  pendingAfter(jobId: string, afterRow: number, limit: number): PendingItem[] {
    return this.#pending.all(jobId, afterRow, limit);
  }

  /**
   * Records a lookup's outcome on its item; runs inside that lookup's transaction. A 5xx outcome
   * (GE500, not charged) keeps the item pending so a later run retries it.
   */
  markItem(jobId: string, key: string, outcome: ItemOutcome): void {
    const final = outcome.status < 500;
    const result = this.#mark.run(outcome.lookupId, outcome.status, outcome.code, outcome.charged ? 1 : 0, final ? outcome.at : null, jobId, key);
    if (result.changes === 1) {
      // The job's heartbeat, committed with its lookups: other processes see it runs (RUN_HEARTBEAT_MS).
      // The item whose lookup wrote the last one writes it again: its batch was rolled back (another
      // write of it failed) and is running again, and that heartbeat was rolled back with it.
      const last = this.#touched.get(jobId);
      if (!last || last.key === key || outcome.at - last.at >= RUN_HEARTBEAT_MS) {
        this.#touch.run(outcome.at, THIS_RUNNER, jobId);
        this.#touched.set(jobId, { at: outcome.at, key });
      }
      return;
    }
    if (this.#itemDone.get(jobId, key) === 1) throw new BulkItemAlreadyDone(`bulk item ${key} of job ${jobId} is already done`);
    // The item is pending, so the job is not running any more: whatever stopped it (a pause or a
    // cancel elsewhere, another runner out of credits), this run stops too instead of looking up,
    // and paying the source for, every item left only to roll each back.
    const status = this.#statusOf.get(jobId);
    throw new BulkJobStopped(status && status !== 'running' ? status : 'paused');
  }

  invalidRows(jobId: string, limit: number): { row: number; input: string; message: string }[] {
    return this.#invalidRows.all(jobId, limit);
  }

  /** One page of the export, rows in file order after `afterRow`. */
  exportPage(jobId: string, afterRow: number, limit: number): ExportRow[] {
    return this.#exportPage.all(jobId, afterRow, limit);
  }
}

function finishedAt(status: BulkJobStatus, now: number): number | null {
  return status === 'completed' || status === 'cancelled' ? now : null;
}

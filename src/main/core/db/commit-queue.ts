// Group commit: every write that a request needs (charge, history entry, idempotency record) is queued
// here, and all writes queued during one turn of the event loop are committed in one SQLite
// transaction. Callers reply only after their promise resolves, i.e. after the commit: an answer is
// never sent for a charge that could still be lost.
//
// A batch first runs optimistically: its writes one after another, and what they fold (the day
// counters, the balance: see BatchFolding) written once at its end. If any write throws, that
// transaction is rolled back whole and the batch runs again with each write in its own savepoint
// and nothing folded, so the failing write rolls back and rejects alone. Savepoints cost about as
// much as the writes they guard, and almost every batch needs none.
//
// Durable mode (a connection opened with synchronous=FULL): SQLite would fsync the WAL inside
// COMMIT, blocking the event loop for milliseconds per batch. Instead the group transaction commits
// with synchronous=NORMAL and the WAL is then flushed with fdatasync on libuv's thread pool
// (wal-flusher.ts); the writes' promises resolve only after that flush. Writes queued while one
// flush runs are committed together when it ends and covered by the next, so under load one fsync
// covers many answers and the event loop never waits on the disk. Every other write on the
// connection keeps SQLite's own FULL behaviour.
import type Database from 'better-sqlite3';
import { CHECKPOINT_INTERVAL_MS, checkpointNow, ensureCheckpointer, type CheckpointResult } from './wal-checkpointer';
import { refreshDataVersion } from './write-invalidated-cache';
import { WalFlusher } from './wal-flusher';
import { DataFilesGuard, dataFilesMovedError } from './data-files-guard';
import { isDatabaseBusy } from './database-busy';

/** Writes after which a sustained load is assumed and checkpoints move off the event loop. */
const BACKGROUND_CHECKPOINT_AFTER = 1000;
/** The longest commits are held for a WAL restart (wal-checkpointer.ts); it takes a few ms. */
const RESTART_HOLD_LIMIT_MS = 250;
/**
 * After a hold, the checkpointer's reports are ignored for this many of its intervals: one may still
 * describe the WAL from before the restart. Many more when the checkpoint could not copy everything
 * (a reader in another process keeps an older snapshot), so that commits are not held again and
 * again for nothing.
 */
const RESTART_QUIET_INTERVALS = 2.5;
const RESTART_BLOCKED_QUIET_INTERVALS = 100;
/**
 * How long a batch waits for a write lock another process holds (a CLI command, a second server), as
 * long as the connection's own busy timeout (db/open.ts). It waits between attempts, not in SQLite's
 * busy handler, which sleeps on the event loop: answers, reads and new requests go on meanwhile.
 */
const BUSY_WAIT_MS = 5000;
const BUSY_RETRY_MS = 10;

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * State that writes of one batch fold together and write once (the day counter of 30 lookups is one
 * upsert, their balance one UPDATE). Only optimistic batches fold; a batch that runs again with
 * savepoints writes everything directly, so a write that rolls back takes its share with it.
 */
export interface BatchFolding {
  /** Writes of an optimistic batch are about to run: fold from now on. */
  begin(): void;
  /** Every write succeeded: write what was folded (inside the transaction) and stop folding. */
  end(): void;
  /** The batch failed or was rolled back: drop what was folded and stop folding. */
  abort(): void;
}

/** Rethrown out of an optimistic batch so that its transaction rolls back; the batch then runs with savepoints. */
class WriteFailed extends Error {}

/** CommitQueue.writeAlone, for the parts of the core that write outside a lookup (bulk jobs' states). */
export type WriteAlone = <T>(write: () => T) => Promise<T>;

/** Flushes the WAL file to stable storage; calls back once it is (or with the reason it is not). */
export type WalSync = (walFile: string, done: (error: Error | null) => void) => void;

export interface CommitQueueOptions {
  /** Replaces the fdatasync of the WAL in durable mode (tests control when it completes). */
  syncWal?: WalSync;
  /** Checkpoint from a worker thread once writes keep coming (default: for file databases in WAL mode). */
  backgroundCheckpoints?: boolean;
  /** What writes fold per batch (the history's day counters, the ledger's balances). */
  folding?: readonly BatchFolding[];
  /** The background checkpointer's restart threshold and interval (defaults: wal-checkpointer.ts; tests use smaller ones). */
  checkpointer?: { restartFrames?: number; intervalMs?: number };
  /**
   * Durable mode: a WAL flush failed (EIO from the disk). Its writes are committed in SQLite's view but
   * may not be on disk, and after a failed fsync the kernel may already have dropped them: no answer
   * can be told truthfully (a success may be lost at the next power cut, a GE500 would deny a charge
   * the database shows). So the writes it covered are never answered, every later write is refused,
   * and this is called: the host stops as after a crash, and at the next start SQLite recovers what
   * the disk really holds, which an Idempotency-Key retry then settles (PostgreSQL's answer to
   * fsyncgate). Without it, the writes are rejected with the flush's error.
   */
  onFlushFailed?: (error: Error) => void;
  /** The database's files were deleted or replaced while it ran (data-files-guard.ts): said once, with the refusal every write gets from then on. */
  onFilesMoved?: (error: Error) => void;
}

/** Waiters released by a WAL flush: committed writes, and barriers of answers read from the database. */
type Settle = (error: Error | null) => void;

export class CommitQueue {
  #pending: Pending[] = [];
  #scheduled = false;
  readonly #savepoint: Database.Transaction<(run: () => unknown) => unknown>;
  readonly #optimistic: Database.Transaction<(batch: Pending[]) => { ok: boolean; value: unknown }[]>;
  readonly #isolated: Database.Transaction<(batch: Pending[]) => { ok: boolean; value: unknown }[]>;
  readonly #folding: readonly BatchFolding[];
  /** Set in durable mode: the WAL file to flush after each group commit. */
  readonly #walFile: string | null;
  readonly #syncWal: WalSync;
  /** The default WalSync's open descriptor on the WAL; closed by close(). */
  readonly #flusher: WalFlusher | null;
  #syncing = false;
  #awaitingSync: Settle[] = [];
  /** Writes were queued during a WAL flush: commit them when it ends. */
  #flushAfterSync = false;
  readonly #backgroundCheckpoints: boolean;
  readonly #checkpointer: { restartFrames?: number; intervalMs?: number };
  #writesSinceCheckpointerCheck = 0;
  /** The checkpointer found the WAL large: hold the next commit for a restart. */
  #restartWanted = false;
  /** Commits are held while the checkpointer copies the WAL's last frames. */
  #holding = false;
  /** Date.now() before which the checkpointer's reports of a large WAL are ignored. */
  #restartQuietUntil = 0;
  /** Set once a WAL flush failed with onFlushFailed given, or the files were moved: every write is refused with it. */
  #stopped: Error | null = null;
  /** A WAL flush failed (onFlushFailed): what waits for a flush is never answered, not even at close. */
  #durabilityLost = false;
  /** close() ran: nothing new is taken, and no flush is started but close()'s own. */
  #closed = false;
  /** File databases: is the database still the one at its path (checked before each group commit)? */
  readonly #files: DataFilesGuard | null;
  readonly #onFilesMoved: ((error: Error) => void) | undefined;
  readonly #onFlushFailed: ((error: Error) => void) | undefined;
  /** Date.now() when the batch now waiting for another process's write lock first found it taken. */
  #busySince: number | null = null;
  /** The connection's own busy timeout (db/open.ts), put back after each write that waits between attempts instead. */
  readonly #busyTimeout: number;
  /** The last of the writes made alone (writeAlone), settled or not: the next one waits for it. */
  #aloneQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sqlite: Database.Database,
    options: CommitQueueOptions = {},
  ) {
    this.#folding = options.folding ?? [];
    this.#savepoint = sqlite.transaction((run: () => unknown) => run());
    this.#optimistic = sqlite.transaction((batch: Pending[]) => {
      // What the writes confirm from caches (a lookup's key, its resolver) is checked against this
      // transaction's view of the database (write-invalidated-cache.ts).
      refreshDataVersion(sqlite);
      for (const folding of this.#folding) folding.begin();
      try {
        const results = batch.map((item) => ({ ok: true, value: item.run() }));
        for (const folding of this.#folding) folding.end();
        return results;
      } catch (error) {
        throw new WriteFailed('a write of the batch failed', { cause: error });
      } finally {
        for (const folding of this.#folding) folding.abort();
      }
    });
    this.#isolated = sqlite.transaction((batch: Pending[]) => {
      refreshDataVersion(sqlite);
      return batch.map((item) => {
        try {
          return { ok: true, value: this.#savepoint(item.run) };
        } catch (error) {
          return { ok: false, value: error };
        }
      });
    });
    const durable =
      !sqlite.memory && sqlite.pragma('synchronous', { simple: true }) === 2 && sqlite.pragma('journal_mode', { simple: true }) === 'wal';
    this.#walFile = durable ? `${sqlite.name}-wal` : null;
    this.#busyTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
    this.#flusher = durable && !options.syncWal ? new WalFlusher(this.#walFile!) : null;
    const flusher = this.#flusher;
    this.#syncWal = options.syncWal ?? ((_walFile, done) => flusher!.sync(done));
    this.#backgroundCheckpoints =
      (options.backgroundCheckpoints ?? true) && !sqlite.memory && sqlite.pragma('journal_mode', { simple: true }) === 'wal';
    this.#checkpointer = options.checkpointer ?? {};
    this.#onFlushFailed = options.onFlushFailed;
    this.#files = sqlite.memory ? null : new DataFilesGuard(sqlite.name);
    this.#onFilesMoved = options.onFilesMoved;
  }

  /** True when answers wait for the WAL to reach the disk (synchronous=FULL). */
  get durable(): boolean {
    return this.#walFile !== null;
  }

  /** Runs `write` inside the next group transaction; resolves once that transaction has committed (and, in durable mode, reached the disk). */
  enqueue<T>(write: () => T): Promise<T> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    if (this.#closed) return Promise.reject(new Error('Titular is closing: nothing more is recorded'));
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ run: write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#scheduledFlush());
      }
    });
  }

  /**
   * For answers read from the database rather than written (a balance, a replayed answer, a 402):
   * resolves once everything committed so far is on disk, so no answer reflects a write that a
   * power loss could still undo. Null when there is nothing to wait for (always, unless durable).
   */
  settled(): Promise<void> | null {
    if (this.#durabilityLost) return Promise.reject(this.#stopped);
    if (!this.#walFile || (!this.#syncing && this.#awaitingSync.length === 0)) return null;
    return new Promise<void>((resolve, reject) => {
      this.#awaitingSync.push((error) => (error ? reject(error) : resolve()));
      this.#startSync();
    });
  }

  /**
   * The turn's flush. In durable mode, while a WAL flush runs, the writes queued meanwhile are kept
   * and committed together the moment it ends (then flushed by the next one): they would wait for
   * that next flush anyway, and one large group transaction costs far less than many small ones.
   */
  #scheduledFlush(): void {
    this.#scheduled = false;
    if (this.#stopped) return;
    if (this.#syncing || this.#holding) {
      this.#flushAfterSync = true;
      return;
    }
    if (this.#restartWanted) {
      this.#flushAfterSync = true;
      this.#holdForRestart();
      return;
    }
    this.#flush(true);
  }

  /**
   * No commit until the checkpointer has copied the WAL's last frames: the next commit then finds
   * every frame copied and SQLite writes the WAL from its start again (wal-checkpointer.ts). The
   * writes queued meanwhile are committed together when the hold ends.
   */
  #holdForRestart(): void {
    this.#restartWanted = false;
    this.#holding = true;
    const release = (result: CheckpointResult | null) => {
      this.#holding = false;
      this.#restartWanted = false; // a report that arrived meanwhile described the WAL before this checkpoint
      const complete = result !== null && result.busy === 0 && result.checkpointed === result.log;
      const interval = this.#checkpointer.intervalMs ?? CHECKPOINT_INTERVAL_MS;
      this.#restartQuietUntil = Date.now() + interval * (complete ? RESTART_QUIET_INTERVALS : RESTART_BLOCKED_QUIET_INTERVALS);
      if (this.#flushAfterSync) this.#scheduledFlush();
    };
    checkpointNow(this.sqlite, RESTART_HOLD_LIMIT_MS).then(release, () => release(null));
  }

  /** The checkpointer reports a large WAL (at most once per interval). */
  #walIsLarge(): void {
    if (Date.now() >= this.#restartQuietUntil) this.#restartWanted = true;
  }

  /**
   * After the last flush() (shutdown). The writes that flush committed wait for a WAL flush that,
   * with one already running, would only start once the database is closed: they get it now, in
   * place (a few ms, once). Then the WAL's descriptor is let go once the flush in flight ends.
   */
  close(): void {
    this.#closed = true;
    if (this.#flusher && this.#awaitingSync.length > 0 && !this.#durabilityLost) {
      const waiting = this.#awaitingSync;
      this.#awaitingSync = [];
      let error: Error | null = null;
      try {
        this.#flusher.syncNow();
      } catch (caught) {
        error = caught as Error;
      }
      for (const release of waiting) release(error);
    }
    this.#flusher?.close();
  }

  /**
   * Commits what is queued now (also called on shutdown so nothing queued is dropped): a write lock
   * another process holds is waited for here, in SQLite's busy handler, up to its busy timeout.
   */
  flush(): void {
    this.#flush(false);
  }

  /** `waitBetweenAttempts`: a taken write lock is waited for between attempts (#waitForLock), not in place. */
  #flush(waitBetweenAttempts: boolean): void {
    this.#flushAfterSync = false;
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    const moved = this.#refusalOfMovedFiles();
    if (moved) {
      for (const item of batch) item.reject(moved);
      return;
    }
    let results: { ok: boolean; value: unknown }[];
    try {
      // See #setPragma: each is prepared afresh. The group transaction commits without SQLite's fsync
      // (durable mode flushes the WAL itself, below), and fails at once on a lock another process holds.
      if (this.#walFile) this.#setPragma('synchronous = NORMAL');
      if (waitBetweenAttempts) this.#setPragma('busy_timeout = 0');
      try {
        results = this.#commitBatch(batch);
      } finally {
        if (waitBetweenAttempts) this.#setPragma(`busy_timeout = ${this.#busyTimeout}`);
        if (this.#walFile) this.#setPragma('synchronous = FULL');
      }
    } catch (error) {
      if (waitBetweenAttempts && this.#waitForLock(batch, error)) return;
      this.#busySince = null;
      for (const item of batch) item.reject(error);
      return;
    }
    this.#busySince = null;
    if (this.#backgroundCheckpoints) {
      this.#writesSinceCheckpointerCheck += batch.length;
      if (this.#writesSinceCheckpointerCheck >= BACKGROUND_CHECKPOINT_AFTER) {
        this.#writesSinceCheckpointerCheck = 0;
        ensureCheckpointer(this.sqlite, { ...this.#checkpointer, onLargeWal: () => this.#walIsLarge() });
      }
    }
    if (!this.#walFile) {
      results.forEach((result, i) => settle(batch[i]!, result));
      return;
    }
    results.forEach((result, i) => {
      const item = batch[i]!;
      // A write that failed left nothing behind: its rejection need not wait for the disk.
      if (!result.ok) item.reject(result.value);
      else this.#awaitingSync.push((error) => (error ? item.reject(error) : item.resolve(result.value)));
    });
    this.#startSync();
  }

  /**
   * A write that is not a lookup's (a purchase, a key change, a setting, an audit entry of the
   * desktop's), in a transaction of its own, now, with SQLite's own durability. A write lock another
   * process holds is waited for between attempts, as the group commit waits (BUSY_RETRY_MS, up to
   * BUSY_WAIT_MS; then SQLITE_BUSY, which the API and the screens say plainly), not in SQLite's busy
   * handler, which would stall the event loop, and with it the API and every desktop channel, for up
   * to 5 s. Refused like every write once the data files were moved. `write` may run more than once:
   * it must be one transaction, which a taken lock leaves untouched. These writes are made in the
   * order they were asked for, one after another: one asked while others wait goes behind them, and
   * its 5 s count from when it was asked, not from its turn.
   */
  writeAlone<T>(write: () => T): Promise<T> {
    const askedAt = Date.now();
    const turn = this.#aloneQueue.then(() => this.#writeWhenFree(write, askedAt));
    this.#aloneQueue = turn.catch(() => undefined);
    return turn;
  }

  async #writeWhenFree<T>(write: () => T, askedAt: number): Promise<T> {
    for (;;) {
      if (this.#stopped) throw this.#stopped;
      if (this.#closed) throw new Error('Titular is closing: nothing more is recorded');
      const moved = this.#refusalOfMovedFiles();
      if (moved) throw moved;
      try {
        this.#setPragma('busy_timeout = 0');
        try {
          return write();
        } finally {
          this.#setPragma(`busy_timeout = ${this.#busyTimeout}`);
        }
      } catch (error) {
        if (!isDatabaseBusy(error) || !this.sqlite.open || Date.now() - askedAt >= BUSY_WAIT_MS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }

  /**
   * Sets a connection setting now. Not through a statement prepared once and run again: SQLite applies
   * a PRAGMA that sets a value while it prepares the statement, so running a prepared one again set
   * nothing unless SQLite happened to prepare it anew (measured: the first group commit after start ran
   * with SQLite's own fsync and waited for another process's lock in its busy handler, on the event
   * loop, as did the first write made alone). A few µs a batch.
   */
  #setPragma(setting: string): void {
    this.sqlite.pragma(setting);
  }

  /**
   * File databases: the refusal every write gets once the database, its -wal or its -shm is no longer
   * the file at its path (data-files-guard.ts), or null while they are. The first time, the
   * connection turns query_only and the host is told (onFilesMoved).
   */
  #refusalOfMovedFiles(): Error | null {
    if (this.#stopped) return this.#stopped;
    const moved = this.#files?.moved();
    if (!moved) return null;
    this.#stopped = dataFilesMovedError(moved);
    // Every other write of this connection too (a housekeeping write, a bulk job's state): nothing
    // more goes into files nobody will find again, or beside a -shm another process made.
    try {
      this.sqlite.pragma('query_only = 1');
    } catch {
      // a connection already closed writes nothing anyway
    }
    this.#onFilesMoved?.(this.#stopped);
    return this.#stopped;
  }

  /**
   * Another process holds the write lock: the batch goes back to the front of the queue and is tried
   * again shortly, until BUSY_WAIT_MS have passed since it first found the lock taken (then its
   * writes are rejected with SQLITE_BUSY: the API answers 503). False when it is not that, or too late.
   */
  #waitForLock(batch: Pending[], error: unknown): boolean {
    // Any busy code (SQLITE_BUSY_RECOVERY too: another connection is recovering the WAL), as the API tells it.
    if (!isDatabaseBusy(error) || !this.sqlite.open) return false;
    const now = Date.now();
    this.#busySince ??= now;
    if (now - this.#busySince >= BUSY_WAIT_MS) {
      this.#busySince = null;
      return false;
    }
    this.#pending = [...batch, ...this.#pending];
    if (!this.#scheduled) {
      this.#scheduled = true;
      setTimeout(() => this.#scheduledFlush(), BUSY_RETRY_MS);
    }
    return true;
  }

  /** Optimistically first; when a write throws, again with one savepoint per write (see the top). */
  #commitBatch(batch: Pending[]): { ok: boolean; value: unknown }[] {
    try {
      return this.#optimistic.immediate(batch);
    } catch (error) {
      if (!(error instanceof WriteFailed)) throw error;
      return this.#isolated.immediate(batch);
    }
  }

  /** One flush at a time; whatever committed while it ran waits for the next one. */
  #startSync(): void {
    if (this.#syncing || this.#awaitingSync.length === 0) return;
    if (this.#closed) {
      // Asked for after close() (an answer read from the database while shutting down): its flusher is
      // gone, and a flush that cannot start is no disk failure. close() flushed every commit there was.
      const waiting = this.#awaitingSync;
      this.#awaitingSync = [];
      for (const release of waiting) release(new Error('Titular is closing'));
      return;
    }
    const walFile = this.#walFile!;
    const waiting = this.#awaitingSync;
    this.#awaitingSync = [];
    this.#syncing = true;
    this.#syncWal(walFile, (error) => {
      // The WAL is gone only when the database was closed, and closing checkpointed it with a sync.
      const lost = error && !((error as NodeJS.ErrnoException).code === 'ENOENT' && !this.sqlite.open) ? error : null;
      this.#syncing = false;
      if (lost && this.#onFlushFailed) {
        // See onFlushFailed: the writes it covered stay unanswered, and nothing more is committed.
        this.#stopped = lost;
        this.#durabilityLost = true;
        for (const item of this.#pending) item.reject(lost);
        this.#pending = [];
        this.#onFlushFailed(lost);
        return;
      }
      for (const release of waiting) release(lost);
      // Commits what queued up meanwhile (unless a WAL restart holds it) and starts the next WAL flush.
      if (this.#flushAfterSync) this.#scheduledFlush();
      this.#startSync();
    });
  }
}

function settle(item: Pending, result: { ok: boolean; value: unknown }): void {
  if (result.ok) item.resolve(result.value);
  else item.reject(result.value);
}

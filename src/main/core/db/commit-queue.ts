// Group commit: every write that a request needs (charge, history entry, idempotency record) is queued
// here, and all writes queued during one turn of the event loop are committed in one SQLite
// transaction. Each write still runs in its own savepoint, so one failing write rolls back alone.
// Callers reply only after their promise resolves, i.e. after the commit: an answer is never sent
// for a charge that could still be lost.
import type Database from 'better-sqlite3';

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class CommitQueue {
  #pending: Pending[] = [];
  #scheduled = false;
  readonly #savepoint: Database.Transaction<(run: () => unknown) => unknown>;
  readonly #batch: Database.Transaction<(batch: Pending[]) => { ok: boolean; value: unknown }[]>;

  constructor(sqlite: Database.Database) {
    this.#savepoint = sqlite.transaction((run: () => unknown) => run());
    this.#batch = sqlite.transaction((batch: Pending[]) =>
      batch.map((item) => {
        try {
          return { ok: true, value: this.#savepoint(item.run) };
        } catch (error) {
          return { ok: false, value: error };
        }
      }),
    );
  }

  /** Runs `write` inside the next group transaction; resolves once that transaction has committed. */
  enqueue<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ run: write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is queued now (also called on shutdown so nothing queued is dropped). */
  flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    let results: { ok: boolean; value: unknown }[];
    try {
      results = this.#batch.immediate(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    results.forEach((result, i) => {
      const item = batch[i]!;
      if (result.ok) item.resolve(result.value);
      else item.reject(result.value);
    });
  }
}

// The durable group commit's WAL flush (commit-queue.ts): fdatasync of the WAL on libuv's thread
// pool, with one descriptor kept open for it. Opening and closing the file around every flush took
// three thread-pool round trips instead of one, and under load each waited for the busy event loop
// to pick up its callback before the next could start: the flush took 1.7 ms where it now takes
// 1.2, and durable lookups were about 15 % slower.
//
// The WAL stays the same file while the database connection is open: SQLite deletes it only when
// the last connection closes, and otherwise truncates or rewrites it in place. As a guard, at most
// once a second the path is checked to still name the file the descriptor is open on, and reopened
// when it does not. The WAL carries no POSIX locks (WAL mode locks the -shm file), so this
// descriptor cannot release a lock SQLite holds.
import { closeSync, fdatasync, fstatSync, openSync, statSync } from 'node:fs';

const IDENTITY_CHECK_INTERVAL_MS = 1_000;

export class WalFlusher {
  #fd: number | null = null;
  #identity = '';
  #checkedAt = 0;
  #inFlight = false;
  #closed = false;

  constructor(private readonly walFile: string) {}

  /** Flushes the WAL to stable storage and calls back once it is (or with the reason it is not). One at a time. */
  sync(done: (error: Error | null) => void): void {
    let fd: number;
    try {
      fd = this.#descriptor();
    } catch (error) {
      process.nextTick(done, error as Error);
      return;
    }
    this.#inFlight = true;
    fdatasync(fd, (error) => {
      this.#inFlight = false;
      if (this.#closed) this.#release();
      done(error);
    });
  }

  /** Closes the descriptor, after the flush in flight if there is one. */
  close(): void {
    this.#closed = true;
    if (!this.#inFlight) this.#release();
  }

  #descriptor(): number {
    if (this.#closed) throw new Error('the WAL flusher is closed');
    const now = Date.now();
    if (this.#fd !== null && now - this.#checkedAt < IDENTITY_CHECK_INTERVAL_MS) return this.#fd;
    this.#checkedAt = now;
    if (this.#fd !== null) {
      const onDisk = statSync(this.walFile, { throwIfNoEntry: false });
      if (onDisk && identity(onDisk) === this.#identity) return this.#fd;
      this.#release();
    }
    const fd = openSync(this.walFile, 'r');
    this.#fd = fd;
    this.#identity = identity(fstatSync(fd));
    return fd;
  }

  #release(): void {
    if (this.#fd === null) return;
    // Never while a flush runs on it (sync is one at a time, close waits for it): the number
    // could be reused by another file before the flush reaches it.
    closeSync(this.#fd);
    this.#fd = null;
  }
}

function identity(stats: { dev: number; ino: number }): string {
  return `${stats.dev}:${stats.ino}`;
}

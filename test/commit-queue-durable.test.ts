// CommitQueue with synchronous=FULL: the group transaction commits without blocking on the disk, and
// its writes' promises resolve only after the WAL has been flushed (fdatasync off the event loop).
// The flush is injected here so the tests decide when it completes; one test uses the real one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { walCommits } from './support/wal-commits';
import { CommitQueue, type WalSync } from '../src/main/core/db/commit-queue';

let dir: string;
let file: string;
let writer: Database.Database;
let reader: Database.Database;

/** A WAL flush the test completes by hand: `calls` lists the flushes started, `finish()` ends the oldest. */
function manualSync() {
  const calls: { file: string; done: (error: Error | null) => void }[] = [];
  const sync: WalSync = (walFile, done) => {
    calls.push({ file: walFile, done });
  };
  return {
    sync,
    calls,
    finish(error: Error | null = null) {
      const call = calls.shift();
      if (!call) throw new Error('no flush in progress');
      call.done(error);
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const commitFrames = () => walCommits(file);

const committedRows = () => (reader.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
const insert = (id: number) => writer.prepare('INSERT INTO items (id, label) VALUES (?, ?)').run(id, `item ${id}`);

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'titular-durable-queue-'));
  file = path.join(dir, 'queue.db');
  writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.pragma('wal_autocheckpoint = 0'); // keep every frame in the WAL for counting commits
  writer.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)');
  reader = new Database(file, { readonly: true });
});

afterEach(() => {
  reader.close();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('CommitQueue with synchronous=FULL', () => {
  it('is durable only on a FULL connection; a NORMAL one never waits', () => {
    const normal = new Database(path.join(dir, 'normal.db'));
    try {
      normal.pragma('journal_mode = WAL');
      normal.pragma('synchronous = NORMAL');
      const queue = new CommitQueue(normal);
      expect(queue.durable).toBe(false);
      expect(queue.settled()).toBeNull();
    } finally {
      normal.close();
    }
    expect(new CommitQueue(writer).durable).toBe(true);
  });

  it('a write resolves only after the WAL flush that follows its commit', async () => {
    const disk = manualSync();
    const queue = new CommitQueue(writer, { syncWal: disk.sync });
    const write = track(queue.enqueue(() => insert(1)));
    await tick();
    // Committed (another connection sees it) and the flush of the WAL file has started ...
    expect(committedRows()).toBe(1);
    expect(disk.calls.map((c) => c.file)).toEqual([`${file}-wal`]);
    // ... but the answer waits for it.
    await tick();
    expect(write.settled).toBe(false);
    disk.finish();
    await tick();
    expect(write).toMatchObject({ settled: true, value: expect.objectContaining({ changes: 1 }) });
  });

  it('writes queued while a flush runs are committed together when it ends, and covered by the next flush', async () => {
    const disk = manualSync();
    const queue = new CommitQueue(writer, { syncWal: disk.sync });
    const walCommitsBefore = commitFrames();
    const first = track(queue.enqueue(() => insert(1)));
    await tick();
    expect(disk.calls).toHaveLength(1);
    expect(commitFrames() - walCommitsBefore).toBe(1);
    // Two more turns queue writes during the first flush: nothing is committed or flushed for them yet.
    const second = track(queue.enqueue(() => insert(2)));
    await tick();
    const third = track(queue.enqueue(() => insert(3)));
    await tick();
    expect(committedRows()).toBe(1);
    expect(disk.calls).toHaveLength(1);

    disk.finish();
    await tick();
    expect(first.settled).toBe(true);
    // Both committed in one transaction the moment the first flush ended, and one flush covers them.
    expect(committedRows()).toBe(3);
    expect(commitFrames() - walCommitsBefore).toBe(2);
    expect(disk.calls).toHaveLength(1);
    expect(second.settled || third.settled).toBe(false);
    disk.finish();
    await tick();
    expect(second.settled && third.settled).toBe(true);
    expect(disk.calls).toHaveLength(0);
  });

  it('flush() still commits at once while a WAL flush runs (shutdown)', async () => {
    const disk = manualSync();
    const queue = new CommitQueue(writer, { syncWal: disk.sync });
    const first = track(queue.enqueue(() => insert(1)));
    await tick();
    const second = track(queue.enqueue(() => insert(2)));
    queue.flush();
    expect(committedRows()).toBe(2);
    disk.finish();
    await tick();
    disk.finish();
    await tick();
    expect(first.settled && second.settled).toBe(true);
  });

  it('the connection stays FULL for writes outside the queue', async () => {
    const disk = manualSync();
    const queue = new CommitQueue(writer, { syncWal: disk.sync });
    const write = queue.enqueue(() => insert(1));
    await tick();
    expect(writer.pragma('synchronous', { simple: true })).toBe(2);
    disk.finish();
    await write;
  });

  it('a failing write rejects at once; the flush error rejects the writes that waited for it', async () => {
    const disk = manualSync();
    const queue = new CommitQueue(writer, { syncWal: disk.sync });
    const good = track(queue.enqueue(() => insert(1)));
    const bad = track(queue.enqueue(() => insert(1))); // duplicate primary key
    await tick();
    await tick();
    expect(bad.settled).toBe(true);
    expect((bad.error as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(good.settled).toBe(false);
    disk.finish(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await tick();
    expect(good.settled).toBe(true);
    expect((good.error as Error).message).toMatch(/EIO/);
  });

  it('settled() waits for a flush covering every commit so far, and is null when all is on disk', async () => {
    const disk = manualSync();
    const queue = new CommitQueue(writer, { syncWal: disk.sync });
    expect(queue.settled()).toBeNull();
    const write = track(queue.enqueue(() => insert(1)));
    await tick();
    const barrier = track(queue.settled()!);
    disk.finish();
    await tick();
    expect(write.settled).toBe(true);
    // The barrier came after a flush had started, so it waits for one of its own.
    expect(barrier.settled).toBe(false);
    expect(disk.calls).toHaveLength(1);
    disk.finish();
    await tick();
    expect(barrier.settled).toBe(true);
    expect(queue.settled()).toBeNull();
  });

  it('shutdown (flush, close, database closed) while a real flush runs: the writes the last flush committed still resolve', async () => {
    const queue = new CommitQueue(writer, { backgroundCheckpoints: false });
    const first = queue.enqueue(() => insert(1));
    await tick(); // committed, its fdatasync now running on the thread pool
    const second = queue.enqueue(() => insert(2));
    queue.flush();
    queue.close();
    reader.close();
    writer.close();
    const outcomes = await Promise.allSettled([first, second]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    writer = new Database(file);
    reader = new Database(file, { readonly: true });
    expect(committedRows()).toBe(2);
  });

  it('with the real fdatasync, 100 writes of one tick resolve after the flush', async () => {
    const queue = new CommitQueue(writer);
    const values = await Promise.all(Array.from({ length: 100 }, (_, i) => queue.enqueue(() => (insert(i + 1), i + 1))));
    expect(values).toHaveLength(100);
    expect(committedRows()).toBe(100);
    expect(queue.settled()).toBeNull();
    // A second round reuses the WAL's descriptor; close() lets go of it.
    await Promise.all(Array.from({ length: 100 }, (_, i) => queue.enqueue(() => insert(i + 101))));
    expect(committedRows()).toBe(200);
    queue.close();
  });
});

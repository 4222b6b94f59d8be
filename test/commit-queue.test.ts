// CommitQueue (group commit): the writes queued in one turn of the event loop share one SQLite
// transaction; a failing write rolls back and rejects alone (the batch is run again with one savepoint
// per write), promises resolve only after the commit, and flush() commits synchronously.
//
// Transactions are counted from the WAL's commit frames (support/wal-commits.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommitQueue } from '../src/main/core/db/commit-queue';
import { walCommits } from './support/wal-commits';

let dir: string;
let file: string;
let writer: Database.Database;
let reader: Database.Database;
let queue: CommitQueue;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'titular-commit-queue-'));
  file = path.join(dir, 'queue.db');
  writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('wal_autocheckpoint = 0'); // keep every frame in the WAL for counting
  writer.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)');
  writer.pragma('wal_checkpoint(TRUNCATE)');
  reader = new Database(file, { readonly: true });
  queue = new CommitQueue(writer);
});

afterEach(() => {
  queue.flush();
  reader.close();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const walCommitsNow = () => walCommits(file);

const committedRows = () => (reader.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
const insert = (id: number, label = `item ${id}`) => writer.prepare('INSERT INTO items (id, label) VALUES (?, ?)').run(id, label);

describe('CommitQueue', () => {
  it('the commit counter works: 5 writes awaited one by one are 5 transactions', async () => {
    const before = walCommitsNow();
    for (let i = 1; i <= 5; i++) await queue.enqueue(() => insert(i));
    expect(walCommitsNow() - before).toBe(5);
    expect(committedRows()).toBe(5);
  });

  it('50 writes enqueued in one tick run in one transaction and are visible only once their promises resolve', async () => {
    const before = walCommitsNow();
    const seenInside: { inTransaction: boolean; ownRows: number; committed: number }[] = [];
    const promises = Array.from({ length: 50 }, (_, i) =>
      queue.enqueue(() => {
        insert(i + 1);
        seenInside.push({
          inTransaction: writer.inTransaction,
          ownRows: (writer.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n,
          committed: committedRows(),
        });
        return i + 1;
      }),
    );
    // Nothing runs in the enqueueing tick.
    expect(seenInside).toHaveLength(0);
    expect(committedRows()).toBe(0);

    const values = await Promise.all(promises);
    expect(values).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Each write saw the ones before it (same transaction), and another connection saw none of them.
    expect(seenInside.map((s) => s.ownRows)).toEqual(values);
    expect(seenInside.every((s) => s.inTransaction && s.committed === 0)).toBe(true);
    expect(committedRows()).toBe(50);
    expect(walCommitsNow() - before).toBe(1);
    expect(writer.inTransaction).toBe(false);
  });

  it('a promise never resolves before its write is committed', async () => {
    const observed: number[] = [];
    const promises = Array.from({ length: 10 }, (_, i) =>
      queue.enqueue(() => insert(i + 1)).then(() => {
        observed.push(committedRows());
      }),
    );
    await Promise.all(promises);
    expect(observed).toEqual(Array(10).fill(10));
  });

  it('one failing write rolls back and rejects alone; the others in its batch commit', async () => {
    const before = walCommitsNow();
    const a = queue.enqueue(() => insert(1));
    const b = queue.enqueue(() => {
      insert(2, 'half done'); // written, then rolled back with its savepoint
      throw new Error('write b failed');
    });
    const c = queue.enqueue(() => insert(1, 'duplicate primary key')); // SQLITE_CONSTRAINT
    const d = queue.enqueue(() => {
      insert(3);
      return 'd done';
    });
    const results = await Promise.allSettled([a, b, c, d]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('write b failed');
    expect((results[2] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect((results[3] as PromiseFulfilledResult<string>).value).toBe('d done');
    expect(reader.prepare('SELECT id, label FROM items ORDER BY id').all()).toEqual([
      { id: 1, label: 'item 1' },
      { id: 3, label: 'item 3' },
    ]);
    expect(walCommitsNow() - before).toBe(1);
  });

  it('flush() commits pending writes synchronously', async () => {
    let ran = 0;
    const promises = [1, 2, 3].map((id) =>
      queue.enqueue(() => {
        ran++;
        insert(id);
        return id;
      }),
    );
    expect(ran).toBe(0);
    queue.flush();
    // Committed before any await: another connection sees the rows right away.
    expect(ran).toBe(3);
    expect(committedRows()).toBe(3);
    expect(await Promise.all(promises)).toEqual([1, 2, 3]);
    // The already-scheduled turn finds nothing left to do.
    await new Promise((resolve) => setImmediate(resolve));
    expect(committedRows()).toBe(3);
    expect(ran).toBe(3);
  });

  it('flush() with nothing queued writes nothing', () => {
    const before = walCommitsNow();
    queue.flush();
    expect(walCommitsNow()).toBe(before);
  });

  it('a write enqueued from inside a write goes to the next transaction and is not lost', async () => {
    const before = walCommitsNow();
    let inner: Promise<unknown> | undefined;
    const outer = queue.enqueue(() => {
      insert(1);
      inner = queue.enqueue(() => insert(2));
    });
    await outer;
    expect(inner).toBeDefined();
    await inner;
    expect(committedRows()).toBe(2);
    expect(walCommitsNow() - before).toBe(2);
  });

  it('when the transaction itself cannot start (database locked), every write of the batch rejects and nothing is written', async () => {
    writer.pragma('busy_timeout = 0');
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE'); // holds the write lock
      const results = await Promise.allSettled([queue.enqueue(() => insert(1)), queue.enqueue(() => insert(2))]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect((results[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_BUSY');
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect(committedRows()).toBe(0);
    // The queue recovers.
    await queue.enqueue(() => insert(7));
    expect(committedRows()).toBe(1);
  });

  it('writes run in the order they were enqueued, across many ticks', async () => {
    const order: number[] = [];
    const promises: Promise<unknown>[] = [];
    for (let tick = 0; tick < 5; tick++) {
      for (let i = 0; i < 20; i++) {
        const n = tick * 20 + i;
        promises.push(queue.enqueue(() => order.push(n)));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(promises);
    expect(order).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});

// Background checkpoints: once writes keep coming, a worker thread with its own connection copies
// the WAL into the database file (PASSIVE checkpoints, which never block the writer), and the
// writer's own automatic checkpoint is raised to a rarely reached safety net; stopping the worker
// restores SQLite's default. Observed from outside: the database file grows while the writer itself
// has not checkpointed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommitQueue } from '../src/main/core/db/commit-queue';
import { checkpointerRunning, ensureCheckpointer, stopCheckpointer } from '../src/main/core/db/wal-checkpointer';
import { openDatabase } from '../src/main/core/db/open';

let dir: string;
let file: string;
let writer: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'titular-checkpointer-'));
  file = path.join(dir, 'data.db');
  writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
  writer.pragma('wal_checkpoint(TRUNCATE)');
});

afterEach(() => {
  stopCheckpointer(writer);
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const autocheckpoint = () => writer.pragma('wal_autocheckpoint', { simple: true });
const insertMany = (from: number, count: number) => {
  const insert = writer.prepare('INSERT INTO items (id, payload) VALUES (?, ?)');
  writer.transaction(() => {
    for (let i = from; i < from + count; i++) insert.run(i, 'x'.repeat(2000));
  })();
};

/** Polls (bounded) until `condition` holds; the bound is a safety stop, not a speed assertion. */
async function eventually(condition: () => boolean, limitMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe('background WAL checkpoints', () => {
  it('the worker copies the WAL into the database file while the writer does not checkpoint', async () => {
    expect(autocheckpoint()).toBe(1000);
    expect(ensureCheckpointer(writer)).toBe(true);
    expect(checkpointerRunning(writer)).toBe(true);
    expect(autocheckpoint()).toBe(40_000);
    const sizeBefore = statSync(file).size;
    insertMany(1, 1000); // ~500 pages: under the writer's raised threshold
    expect(await eventually(() => statSync(file).size > sizeBefore + 1_000_000)).toBe(true);
    // The data is whole, read through a connection of its own.
    const reader = new Database(file, { readonly: true });
    try {
      expect(reader.prepare('SELECT COUNT(*) AS n FROM items').get()).toEqual({ n: 1000 });
    } finally {
      reader.close();
    }
  });

  it('stopping it restores the default automatic checkpoint, and it may be started again', async () => {
    expect(ensureCheckpointer(writer)).toBe(true);
    expect(ensureCheckpointer(writer)).toBe(true); // already running: no second worker
    stopCheckpointer(writer);
    expect(checkpointerRunning(writer)).toBe(false);
    expect(autocheckpoint()).toBe(1000);
    expect(ensureCheckpointer(writer)).toBe(true);
    expect(autocheckpoint()).toBe(40_000);
  });

  it('an in-memory database gets no worker', () => {
    const memory = new Database(':memory:');
    try {
      expect(ensureCheckpointer(memory)).toBe(false);
    } finally {
      memory.close();
    }
  });

  it('the commit queue starts it after 1000 writes, and closing the database stops it', async () => {
    const opened = openDatabase({ file: path.join(dir, 'titular.db') });
    const queue = new CommitQueue(opened.sqlite);
    const { sqlite } = opened;
    sqlite.exec('CREATE TABLE IF NOT EXISTS bench_items (id INTEGER PRIMARY KEY)');
    const insert = sqlite.prepare('INSERT INTO bench_items (id) VALUES (?)');
    await Promise.all(Array.from({ length: 999 }, (_, i) => queue.enqueue(() => insert.run(i + 1))));
    expect(checkpointerRunning(sqlite)).toBe(false);
    await queue.enqueue(() => insert.run(1000));
    expect(checkpointerRunning(sqlite)).toBe(true);
    opened.close();
    expect(checkpointerRunning(sqlite)).toBe(false);
  });
});

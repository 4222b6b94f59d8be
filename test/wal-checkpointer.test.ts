// Background checkpoints: once writes keep coming, a worker thread with its own connection copies
// the WAL into the database file (PASSIVE checkpoints, which never block the writer), and the
// writer's own automatic checkpoint is raised to a rarely reached safety net; stopping the worker
// restores SQLite's default. Observed from outside: the database file grows while the writer itself
// has not checkpointed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { CommitQueue } from '../src/main/core/db/commit-queue';
import { checkpointNow, checkpointerRunning, ensureCheckpointer, stopCheckpointer } from '../src/main/core/db/wal-checkpointer';
import { openDatabase } from '../src/main/core/db/open';

const require = createRequire(import.meta.url);
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

  it('the worker, listened to for its reports, never keeps the process alive (it would stay 10 s, until its idle exit)', () => {
    // A CommonJS script (a worker inherits its parent's flags, and `--input-type=module` would make
    // the worker's own source ESM): start the worker, see it answer, then leave nothing to do.
    const script = path.join(dir, 'alive.cjs');
    writeFileSync(
      script,
      [
        `const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});`,
        `const { ensureCheckpointer, checkpointNow } = require(${JSON.stringify(path.resolve('src/main/core/db/wal-checkpointer.ts'))});`,
        `const db = new Database(${JSON.stringify(path.join(dir, 'alive.db'))});`,
        "db.pragma('journal_mode = WAL');",
        "console.log('started', ensureCheckpointer(db, { onLargeWal: () => {} }));",
        "checkpointNow(db, 4000).then((answer) => console.log('answered', answer !== null));",
      ].join('\n'),
    );
    // The 5 s bound is a safety stop below the worker's 10 s idle exit, not a speed assertion.
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 5_000 });
    expect(child.error, 'still running after 5 s').toBeUndefined();
    expect(child.stdout.trim().split('\n'), child.stderr).toEqual(['started true', 'answered true']);
    expect(child.status).toBe(0);
  });

  it('checkpointNow: the worker checkpoints at once and answers; without a worker the answer is null', async () => {
    expect(await checkpointNow(writer, 1000)).toBeNull();
    expect(ensureCheckpointer(writer)).toBe(true);
    insertMany(1, 200);
    const result = await checkpointNow(writer, 10_000);
    expect(result).toMatchObject({ busy: 0 });
    expect(result!.log).toBeGreaterThan(100);
    expect(result!.checkpointed).toBe(result!.log);
  });
});

describe('WAL restarts under sustained writes', () => {
  /**
   * 40,000 rows of 2 KB (80 MB) through the commit queue, in batches of 50, each queued as soon as
   * the last committed: a sustained load, under which the worker never finds a moment with every
   * frame copied. First 1,000 small writes start the worker, given time to load. Returns the WAL
   * file's largest size meanwhile.
   */
  async function sustainedWrites(restartFrames: number): Promise<{ largestWal: number; rows: number }> {
    const opened = openDatabase({ file: path.join(dir, `titular-${restartFrames}.db`) });
    const { sqlite } = opened;
    try {
      // The worker checkpoints every 10 ms: forty of its intervals fit in the ~0.4 s the 80 MB take.
      const queue = new CommitQueue(sqlite, { checkpointer: { restartFrames, intervalMs: 10 } });
      sqlite.exec('CREATE TABLE IF NOT EXISTS rows_written (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
      const insert = sqlite.prepare('INSERT INTO rows_written (id, payload) VALUES (?, ?)');
      await Promise.all(Array.from({ length: 1000 }, (_, i) => queue.enqueue(() => insert.run(-i - 1, ''))));
      expect(checkpointerRunning(sqlite)).toBe(true);
      await checkpointNow(sqlite, 10_000); // answers once the worker has loaded
      let largestWal = 0;
      for (let batch = 0; batch < 800; batch++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => queue.enqueue(() => insert.run(batch * 50 + i + 1, 'x'.repeat(2000)))));
        largestWal = Math.max(largestWal, statSync(`${sqlite.name}-wal`).size);
      }
      const rows = (sqlite.prepare('SELECT COUNT(*) AS n FROM rows_written WHERE id > 0').get() as { n: number }).n;
      return { largestWal, rows };
    } finally {
      opened.close();
    }
  }

  it('once the WAL holds the restart threshold, commits wait for a checkpoint and the WAL is written from its start again', { timeout: 60_000 }, async () => {
    const restarted = await sustainedWrites(300); // ~1.2 MB of WAL
    expect(restarted.rows).toBe(40_000);
    // Control, the same writes never asking for a restart: the WAL grows to most of the 80 MB written
    // (SQLite may still start it over once, when a checkpoint catches up between two commits: seen at
    // 78 MB with the other test files' load on both cores).
    const grown = await sustainedWrites(1_000_000_000);
    expect(grown.rows).toBe(40_000);
    expect(grown.largestWal).toBeGreaterThan(60_000_000);
    // Restarted at ~1.2 MB, plus what these very fast writes (~200 MB/s) add while the worker catches
    // up before it reports (a database fsync), while a report travels and while reports are ignored
    // after each hold (25-30 MB here): far below, and no longer growing with what is written.
    expect(restarted.largestWal).toBeLessThan(grown.largestWal / 2);
  });
});

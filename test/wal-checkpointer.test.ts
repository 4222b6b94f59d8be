// Background checkpoints: once writes keep coming, a worker thread with its own connection copies
// the WAL into the database file (PASSIVE checkpoints, which never block the writer), and the
// writer's own automatic checkpoint is raised to a rarely reached safety net; stopping the worker
// restores SQLite's default. Observed from outside: the database file grows while the writer itself
// has not checkpointed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
    await checkpointNow(sqlite, 10_000); // answers once the worker has its connection open
    opened.close();
    expect(checkpointerRunning(sqlite)).toBe(false);
    // No connection is left once close returns: the last one to close deletes the WAL, so had the
    // worker's still been open (closing behind the caller's back), the -wal file would remain.
    expect(existsSync(path.join(dir, 'titular.db-wal'))).toBe(false);
    expect(existsSync(path.join(dir, 'titular.db-shm'))).toBe(false);
  });

  it('the worker, listened to for its reports, never keeps the process alive (it would stay 60 s here, until its idle exit)', { timeout: 60_000 }, () => {
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
        "console.log('started', ensureCheckpointer(db, { onLargeWal: () => {}, idleExitMs: 60000 }));",
        "checkpointNow(db, 20000).then((answer) => console.log('answered', answer !== null));",
      ].join('\n'),
    );
    // The 30 s bound is a safety stop well below the worker's 60 s idle exit, not a speed assertion:
    // starting node, tsx and the worker took up to 1.9 s on the loaded CI machine.
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.error, 'still running after 30 s').toBeUndefined();
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
   * file's largest size meanwhile, and how many times the WAL was started over (its header's
   * checkpoint sequence number, which SQLite increments each time it writes the WAL from its start).
   */
  async function sustainedWrites(restartFrames: number): Promise<{ largestWal: number; rows: number; restarts: number }> {
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
      let restarts = 0;
      let sequence = walCheckpointSequence(`${sqlite.name}-wal`);
      for (let batch = 0; batch < 800; batch++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => queue.enqueue(() => insert.run(batch * 50 + i + 1, 'x'.repeat(2000)))));
        largestWal = Math.max(largestWal, statSync(`${sqlite.name}-wal`).size);
        const now = walCheckpointSequence(`${sqlite.name}-wal`);
        if (now !== sequence) restarts++;
        sequence = now;
      }
      const rows = (sqlite.prepare('SELECT COUNT(*) AS n FROM rows_written WHERE id > 0').get() as { n: number }).n;
      return { largestWal, rows, restarts };
    } finally {
      opened.close();
    }
  }

  it('once the WAL holds the restart threshold, commits wait for a checkpoint and the WAL is written from its start again', { timeout: 60_000 }, async () => {
    const restarted = await sustainedWrites(300); // ~1.2 MB of WAL
    expect(restarted.rows).toBe(40_000);
    // The WAL was started over again and again: 14 times on a quiet machine, at least 2 under any
    // load seen; with the restarts switched off, once (SQLite's own, at the end) and 95 MB of WAL.
    // How large it grows before the first hold is not a property of the code but of the machine's
    // moment: the worker reports only after it has caught up, which ends with a database fsync, and
    // these writes (~200 MB/s, ten times a lookup load's) go on meanwhile. 11 MB measured quiet,
    // 12–30 MB with the other test files on both cores, 76 MB once in CI when that fsync waited on
    // the other files' disk writes. So the size is bounded only below what no restart at all leaves.
    expect(restarted.restarts).toBeGreaterThanOrEqual(2);
    expect(restarted.largestWal).toBeLessThan(88_000_000);
  });
});

/** The WAL header's checkpoint sequence number (bytes 12–15, big-endian); -1 while there is no WAL file. */
function walCheckpointSequence(file: string): number {
  if (!existsSync(file)) return -1;
  const header = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, 16, 0) < 16) return -1;
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

// Checkpoints the WAL from a worker thread with a connection of its own. A checkpoint copies the
// WAL's pages into the database file and fsyncs both; run by SQLite's automatic checkpoint, that
// happens inside a COMMIT on the event loop every 1000 pages (every ~700 lookups), stalling every
// request for milliseconds. A PASSIVE checkpoint on another connection never blocks the writer, so
// the worker does that work beside the event loop. The writer's own automatic checkpoint stays as a
// safety net at a much higher threshold (it runs rarely, and finds little left to copy).
//
// The worker starts on demand (CommitQueue, after many writes), stops by itself after a while
// without new WAL frames, and is never what keeps the process alive. If it cannot start or fails,
// the writer's automatic checkpoint goes back to SQLite's default: slower, never incorrect.
//
// Restarting the WAL. A WAL is written from its start again only when a writer begins with every
// frame already copied, and under sustained writes the worker never catches up: new frames arrive
// while it copies. Left alone, the WAL grew to the safety net's 160 MB, whose checkpoint then froze
// the event loop for 70–130 ms, and the next commit cut the file back to journal_size_limit for
// another 70–85 ms, every few seconds under load. So once the WAL holds `restartFrames` frames the
// worker says so (`onLargeWal`); the writer holds its next commit (requests wait, the event loop
// runs), asks for a checkpoint at once (`checkpointNow`: it finds only the frames of the last
// interval left to copy), and its next commit restarts the WAL, which so stays under
// journal_size_limit and is never cut.
//
// The hold lasts as long as that last checkpoint, and a checkpoint's cost is mostly its fsync of the
// database file. SQLite fsyncs the database only when a checkpoint catches up with the WAL, which
// under load the periodic ones never do (commits land while they copy): the first to catch up, the
// one in the hold, flushed every page copied since the last restart, and held commits for 10–25 ms
// every second or so. So before it asks, the worker runs a few checkpoints back to back, one of which
// catches up (CATCH_UP_PASSES): that flush happens while commits go on, and the hold's checkpoint
// has only the pages of the last few milliseconds to copy and flush (holds of 1–7 ms).
import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { driverPath } from './driver-path';

/** SQLite's default automatic checkpoint threshold (pages), restored when no worker runs. */
const DEFAULT_AUTOCHECKPOINT = 1000;
/**
 * The writer's threshold while the worker runs. Under sustained writes the WAL only restarts after a
 * checkpoint by the writer itself (a writer restarts it only when it finds every frame copied), and
 * that checkpoint stalls the event loop for two fsyncs (20–40 ms measured): at 10,000 pages it came
 * every ~7,000 lookups and set the p99; at 40,000 (160 MB of WAL, truncated back by
 * journal_size_limit once restarted) it is rare enough to stay out of it.
 */
const SAFETY_AUTOCHECKPOINT = 40_000;
/** How often the worker checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 100;
/**
 * WAL frames (~4 KiB each) after which the worker asks the writer for a restart: ~49 MB, so that the
 * file stays under journal_size_limit (64 MiB) with room for the frames written until the restart.
 */
const RESTART_FRAMES = 12_000;
/**
 * Checkpoints the worker runs back to back before it asks for a restart. Each copies only what was
 * committed during the one before, so one of them usually finishes before the next commit, and a
 * checkpoint that catches up fsyncs the database file: the flush of every page copied since the last
 * restart (10–25 ms here) then happens before the hold instead of inside it. One pass was enough under
 * `FULL` (a commit every 1–2 ms); under `NORMAL` (a commit per event-loop turn) three were.
 */
const CATCH_UP_PASSES = 3;
/** The worker leaves after this long without new WAL frames; the next burst of writes restarts it. */
const IDLE_EXIT_MS = 10_000;

/** How long stopping waits for the worker to close its connection (it answers within a checkpoint). */
const STOP_WAIT_MS = 5_000;

// CommonJS, evaluated in the worker. Messages: 'stop' in; 'idle' or an error message out. Once its
// connection is closed (or could not open) it sets `closed` to 1, which stopCheckpointer waits for.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const closed = new Int32Array(workerData.closed);
const markClosed = () => { Atomics.store(closed, 0, 1); Atomics.notify(closed, 0); };
let db;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('synchronous = ' + workerData.synchronous);
} catch (error) {
  try { db && db.close(); } catch {}
  markClosed();
  throw error;
}
let lastFrames = -1;
let idleSince = Date.now();
const finish = (message) => {
  clearInterval(timer);
  try { db.close(); } catch {}
  markClosed();
  if (message) parentPort.postMessage(message);
  parentPort.close();
};
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
const CATCH_UP_PASSES = workerData.catchUpPasses;
const timer = setInterval(() => {
  try {
    const result = checkpoint();
    if (result.log !== lastFrames) {
      lastFrames = result.log;
      idleSince = Date.now();
    } else if (Date.now() - idleSince > workerData.idleExitMs) {
      finish('idle');
    }
    if (result.log >= workerData.restartFrames) {
      // Catch up before the writer holds its commits (see "Restarting the WAL" above).
      for (let pass = 0; pass < CATCH_UP_PASSES; pass++) checkpoint();
      parentPort.postMessage({ type: 'large', frames: result.log });
    }
  } catch (error) {
    finish('error: ' + (error && error.message));
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'stop') return finish(null);
  if (message === 'now') {
    try {
      parentPort.postMessage({ type: 'checkpointed', ...checkpoint() });
    } catch (error) {
      finish('error: ' + (error && error.message));
    }
  }
});
`;

interface Running {
  worker: Worker;
  /** 0 while the worker's connection may be open, 1 once it is closed (shared with the worker). */
  closed: Int32Array;
  /** Callers of checkpointNow() waiting for the worker's answer. */
  waiting: ((result: CheckpointResult | null) => void)[];
}

/** A checkpoint's outcome, as PRAGMA wal_checkpoint gives it: frames in the WAL, and copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface CheckpointerOptions {
  /** Called (at most every interval) while the WAL holds `restartFrames` frames or more. */
  onLargeWal?: () => void;
  /** Default RESTART_FRAMES; tests use fewer. */
  restartFrames?: number;
  /** Default CHECKPOINT_INTERVAL_MS; tests use shorter ones. */
  intervalMs?: number;
  /** How long the worker stays with nothing to checkpoint before it ends. Default IDLE_EXIT_MS; a test uses a longer one. */
  idleExitMs?: number;
}

const running = new WeakMap<Database.Database, Running>();

/** Starts the worker for this connection's database unless one runs already. Returns whether one runs. */
export function ensureCheckpointer(sqlite: Database.Database, options: CheckpointerOptions = {}): boolean {
  if (running.has(sqlite)) return true;
  if (sqlite.memory || !sqlite.open) return false;
  const driver = driverPath();
  if (!driver) return false;
  let worker: Worker;
  const closed = new SharedArrayBuffer(4);
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        closed,
        driver,
        file: sqlite.name,
        synchronous: sqlite.pragma('synchronous', { simple: true }) === 2 ? 'FULL' : 'NORMAL',
        intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
        idleExitMs: options.idleExitMs ?? IDLE_EXIT_MS,
        restartFrames: options.restartFrames ?? RESTART_FRAMES,
        catchUpPasses: CATCH_UP_PASSES,
      },
    });
  } catch {
    return false;
  }
  const entry: Running = { worker, closed: new Int32Array(closed), waiting: [] };
  running.set(sqlite, entry);
  sqlite.pragma(`wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT}`);
  worker.on('message', (message: { type?: string } & Partial<CheckpointResult>) => {
    if (message.type === 'large') options.onLargeWal?.();
    else if (message.type === 'checkpointed') answer(entry, { busy: message.busy ?? 0, log: message.log ?? 0, checkpointed: message.checkpointed ?? 0 });
  });
  const ended = () => {
    answer(entry, null);
    if (running.get(sqlite) !== entry) return;
    running.delete(sqlite);
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  };
  worker.once('error', ended);
  worker.once('exit', ended);
  // Last: adding a 'message' listener refs the worker again, and it must never keep the process
  // alive (the CLI would wait for its idle exit).
  worker.unref();
  return true;
}

/**
 * Stops the worker of this connection, if any (before the connection closes), and returns once the
 * worker's connection is closed. Closing a database must leave no connection to it: the last one to
 * close copies the WAL in and deletes the -wal and -shm files, and a worker still closing behind the
 * caller's back would do that after the caller had moved on (a restore moving the files, a test
 * removing the folder: the worker's files appeared in it while it was being removed, ENOTEMPTY in CI).
 * The worker answers between two checkpoints, so this blocks for milliseconds at most; the bound is
 * a safety stop.
 */
export function stopCheckpointer(sqlite: Database.Database): void {
  const entry = running.get(sqlite);
  if (!entry) return;
  running.delete(sqlite);
  answer(entry, null);
  entry.worker.postMessage('stop');
  Atomics.wait(entry.closed, 0, 0, STOP_WAIT_MS);
  if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
}

/**
 * Asks the worker for a checkpoint at once; resolves with its outcome, or with null when no worker
 * runs, it stops, or it has not answered within `limitMs` (a hold on commits must not last).
 */
export function checkpointNow(sqlite: Database.Database, limitMs: number): Promise<CheckpointResult | null> {
  const entry = running.get(sqlite);
  if (!entry) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => settle(null), limitMs);
    const settle = (result: CheckpointResult | null) => {
      clearTimeout(timer);
      const at = entry.waiting.indexOf(settle);
      if (at >= 0) entry.waiting.splice(at, 1);
      resolve(result);
    };
    entry.waiting.push(settle);
    entry.worker.postMessage('now');
  });
}

function answer(entry: Running, result: CheckpointResult | null): void {
  for (const settle of entry.waiting.splice(0)) settle(result);
}

/** Whether a worker checkpoints this connection's database now (for tests and diagnostics). */
export function checkpointerRunning(sqlite: Database.Database): boolean {
  return running.has(sqlite);
}

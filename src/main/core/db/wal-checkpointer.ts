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
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

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
const INTERVAL_MS = 100;
/** The worker leaves after this long without new WAL frames; the next burst of writes restarts it. */
const IDLE_EXIT_MS = 10_000;

// CommonJS, evaluated in the worker. Messages: 'stop' in; 'idle' or an error message out.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = ' + workerData.synchronous);
let lastFrames = -1;
let idleSince = Date.now();
const finish = (message) => {
  clearInterval(timer);
  try { db.close(); } catch {}
  if (message) parentPort.postMessage(message);
  parentPort.close();
};
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result.log !== lastFrames) {
      lastFrames = result.log;
      idleSince = Date.now();
    } else if (Date.now() - idleSince > workerData.idleExitMs) {
      finish('idle');
    }
  } catch (error) {
    finish('error: ' + (error && error.message));
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => { if (message === 'stop') finish(null); });
`;

interface Running {
  worker: Worker;
}

const running = new WeakMap<Database.Database, Running>();

/** Starts the worker for this connection's database unless one runs already. Returns whether one runs. */
export function ensureCheckpointer(sqlite: Database.Database): boolean {
  if (running.has(sqlite)) return true;
  if (sqlite.memory || !sqlite.open) return false;
  const driver = driverPath();
  if (!driver) return false;
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver,
        file: sqlite.name,
        synchronous: sqlite.pragma('synchronous', { simple: true }) === 2 ? 'FULL' : 'NORMAL',
        intervalMs: INTERVAL_MS,
        idleExitMs: IDLE_EXIT_MS,
      },
    });
  } catch {
    return false;
  }
  worker.unref();
  const entry: Running = { worker };
  running.set(sqlite, entry);
  sqlite.pragma(`wal_autocheckpoint = ${SAFETY_AUTOCHECKPOINT}`);
  const ended = () => {
    if (running.get(sqlite) !== entry) return;
    running.delete(sqlite);
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
  };
  worker.once('error', ended);
  worker.once('exit', ended);
  return true;
}

/** Stops the worker of this connection, if any (before the connection closes). */
export function stopCheckpointer(sqlite: Database.Database): void {
  const entry = running.get(sqlite);
  if (!entry) return;
  running.delete(sqlite);
  entry.worker.postMessage('stop');
  if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
}

/** Whether a worker checkpoints this connection's database now (for tests and diagnostics). */
export function checkpointerRunning(sqlite: Database.Database): boolean {
  return running.has(sqlite);
}

let resolvedDriver: string | null | undefined;

/** Where better-sqlite3 is, for the worker to load the same driver; null when it cannot be found. */
function driverPath(): string | null {
  if (resolvedDriver !== undefined) return resolvedDriver;
  const bases: string[] = [];
  // CommonJS bundle (out/main) or tsx: __filename; ESM (vitest): import.meta.url.
  if (typeof __filename === 'string') bases.push(__filename);
  try {
    const url = import.meta.url;
    if (url) bases.push(fileURLToPath(url));
  } catch {
    // No import.meta in this module format.
  }
  if (process.argv[1]) bases.push(process.argv[1]);
  bases.push(`${process.cwd()}/noop.js`);
  resolvedDriver = null;
  for (const base of bases) {
    try {
      resolvedDriver = createRequire(base).resolve('better-sqlite3');
      break;
    } catch {
      // Try the next base.
    }
  }
  return resolvedDriver;
}

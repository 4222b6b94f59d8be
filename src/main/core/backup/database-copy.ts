// The database half of a backup (backup.ts): `VACUUM INTO` on a worker thread, through a read-only
// connection of its own. One read transaction gives a consistent snapshot while the process's own
// connection keeps committing lookups, and the minutes a large database may take are the worker's,
// not the event loop's.
import { Worker } from 'node:worker_threads';
import { driverPath } from '../db/driver-path';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// SQLite's code (SQLITE_FULL: the disk is full) goes back with its message: a thrown error would
// reach the parent without it.
try {
  const db = new Database(workerData.source, { readonly: true, fileMustExist: true });
  try {
    db.prepare('VACUUM INTO ?').run(workerData.target);
  } finally {
    db.close();
  }
  parentPort.postMessage({ ok: true });
} catch (error) {
  parentPort.postMessage({ ok: false, message: String(error && error.message), code: error && error.code });
}
`;

/** Copies the database at `source` into the empty file `target`; rejects with SQLite's reason and code. */
export function copyDatabase(source: string, target: string): Promise<void> {
  const driver = driverPath();
  if (!driver) return Promise.reject(new Error('Cannot find the SQLite driver (better-sqlite3) for the backup'));
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, source, target } });
    let done = false;
    worker.once('message', (result: { ok: boolean; message?: string; code?: string }) => {
      if (result.ok) done = true;
      else reject(Object.assign(new Error(result.message), { code: result.code }));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (done) resolve();
      else reject(new Error(`The backup's database copy stopped (exit ${code})`));
    });
  });
}

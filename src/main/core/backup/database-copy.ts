// The database half of a backup (backup.ts): `VACUUM INTO` on a worker thread, through a read-only
// connection of its own. One read transaction gives a consistent snapshot while the process's own
// connection keeps committing lookups, and the minutes a large database may take are the worker's,
// not the event loop's.
import { Worker } from 'node:worker_threads';
import { driverPath } from '../db/driver-path';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.source, { readonly: true, fileMustExist: true });
try {
  db.prepare('VACUUM INTO ?').run(workerData.target);
} finally {
  db.close();
}
parentPort.postMessage('done');
`;

/** Copies the database at `source` into the empty file `target`; rejects with SQLite's reason. */
export function copyDatabase(source: string, target: string): Promise<void> {
  const driver = driverPath();
  if (!driver) return Promise.reject(new Error('Cannot find the SQLite driver (better-sqlite3) for the backup'));
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, source, target } });
    let done = false;
    worker.once('message', () => {
      done = true;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (done) resolve();
      else reject(new Error(`The backup's database copy stopped (exit ${code})`));
    });
  });
}

// The database faults whoever runs Titular can do something about, said as such by every interface
// (HTTP, the desktop's channels, a bulk job's last error) instead of "Internal error": a full disk
// (disk-full.ts), a write lock another process keeps (database-busy.ts), and, given the data
// directory, a damaged database or one this process may no longer write (storage-errors.ts).
import { databaseBusyError, isDatabaseBusy } from './database-busy';
import { diskFullError, isDiskFull } from './disk-full';
import { storageErrorSaidPlainly } from './storage-errors';

/** `error`, or the GE500 that says what it was; `dataDir` lets an I/O error on a full disk be told. */
export function saidPlainly(error: unknown, dataDir?: string): unknown {
  if (isDiskFull(error, dataDir)) return diskFullError();
  if (isDatabaseBusy(error)) return databaseBusyError();
  if (dataDir !== undefined) return storageErrorSaidPlainly(error, dataDir);
  return error;
}

// The database faults whoever runs Titular can do something about, said as such by every interface
// (HTTP, the desktop's channels, a bulk job's last error) instead of "Internal error": a full disk
// (disk-full.ts) and a write lock another process keeps (database-busy.ts).
import { databaseBusyError, isDatabaseBusy } from './database-busy';
import { diskFullError, isDiskFull } from './disk-full';

/** `error`, or the GE500 that says what it was; `dataDir` lets an I/O error on a full disk be told. */
export function saidPlainly(error: unknown, dataDir?: string): unknown {
  if (isDiskFull(error, dataDir)) return diskFullError();
  if (isDatabaseBusy(error)) return databaseBusyError();
  return error;
}

// What the host's log gets of the API's internal faults (a GE500 of Titular's own): one line per
// failed request, masked like every log line, whether or not requests are logged. A full disk, a
// write lock another process keeps, and a damaged or no longer writable database are each said once
// a minute at most, in words, naming the data directory: they fail every write until someone acts,
// and one line per lookup would bury the log.
import { isDatabaseBusy } from '../db/database-busy';
import { isDiskFull } from '../db/disk-full';
import { storageFault } from '../db/storage-errors';
import { maskKeys } from '../keys/secrets';

export const DISK_FULL_REPEAT_MS = 60_000;

export type FaultReport = (requestId: string, error: unknown, context?: string) => void;

export function faultReporter(write: ((line: string) => void) | undefined, dataDir: string, now: () => number = Date.now): FaultReport {
  if (!write) return () => {};
  const saidAt = { diskFull: -Infinity, busy: -Infinity, storage: -Infinity };
  const once = (kind: keyof typeof saidAt, line: string) => {
    if (now() - saidAt[kind] < DISK_FULL_REPEAT_MS) return;
    saidAt[kind] = now();
    write(line);
  };
  return (requestId, error, context) => {
    if (isDiskFull(error, dataDir)) {
      once('diskFull', `error ${requestId}: the disk holding ${dataDir} is full. Requests that record anything (lookups, purchases) fail with GE500 and charge nothing until space is freed there; nothing recorded is lost`);
      return;
    }
    if (isDatabaseBusy(error)) {
      once('busy', `error ${requestId}: another process kept the database in ${dataDir} locked for more than 5 s (a CLI command, a second server, the desktop). Requests that record anything are answered 503 with Retry-After, charging nothing, until it lets go`);
      return;
    }
    const storage = storageFault(error, dataDir);
    if (storage) {
      once('storage', `error ${requestId}: ${storage}`);
      return;
    }
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    write(`error ${requestId}${context ? ` ${context}` : ''} ${maskKeys(what)}`);
  };
}

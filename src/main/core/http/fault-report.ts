// What the host's log gets of the API's internal faults (a GE500 of Titular's own): one line per
// failed request, masked like every log line, whether or not requests are logged. A full disk is
// said once a minute at most, in words, with the folder to free space on: it fails every write until
// someone acts, and one line per lookup would bury the log under the same news.
import { isDiskFull } from '../db/disk-full';
import { maskKeys } from '../keys/secrets';

export const DISK_FULL_REPEAT_MS = 60_000;

export type FaultReport = (requestId: string, error: unknown, context?: string) => void;

export function faultReporter(write: ((line: string) => void) | undefined, dataDir: string, now: () => number = Date.now): FaultReport {
  if (!write) return () => {};
  let diskFullSaidAt = -Infinity;
  return (requestId, error, context) => {
    if (isDiskFull(error, dataDir)) {
      if (now() - diskFullSaidAt < DISK_FULL_REPEAT_MS) return;
      diskFullSaidAt = now();
      write(`error ${requestId}: the disk holding ${dataDir} is full. Requests that record anything (lookups, purchases) fail with GE500 and charge nothing until space is freed there; nothing recorded is lost`);
      return;
    }
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    write(`error ${requestId}${context ? ` ${context}` : ''} ${maskKeys(what)}`);
  };
}

// A write that ran out of space. SQLite rolls the transaction back (nothing recorded, nothing
// charged) and the next write succeeds once there is room again: the only thing left to get right is
// saying so. Every interface turns it into this one sentence instead of "Internal error" or SQLite's
// "database or disk is full", because it is the one internal fault its user can fix.
import { TitularError } from '../errors';

/**
 * SQLite's SQLITE_FULL (a write or its journal ran out of space) or the file system's ENOSPC, also
 * as the cause of an error that wraps it (a batch's failed write).
 */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_FULL' || code === 'ENOSPC') return true;
  }
  return false;
}

export const DISK_FULL_MESSAGE =
  "The disk holding Titular's data is full: what failed was not recorded, and nothing was charged for it. Free some space and try again";

/** The GE500 of a full disk (HTTP, IPC and the CLI say it alike; its Spanish is in shared/messages-es.ts). */
export function diskFullError(): TitularError {
  return new TitularError(500, 'GE500', DISK_FULL_MESSAGE);
}

/** `error`, or the full disk's GE500 when that is what it was. */
export function saidPlainly(error: unknown): unknown {
  return isDiskFull(error) ? diskFullError() : error;
}

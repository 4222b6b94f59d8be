// A write that ran out of space. SQLite rolls the transaction back (nothing recorded, nothing
// charged) and the next write succeeds once there is room again: the only thing left to get right is
// saying so. Every interface turns it into this one sentence instead of "Internal error" or SQLite's
// "database or disk is full", because it is the one internal fault its user can fix.
import { statfsSync } from 'node:fs';
import { TitularError } from '../errors';
import { hasCode } from './error-codes';

/** Less room than this on the data's disk makes an I/O error a full disk (see isDiskFull). */
const NO_ROOM_BYTES = 1024 * 1024;

/**
 * SQLite's SQLITE_FULL (a write or its journal ran out of space) or the file system's ENOSPC, also
 * as the cause of an error that wraps it (a batch's failed write). Given the data directory, also an
 * SQLITE_IOERR while its disk has no room left: SQLite says "disk I/O error" for some writes that found
 * none (growing the -shm file as a connection opens: SQLITE_IOERR_SHMSIZE, measured on a full tmpfs).
 */
export function isDiskFull(error: unknown, dataDir?: string): boolean {
  if (hasCode(error, (code) => code === 'SQLITE_FULL' || code === 'ENOSPC')) return true;
  return dataDir !== undefined && hasCode(error, (code) => code.startsWith('SQLITE_IOERR')) && roomLeft(dataDir) < NO_ROOM_BYTES;
}

/** Bytes this user may still write on the disk holding `dir` (Infinity when it cannot be told). */
function roomLeft(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return Infinity;
  }
}

export const DISK_FULL_MESSAGE =
  "The disk holding Titular's data is full: what failed was not recorded, and nothing was charged for it. Free some space and try again";

/** The GE500 of a full disk (HTTP, IPC and the CLI say it alike; its Spanish is in shared/messages-es.ts). */
export function diskFullError(): TitularError {
  return new TitularError(500, 'GE500', DISK_FULL_MESSAGE);
}

/** Why a data directory could not be opened, when it was its disk being full: the folder to free space on. */
export function diskFullAtOpen(dataDir: string): TitularError {
  return new TitularError(500, 'GE500', `The disk holding ${dataDir} is full: Titular cannot open its data there. Free some space on it and try again`);
}

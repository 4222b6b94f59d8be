// A copy that ran out of space (a backup, a restore): the one failure of theirs that their user can
// fix, so it is said as such, with the size to make room for, instead of SQLite's "database or disk is full".

/** SQLite's SQLITE_FULL (its `VACUUM INTO` ran out of space) or the file system's ENOSPC (a key file's copy). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

/** 1.2 MB, 35 MB: enough to judge how much room to make. */
export function megabytes(bytes: number): string {
  const mb = bytes / 1_000_000;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}

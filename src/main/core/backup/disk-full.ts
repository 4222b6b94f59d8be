// A copy that ran out of space (a backup, a restore; db/disk-full.ts tells it): the one failure of
// theirs that their user can fix, so it is said as such, with the size to make room for, instead of
// SQLite's "database or disk is full".

/** 1.2 MB, 35 MB: enough to judge how much room to make. */
export function megabytes(bytes: number): string {
  const mb = bytes / 1_000_000;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}

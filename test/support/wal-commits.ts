// Counts committed transactions without triggers or hooks: a WAL-mode database appends one "commit
// frame" (a frame whose header carries the database size after the commit) per committed write
// transaction, so the valid commit frames of the -wal file (those of its current salt) count the
// commits since the WAL was last reset. Tests set wal_autocheckpoint = 0 to keep every frame.
import { readFileSync } from 'node:fs';

export function walCommits(databaseFile: string): number {
  let wal: Buffer;
  try {
    wal = readFileSync(`${databaseFile}-wal`);
  } catch {
    return 0;
  }
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    if (wal.readUInt32BE(offset + 4) !== 0) commits++;
  }
  return commits;
}

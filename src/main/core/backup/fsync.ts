// Flushing what a backup or a restore wrote to disk before it counts as done.
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function syncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The renames on disk too; a folder cannot be opened for this on Windows, where NTFS journals them itself. */
export function syncFolder(directory: string): void {
  try {
    syncFile(directory);
  } catch {
    // not supported here: the files themselves are on disk
  }
}

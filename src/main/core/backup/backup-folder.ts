// Where a backup made from the desktop goes: one new folder per backup, named by its local date and
// time, under a root the host chooses (the desktop app: Documents; the browser mode: beside the data
// directory, as here by default).
import path from 'node:path';

/** Beside the data directory: `<data directory>-copias` (`~/.local/share/titular-copias`). */
export function defaultBackupRoot(dataDir: string): string {
  const resolved = path.resolve(dataDir);
  return path.join(path.dirname(resolved), `${path.basename(resolved)}-copias`);
}

/** `<root>/titular-AAAA-MM-DD-HHMMSS`, in this computer's time. */
export function newBackupFolder(root: string, now: Date): string {
  return path.join(root, `titular-${localStamp(now)}`);
}

/** `AAAA-MM-DD-HHMMSS` in this computer's time: the moment in the names of backup and restore folders. */
export function localStamp(now: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
}

// What a restore needs of the file system, checked before it changes anything: to read the backup,
// to write the data directory (the backup's files come in there), and — when that holds data — to
// move that data into a new folder beside it, which takes writing the folder above the data
// directory on the same disk. A service's data directory is often its user's while the folder above
// is root's (/var/lib/titular under /var/lib), or a disk of its own (a Docker volume): the restore
// used to fail half-way there with a raw `EACCES: permission denied, mkdir …` or `EXDEV: cross-device
// link not permitted, rename …`, leaving an empty folder behind.
import { statSync } from 'node:fs';
import path from 'node:path';
import { accessDenial, accessProblem } from '../access-problem';
import { DATABASE_FILE, KEY_FILE } from '../data-dir';

/** `<data directory>-antes-de-restaurar-…`: what the sentences below call the folder set aside. */
export const ASIDE_SUFFIX = '-antes-de-restaurar-';

/** Why this process cannot read the backup (its folder, database, key file), or null. */
export function unreadableBackup(backup: string, needsKeyFile: boolean): string | null {
  const need = {
    need: 'read',
    dataDir: backup,
    advice: (user: string) => `run the restore as a user who can read it, or give the backup to ${user} (chown -R ${user} ${backup})`,
  } as const;
  return (
    accessProblem(backup, { ...need, label: 'The backup folder' }) ??
    accessProblem(path.join(backup, DATABASE_FILE), need) ??
    (needsKeyFile ? accessProblem(path.join(backup, KEY_FILE), need) : null)
  );
}

/**
 * Why this process cannot put a backup in place of `dataDir`'s data, or null. `replacing`: the
 * data directory holds data, which is moved aside into a new folder beside it.
 */
export function restoreTargetProblem(dataDir: string, replacing: boolean): string | null {
  const written = accessProblem(dataDir, { need: 'write', dataDir, label: 'The data directory' });
  if (written || !replacing) return written;
  const parent = path.dirname(dataDir);
  const aside = `${path.basename(dataDir)}${ASIDE_SUFFIX}…`;
  if (isMountPoint(dataDir, parent)) {
    return (
      `The data directory ${dataDir} is a disk of its own (a mount point), and restore moves the data it replaces into a new folder beside it (${aside}), on another disk, where files cannot be moved: ` +
      `move ${DATABASE_FILE} (with its -wal and -shm files) and ${KEY_FILE} out of it into a folder of your own, then restore into the emptied data directory; nothing was changed`
    );
  }
  const denial = accessDenial(parent, 'write');
  if (denial === null) return null;
  const folder = `The folder above the data directory, ${parent},`;
  const said = `restore moves the data it replaces into a new folder there (${aside})`;
  if (denial.readOnlyDisk) {
    return `${folder} is on a read-only disk, and ${said}: make that disk writable, or move ${DATABASE_FILE} (with its -wal and -shm files) and ${KEY_FILE} out of the data directory yourself, then restore into the emptied folder; nothing was changed`;
  }
  const giveBack = denial.user === null ? 'give the data directory back to the user Titular runs as' : `give the data directory back to ${denial.user} (chown -R ${denial.user} ${dataDir})`;
  return `${folder} cannot be written to by ${denial.by}, and ${said}: run the restore as a user who can write to ${parent}, then ${giveBack}; nothing was changed`;
}

/** Whether `folder` is on another disk than the folder above it: a rename between them fails (EXDEV). */
function isMountPoint(folder: string, parent: string): boolean {
  try {
    return statSync(folder).dev !== statSync(parent).dev;
  } catch {
    return false; // Not there: made by the restore, on the parent's disk.
  }
}

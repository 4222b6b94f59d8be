// Why this process cannot use a file or folder of a data directory, said with what fixes it: the
// user it runs as, the file's owner and mode, or a read-only disk. A service run as another user
// than the one who set the folder up (or restored it as root) otherwise meets SQLite's "unable to
// open database file" or a raw EACCES, which name neither the file nor the user.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import os from 'node:os';

export type AccessNeed = 'read' | 'write';

/**
 * Why `target` cannot be used as `need` says (a folder: files made and removed in it, or for 'read'
 * listed and opened; a file: read, and written too for 'write'), or null when it can, or does not
 * exist. `label` opens the sentence ("The data directory"); `dataDir` is the folder the advice names;
 * `advice` replaces that advice where the data directory's owner is not the fix (a backup's folder).
 */
export function accessProblem(
  target: string,
  options: { need: AccessNeed; dataDir: string; label?: string; advice?: (user: string) => string },
): string | null {
  const denial = accessDenial(target, options.need);
  if (denial === null) return null;
  const named = options.label ? `${options.label} ${target}` : target;
  if (denial.readOnlyDisk) {
    return `${named} is on a read-only disk, and Titular writes there with every lookup it records: make that disk writable, or copy the folder to a writable one and open it there (--data-dir)`;
  }
  if (denial.user === null) return `${named} cannot be ${denial.verb} by the user running Titular (permission denied): give that user the data directory ${options.dataDir}`;
  const advice = options.advice?.(denial.user) ?? `run Titular as the owner of its data directory, or give the folder to ${denial.user} (chown -R ${denial.user} ${options.dataDir})`;
  return `${named} cannot be ${denial.verb} by ${denial.by}: ${advice}`;
}

/** Why this process cannot use a file or folder, in parts a sentence is made of. */
export type AccessDenial =
  | { readOnlyDisk: true }
  | {
      readOnlyDisk: false;
      /** "written to", "written", "read": the first thing the user cannot do. */
      verb: string;
      /** The user's name, or null where there are no uids (Windows). */
      user: string | null;
      /** "user nobody (owner root, mode 0755)", or "the user running Titular (permission denied)". */
      by: string;
    };

/** Why `target` cannot be used as `need` says (see accessProblem), or null when it can or does not exist. */
export function accessDenial(target: string, need: AccessNeed): AccessDenial | null {
  let isFolder: boolean;
  try {
    isFolder = statSync(target).isDirectory();
  } catch {
    return null; // Absent: whoever makes it says why it could not.
  }
  const modes = isFolder
    ? need === 'write'
      ? constants.W_OK | constants.X_OK
      : constants.R_OK | constants.X_OK
    : need === 'write'
      ? constants.R_OK | constants.W_OK
      : constants.R_OK;
  const denied = refusal(target, modes);
  if (denied === null) return null;
  if (denied === 'EROFS') return { readOnlyDisk: true };
  // The verb is the first thing the user cannot do: a file they cannot even read is not "written".
  const verb = isFolder ? (need === 'write' ? 'written to' : 'read') : refusal(target, constants.R_OK) !== null ? 'read' : 'written';
  const user = currentUser();
  if (user === null) return { readOnlyDisk: false, verb, user, by: 'the user running Titular (permission denied)' };
  return { readOnlyDisk: false, verb, user, by: `user ${user} (${ownerAndMode(target)})` };
}

/** The errno code access(2) answers for `modes`, or null when granted. */
function refusal(target: string, modes: number): string | null {
  try {
    accessSync(target, modes);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'EACCES';
  }
}

/** The name this process runs as (`nobody`), else `uid N`; null where there are no uids (Windows). */
function currentUser(): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  try {
    return os.userInfo().username;
  } catch {
    return userName(uid); // No passwd entry for this uid (a container's arbitrary one): os.userInfo throws.
  }
}

/** "owner root, mode 0644" */
function ownerAndMode(target: string): string {
  const stat = statSync(target);
  return `owner ${userName(stat.uid)}, mode ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}`;
}

/** The account name of `uid` from /etc/passwd, else `uid N` (Node has no getpwuid). */
function userName(uid: number): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && id !== undefined && Number(id) === uid) return name;
    }
  } catch {
    // No passwd file: the number says it.
  }
  return `uid ${uid}`;
}

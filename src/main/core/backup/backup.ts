// A consistent copy of a data directory, taken while Titular runs. The database is copied by SQLite's
// `VACUUM INTO`, which reads it in one read transaction: every charge with its history entry, nothing
// half-written, while this and other processes keep writing (they are not held up; the copy shows
// the last commit before it began). It runs on a worker thread with a read-only connection of its
// own (database-copy.ts), so a large database does not stall the event loop that serves the API. The
// vault's key file is copied beside it when the vault has one. The copy is a data directory of its
// own: `--data-dir` opens it as it is, and putting it in place of the data directory, Titular
// closed, restores it.
import { accessSync, chmodSync, closeSync, constants, copyFileSync, existsSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { stateRefusal } from '../errors';
import { ensureFolder, folderProblem } from '../folders';
import type { MasterKeyProviderKind } from '../vault/master-key-provider';
import { copyDatabase } from './database-copy';
import { isDiskFull } from '../db/disk-full';
import { megabytes } from './disk-full';
import { syncFile, syncFolder } from './fsync';
import { isSameOrInside } from '../paths';
import { fileSystemRefusal } from '../fs-refusal';
import { DATABASE_FILE, KEY_FILE, keyFileOf } from '../data-dir';

const PARTIAL = '.partial';

export interface BackupResult {
  directory: string;
  files: { name: string; bytes: number }[];
  /** What protects the copy's vault: a passphrase (the same one), its key file (copied), or this computer's keychain. */
  protection: MasterKeyProviderKind;
}

/** Why this process cannot write into `folder`, or null. */
function writeProblem(folder: string): string | null {
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    return fileSystemRefusal(error) ?? (error as Error).message;
  }
}

export async function backupDataDir(options: {
  /** The database file to copy (the open connection's). */
  databasePath: string;
  /** How large the copy will be (pages × page size): the file alone may be small, its pages still in the WAL. */
  databaseBytes?: number;
  dataDir: string;
  protection: MasterKeyProviderKind;
  destination: string;
}): Promise<BackupResult> {
  const directory = path.resolve(options.destination);
  const dataDir = path.resolve(options.dataDir);
  if (isSameOrInside(directory, dataDir)) {
    throw stateRefusal('A backup cannot go into the data directory or a folder inside it: choose a folder elsewhere');
  }
  const database = path.join(directory, DATABASE_FILE);
  const keyFile = path.join(directory, KEY_FILE);
  // Written under these names and renamed when whole, the key first and the database last: a folder
  // that holds `titular.db` holds a complete backup. An interrupted one leaves only these behind, and
  // the next attempt into the same folder clears them.
  const partialDatabase = `${database}${PARTIAL}`;
  const partialKey = `${keyFile}${PARTIAL}`;
  const partials = [partialDatabase, partialKey];
  let created = false;
  const advice = 'choose a new folder for the backup';
  const cannotWrite = (reason: string) => stateRefusal(`The backup folder ${directory} cannot be written to (${reason}); ${advice}`);
  const problem = folderProblem(directory, 'The backup folder');
  if (problem) throw stateRefusal(`${problem}; ${advice}`);
  if (existsSync(directory)) {
    const leftovers = new Set(partials.map((file) => path.basename(file)));
    if (readdirSync(directory).some((name) => !leftovers.has(name))) {
      throw stateRefusal(`${directory} is not empty: choose a new or empty folder, so that no earlier backup is mixed in`);
    }
    // A folder the admin chose keeps its permissions (the files are 0600 whatever they are); one that
    // cannot be written is refused before anything is touched, not made writable.
    const denied = writeProblem(directory);
    if (denied) throw cannotWrite(denied);
    for (const file of partials) rmSync(file, { force: true });
  } else {
    created = ensureFolder(directory, { label: 'The backup folder', advice });
    // Made here: owner-only, whatever the umask left of its mode.
    chmodSync(directory, 0o700);
  }

  try {
    // VACUUM INTO writes into an empty file: made first, owner-only, so the copy is never readable by others.
    closeSync(openSync(partialDatabase, 'wx', 0o600));
    await copyDatabase(options.databasePath, partialDatabase);
    if (options.protection === 'keyfile') {
      copyFileSync(keyFileOf(dataDir), partialKey, constants.COPYFILE_EXCL);
      chmodSync(partialKey, 0o600);
      syncFile(partialKey);
      renameSync(partialKey, keyFile);
    }
    renameSync(partialDatabase, database);
    syncFolder(directory);
  } catch (error) {
    for (const file of [...partials, keyFile, database]) rmSync(file, { force: true });
    if (created) rmSync(directory, { recursive: true, force: true });
    if (isDiskFull(error)) {
      const needed = options.databaseBytes ?? statSync(options.databasePath).size;
      throw stateRefusal(`There is not enough free space for the backup in ${directory}: the database takes about ${megabytes(needed)}; free some space there, or back up to another disk`);
    }
    // Refused by the file system in the folder after all (an ACL, a mount): said in words, not as an
    // errno line. A refusal to read the data directory (its key file) is not the folder's.
    const denied = fileSystemRefusal(error);
    const where = (error as NodeJS.ErrnoException).path;
    if (denied && where !== undefined && isSameOrInside(path.resolve(where), directory)) throw cannotWrite(denied);
    throw error;
  }
  const files = [{ name: DATABASE_FILE, bytes: statSync(database).size }];
  if (options.protection === 'keyfile') files.push({ name: KEY_FILE, bytes: statSync(keyFile).size });
  return { directory, files, protection: options.protection };
}

// Puts a backup (backup.ts) in place of a data directory's data, with Titular closed. Nothing is
// deleted: the data it replaces is moved into a folder beside the data directory, so a restore made
// by mistake is undone by moving it back.
//
// The backup is checked before anything moves (a whole backup, a database SQLite reads without
// error, an organization and a vault, the key file its vault needs) and copied in through SQLite
// (`VACUUM INTO`, as a backup is taken), so a copy made by hand with its -wal file comes in whole.
// The data directory must not be open in any process: a server, the desktop or another command
// writing into a database that is being replaced would lose what it writes. That is checked with
// SQLite's own lock: every connection to a WAL database holds a shared lock on it while open, so an
// exclusive lock is granted only when no other process has it open.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, constants, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { stateRefusal } from '../errors';
import { DATABASE_FILE, KEY_FILE } from '../data-dir';
import type { MasterKeyProviderKind } from '../vault/master-key-provider';
import { copyDatabase } from './database-copy';
import { isDiskFull } from '../db/disk-full';
import { megabytes } from './disk-full';
import { syncFile, syncFolder } from './fsync';
import { localStamp } from './backup-folder';
import { ensureFolder, folderProblem } from '../folders';
import { isSameOrInside } from '../paths';
import { peekDataDir } from '../startup/peek-data-dir';
import { restoreTargetProblem, unreadableBackup } from './restore-access';
import { fileSystemRefusal } from '../fs-refusal';

const PARTIAL = '.restoring';
/** The files of a data directory's data that a restore replaces; anything else in the folder stays. */
const DATA_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, KEY_FILE];

export interface RestoreResult {
  dataDir: string;
  backup: string;
  organization: string;
  protection: MasterKeyProviderKind;
  /** Where the data it replaced was moved; null when the data directory held none. */
  previous: string | null;
}

export async function restoreDataDir(options: { backup: string; dataDir: string; now?: Date }): Promise<RestoreResult> {
  const backup = path.resolve(options.backup);
  const dataDir = path.resolve(options.dataDir);
  if (isSameOrInside(backup, dataDir) || isSameOrInside(dataDir, backup)) {
    throw stateRefusal('The backup and the data directory must be separate folders, neither inside the other');
  }
  // A file in the way of the data directory is told before the backup is read (and again when it is made).
  const problem = folderProblem(dataDir, 'The data directory');
  if (problem) throw stateRefusal(problem);
  const { organization, protection } = checkBackup(backup);

  ensureFolder(dataDir, { label: 'The data directory' });
  // What it will write and move, checked before it writes anything (restore-access.ts).
  const denied = restoreTargetProblem(dataDir, presentDataFiles(dataDir).length > 0);
  if (denied) throw stateRefusal(denied);
  const database = path.join(dataDir, DATABASE_FILE);
  const keyFile = path.join(dataDir, KEY_FILE);
  const partialDatabase = `${database}${PARTIAL}`;
  const partialKey = `${keyFile}${PARTIAL}`;
  // Left by a restore that was interrupted before it moved anything.
  for (const file of [partialDatabase, partialKey]) rmSync(file, { force: true });
  refuseIfOpen(database);

  let previous: string | null = null;
  const moved: string[] = [];
  try {
    closeSync(openSync(partialDatabase, 'wx', 0o600));
    await copyDatabase(path.join(backup, DATABASE_FILE), partialDatabase);
    syncFile(partialDatabase);
    if (protection === 'keyfile') {
      copyFileSync(path.join(backup, KEY_FILE), partialKey, constants.COPYFILE_EXCL);
      chmodSync(partialKey, 0o600);
      syncFile(partialKey);
    }
    // Checked again right before the move: the copy may have taken a while.
    refuseIfOpen(database);
    const present = presentDataFiles(dataDir);
    if (present.length > 0) {
      previous = asideFolder(dataDir, options.now ?? new Date());
      mkdirSync(previous, { mode: 0o700 });
      // The database first: from then on the folder no longer looks like a data directory with its
      // old database and the backup's key, whatever happens next.
      for (const name of present) {
        renameSync(path.join(dataDir, name), path.join(previous, name));
        moved.push(name);
      }
      syncFolder(previous);
    }
  } catch (error) {
    for (const file of [partialDatabase, partialKey]) rmSync(file, { force: true });
    // Refused part-way after the checks (an ACL, a security module, a race): what was moved goes back.
    const stranded = previous === null ? null : moveBack(previous, moved, dataDir);
    if (isDiskFull(error)) {
      const needed = statSync(path.join(backup, DATABASE_FILE)).size;
      throw stateRefusal(`There is not enough free space in ${dataDir} to restore: the backup's database takes about ${megabytes(needed)}; nothing was changed`);
    }
    const said = refusalWithPath(error);
    if (said === null) throw error;
    throw stateRefusal(
      stranded === null
        ? `The restore into ${dataDir} failed (${said}): nothing was changed`
        : `The restore into ${dataDir} failed (${said}), and the data it was replacing is still in ${stranded}: move it back into the data directory`,
    );
  }
  if (protection === 'keyfile') renameSync(partialKey, keyFile);
  renameSync(partialDatabase, database);
  syncFolder(dataDir);
  return { dataDir, backup, organization, protection, previous };
}

/** The files of the data directory's data that are there (a restore moves them aside). */
function presentDataFiles(dataDir: string): string[] {
  return DATA_FILES.filter((name) => existsSync(path.join(dataDir, name)));
}

/**
 * Moves `names` from `previous` back into `dataDir` and removes `previous` when that empties it;
 * answers null when done, else `previous`, where the data still is.
 */
function moveBack(previous: string, names: readonly string[], dataDir: string): string | null {
  try {
    for (const name of [...names].reverse()) renameSync(path.join(previous, name), path.join(dataDir, name));
    rmdirSync(previous);
    return null;
  } catch {
    return existsSync(previous) && readdirSync(previous).length > 0 ? previous : null;
  }
}

/** A file system's refusal in words, with the file it refused ("permission denied: /srv/titular/titular.db.restoring"), or null for any other error. */
function refusalWithPath(error: unknown): string | null {
  const said = fileSystemRefusal(error);
  const where = (error as NodeJS.ErrnoException).path;
  return said === null || where === undefined ? said : `${said}: ${where}`;
}

/** A whole backup of a Titular data directory, readable, with its organization and vault; else a refusal naming what is wrong. */
function checkBackup(backup: string): { organization: string; protection: MasterKeyProviderKind } {
  let isFolder: boolean;
  try {
    isFolder = statSync(backup).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw stateRefusal(`${backup} does not exist: name the folder of a backup (made by \`titular backup\` or Ajustes)`);
    throw stateRefusal(`${backup} cannot be reached (${code === 'EACCES' ? 'permission denied on a folder above it' : (error as Error).message}): run the restore as a user who can read it`);
  }
  if (!isFolder) throw stateRefusal(`${backup} is not a folder`);
  // One this user cannot read would look empty ("holds no Titular backup"), or fail in SQLite's words.
  const unreadable = unreadableBackup(backup, false);
  if (unreadable) throw stateRefusal(unreadable);
  const file = path.join(backup, DATABASE_FILE);
  if (!existsSync(file)) {
    const partial = readdirSync(backup).some((name) => name.endsWith('.partial'));
    throw stateRefusal(
      partial
        ? `${backup} holds an unfinished backup (only .partial files): make a new one`
        : `${backup} holds no Titular backup (no ${DATABASE_FILE})`,
    );
  }
  let sqlite: Database.Database;
  try {
    sqlite = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw stateRefusal(`${file} cannot be opened: ${(error as Error).message}`);
  }
  let problems: string[];
  try {
    problems = sqlite.prepare('PRAGMA quick_check').pluck().all() as string[];
  } catch (error) {
    throw stateRefusal(`${file} is not a readable Titular database: ${(error as Error).message}`);
  } finally {
    sqlite.close();
  }
  if (problems.length !== 1 || problems[0] !== 'ok') throw stateRefusal(`${file} is damaged (${problems.slice(0, 3).join('; ')}): use another backup`);
  // The backup folder is a data directory of its own: read like any other.
  const { organization, vault: protection } = peekDataDir(backup);
  if (organization === null || protection === null) throw stateRefusal(`${file} is not the database of a set-up Titular data directory`);
  if (protection === 'keyfile' && !existsSync(path.join(backup, KEY_FILE))) {
    throw stateRefusal(`${backup} lacks ${KEY_FILE}, which this backup's vault is protected by: without it its stored API keys could not be revealed`);
  }
  const keyUnreadable = protection === 'keyfile' ? unreadableBackup(backup, true) : null;
  if (keyUnreadable) throw stateRefusal(keyUnreadable);
  return { organization, protection };
}

/**
 * Refuses while another process has the database open. A file SQLite cannot read as a database
 * (the damage a restore may be repairing) is open nowhere as one either.
 */
function refuseIfOpen(database: string): void {
  if (!existsSync(database)) return;
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(database, { fileMustExist: true, timeout: 0 });
    sqlite.pragma('locking_mode = EXCLUSIVE');
    sqlite.exec('BEGIN EXCLUSIVE');
    sqlite.exec('COMMIT');
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw stateRefusal(`Titular is using ${path.dirname(database)} (the desktop, a server or another command): close it, then restore`);
    }
  } finally {
    sqlite?.close();
  }
}

/** `<data directory>-antes-de-restaurar-AAAA-MM-DD-HHMMSS` (local time), beside it; a second one in the same second gets a suffix. */
function asideFolder(dataDir: string, now: Date): string {
  const base = `${dataDir}-antes-de-restaurar-${localStamp(now)}`;
  let candidate = base;
  for (let n = 2; existsSync(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

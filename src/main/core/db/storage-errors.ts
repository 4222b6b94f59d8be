// The data directory's files as they fail: a database this process cannot write (another user's
// files, a read-only disk), one that is damaged, or a key file left without its database. SQLite says
// "unable to open database file", "attempt to write a readonly database" or "database disk image is
// malformed", naming neither the folder nor what to do; and it opens a database it can only read
// without a word, after which every write fails. Each start (serve, the CLI, the desktop) and the
// CLI's error report say these instead, in words that name the folder and the fix.
import { statSync } from 'node:fs';
import path from 'node:path';
import { TitularError } from '../errors';
import { accessProblem } from '../access-problem';
import { DATABASE_FILE, KEY_FILE } from '../data-dir';
import { isDiskFull } from './disk-full';
import { causeChain, hasCode } from './error-codes';

/**
 * Why this process cannot write the data directory's database: the database file, the folder (SQLite
 * makes its -wal and -shm files there) or those files themselves belonging to another user, or a
 * read-only disk; null when it can (or the folder does not exist yet).
 *
 * Checked before SQLite opens anything: SQLite would open a database it cannot write read-only
 * without saying so, and make a -wal and -shm it then cannot narrow to 0600 (they take the database
 * file's mode: holder data readable by everyone, for a database left 0644).
 */
export function unwritableDataDir(dataDir: string): string | null {
  const database = path.join(dataDir, DATABASE_FILE);
  const need = { need: 'write', dataDir } as const;
  return (
    accessProblem(dataDir, { ...need, label: 'The data directory' }) ??
    accessProblem(database, need) ??
    accessProblem(`${database}-wal`, need) ??
    accessProblem(`${database}-shm`, need)
  );
}

/** Refuses (exit 1 at each start) a data directory whose database this process cannot write. */
export function refuseUnwritableDataDir(dataDir: string): void {
  const problem = unwritableDataDir(dataDir);
  if (problem) throw new TitularError(500, 'GE500', problem);
}

/** SQLite's SQLITE_CORRUPT (a page that is not what it should be) or SQLITE_NOTADB (no database header), also as a cause. */
export function isDamaged(error: unknown): boolean {
  return hasCode(error, (code) => code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/**
 * SQLite could not open the database file, or opened it read-only (SQLITE_CANTOPEN*, SQLITE_READONLY*);
 * not SQLITE_READONLY_DBMOVED, the file replaced or deleted under an open connection, which no
 * change of owner fixes.
 */
function isUnwritable(error: unknown): boolean {
  return hasCode(error, (code) => code.startsWith('SQLITE_CANTOPEN') || (code.startsWith('SQLITE_READONLY') && code !== 'SQLITE_READONLY_DBMOVED'));
}

/** What a damaged database's owner does about it: the restore, which keeps the damaged files aside. */
function damagedDatabaseMessage(dataDir: string, reason: string): string {
  return `The database in ${dataDir} is damaged (${reason}): restore your latest backup with \`titular restore FOLDER --data-dir ${dataDir}\` while Titular is closed (the damaged files are moved aside, not deleted)`;
}

/**
 * The sentence for a storage fault of the data directory (damaged, or not writable by this process),
 * or null for any other error. For the CLI's report, the starts, and a host's fault log.
 */
export function storageFault(error: unknown, dataDir: string): string | null {
  if (isDamaged(error)) return damagedDatabaseMessage(dataDir, sqliteReason(error));
  // A full disk is said by db/disk-full.ts, whatever SQLite called it.
  if (isUnwritable(error) && !isDiskFull(error, dataDir)) {
    return (
      unwritableDataDir(dataDir) ??
      // Not a permission nor a read-only disk that access(2) sees (a lock file, a security module): still the folder and what to check.
      `Titular cannot write its database in ${dataDir} (${sqliteReason(error)}): check that the user running Titular owns that folder and its files, and that its disk is writable`
    );
  }
  return null;
}

/** `error` as its storage fault in words (a GE500), or as it was. */
export function storageErrorSaidPlainly(error: unknown, dataDir: string): unknown {
  const fault = storageFault(error, dataDir);
  return fault === null ? error : new TitularError(500, 'GE500', fault);
}

/** SQLite's own words ("file is not a database"), also under an error that wraps it. */
function sqliteReason(error: unknown): string {
  for (const e of causeChain(error)) if (String(e.code).startsWith('SQLITE_')) return String(e.message);
  return error instanceof Error ? error.message : String(error);
}

/**
 * A data directory that holds the key file of an earlier setup but no database (deleted, or left
 * empty): not a new folder. Its data, if it had any, is in a backup; `init` there would make a new
 * organization beside nothing and reuse the old key. Null otherwise, and during a first run, whose
 * database already holds its schema (in the -wal) before its key file is made.
 */
export function keyFileWithoutDatabase(dataDir: string): string | null {
  const size = (file: string) => {
    try {
      const stat = statSync(file);
      return stat.isFile() ? stat.size : null;
    } catch {
      return null; // Absent, or in a folder this user cannot look into (said where it is opened).
    }
  };
  if (size(path.join(dataDir, KEY_FILE)) === null) return null;
  const database = path.join(dataDir, DATABASE_FILE);
  const databaseSize = size(database);
  if (databaseSize !== null && (databaseSize > 0 || (size(`${database}-wal`) ?? 0) > 0)) return null;
  const state = databaseSize === null ? `no database (${DATABASE_FILE} is missing)` : `an empty database (${DATABASE_FILE} has 0 bytes)`;
  return `${dataDir} holds the key file of an earlier setup (${KEY_FILE}) but ${state}: if Titular had data here, restore your latest backup with \`titular restore FOLDER --data-dir ${dataDir}\``;
}

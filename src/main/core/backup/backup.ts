// A consistent copy of a data directory, taken while Titular runs. The database is copied by SQLite's
// `VACUUM INTO`, which reads it in one read transaction: every charge with its history entry, nothing
// half-written, while this and other processes keep writing (they are not held up; the copy shows
// the last commit before it began). The vault's key file is copied beside it when the vault has one.
// The copy is a data directory of its own: `--data-dir` opens it as it is, and putting it in place of
// the data directory, Titular closed, restores it.
import { chmodSync, closeSync, constants, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { stateRefusal } from '../errors';
import type { MasterKeyProviderKind } from '../vault/master-key-provider';

export const KEY_FILE = 'master.key';

export interface BackupResult {
  directory: string;
  files: { name: string; bytes: number }[];
  /** What protects the copy's vault: a passphrase (the same one), its key file (copied), or this computer's keychain. */
  protection: MasterKeyProviderKind;
}

export function backupDataDir(options: {
  sqlite: Database.Database;
  dataDir: string;
  databaseFile: string;
  protection: MasterKeyProviderKind;
  destination: string;
}): BackupResult {
  const directory = path.resolve(options.destination);
  if (directory === path.resolve(options.dataDir)) throw stateRefusal('A backup cannot go into the data directory itself: choose another folder');
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory()) throw stateRefusal(`${directory} exists and is not a folder: choose a new folder for the backup`);
    if (readdirSync(directory).length > 0) throw stateRefusal(`${directory} is not empty: choose a new or empty folder, so that no earlier backup is mixed in`);
  }
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);

  // VACUUM INTO writes into an empty file: made first, owner-only, so the copy is never readable by others.
  const database = path.join(directory, options.databaseFile);
  closeSync(openSync(database, 'wx', 0o600));
  options.sqlite.prepare('VACUUM INTO ?').run(database);
  const files = [{ name: options.databaseFile, bytes: statSync(database).size }];

  if (options.protection === 'keyfile') {
    const keyFile = path.join(directory, KEY_FILE);
    copyFileSync(path.join(options.dataDir, KEY_FILE), keyFile, constants.COPYFILE_EXCL);
    chmodSync(keyFile, 0o600);
    files.push({ name: KEY_FILE, bytes: statSync(keyFile).size });
  }
  return { directory, files, protection: options.protection };
}

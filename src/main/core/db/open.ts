// Opens (or creates) the SQLite database of a data directory and brings its schema up to date.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as schema from './schema';
import { findUpwards } from '../paths';
import { stopCheckpointer } from './wal-checkpointer';
import { applyMigrations } from './migrate';
import { refuseUnwritableDataDir, storageErrorSaidPlainly } from './storage-errors';

export type Db = BetterSQLite3Database<typeof schema>;

export interface OpenedDatabase {
  /** The raw connection, for prepared statements on hot paths and pragmas. */
  sqlite: Database.Database;
  db: Db;
  close(): void;
}

export interface OpenDatabaseOptions {
  file: string;
  migrationsFolder?: string;
  /**
   * `NORMAL` (default) in WAL mode loses no committed transaction on a process crash; `FULL` also
   * survives an OS crash or power loss, at the cost of an fsync per commit.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** Runs before migrations on an existing database, after them on a new one; may throw to abort. */
  beforeMigrate?: (db: Db) => void;
}

/** How long a statement waits for another process's lock (the CLI next to a running server) before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

export function openDatabase(options: OpenDatabaseOptions): OpenedDatabase {
  const onDisk = options.file !== ':memory:';
  const dataDir = path.dirname(options.file);
  if (onDisk) refuseUnwritableDataDir(dataDir);
  ownerOnly(options.file);
  let sqlite: Database.Database;
  try {
    sqlite = new Database(options.file, { timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw onDisk ? storageErrorSaidPlainly(error, dataDir) : error;
  }
  try {
    switchToWal(sqlite);
    sqlite.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    sqlite.pragma('foreign_keys = ON');
    // The ledger, the history and the audit trail refuse UPDATE and DELETE (drizzle/0008's triggers).
    // An INSERT OR REPLACE removes the row it replaces without firing DELETE triggers unless this is on;
    // with it on, a replacement is refused too. Inserts with no conflict, the lookup path's, pay nothing.
    sqlite.pragma('recursive_triggers = ON');
    // A batch that is run again after a failed write gives each write its own savepoint (CommitQueue),
    // and SQLite copies each page a savepoint changes into a sub-journal first: on disk that is ~25
    // small writes per lookup, in memory none.
    sqlite.pragma('temp_store = MEMORY');
    // Under sustained load the WAL grows between restarts (db/wal-checkpointer.ts); once restarted,
    // the file is cut back to this size instead of keeping its largest size on disk.
    sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    const db = drizzle(sqlite, { schema });
    const migrationsFolder = options.migrationsFolder ?? findMigrationsFolder();
    // An existing database is unlocked before it is migrated (`beforeMigrate`), so a wrong
    // passphrase leaves even an older-schema file untouched.
    const existing = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vault_meta'").get() !== undefined;
    if (existing) options.beforeMigrate?.(db);
    applyMigrations(sqlite, migrationsFolder);
    if (!existing) options.beforeMigrate?.(db);
    return {
      sqlite,
      db,
      close: () => {
        stopCheckpointer(sqlite);
        if (sqlite.open) sqlite.close();
      },
    };
  } catch (error) {
    sqlite.close();
    // A damaged database (a header that is not SQLite's, or a page of the schema) fails here, as SQLite's
    // "file is not a database": said with the folder and the restore that repairs it.
    throw onDisk ? storageErrorSaidPlainly(error, dataDir) : error;
  }
}

/**
 * A new database file is in rollback-journal mode until one connection switches it to WAL, which
 * writes its header under a write lock. Another process switching it at the same moment (two first
 * runs on one data directory) already holds a read lock when it asks for that write lock, and SQLite
 * does not wait in that case (waiting could deadlock): it fails at once with SQLITE_BUSY whatever the
 * busy timeout. So the switch is retried here, for as long as the busy timeout would have waited.
 */
function switchToWal(sqlite: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(2 * attempt, 50)); // a synchronous pause: opening is synchronous
    }
  }
}

/**
 * The `drizzle/` folder ships beside the code. Entry points may pass it explicitly (the packaged
 * Electron app does); otherwise look upwards from the running script and from the working directory.
 */
export function findMigrationsFolder(): string {
  const fromEnv = process.env.TITULAR_MIGRATIONS_DIR;
  if (fromEnv) return fromEnv;
  const found = findUpwards('drizzle', path.join('drizzle', 'meta', '_journal.json'));
  if (!found) throw new Error('Cannot find the drizzle/ migrations folder; set TITULAR_MIGRATIONS_DIR');
  return found;
}

/**
 * The database holds account holders' data, the audit trail and the wrapped vault key: readable by
 * its owner only, also in a data directory someone made readable to others (`--data-dir` on an
 * existing one). SQLite creates the -wal and -shm files with the database file's mode, so a new
 * database is created 0600 before SQLite opens it; files left by an older version are narrowed.
 */
function ownerOnly(file: string): void {
  if (file === ':memory:') return;
  try {
    writeFileSync(file, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  narrowToOwner(file);
}

/**
 * Narrows a database and its -wal and -shm files to 0600 where this process owns them. Also after a
 * read-only look at one (startup/peek-data-dir.ts): reading a WAL database makes its -wal and -shm
 * with the database file's mode.
 */
export function narrowToOwner(file: string): void {
  for (const part of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(part, 0o600);
    } catch {
      // Absent (no WAL yet), or another user's file (a read-only use of someone else's directory).
    }
  }
}

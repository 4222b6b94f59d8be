// What a data directory holds, read without opening it for real: no migration, no vault created,
// nothing written. The desktop's startup gate chooses its screen with it, and the CLI refuses to
// run a command other than `init` on a directory with no organization (a first run that failed
// after its database file existed leaves one behind; opening it would create its vault).
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DATABASE_FILE } from '../titular';
import { diskFullAtOpen, isDiskFull } from '../db/disk-full';
import { narrowToOwner } from '../db/open';
import { storageErrorSaidPlainly } from '../db/storage-errors';
import type { MasterKeyProviderKind } from '../vault/master-key-provider';

export interface DataDirPeek {
  /** How the vault is protected; null when there is none yet. */
  vault: MasterKeyProviderKind | null;
  /** The organization's name; null before `init` (or the desktop's first run) created it. */
  organization: string | null;
}

export function peekDataDir(dataDir: string): DataDirPeek {
  const file = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) return { vault: null, organization: null };
  let sqlite: Database.Database | undefined;
  try {
    const read = (sqlite = new Database(file, { readonly: true, fileMustExist: true }));
    const has = (table: string) => read.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    const vault = has('vault_meta')
      ? ((read.prepare('SELECT provider FROM vault_meta WHERE id = 1').get() as { provider: MasterKeyProviderKind } | undefined)?.provider ?? null)
      : null;
    const organization = has('organizations')
      ? ((read.prepare('SELECT name FROM organizations LIMIT 1').get() as { name: string } | undefined)?.name ?? null)
      : null;
    return { vault, organization };
  } catch (error) {
    // Reading a WAL database sizes its -shm file: on a full disk that is "disk I/O error" (db/disk-full.ts).
    if (isDiskFull(error, dataDir)) throw diskFullAtOpen(dataDir);
    // Another user's database (SQLITE_CANTOPEN), or a damaged one (SQLITE_NOTADB): in words, with the fix.
    throw storageErrorSaidPlainly(error, dataDir);
  } finally {
    sqlite?.close();
    narrowToOwner(file);
  }
}

// Applies drizzle-kit's migrations (drizzle/) to a database, safely when several processes open a
// new data directory at once.
//
// drizzle's own migrator reads which migrations are applied, then runs them in a deferred
// transaction, which takes the write lock only at its first statement: two processes opening a new
// data directory at once (two first runs) could both start the same migration, and the second then
// failed on a table the first had just created (Titular used to run it a second time to get past
// that). Here the write lock is taken first (BEGIN IMMEDIATE waits for it like any other write) and
// what is applied is read under it: one process migrates, the others find nothing left to do, and a
// migration that really fails is not run twice. The bookkeeping is drizzle's, to the column, so
// databases migrated by either stay compatible.
import type Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';

const MIGRATIONS_TABLE = '__drizzle_migrations';

export function applyMigrations(sqlite: Database.Database, migrationsFolder: string): void {
  const migrations = readMigrationFiles({ migrationsFolder });
  const newest = Math.max(0, ...migrations.map((migration) => migration.folderMillis));
  // Opening an up-to-date database (every start) reads only, so it never waits on a busy server.
  if (lastApplied(sqlite) >= newest) return;
  sqlite
    .transaction(() => {
      sqlite.exec(`CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
      const applied = lastApplied(sqlite);
      const record = sqlite.prepare(`INSERT INTO "${MIGRATIONS_TABLE}" ("hash", "created_at") VALUES (?, ?)`);
      for (const migration of migrations) {
        if (migration.folderMillis <= applied) continue;
        for (const statement of migration.sql) sqlite.exec(statement);
        record.run(migration.hash, migration.folderMillis);
      }
    })
    .immediate();
}

/** The creation time of the newest migration applied, as drizzle records it; 0 for none. */
function lastApplied(sqlite: Database.Database): number {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE);
  if (!table) return 0;
  const row = sqlite.prepare(`SELECT created_at FROM "${MIGRATIONS_TABLE}" ORDER BY created_at DESC LIMIT 1`).get() as
    | { created_at: number | string | null }
    | undefined;
  return row ? Number(row.created_at) : 0;
}

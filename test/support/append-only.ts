// The credit ledger, the history and the audit trail refuse UPDATE and DELETE (drizzle/0008's
// triggers). A damaged cell — a bit flipped on disk, or a tool that ignores the guard — passes no
// trigger: a test that makes one lifts the guard for its one write, as such a tool could, and puts
// it back in the same transaction, so the server sharing the file never runs without it.
import type Database from 'better-sqlite3';

export function pastAppendOnlyGuard<T>(db: Database.Database, write: () => T): T {
  return db.transaction(() => {
    const guards = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%append-only%'").all() as { name: string; sql: string }[];
    if (guards.length === 0) throw new Error('no append-only trigger found: has drizzle/0008 been applied?');
    for (const guard of guards) db.exec(`DROP TRIGGER "${guard.name}"`);
    const result = write();
    for (const guard of guards) db.exec(guard.sql);
    return result;
  })();
}

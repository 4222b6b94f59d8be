// schema.ts and drizzle/ must describe the same database. The app builds its database only from the
// migrations; the code's queries are typed from schema.ts. A migration written by hand (or a
// schema.ts edited without `npm run db:generate`) lets them drift apart silently: the code then
// expects an index or a column that installed databases do not have.
//
// Two checks, each against drizzle-kit itself (nothing here re-implements its diff):
// - `drizzle-kit generate` on a copy of drizzle/ finds nothing to migrate: the last snapshot is schema.ts.
// - A database migrated from drizzle/ (as the app opens it) has the tables, columns, keys and indexes
//   of one that `drizzle-kit push` creates straight from schema.ts: the SQL files are their snapshots.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { findMigrationsFolder, openDatabase } from '../src/main/core/db/open';

const ROOT = path.resolve(__dirname, '..');
const DRIZZLE_KIT = path.join(ROOT, 'node_modules', '.bin', 'drizzle-kit');
const MIGRATIONS = findMigrationsFolder();
const work = mkdtempSync(path.join(os.tmpdir(), 'titular-schema-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** drizzle-kit resolves --schema and --out against its working directory (an absolute --out breaks). */
function drizzleKit(args: string[]): string {
  const schema = path.relative(work, path.join(ROOT, 'src', 'main', 'core', 'db', 'schema.ts'));
  return execFileSync(DRIZZLE_KIT, [...args, '--dialect', 'sqlite', '--schema', schema], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

interface TableShape {
  columns: { name: string; type: string; notnull: number; dflt_value: unknown; pk: number }[];
  foreignKeys: { from: string; table: string; to: string; on_update: string; on_delete: string }[];
  indexes: { name: string; unique: number; origin: string; partial: number; columns: string[]; where: string | null }[];
}

/** Every table's shape as SQLite reports it (not the CREATE text: ALTER TABLE leaves its own wording). */
function shapeOf(file: string): Record<string, TableShape> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name")
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      tables.map((table) => {
        const indexes = (db.pragma(`index_list(${quote(table)})`) as { name: string; unique: number; origin: string; partial: number }[]).map((index) => {
          const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(index.name) as string | null;
          return {
            // SQLite names the indexes behind PRIMARY KEY and UNIQUE itself; they are compared by what they hold.
            name: index.origin === 'c' ? index.name : `(${index.origin})`,
            unique: index.unique,
            origin: index.origin,
            partial: index.partial,
            columns: (db.pragma(`index_info(${quote(index.name)})`) as { seqno: number; name: string }[]).sort((a, b) => a.seqno - b.seqno).map((c) => c.name),
            where: sql && /\bWHERE\b/i.test(sql) ? sql.replace(/^[\s\S]*?\bWHERE\b/i, '').replace(/\s+/g, ' ').trim() : null,
          };
        });
        indexes.sort((a, b) => `${a.name}${a.columns.join()}`.localeCompare(`${b.name}${b.columns.join()}`));
        const foreignKeys = (db.pragma(`foreign_key_list(${quote(table)})`) as TableShape['foreignKeys']).map(({ from, table: target, to, on_update, on_delete }) => ({ from, table: target, to, on_update, on_delete }));
        const columns = (db.pragma(`table_info(${quote(table)})`) as TableShape['columns']).map(({ name, type, notnull, dflt_value, pk }) => ({ name, type, notnull, dflt_value, pk }));
        return [table, { columns, foreignKeys, indexes }];
      }),
    );
  } finally {
    db.close();
  }
}

function quote(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}

function migratedDatabase(name: string): string {
  const file = path.join(work, name);
  openDatabase({ file, migrationsFolder: MIGRATIONS }).close();
  return file;
}

function pushedDatabase(): string {
  const file = path.join(work, 'pushed.db');
  rmSync(file, { force: true });
  drizzleKit(['push', '--url', path.basename(file), '--force']);
  return file;
}

describe('schema.ts and the migrations in drizzle/', () => {
  it('drizzle-kit generate finds nothing to migrate', () => {
    const copy = path.join(work, 'drizzle');
    cpSync(MIGRATIONS, copy, { recursive: true });
    const before = readdirSync(copy).sort();
    const output = drizzleKit(['generate', '--out', 'drizzle']);
    expect(output).toContain('No schema changes');
    expect(readdirSync(copy).sort()).toEqual(before);
  });

  it('the migrated database has exactly the tables, columns, keys and indexes schema.ts declares', () => {
    const migrated = shapeOf(migratedDatabase('migrated.db'));
    const pushed = shapeOf(pushedDatabase());
    expect(Object.keys(migrated)).toEqual(Object.keys(pushed));
    for (const table of Object.keys(pushed)) expect({ table, ...migrated[table] }).toEqual({ table, ...pushed[table] });
  });

  it('the comparison sees a missing index, a partial index turned whole and a changed column', () => {
    const reference = shapeOf(migratedDatabase('reference.db'));
    const altered = (sql: string) => {
      const file = migratedDatabase(`altered-${Math.random().toString(36).slice(2)}.db`);
      const db = new Database(file);
      db.exec(sql);
      db.close();
      return shapeOf(file);
    };
    expect(altered('DROP INDEX lookups_page').lookups).not.toEqual(reference.lookups);
    expect(
      altered('DROP INDEX credit_ledger_reference; CREATE UNIQUE INDEX credit_ledger_reference ON credit_ledger (org_id, product, reference)').credit_ledger,
    ).not.toEqual(reference.credit_ledger);
    expect(altered('ALTER TABLE bulk_jobs DROP COLUMN runner; ALTER TABLE bulk_jobs ADD COLUMN runner integer').bulk_jobs).not.toEqual(reference.bulk_jobs);
    expect(altered('SELECT 1').lookups).toEqual(reference.lookups);
  });
});

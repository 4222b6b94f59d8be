// schema.ts and drizzle/ must describe the same database. The app builds its database only from the
// migrations; the code's queries are typed from schema.ts. A migration written by hand (or a
// schema.ts edited without `npm run db:generate`) lets them drift apart silently: the code then
// expects an index or a column that installed databases do not have.
//
// Two checks, each against drizzle-kit itself (nothing here re-implements its diff):
// - `drizzle-kit generate` on a copy of drizzle/ finds nothing to migrate: the last snapshot is schema.ts.
// - A database migrated from drizzle/ (as the app opens it) has the tables, columns, keys, indexes and
//   triggers of one that `drizzle-kit push` creates straight from schema.ts (plus the append-only
//   triggers of 0008, which schema.ts cannot declare): the SQL files are their snapshots.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/main/core/db/open';

const ROOT = path.resolve(__dirname, '..');
const DRIZZLE_KIT = path.join(ROOT, 'node_modules', 'drizzle-kit', 'bin.cjs');
/** The repository's own folder (not TITULAR_MIGRATIONS_DIR, which may point elsewhere). */
const MIGRATIONS = path.join(ROOT, 'drizzle');
const APPEND_ONLY_MIGRATION = '0008_append_only_triggers.sql';
/** drizzle-kit loads schema.ts through esbuild: a couple of seconds, far more on a loaded machine. */
const KIT_TIMEOUT_MS = 50_000;
const TEST_TIMEOUT_MS = 60_000;
const work = mkdtempSync(path.join(os.tmpdir(), 'titular-schema-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The flags repeat drizzle.config.ts (dialect, schema): run from the temporary folder, drizzle-kit
 * does not read the project's config, and it resolves --schema and --out against its working
 * directory (an absolute --out breaks). It prints its errors on stdout, so a failure carries both.
 */
function drizzleKit(args: string[]): string {
  const schema = path.relative(work, path.join(ROOT, 'src', 'main', 'core', 'db', 'schema.ts'));
  try {
    return execFileSync(process.execPath, [DRIZZLE_KIT, ...args, '--dialect', 'sqlite', '--schema', schema], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: KIT_TIMEOUT_MS,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`drizzle-kit ${args[0]} failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}

interface TableShape {
  /** WITHOUT ROWID, STRICT. */
  kind: { wr: number; strict: number };
  /** By name: the code names every column it writes, so their order in the table does not matter. */
  columns: { name: string; type: string; notnull: number; dflt_value: unknown; pk: number; hidden: number }[];
  foreignKeys: { from: string; table: string; to: string; on_update: string; on_delete: string }[];
  indexes: { name: string; unique: number; origin: string; partial: number; columns: string[]; where: string | null }[];
  /** Triggers on the table, by name, with their normalized SQL. */
  triggers: string[];
}

/** Every table's shape as SQLite reports it (not the CREATE text: ALTER TABLE leaves its own wording). */
function shapeOf(file: string): Record<string, TableShape> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name")
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
            // Key columns in order, each with its sort order and collation (an expression has no name).
            columns: (db.pragma(`index_xinfo(${quote(index.name)})`) as { seqno: number; name: string | null; desc: number; coll: string; key: number }[])
              .filter((c) => c.key === 1)
              .sort((a, b) => a.seqno - b.seqno)
              .map((c) => `${c.name ?? '<expression>'}${c.desc ? ' DESC' : ''} ${c.coll}`),
            where: sql && /\bWHERE\b/i.test(sql) ? sql.replace(/^[\s\S]*?\bWHERE\b/i, '').replace(/\s+/g, ' ').trim() : null,
          };
        });
        indexes.sort((a, b) => `${a.name}${a.columns.join()}`.localeCompare(`${b.name}${b.columns.join()}`));
        const foreignKeys = (db.pragma(`foreign_key_list(${quote(table)})`) as TableShape['foreignKeys']).map(({ from, table: target, to, on_update, on_delete }) => ({ from, table: target, to, on_update, on_delete }));
        const columns = (db.pragma(`table_xinfo(${quote(table)})`) as TableShape['columns'])
          .map(({ name, type, notnull, dflt_value, pk, hidden }) => ({ name, type, notnull, dflt_value, pk, hidden }))
          .sort((a, b) => a.name.localeCompare(b.name));
        const [{ wr, strict } = { wr: 0, strict: 0 }] = db.pragma(`table_list(${quote(table)})`) as { wr: number; strict: number }[];
        const triggers = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name").all(table) as { name: string; sql: string }[]).map(
          (t) => `${t.name}: ${t.sql.replace(/\s+/g, ' ').trim()}`,
        );
        return [table, { kind: { wr, strict }, columns, foreignKeys, indexes, triggers }];
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

/**
 * What schema.ts declares, plus the append-only triggers, which drizzle's schema cannot declare: they
 * exist only as the hand-written migration 0008. A later migration that rebuilds the ledger, the history
 * or the audit trail (drizzle-kit's way to change a column) drops them with the table; the comparison
 * then fails until it creates them again.
 */
function pushedDatabase(): string {
  const file = path.join(work, 'pushed.db');
  rmSync(file, { force: true });
  drizzleKit(['push', '--url', path.basename(file), '--force']);
  const db = new Database(file);
  for (const statement of readFileSync(path.join(MIGRATIONS, APPEND_ONLY_MIGRATION), 'utf8').split('--> statement-breakpoint')) db.exec(statement);
  db.close();
  return file;
}

describe('schema.ts and the migrations in drizzle/', () => {
  it('drizzle-kit generate finds nothing to migrate', { timeout: TEST_TIMEOUT_MS }, () => {
    const copy = path.join(work, 'drizzle');
    cpSync(MIGRATIONS, copy, { recursive: true });
    const before = readdirSync(copy).sort();
    const output = drizzleKit(['generate', '--out', 'drizzle']);
    expect(output).toContain('No schema changes');
    expect(readdirSync(copy).sort()).toEqual(before);
  });

  it('the migrated database has exactly the tables, columns, keys and indexes schema.ts declares', { timeout: TEST_TIMEOUT_MS }, () => {
    const migrated = shapeOf(migratedDatabase('migrated.db'));
    const pushed = shapeOf(pushedDatabase());
    expect(Object.keys(migrated)).toEqual(Object.keys(pushed));
    for (const table of Object.keys(pushed)) expect({ table, ...migrated[table] }).toEqual({ table, ...pushed[table] });
  });

  it('the comparison sees a missing index, a partial index turned whole, a changed column, a trigger added or missing and WITHOUT ROWID', () => {
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
    expect(altered("CREATE TRIGGER lookups_never AFTER INSERT ON lookups BEGIN SELECT 1; END").lookups).not.toEqual(reference.lookups);
    // A table rebuilt by a later migration loses its append-only triggers with it.
    expect(altered('DROP TRIGGER credit_ledger_no_delete').credit_ledger).not.toEqual(reference.credit_ledger);
    expect(
      altered(
        'CREATE TABLE settings_new (key text PRIMARY KEY NOT NULL, value text NOT NULL) WITHOUT ROWID; INSERT INTO settings_new SELECT * FROM settings; DROP TABLE settings; ALTER TABLE settings_new RENAME TO settings',
      ).settings,
    ).not.toEqual(reference.settings);
    expect(altered('SELECT 1').lookups).toEqual(reference.lookups);
  });
});

describe('the migration bookkeeping', () => {
  const records = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT hash, created_at AS createdAt FROM __drizzle_migrations ORDER BY id').all();
    } finally {
      db.close();
    }
  };

  it('is drizzle’s own: a database its migrator set up (Titular before 0.1.0 used it) opens with nothing applied again, and looks the same as one db/migrate.ts set up', () => {
    const file = path.join(work, 'drizzle-migrator.db');
    const sqlite = new Database(file);
    migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS });
    sqlite.close();
    const byDrizzle = records(file);
    expect(byDrizzle.length).toBeGreaterThan(1);

    openDatabase({ file, migrationsFolder: MIGRATIONS }).close();
    expect(records(file)).toEqual(byDrizzle);
    expect(records(migratedDatabase('by-migrate-ts.db'))).toEqual(byDrizzle);
    expect(shapeOf(file)).toEqual(shapeOf(path.join(work, 'by-migrate-ts.db')));
  });
});

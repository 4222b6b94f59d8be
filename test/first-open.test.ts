// Several processes opening one new data directory at once (two first runs of `titular`, the CLI
// started next to a desktop that is setting up): each one must either set the database up or find
// it set up, never fail with "database is busy". CI once saw six concurrent `titular init` end with
// SQLITE_BUSY: a new file's switch to WAL cannot wait for another process's lock (db/open.ts).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/main/core/db/open';

const ROOT = path.resolve(__dirname, '..');
const work = mkdtempSync(path.join(os.tmpdir(), 'titular-first-open-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(mkdtempSync(path.join(work, `${++files}-`)), 'titular.sqlite');

const JOURNAL = JSON.parse(readFileSync(path.join(ROOT, 'drizzle', 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] };

/**
 * Another process that takes the write lock of a rollback-journal database (what a process switching
 * a new file to WAL holds for a moment) and keeps it for `holdMs`. Resolves once the lock is held.
 */
function holdWriteLock(file: string, holdMs: number): Promise<{ released: Promise<number | null> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE; CREATE TABLE held (x)');
    process.stdout.write('held\\n');
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ['-e', script, file, String(holdMs)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], timeout: 20_000 });
  const released = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve({ released }));
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`the lock holder exited early (${code})`)));
  });
}

function migrationRecords(file: string): number[] {
  const sqlite = new Database(file, { readonly: true });
  try {
    return sqlite.prepare('SELECT created_at FROM __drizzle_migrations ORDER BY created_at').pluck().all().map(Number);
  } finally {
    sqlite.close();
  }
}

describe('opening a new database that another process is setting up', () => {
  it('waits while another process holds the new file’s write lock, then opens it in WAL mode with every migration applied once', async () => {
    const file = newFile();
    writeFileSync(file, '', { mode: 0o600 });
    const holder = await holdWriteLock(file, 400);
    const opened = openDatabase({ file }); // before the fix: SQLITE_BUSY at once, from `journal_mode = WAL`
    try {
      expect(opened.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(opened.sqlite.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'credit_ledger'").pluck().get()).toBe(1);
    } finally {
      opened.close();
    }
    expect(await holder.released).toBe(0);
    expect(migrationRecords(file)).toEqual(JOURNAL.entries.map((entry) => entry.when));
  });

  it('six processes opening one new file at once, round after round: all open it, and each migration is recorded once', async () => {
    const children: ChildProcess[] = [];
    const messages = new Map<ChildProcess, (message: string) => void>();
    const next = (child: ChildProcess) => new Promise<string>((resolve) => messages.set(child, resolve));
    try {
      for (let i = 0; i < 6; i++) {
        const child = fork(path.join(ROOT, 'test', 'support', 'open-database-child.ts'), [], { cwd: ROOT, execArgv: ['--import', 'tsx'], timeout: 60_000 });
        child.on('message', (message) => messages.get(child)?.(String(message)));
        children.push(child);
      }
      expect(await Promise.all(children.map(next))).toEqual(Array(6).fill('ready'));
      for (let round = 0; round < 8; round++) {
        const file = newFile();
        const replies = children.map(next);
        for (const child of children) child.send(file);
        expect(await Promise.all(replies), `round ${round}`).toEqual(Array(6).fill('opened'));
        expect(migrationRecords(file)).toEqual(JOURNAL.entries.map((entry) => entry.when));
      }
    } finally {
      for (const child of children) child.kill();
    }
  }, 60_000);
});

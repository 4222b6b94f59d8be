// `titular backup FOLDER`, driven as a process the way an admin runs it, against a data directory this
// test keeps serving lookups from: the copy holds every charge with its history entry even when taken
// mid-load, opens as a data directory of its own (balances, history, keys — revealed with the copied
// key file — as in the source), is owner-only, and is audited; the refusals change nothing.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTitular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { checkHistoryCountInvariants, checkLedgerInvariants } from './support/invariants';
import { runCli } from './support/processes';

const TIMEOUT_MS = 60_000;
let f: Fixture;
let key: string;
let url: string;
const folders: string[] = [];

/** A folder for a backup, removed after the tests. */
function folder(name: string): string {
  const dir = path.join(os.tmpdir(), `titular-backup-${process.pid}-${name}`);
  rmSync(dir, { recursive: true, force: true });
  folders.push(dir);
  return dir;
}

const backup = (dest: string, ...extra: string[]) => runCli(['backup', dest, '--data-dir', f.dataDir, ...extra], { source: true, timeoutMs: 40_000 });
const count = (file: string, sql: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 100_000 }, tmpPrefix: 'titular-backup-src-' });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey({ rateLimitPerSecond: 10_000 });
  url = await f.app.listen({ host: '127.0.0.1', port: 0 });
}, TIMEOUT_MS);

afterAll(async () => {
  await f?.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('titular backup', () => {
  it('taken while lookups are charged: the copy holds each charge with its history entry, as of one moment', async () => {
    const dest = folder('under-load');
    const before = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'cbu' }, { page: 1, per_page: 1 }).pagination.total;
    // Lookups keep arriving over the socket (20 at a time) until the backup process has exited.
    let running = true;
    let answered = 0;
    const load = Array.from({ length: 20 }, async (_, i) => {
      while (running && answered < 5_000) {
        const number = i % 2 === 0 ? DIR.individual.cbu : DIR.company.cbu;
        const res = await fetch(`${url}/api/v1/lookup?identifier=${number}&type=cbu`, { headers: auth(key) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        answered++;
      }
    });
    const run = await backup(dest);
    running = false;
    await Promise.all(load);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Backed up to ${dest}: titular.db`);

    const copy = path.join(dest, 'titular.db');
    const db = new Database(copy, { readonly: true });
    try {
      // Invariants 1, 2 and 6 in the copy: every consumption with its history entry and its day's count.
      checkLedgerInvariants(db);
      checkHistoryCountInvariants(db);
    } finally {
      db.close();
    }
    const inCopy = count(copy, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live'");
    const after = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'cbu' }, { page: 1, per_page: 1 }).pagination.total;
    expect(inCopy).toBeGreaterThan(before);
    expect(inCopy).toBeLessThanOrEqual(after);
    expect(answered).toBeGreaterThan(0);
    console.log(`[backup] before ${before}, in the copy ${inCopy}, after ${after}, answered ${answered}`);
  }, TIMEOUT_MS);

  it('is a data directory of its own: owner-only files, the same balances, history and keys, and an audit entry', async () => {
    const dest = folder('quiet');
    const keyId = f.titular.keys.list(f.orgId)[0]!.id;
    const run = await backup(dest, '--json');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { directory: string; files: { name: string; bytes: number }[]; protection: string };
    expect(result).toMatchObject({ directory: dest, protection: 'keyfile' });
    expect(result.files.map((file) => file.name)).toEqual(['titular.db', 'master.key']);
    expect(statSync(dest).mode & 0o777).toBe(0o700);
    for (const name of ['titular.db', 'master.key']) expect(statSync(path.join(dest, name)).mode & 0o777, name).toBe(0o600);

    const copy = openTitular({ dataDir: dest, keyProvider: headlessKeyProvider(dest, {}) });
    try {
      expect(copy.ledger.balances(f.orgId)).toEqual(f.titular.ledger.balances(f.orgId));
      const scope = { orgId: f.orgId, environment: 'live', product: 'cbu' } as const;
      expect(copy.history.page(scope, { page: 1, per_page: 5 })).toEqual(f.titular.history.page(scope, { page: 1, per_page: 5 }));
      expect(copy.keys.reveal(f.orgId, keyId, f.adminId)).toBe(key);
    } finally {
      copy.close();
    }
    const entry = f.titular.audit.list(f.orgId, { limit: 5 }).find((e) => e.action === 'data.backup_made');
    expect(entry).toMatchObject({ actor: { id: f.adminId }, targetType: 'data', details: { directory: dest, files: ['titular.db', 'master.key'] } });
  }, TIMEOUT_MS);

  it('refuses a folder that is not empty, the data directory itself, an operator and a missing FOLDER, writing nothing', async () => {
    const used = folder('used');
    mkdirSync(used);
    writeFileSync(path.join(used, 'notes.txt'), 'an earlier backup');
    const notEmpty = await backup(used);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain(`${used} is not empty`);
    expect(readdirSync(used)).toEqual(['notes.txt']);

    const itself = await backup(f.dataDir);
    expect(itself.code).toBe(1);
    expect(itself.stderr).toContain('cannot go into the data directory itself');

    const byOperator = folder('operator');
    const operator = await backup(byOperator, '--as', 'oscar@acme.test');
    expect(operator.code).toBe(1);
    expect(existsSync(byOperator)).toBe(false);

    const missing = await runCli(['backup', '--data-dir', f.dataDir], { source: true });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing FOLDER');
  }, TIMEOUT_MS);
});

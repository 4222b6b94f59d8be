// The desktop's writes that are not lookups (a purchase, a key change, a setting, a user, the vault's
// audit entries) while another process keeps the database's write lock, and after the data files
// were deleted. They used to wait in SQLite's busy handler, which sleeps on the event loop: for up to
// 5 s the API and every other channel of the desktop answered nothing. Now they wait between attempts
// (CommitQueue.writeAlone), as lookups do, and are refused like lookups once the files are gone.
// Driven through the desktop's channels (the headless bridge); the lock is a second connection's
// BEGIN IMMEDIATE, which SQLite keeps between connections of one process as between processes.
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_BUSY_MESSAGE } from '../../src/main/core/db/database-busy';
import { createBridgeFixture, type BridgeFixture } from '../support/bridge-fixture';
import { auth } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { checkLedgerInvariants } from '../support/invariants';

let f: BridgeFixture | undefined;
let lock: Database.Database | undefined;
afterEach(async () => {
  if (lock?.open) {
    if (lock.inTransaction) lock.exec('ROLLBACK');
    lock.close();
  }
  await f?.close();
  f = undefined;
});

/** A second connection holding the write lock until `release()`. */
function holdWriteLock(dataDir: string): { release: () => void } {
  lock = new Database(path.join(dataDir, 'titular.db'));
  lock.exec('BEGIN IMMEDIATE');
  return { release: () => lock!.exec('COMMIT') };
}

/** Tracks whether a promise has settled yet. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  void promise.finally(() => (done = true));
  return { promise, settled: () => done };
}

/**
 * Waits a 200 ms timer and says whether it fired on time. A write waiting in SQLite's busy handler
 * would hold the event loop 5 s, and the timer with it (a bound for a stall, not a speed).
 */
async function loopFree(): Promise<boolean> {
  const set = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return Date.now() - set < 2_000;
}

const count = (fixture: BridgeFixture, sql: string, ...params: unknown[]) =>
  (fixture.titular.database.sqlite.prepare(sql).get(...params) as { n: number }).n;

describe('desktop writes while another process holds the write lock', () => {
  it('wait without stalling the API or the other channels, then are recorded once the lock is let go', { timeout: 30_000 }, async () => {
    f = await createBridgeFixture({ credits: { cbu: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    const secret = f.createKey();
    // Made through the core, not a channel: the lookup and the writes below are the first this
    // process commits, which is where a connection setting that did not apply went unnoticed.
    const toRevoke = f.titular.keys.create({ orgId: f.orgId, ownerUserId: f.adminId, actorUserId: f.adminId, name: 'to revoke', product: 'cbu', scopes: ['lookup'], environment: 'live' }).key;
    const before = { purchases: count(f, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'purchase'"), audit: count(f, 'SELECT COUNT(*) AS n FROM audit_log') };

    const held = holdWriteLock(f.dataDir);
    const lookup = tracked(f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) }));
    const writes = [
      tracked(f.call('credits.purchase', { product: 'cbu', amount: 5, reference: 'OC-lock-1' })),
      tracked(f.call('keys.revoke', { id: toRevoke.id })),
      tracked(f.call('keys.create', { name: 'new', product: 'cbu', scopes: ['lookup'], environment: 'live', ipWhitelist: [] })),
      tracked(f.call('users.add', { name: 'Nora Nueva', email: 'nora@acme.test', role: 'operator' })),
      tracked(f.call('settings.update', { autoLockMinutes: 30 })),
    ];
    // Time for every call to reach its write, and none may hold the event loop meanwhile.
    expect(await loopFree()).toBe(true);
    expect(lookup.settled()).toBe(false);
    expect(writes.filter((w) => w.settled())).toHaveLength(0);
    // Meanwhile the API answers a read and the desktop a channel.
    const balance = await f.app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(secret) });
    expect(balance.statusCode).toBe(200);
    const keys = await f.call('keys.list', {});
    expect(keys.body.ok).toBe(true);
    expect(writes.filter((w) => w.settled())).toHaveLength(0);

    held.release();
    expect((await lookup.promise).statusCode).toBe(200);
    const answers = await Promise.all(writes.map((w) => w.promise));
    for (const answer of answers) expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ ok: true });
    // The lookup and the purchase each went through once (in either order: they wait in two queues).
    expect(answers[0]!.body.value.added).toBe(true);
    expect(f.balance('cbu')).toBe(14);
    expect(answers[1]!.body.value.key.revokedAt).not.toBeNull();

    // Each recorded once, in the order they were asked for: one purchase, one audit entry each.
    expect(count(f, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'purchase'")).toBe(before.purchases + 1);
    const actions = f.titular.database.sqlite.prepare('SELECT action FROM audit_log ORDER BY id').pluck().all() as string[];
    expect(actions.slice(before.audit)).toEqual(['credits.purchased', 'key.revoked', 'key.created', 'user.created', 'settings.updated']);
    expect(f.titular.settings.get('vault.autoLockMinutes')).toBe(30);
    checkLedgerInvariants(f.titular.database.sqlite);

    // Locking the vault by hand takes effect at once; its audit entry waits for the lock like the rest.
    const again = holdWriteLock(f.dataDir);
    const locking = tracked(f.call('vault.lock', {}));
    expect((await f.call('vault.status', {})).body.value.locked).toBe(true);
    expect(locking.settled()).toBe(false);
    again.release();
    expect((await locking.promise).body).toEqual({ ok: true, value: { locked: true } });
    expect(f.titular.database.sqlite.prepare('SELECT action FROM audit_log ORDER BY id DESC LIMIT 1').pluck().get()).toBe('vault.locked');
  });

  it('held past the wait (5 s): refused with the busy database said plainly, nothing written; the next one goes through', { timeout: 30_000 }, async () => {
    f = await createBridgeFixture({ credits: { cbu: 10 } });
    const before = count(f, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'purchase'");
    const held = holdWriteLock(f.dataDir);
    const behind = f.call('users.add', { name: 'Nora Nueva', email: 'nora@acme.test', role: 'operator' });
    const refused = await f.call('credits.purchase', { product: 'cbu', amount: 5, reference: 'OC-lock-2' });
    expect(refused.body).toEqual({ ok: false, error: { code: 'GE500', status: 503, message: DATABASE_BUSY_MESSAGE } });
    // A write that waited behind it had its 5 s counted from when it was asked: refused with it, not 5 s later.
    const second = await Promise.race([behind, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000))]);
    expect(second).toMatchObject({ body: { ok: false, error: { code: 'GE500', status: 503 } } });
    held.release();
    expect(count(f, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'purchase'")).toBe(before);

    // The same purchase again (its reference makes a retry safe) is recorded, once.
    const retried = await f.call('credits.purchase', { product: 'cbu', amount: 5, reference: 'OC-lock-2' });
    expect(retried.body).toEqual({ ok: true, value: { added: true, balance: 15 } });
  });
});

describe('a backup from the desktop while another process holds the write lock', () => {
  it('waits for it without stalling anything, then copies everything answered before it and records its audit entry', { timeout: 30_000 }, async () => {
    f = await createBridgeFixture({ credits: { cbu: 10 } });
    const held = holdWriteLock(f.dataDir);
    const backup = tracked(f.call('data.backup', {}));
    expect(await loopFree()).toBe(true);
    expect(backup.settled()).toBe(false);
    held.release();
    const answer = await backup.promise;
    expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ ok: true, value: { directory: expect.any(String) } });
    expect(f.titular.database.sqlite.prepare('SELECT action FROM audit_log ORDER BY id DESC LIMIT 1').pluck().get()).toBe('data.backup_made');
    rmSync(answer.body.value.directory, { recursive: true, force: true });
  });
});

describe('a batch from the desktop while another process holds the write lock', () => {
  it('is created, started and cancelled without stalling anything; each once the lock is let go', { timeout: 30_000 }, async () => {
    f = await createBridgeFixture({ credits: { cbu: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    const content = [DIR.individual.cbu, DIR.company.cbu, DIR.joint.cbu].join('\n');

    let held = holdWriteLock(f.dataDir);
    const created = tracked(f.call('bulk.create', { name: 'lote.txt', product: 'cbu', content }));
    expect(await loopFree()).toBe(true);
    expect(created.settled()).toBe(false);
    held.release();
    const { job } = (await created.promise).body.value;
    expect(job.status).toBe('pending');

    held = holdWriteLock(f.dataDir);
    const started = tracked(f.call('bulk.start', { id: job.id }));
    expect(await loopFree()).toBe(true);
    expect(started.settled()).toBe(false);
    // Cancelled before it could begin: the run stops at once, its end written after its start, in order.
    const cancelled = tracked(f.call('bulk.cancel', { id: job.id }));
    expect(await loopFree()).toBe(true);
    held.release();
    expect((await started.promise).body).toMatchObject({ ok: true, value: { job: { id: job.id } } });
    expect((await cancelled.promise).body).toMatchObject({ ok: true, value: { job: { status: 'cancelled', active: false } } });
    checkLedgerInvariants(f.titular.database.sqlite);
  });
});

describe('desktop writes after the data files were deleted', () => {
  it('a purchase is refused, naming the file, and nothing more is written into the deleted files; lookups are refused too', { timeout: 30_000 }, async () => {
    f = await createBridgeFixture({ credits: { cbu: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    const moved = `${f.dataDir}-moved`;
    renameSync(f.dataDir, moved);
    try {
      const purchase = await f.call('credits.purchase', { product: 'cbu', amount: 5 });
      expect(purchase.body).toMatchObject({ ok: false, error: { code: 'GE500', status: 500, message: expect.stringContaining(path.join(f.dataDir, 'titular.db')) } });
      const lookup = await f.call('lookup.account', { identifier: DIR.individual.cbu, type: 'cbu' });
      expect(lookup.body).toMatchObject({ ok: false, error: { code: 'GE500' } });
      // The connection turned read-only at the refusal: even a write that skips the checks fails.
      expect(() => f!.titular.ledger.addPurchase({ orgId: f!.orgId, product: 'cbu', amount: 1, userId: f!.adminId })).toThrow(/readonly|read-only|query_only/i);
      expect(f.balance('cbu')).toBe(10);
    } finally {
      // The fixture removes its data directory at close: put it back first.
      if (existsSync(moved)) {
        rmSync(f.dataDir, { recursive: true, force: true });
        renameSync(moved, f.dataDir);
      }
    }
  });
});

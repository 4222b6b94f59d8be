// Invariant 3 (README, "Invariants"): the ledger (`credit_ledger`), the lookup history (`lookups`) and
// the audit log (`audit_log`) are append-only, and their ids are UUIDv7.
//
// How: the database's own triggers (migration 0008) abort any UPDATE or DELETE of those three tables,
// on every connection; the core's connection turns `recursive_triggers` on (db/open.ts), so a row
// replaced by INSERT OR REPLACE is refused too. Every core write goes through that connection (ledger,
// history, audit, group commits, bulk runs, housekeeping); the one other a core opens is the WAL
// checkpointer's worker thread (db/wal-checkpointer.ts), which writes no row. So a rewrite anywhere in
// the workload below fails its step. As a second net that does not depend on the triggers, every row
// seen at a checkpoint of the workload must still be there, byte for byte, at the end.
//
// Then a broad workload runs through the public interfaces (HTTP API by Fastify inject, the desktop
// channels by `dispatch`, the core's own methods where the hosts call them), across a close and a
// reopen of the core; every step must succeed. Finally: every id of the three tables is a UUIDv7,
// unique, whose 48-bit time is within a day of the row's `created_at`; and a control shows that the
// triggers do refuse an UPDATE and a DELETE of each table.
import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { importCreditRecords } from './support/credit-data';
import { expectError } from './support/http-helpers';
import { checkHistoryCountInvariants, checkLedgerInvariants, ledgerIdsBeforeTheirTime } from './support/invariants';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream';
import { TEST_REMOTE, UPSTREAM_KEY } from './resolvers/remote-fixture';
import { generateDirectory, bulkList } from './bulk/bulk-data';
import { openTitular, type Titular } from '../src/main/core/titular';
import { buildHttpApi } from '../src/main/core/http/server';
import { headlessKeyProvider } from '../src/main/headless/config';
import { dispatch, type IpcSession } from '../src/main/core/ipc/handlers';
import { IDEMPOTENCY_WINDOW_MS } from '../src/main/core/lookup/idempotency';
import { parseDirectoryFile } from '../src/main/core/directory/directory-file';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDIT_REPORTS, SANDBOX_NOT_FOUND, SANDBOX_UPSTREAM_FAILURE } from '../src/main/core/resolvers/sandbox-data';
import { DAY_MS } from '../src/shared/day';
import type { Channel, ChannelInput, ChannelOutput } from '../src/shared/ipc/contract';

/** The append-only tables (schema.ts: creditLedger, lookups, auditLog), each with an `id` and a `created_at`. */
const APPEND_ONLY = ['credit_ledger', 'lookups', 'audit_log'] as const;
type AppendOnlyTable = (typeof APPEND_ONLY)[number];

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The connection refuses any UPDATE or DELETE of the append-only tables, and a replacement of a row. */
function expectGuarded(sqlite: Database.Database): void {
  const triggers = sqlite.prepare("SELECT tbl_name AS \"table\", sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { table: string; sql: string }[];
  for (const table of APPEND_ONLY) {
    for (const event of ['UPDATE', 'DELETE']) {
      expect(triggers, `${table}: ${event}`).toContainEqual({ table, sql: expect.stringMatching(new RegExp(`BEFORE ${event} ON \`${table}\` BEGIN SELECT RAISE\\(ABORT, '${table} is append-only'\\)`)) });
    }
  }
  expect(sqlite.pragma('recursive_triggers', { simple: true })).toBe(1);
}

type Row = Record<string, unknown> & { id: string; created_at: number };
type Snapshot = Record<AppendOnlyTable, Row[]>;

function snapshot(sqlite: Database.Database): Snapshot {
  const read = (table: AppendOnlyTable) => sqlite.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Row[];
  return { credit_ledger: read('credit_ledger'), lookups: read('lookups'), audit_log: read('audit_log') };
}

/** The Unix milliseconds in a UUIDv7's first 48 bits. */
const idTime = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

let f: Fixture;
let upstream: FakeUpstream;
// The core and API in use: the fixture's until the reopen step, then the reopened ones.
let titular: Titular;
let app: FastifyInstance;
let orgId: string;
let adminId: string;
/** Rows as they were when the triggers were installed, and just before the core was closed. */
const snapshots: Snapshot[] = [];

const sqlite = () => titular.database.sqlite;
const admin = (): IpcSession => ({
  userId: adminId,
  unlockProvider: (kind) => headlessKeyProvider(f.dataDir, {})(kind),
  settingsHost: { listeningPort: 8787 },
});

/** One desktop channel call, as the Electron main process and the headless bridge make it. */
async function call<C extends Channel>(channel: C, input: ChannelInput<C>, session: IpcSession = admin()): Promise<ChannelOutput<C>> {
  return (await dispatch(titular, session, channel, input)) as ChannelOutput<C>;
}

const balance = (product: 'cbu' | 'informes') => titular.ledger.balance(orgId, product);
const getLookup = (key: string, identifier: string, type: string, headers: Record<string, string> = {}) =>
  app.inject({ url: `/api/v1/lookup?identifier=${encodeURIComponent(identifier)}&type=${type}`, headers: { ...auth(key), ...headers } });
const post = (url: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...auth(key), ...headers }, payload: JSON.stringify(body) });
const postLookup = (key: string, body: unknown, headers: Record<string, string> = {}) => post('/api/v1/lookup', key, body, headers);

/** Polls bulk.get as the screen does until the job is no longer running here (bounded). */
async function waitForEnd(id: string, session = admin()) {
  for (let i = 0; i < 400; i++) {
    const { job } = await call('bulk.get', { id }, session);
    if (!job.active) return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`bulk job ${id} still running after the polling budget`);
}

// 40 accounts for a job that runs out of credits, 220 for one paused mid-run (more than the 64 lookups a run keeps in flight).
const bulkDirectory = generateDirectory(260);
const keys = { live: '', informes: '', sandbox: '', liveId: '' };
let pausedJobId = '';

beforeAll(async () => {
  upstream = await startFakeUpstream({ key: UPSTREAM_KEY });
  // No credits here: every purchase happens below, where the first snapshot can see its rows.
  f = await createFixture({ remote: { ...TEST_REMOTE, failureThreshold: 1_000 } });
  ({ titular, app, orgId, adminId } = f);
  expectGuarded(sqlite());
  snapshots.push(snapshot(sqlite()));
});

afterAll(async () => {
  await app?.close();
  titular?.close();
  await upstream?.close();
  if (f) rmSync(f.dataDir, { recursive: true, force: true });
});

describe('invariant 3: credit_ledger, lookups and audit_log are append-only, with UUIDv7 ids', () => {
  it('desktop: purchases (twice with one reference), directory and credit imports, settings, users, roles, keys, vault', async () => {
    expect(await call('credits.purchase', { product: 'cbu', amount: 30, reference: 'factura-0001' })).toEqual({ added: true, balance: 30 });
    // A repeated reference adds nothing (it reads the existing row, never rewrites it).
    expect(await call('credits.purchase', { product: 'cbu', amount: 30, reference: 'factura-0001' })).toEqual({ added: false, balance: 30 });
    titular.ledger.addPurchase({ orgId, product: 'informes', amount: 3, userId: adminId });

    // Imports upsert their own tables and append one audit entry each; importing again replaces accounts.
    for (const csv of [DIRECTORY_CSV, bulkDirectory.csv, DIRECTORY_CSV]) {
      titular.directory.import(orgId, parseDirectoryFile(csv, 'csv'), { skipInvalid: false, actorUserId: adminId });
    }
    importCreditRecords(f);

    const { user: clerk } = await call('users.add', { name: 'Carla Cajera', email: 'carla@acme.test', role: 'operator' });
    expect((await call('users.setRole', { id: clerk.id, role: 'admin' })).user.role).toBe('admin');
    expect((await call('users.setRole', { id: clerk.id, role: 'operator' })).user.role).toBe('operator');
    expect((await call('users.list', {})).users).toHaveLength(3);

    await call('settings.update', { autoLockMinutes: 30 });
    expect(await call('vault.lock', {})).toEqual({ locked: true });
    expect(await call('vault.unlock', {})).toEqual({ locked: false });

    // Keys: create, rotate (the old secret dies), reveal, revoke; the keys used by the steps below.
    const rotated = await call('keys.create', { name: 'rotar', product: 'cbu', scopes: ['lookup'], environment: 'live' });
    const next = await call('keys.rotate', { id: rotated.key.id });
    expect(next.secret).not.toBe(rotated.secret);
    expect(await call('keys.reveal', { id: next.key.id, confirm: true })).toEqual({ secret: next.secret });
    expect((await call('keys.revoke', { id: next.key.id })).key.status).toBe('revoked');
    const live = await call('keys.create', { product: 'cbu', scopes: ['lookup', 'balance', 'history'], environment: 'live', rateLimitPerSecond: 1000 });
    const informes = await call('keys.create', { product: 'informes', scopes: ['lookup', 'balance'], environment: 'live', rateLimitPerSecond: 1000 });
    const sandbox = await call('keys.create', { product: 'cbu', scopes: ['lookup', 'balance', 'history'], environment: 'sandbox', rateLimitPerSecond: 1000 });
    Object.assign(keys, { live: live.secret, liveId: live.key.id, informes: informes.secret, sandbox: sandbox.secret });
    expect((await getLookup(next.secret, DIR.individual.cbu, 'cbu')).statusCode).toBe(401);
    expect((await call('keys.list', {})).activeCount).toBe(3);
  });

  it('API, live: 200, 404 PA011, 400 PA006 (charged), an Idempotency-Key replay, 409 on reuse, and 402 once credits run out', async () => {
    const ok = await getLookup(keys.live, DIR.individual.cbu, 'cbu');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().credits_remaining).toBe(29);
    expect((await postLookup(keys.live, { identifier: DIR.company.alias, type: 'alias' })).statusCode).toBe(200);
    expectError(await getLookup(keys.live, DIR.missing.cbu, 'cbu'), 404, 'PA011', { creditsRemaining: 27 });
    expectError(await postLookup(keys.live, { identifier: '123', type: 'cbu' }), 400, 'PA006', { creditsRemaining: 26 });

    const body = { identifier: DIR.wallet.alias, type: 'alias' };
    const first = await postLookup(keys.live, body, { 'idempotency-key': 'pedido-1' });
    const retry = await postLookup(keys.live, body, { 'idempotency-key': 'pedido-1' });
    expect(first.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expectError(await postLookup(keys.live, { ...body, identifier: DIR.company.cbu }, { 'idempotency-key': 'pedido-1' }), 409, 'IDEMPOTENCY_CONFLICT', {
      creditsRemaining: 'absent',
    });
    expect(balance('cbu')).toBe(25);

    // Informes has 3 credits: two reports, one invalid CUIT (charged), then 402.
    const credit = (taxId: string) => post('/api/v1/credit/lookup', keys.informes, { tax_id: taxId });
    expect((await credit(SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id)).statusCode).toBe(200);
    expect((await credit(SANDBOX_CREDIT_REPORTS[1]!.subject.tax_id)).statusCode).toBe(200);
    expectError(await credit('123'), 400, 'PA006', { creditsRemaining: 0 });
    expectError(await credit(SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id), 402, 'INSUFFICIENT_CREDITS', { creditsRemaining: 0 });

    expect((await app.inject({ url: '/api/v1/balance', headers: auth(keys.live) })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/v1/history?page=1&per_page=2', headers: auth(keys.live) })).json().pagination.total).toBe(5);
  });

  it('API, sandbox: 200, 404 PA011, 400 PA006 and 503 GE500, recorded and never charged', async () => {
    expect((await getLookup(keys.sandbox, SANDBOX_ACCOUNTS[0]!.account.number, 'cbu')).statusCode).toBe(200);
    expect((await postLookup(keys.sandbox, { identifier: SANDBOX_ACCOUNTS[1]!.alias, type: 'alias' })).statusCode).toBe(200);
    expectError(await getLookup(keys.sandbox, SANDBOX_NOT_FOUND.cbu, 'cbu'), 404, 'PA011', { creditsRemaining: 'absent' });
    expectError(await getLookup(keys.sandbox, '123', 'cbu'), 400, 'PA006', { creditsRemaining: 'absent' });
    expectError(await getLookup(keys.sandbox, SANDBOX_UPSTREAM_FAILURE.cbu, 'cbu'), 503, 'GE500', { creditsRemaining: 'absent' });
    expect(balance('cbu')).toBe(25);
  });

  it('desktop lookups (source WEB) and the remote resolver: a success, then a rejected upstream key (503, audited once)', async () => {
    const web = await call('lookup.account', { identifier: DIR.individual.alias, type: 'alias' }, { userId: f.operatorId });
    expect(web.status).toBe(200);
    expect((await call('lookup.creditReport', { tax_id: SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id })).status).toBe(402);

    await call('settings.update', { resolvers: { cbu: 'remote' }, remote: { baseUrl: upstream.url, timeoutMs: 2_000 } });
    await call('settings.setUpstreamKey', { key: UPSTREAM_KEY });
    expect((await getLookup(keys.live, DIR.missing.cbu, 'cbu')).statusCode).toBe(200);
    upstream.setMode({ kind: 'reject', status: 401 });
    for (let i = 0; i < 2; i++) expectError(await getLookup(keys.live, DIR.missing.cbu, 'cbu'), 503, 'GE500', { creditsRemaining: 'absent' });
    const audited = titular.audit.list(orgId, { targetType: 'settings' }).filter((e) => e.action === 'remote.upstream_error');
    expect(audited).toHaveLength(1);
    upstream.setMode({ kind: 'ok' });
    await call('settings.setUpstreamKey', { key: '' });
    await call('settings.update', { resolvers: { cbu: 'directory' }, remote: { baseUrl: null } });
    expect(balance('cbu')).toBe(23);
  });

  it('bulk jobs: one completed, one out of credits then resumed, one cancelled, one paused (resumed after the reopen)', async () => {
    const operator: IpcSession = { userId: f.operatorId };
    const listA = `${DIR.individual.cbu}\n${DIR.company.alias}\n${DIR.company.alias.toUpperCase()}\n${DIR.missing.cbu}\n123\n`;
    const a = await call('bulk.create', { name: 'a.csv', product: 'cbu', content: listA }, operator);
    await call('bulk.start', { id: a.job.id }, operator);
    expect(await waitForEnd(a.job.id, operator)).toMatchObject({ status: 'completed', lastError: null, progress: { done: 3, charged: 3 } });
    expect((await call('bulk.exportCsv', { id: a.job.id }, operator)).rows).toBe(5);

    // 40 items against 20 credits: stops out of credits, then resumes once credits are bought.
    const b = await call('bulk.create', { name: 'b.txt', product: 'cbu', content: bulkList(bulkDirectory.numbers.slice(0, 40)).text });
    await call('bulk.start', { id: b.job.id });
    expect(await waitForEnd(b.job.id)).toMatchObject({ status: 'out_of_credits', lastError: null, progress: { charged: 20 } });
    await call('credits.purchase', { product: 'cbu', amount: 100 });
    await call('bulk.start', { id: b.job.id });
    expect(await waitForEnd(b.job.id)).toMatchObject({ status: 'completed', lastError: null, progress: { done: 40, charged: 40 } });

    const cancelled = await call('bulk.create', { name: 'c.txt', product: 'cbu', content: `${DIR.wallet.cbu}\n` });
    expect((await call('bulk.cancel', { id: cancelled.job.id })).job.status).toBe('cancelled');

    const paused = await call('bulk.create', { name: 'd.txt', product: 'cbu', content: bulkList(bulkDirectory.numbers.slice(40)).text });
    pausedJobId = paused.job.id;
    // Paused in the same turn as it starts: only the lookups already in flight finish.
    const [, { job }] = await Promise.all([call('bulk.start', { id: pausedJobId }), call('bulk.pause', { id: pausedJobId })]);
    expect(job).toMatchObject({ status: 'paused', lastError: null });
    expect(job.progress.done).toBeLessThan(220);
    expect((await call('bulk.list', {})).jobs).toHaveLength(4);
  });

  it('desktop reads, housekeeping and the idempotency purge: history pages and export, charts, audit, last-used flush', async () => {
    const page = await call('history.list', { page: 1, per_page: 5 });
    expect(page.pagination.total).toBeGreaterThan(40);
    expect((await call('history.list', { page: 2, per_page: 2, status: 'ERROR' })).data.length).toBeGreaterThan(0);
    expect((await call('history.list', { page: 1, per_page: 50, source: 'BULK', q: '0720210' })).data.length).toBeGreaterThan(0);
    expect((await call('history.list', { product: 'informes', page: 1, per_page: 50 })).pagination.total).toBe(3);
    const exported = await call('history.exportCsv', { language: 'en', timeZone: 'America/Argentina/Buenos_Aires' });
    expect(exported.rows).toBe(page.pagination.total);
    expect((await call('balance.get', {})).balances).toHaveLength(2);
    const chart = await call('balance.dailyConsumption', { product: 'cbu', days: 7 });
    expect(chart.days.reduce((sum, d) => sum + d.consumed, 0)).toBe((await call('balance.get', {})).balances[0]!.totalConsumed);
    expect((await call('audit.list', { limit: 500 })).entries.length).toBeGreaterThan(10);

    // What the core's 30-second housekeeping runs, now (its timer would not fire within this test),
    // then again as if a day had passed: the expired replay is purged and the same key is a new lookup.
    titular.keys.flushLastUsed();
    titular.idempotency.purgeExpired(Date.now());
    expect(titular.idempotency.purgeExpired(Date.now() + IDEMPOTENCY_WINDOW_MS + 1)).toBeGreaterThan(0);
    const fresh = await postLookup(keys.live, { identifier: DIR.wallet.alias, type: 'alias' }, { 'idempotency-key': 'pedido-1' });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    titular.commits.flush();
    await titular.commits.settled();
  });

  it('close and reopen: the core closes cleanly, reopens on the same data directory and goes on appending', async () => {
    snapshots.push(snapshot(sqlite()));
    await app.close();
    titular.close();

    titular = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    // A new connection: guarded as the first was.
    expectGuarded(sqlite());
    app = buildHttpApi(titular, { log: () => undefined });
    await app.ready();

    // The job paused before the close resumes where it stopped.
    expect((await call('bulk.get', { id: pausedJobId })).job.status).toBe('paused');
    await call('credits.purchase', { product: 'cbu', amount: 300 });
    await call('bulk.start', { id: pausedJobId });
    expect(await waitForEnd(pausedJobId)).toMatchObject({ status: 'completed', lastError: null, progress: { done: 220, charged: 220 } });
    expect((await getLookup(keys.live, DIR.individual.cbu, 'cbu')).statusCode).toBe(200);
    expect((await getLookup(keys.sandbox, SANDBOX_ACCOUNTS[0]!.account.number, 'cbu')).statusCode).toBe(200);
    await call('credits.purchase', { product: 'informes', amount: 5, reference: 'factura-0002' });
    expect((await call('keys.revoke', { id: keys.liveId })).key.status).toBe('revoked');
    expect((await getLookup(keys.live, DIR.individual.cbu, 'cbu')).statusCode).toBe(401);
    titular.keys.flushLastUsed();
    titular.idempotency.purgeExpired(Date.now());
    titular.commits.flush();
    await titular.commits.settled();
  });

  it('every id is a UUIDv7, unique in its table, made within a day of its created_at; no earlier row changed or vanished', () => {
    const now = snapshot(sqlite());
    // The workload reached every kind of row these tables hold.
    expect(new Set(now.credit_ledger.map((r) => r.kind))).toEqual(new Set(['purchase', 'consumption']));
    expect(new Set(now.lookups.map((r) => `${r.environment}:${r.source}:${r.status}`))).toEqual(
      new Set(['live:API:SUCCESS', 'live:API:ERROR', 'sandbox:API:SUCCESS', 'sandbox:API:ERROR', 'live:WEB:SUCCESS', 'live:BULK:SUCCESS', 'live:BULK:ERROR']),
    );
    expect(now.audit_log.length).toBeGreaterThan(15);

    for (const table of APPEND_ONLY) {
      const rows = now[table];
      const notV7 = rows.filter((r) => !UUID_V7.test(r.id)).map((r) => r.id);
      expect(notV7, `${table}: ids that are not UUIDv7`).toEqual([]);
      expect(new Set(rows.map((r) => r.id)).size, `${table}: ids are unique`).toBe(rows.length);
      const offTime = rows.filter((r) => Math.abs(idTime(r.id) - r.created_at) > DAY_MS).map((r) => ({ id: r.id, created_at: r.created_at }));
      expect(offTime, `${table}: ids whose time is more than a day from created_at`).toEqual([]);
      // Append-only, checked on the data too: every row seen before is still there, unchanged.
      for (const [i, earlier] of snapshots.entries()) {
        const ids = new Set(earlier[table].map((r) => r.id));
        expect(rows.filter((r) => ids.has(r.id)), `${table}: rows of snapshot ${i}`).toEqual(earlier[table]);
      }
    }
    // The ledger's own, one-sided form of the time check (I3c), and the rest of its invariants.
    expect(ledgerIdsBeforeTheirTime(sqlite())).toEqual([]);
    checkLedgerInvariants(sqlite());
    checkHistoryCountInvariants(sqlite());
  });

  it('control: the triggers refuse an UPDATE and a DELETE of each table on the core connection and on any other, and change nothing', () => {
    const before = snapshot(sqlite());
    // Another program's connection, with SQLite's defaults (recursive_triggers off).
    const other = new Database(path.join(f.dataDir, 'titular.db'));
    try {
      for (const table of APPEND_ONLY) {
        const { id } = sqlite().prepare(`SELECT id FROM ${table} ORDER BY id LIMIT 1`).get() as { id: string };
        for (const db of [sqlite(), other]) {
          expect(() => db.prepare(`UPDATE ${table} SET created_at = created_at + 1 WHERE id = ?`).run(id)).toThrow(`${table} is append-only`);
          expect(() => db.prepare(`DELETE FROM ${table} WHERE id = ?`).run(id)).toThrow(`${table} is append-only`);
        }
        // A replacement of the row under its own id: SQLite deletes it first, which the trigger sees
        // when recursive triggers are on, as on the core's connection.
        expect(() => sqlite().prepare(`INSERT OR REPLACE INTO ${table} SELECT * FROM ${table} WHERE id = ?`).run(id)).toThrow(`${table} is append-only`);
      }
    } finally {
      other.close();
    }
    expect(snapshot(sqlite())).toEqual(before);
  });
});

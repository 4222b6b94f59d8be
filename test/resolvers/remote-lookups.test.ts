// The remote resolver through the public HTTP API, against a fake upstream on 127.0.0.1: each
// upstream behaviour (ok, not found, failing, slow, flapping, rate limited, key rejected, out of
// credits, malformed, unreachable, not configured, vault locked) and what it means for the caller:
// the answer, the credit, the history entry and the number of upstream attempts.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auth } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { expectError, getWithKey, postJson, type Res } from '../support/http-helpers';
import { checkLedgerInvariants } from '../support/invariants';
import { FAKE_ALIAS_NUMBER, fakeAccount, fakeReport, startFakeUpstream } from '../support/fake-upstream';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { hashKey } from '../../src/main/core/keys/secrets';
import { lookupResultSchema } from '../../src/shared/api/lookup';
import { creditLookupResultSchema } from '../../src/shared/api/credit';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDIT_REPORTS } from '../../src/main/core/resolvers/sandbox-data';
import type { ProductSlug } from '../../src/shared/api/common';
import { TEST_REMOTE, UPSTREAM_KEY, createRemoteFixture, expectSecretNowhere, type RemoteFixture } from './remote-fixture';

let f: RemoteFixture;
let key: string;
let informesKey: string;
let sandboxKey: string;
let sandboxInformesKey: string;
const ATTEMPTS = TEST_REMOTE.attempts!;

beforeAll(async () => {
  // The breaker is exercised in remote-breaker.test.ts; here it must not interfere.
  f = await createRemoteFixture({ remote: { failureThreshold: 1_000 }, credits: { cbu: 200, informes: 50 } });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey();
  informesKey = f.createKey({ product: 'informes', scopes: ['lookup', 'balance'] });
  sandboxKey = f.createKey({ environment: 'sandbox' });
  sandboxInformesKey = f.createKey({ product: 'informes', scopes: ['lookup', 'balance'], environment: 'sandbox' });
  f.configureRemote();
});
afterAll(() => f.close());

beforeEach(() => {
  f.upstream.setMode({ kind: 'ok' });
  f.configureRemote();
  f.titular.settings.set('resolver.cbu', 'remote');
  f.titular.settings.set('resolver.informes', 'remote');
  f.upstream.takeHits();
});

const lookupCbu = (number: string, apiKey = key) => getWithKey(f, `/api/v1/lookup?identifier=${number}&type=cbu`, apiKey);
const creditLookup = (taxId: string, apiKey = informesKey) => postJson(f, '/api/v1/credit/lookup', { tax_id: taxId }, auth(apiKey));
const latest = (product: ProductSlug = 'cbu') =>
  f.titular.history.page({ orgId: f.orgId, environment: 'live', product }, { page: 1, per_page: 1 }).data[0]!;

/** Asserts a 503 GE500 with a whole-seconds Retry-After, no credit taken, and its history entry. */
function expectUpstreamDown(res: Res, product: ProductSlug, balanceBefore: number): number {
  expectError(res, 503, 'GE500', { creditsRemaining: 'absent' });
  const retryAfter = res.headers['retry-after'];
  expect(String(retryAfter)).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(f.balance(product)).toBe(balanceBefore);
  expect(latest(product)).toMatchObject({ status: 'ERROR', creditConsumed: 0 });
  return Number(retryAfter);
}

describe('resolver choice', () => {
  it('the directory is the default: a fresh data directory answers live lookups from it, never the upstream', async () => {
    const fresh = await createRemoteFixture({ credits: { cbu: 5 } });
    try {
      fresh.importDirectory(DIRECTORY_CSV);
      fresh.configureRemote();
      expect(fresh.titular.settings.get('resolver.cbu')).toBe('directory');
      expect(fresh.titular.settings.get('resolver.informes')).toBe('directory');
      const res = await getWithKey(fresh, `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, fresh.createKey());
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.holders[0].full_name).toBe('Lucía Luna');
      expect(fresh.upstream.hits).toHaveLength(0);
    } finally {
      await fresh.close();
    }
  });

  it('switching the setting applies to the very next request, both ways', async () => {
    const remote = await lookupCbu(DIR.individual.cbu);
    expect(remote.statusCode).toBe(200);
    expect(remote.json().data.holders[0].full_name).toBe('Remota Upstream SRL');
    expect(f.upstream.takeHits()).toHaveLength(1);

    f.titular.settings.set('resolver.cbu', 'directory');
    const directory = await lookupCbu(DIR.individual.cbu);
    expect(directory.json().data.holders[0].full_name).toBe('Lucía Luna');
    // Not in the directory: the directory's own PA011, and still no upstream call.
    expectError(await lookupCbu(DIR.missing.cbu), 404, 'PA011');
    expect(f.upstream.takeHits()).toHaveLength(0);

    f.titular.settings.set('resolver.cbu', 'remote');
    expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(1);
  });

  it('the products are chosen separately: CBU from the directory while Informes goes remote', async () => {
    f.titular.settings.set('resolver.cbu', 'directory');
    expect((await lookupCbu(DIR.company.cbu)).json().data.holders[0].full_name).toBe('Distribuidora Sur, S.R.L.');
    const report = await creditLookup('30-71234567-1');
    expect(report.statusCode).toBe(200);
    expect(report.json().data.subject.full_name).toBe('Remota Upstream SRL');
    expect(f.upstream.takeHits().map((h) => h.path)).toEqual(['/api/v1/credit/lookup']);
  });

  it('sandbox keys always get the sample data, and never reach the upstream, even with remote configured', async () => {
    const sample = SANDBOX_ACCOUNTS[0]!;
    const res = await lookupCbu(sample.account.number, sandboxKey);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(sample);
    const report = await creditLookup(SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id, sandboxInformesKey);
    expect(report.json().data).toEqual(SANDBOX_CREDIT_REPORTS[0]);
    // Even with the upstream failing, a sandbox lookup is unaffected.
    f.upstream.setMode({ kind: 'failing' });
    expect((await lookupCbu(sample.account.number, sandboxKey)).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(0);
  });
});

describe('remote account lookups', () => {
  it('200: forwards the CBU with the upstream key as Bearer, answers the upstream data, takes one credit, and records the upstream time', async () => {
    const delayMs = 120;
    f.upstream.setMode({ kind: 'ok', delayMs });
    const before = f.balance('cbu');
    const res = await lookupCbu(DIR.missing.cbu);
    expect(res.statusCode, res.body).toBe(200);
    const body = lookupResultSchema.strict().parse(res.json());
    expect(body.data).toEqual(fakeAccount(DIR.missing.cbu, 'remota.upstream'));
    expect(body.credits_remaining).toBe(before - 1);
    expect(f.balance('cbu')).toBe(before - 1);

    const hits = f.upstream.takeHits();
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/lookup',
      query: { identifier: DIR.missing.cbu, type: 'cbu' },
      authorization: `Bearer ${UPSTREAM_KEY}`,
    });
    const entry = latest();
    expect(entry).toMatchObject({ status: 'SUCCESS', creditConsumed: 1, inputIdentifier: DIR.missing.cbu, responseData: body.data });
    // Measured around the upstream call, so it cannot be less than the upstream's own delay.
    expect(entry.upstreamLatencyMs).toBeGreaterThanOrEqual(delayMs);
    expect(f.titular.remote.status().lastSuccessAt).not.toBeNull();
    checkLedgerInvariants(f.titular.database.sqlite);
  });

  it('200: an alias lookup (POST) is forwarded as type=alias, case-insensitively', async () => {
    const res = await postJson(f, '/api/v1/lookup', { identifier: 'Remota.Alias', type: 'alias' }, auth(key));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.account.number).toBe(FAKE_ALIAS_NUMBER);
    expect(f.upstream.takeHits()[0]?.query).toEqual({ identifier: 'remota.alias', type: 'alias' });
    expect(latest()).toMatchObject({ inputType: 'ALIAS', status: 'SUCCESS', creditConsumed: 1 });
  });

  it('404 PA011 from the upstream is a not-found: answered 404 PA011, charged, not retried', async () => {
    f.upstream.setMode({ kind: 'not-found' });
    const before = f.balance('cbu');
    const res = await lookupCbu(DIR.missing.cbu);
    expectError(res, 404, 'PA011', { creditsRemaining: before - 1 });
    expect(f.upstream.takeHits()).toHaveLength(1);
    expect(latest()).toMatchObject({ status: 'ERROR', creditConsumed: 1, responseData: { error: { code: 'PA011' } } });
  });

  it('an invalid identifier is PA006 here and never reaches the upstream', async () => {
    const before = f.balance('cbu');
    expectError(await lookupCbu('0110001300000012345675'), 400, 'PA006', { creditsRemaining: before - 1 });
    expect(f.upstream.takeHits()).toHaveLength(0);
  });

  it('failing (500): retried a bounded number of times, then 503 GE500 with Retry-After and no credit', async () => {
    f.upstream.setMode({ kind: 'failing' });
    const before = f.balance('cbu');
    expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', before);
    expect(f.upstream.takeHits()).toHaveLength(ATTEMPTS);
    expect(latest()).toMatchObject({ responseData: { error: { code: 'GE500' } } });
    expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'server-error', httpStatus: 500 });
    checkLedgerInvariants(f.titular.database.sqlite);
  });

  it('slow (beyond the timeout): every attempt times out, then 503 GE500, no credit', async () => {
    // 1 s, not less: the fake upstream shares this event loop, and an attempt cut off before its
    // connection is even accepted (a loaded machine stalling the loop) would never reach it as a hit.
    f.configureRemote({ timeoutMs: 1_000 });
    f.upstream.setMode({ kind: 'slow', delayMs: 10_000 });
    const before = f.balance('cbu');
    expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', before);
    expect(f.upstream.takeHits()).toHaveLength(ATTEMPTS);
    expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'timeout', httpStatus: null });
    // The timeout is per attempt and read per lookup: a longer one lets the same upstream answer.
    f.upstream.setMode({ kind: 'slow', delayMs: 200 });
    f.configureRemote({ timeoutMs: 2_000 });
    expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(1);
  });

  it('flapping: failures followed by a success are retried into one 200, charged once', async () => {
    f.upstream.setMode({ kind: 'fail-then-recover', failures: ATTEMPTS - 1 });
    const before = f.balance('cbu');
    const res = await lookupCbu(DIR.missing.cbu);
    expect(res.statusCode, res.body).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(ATTEMPTS);
    expect(f.balance('cbu')).toBe(before - 1);

    // Fails every other request: each lookup needs exactly two attempts.
    f.upstream.setMode({ kind: 'flapping' });
    for (let i = 0; i < 3; i++) {
      expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200);
      expect(f.upstream.takeHits()).toHaveLength(2);
    }
    expect(f.balance('cbu')).toBe(before - 4);
    checkLedgerInvariants(f.titular.database.sqlite);
  });

  it('one failure too many: ATTEMPTS failures then a success is still a GE500 (the bound holds)', async () => {
    f.upstream.setMode({ kind: 'fail-then-recover', failures: ATTEMPTS });
    const before = f.balance('cbu');
    expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', before);
    expect(f.upstream.takeHits()).toHaveLength(ATTEMPTS);
  });

  it('malformed 200 bodies (not the contract, not JSON, or about another account) are upstream failures', async () => {
    const other = fakeAccount(DIR.company.cbu, 'otra.cuenta');
    for (const body of [undefined, 'not json', JSON.stringify({ success: true, data: other, credits_remaining: 1, request_id: 'r' })]) {
      f.upstream.setMode({ kind: 'malformed', body });
      const before = f.balance('cbu');
      expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', before);
      expect(f.upstream.takeHits()).toHaveLength(ATTEMPTS);
      expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'malformed' });
    }
  });

  it('429 from the upstream: a short Retry-After is waited out and retried; a long one is passed on', async () => {
    f.upstream.setMode({ kind: 'rate-limited', retryAfterSeconds: 1, times: 1 });
    const res = await lookupCbu(DIR.missing.cbu);
    expect(res.statusCode, res.body).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(2);

    f.upstream.setMode({ kind: 'rate-limited', retryAfterSeconds: 120, times: 10 });
    const before = f.balance('cbu');
    const limited = await lookupCbu(DIR.missing.cbu);
    expect(expectUpstreamDown(limited, 'cbu', before)).toBe(120);
    expect(f.upstream.takeHits()).toHaveLength(1);
    expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'rate-limited', httpStatus: 429 });
  });

  it('unreachable upstream (connection refused): retried, then GE500', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    f.configureRemote({ baseUrl: `http://127.0.0.1:${port}` });
    const before = f.balance('cbu');
    expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', before);
    expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'connection' });
  });
});

describe('upstream refusals that another attempt cannot fix', () => {
  it.each([
    { status: 401, kind: 'rejected-key' },
    { status: 403, kind: 'rejected-key' },
    { status: 402, kind: 'upstream-credits' },
    { status: 400, kind: 'bad-request' },
    // A 404 without PA011 is a wrong base URL, not a missing account: no credit.
    { status: 404, kind: 'unexpected-status' },
  ] as const)('$status: 503 GE500 without retry or credit; the reason is in the status, without the key', async ({ status, kind }) => {
    f.upstream.setMode({ kind: 'reject', status });
    const before = f.balance('cbu');
    const retryAfter = expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', before);
    expect(retryAfter).toBe(60);
    expect(f.upstream.takeHits()).toHaveLength(1);
    const { lastError } = f.titular.remote.status();
    expect(lastError).toMatchObject({ kind, httpStatus: status });
    // The fake echoes the Authorization header in its error message; it must not reach us.
    expect(JSON.stringify(lastError)).not.toContain(UPSTREAM_KEY);
    expect(lastError!.message).toContain('[redacted]');
  });

  it('a wrong upstream key is rejected by the upstream; the admin sees it once in the audit log, not once per lookup', async () => {
    f.upstream.setMode({ kind: 'ok' });
    f.configureRemote({ key: 'sk_live_NotTheKeyTheUpstreamKnows000000' });
    const audited = () => f.titular.audit.list(f.orgId, { targetType: 'settings' }).filter((e) => e.action === 'remote.upstream_error');
    const before = audited().length;
    for (let i = 0; i < 3; i++) {
      expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', f.balance('cbu'));
    }
    expect(f.upstream.takeHits()).toHaveLength(3);
    const entries = audited();
    expect(entries).toHaveLength(before + 1);
    expect(entries[0]!.details).toMatchObject({ kind: 'rejected-key', httpStatus: 401 });
    expect(JSON.stringify(entries[0])).not.toContain('sk_live_NotTheKey');

    // Fixed: the next lookup works, and a later rejection is a new incident worth an entry.
    f.configureRemote();
    expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200);
    f.configureRemote({ key: 'sk_live_NotTheKeyTheUpstreamKnows000000' });
    await lookupCbu(DIR.missing.cbu);
    expect(audited()).toHaveLength(before + 2);
  });

  it("its audit entry does not hold the event loop while another process keeps the write lock: written after it, the lookup answered as usual", { timeout: 30_000 }, async () => {
    f.upstream.setMode({ kind: 'ok' });
    f.configureRemote();
    expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200); // a success: the next rejection is a new incident
    f.configureRemote({ key: 'sk_live_NotTheKeyTheUpstreamKnows000000' });
    const audited = () => f.titular.audit.list(f.orgId, { targetType: 'settings' }).filter((e) => e.action === 'remote.upstream_error').length;
    const before = audited();
    const lock = new Database(path.join(f.dataDir, 'titular.db'));
    lock.exec('BEGIN IMMEDIATE');
    let answered = false;
    const lastErrorBefore = f.titular.remote.status().lastError;
    const pending = lookupCbu(DIR.missing.cbu).finally(() => (answered = true));
    try {
      // The upstream has refused the key (the resolver notes it just before its audit entry)...
      while (f.titular.remote.status().lastError === lastErrorBefore) await new Promise((resolve) => setTimeout(resolve, 5));
      // ...and a read is answered while the lookup (its history entry) waits for the lock. The audit
      // entry used to be written in place, in SQLite's busy handler: 5 s with nothing answered, then a 500.
      const balance = await getWithKey(f, '/api/v1/balance', key);
      expect(balance.statusCode).toBe(200);
      expect(answered).toBe(false);
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    expectUpstreamDown(await pending, 'cbu', f.balance('cbu'));
    expect(audited()).toBe(before + 1);
    f.configureRemote();
  });

  it('a key the upstream echoes across the 200-character cut of its message leaves no part of itself behind', async () => {
    f.configureRemote({ key: UPSTREAM_KEY });
    // "Bearer " + the key starts at character 190: a cut before redaction kept its first characters.
    f.upstream.setMode({ kind: 'reject', status: 401, lead: 'x'.repeat(183) });
    expectUpstreamDown(await lookupCbu(DIR.missing.cbu), 'cbu', f.balance('cbu'));
    const { lastError } = f.titular.remote.status();
    expect(lastError!.message).toContain('[redacted]');
    expect(JSON.stringify(lastError)).not.toContain(UPSTREAM_KEY.slice(0, 16));
  });
});

describe('configuration read at call time', () => {
  it('no upstream key, no base URL, or a plain-http non-local URL: 503 GE500 without any upstream traffic, saying an admin must set it up', async () => {
    // Not "try again shortly": no wait fixes it. Which one is missing is for the admin (Ajustes' last error).
    const reason =
      'The account data source is unavailable: the remote API Titular is set to use is not set up (its address or its upstream key is missing); an administrator can set it in Ajustes or with `titular remote set`';
    f.titular.secrets.delete('remote.upstreamKey');
    let before = f.balance('cbu');
    let res = await lookupCbu(DIR.missing.cbu);
    expectUpstreamDown(res, 'cbu', before);
    expect(res.json().error.message).toBe(reason);
    expect(latest('cbu')).toMatchObject({ responseData: { error: { message: reason } } });
    expect(f.titular.remote.status()).toMatchObject({ keySet: false, lastError: { kind: 'not-configured' } });

    f.configureRemote();
    f.titular.settings.set('remote.baseUrl', null);
    before = f.balance('cbu');
    res = await lookupCbu(DIR.missing.cbu);
    expectUpstreamDown(res, 'cbu', before);
    expect(res.json().error.message).toBe(reason);
    expect(f.titular.remote.status().lastError?.message).toMatch(/base URL/);

    // The key is never sent in clear to another machine (nothing listens there; nothing is sent).
    f.titular.settings.set('remote.baseUrl', 'http://upstream.invalid');
    res = await lookupCbu(DIR.missing.cbu);
    expectUpstreamDown(res, 'cbu', before);
    expect(res.json().error.message).toBe(reason);
    expect(f.titular.remote.status().lastError?.message).toMatch(/https/);
    expect(f.upstream.takeHits()).toHaveLength(0);
  });

  it('a locked vault (auto-lock) pauses remote lookups with a clear reason; unlocking resumes them', async () => {
    f.titular.lockVault();
    try {
      const before = f.balance('cbu');
      const res = await lookupCbu(DIR.missing.cbu);
      expectUpstreamDown(res, 'cbu', before);
      // The client is told who can fix it (nothing of the upstream itself), and so is the history.
      const reason = "The account data source is unavailable: Titular's key vault is locked; lookups through the remote API resume once an administrator unlocks it";
      expect(res.json().error.message).toBe(reason);
      expect(latest('cbu')).toMatchObject({ responseData: { error: { message: reason } } });
      expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'vault-locked' });
      expect(f.titular.remote.status().lastError?.message).toMatch(/vault is locked/);
      // The directory needs no secret: switching back answers while locked.
      f.titular.settings.set('resolver.cbu', 'directory');
      expect((await lookupCbu(DIR.individual.cbu)).statusCode).toBe(200);
      expect(f.upstream.takeHits()).toHaveLength(0);
    } finally {
      f.titular.unlockVault(headlessKeyProvider(f.dataDir, {})('keyfile'));
    }
    f.titular.settings.set('resolver.cbu', 'remote');
    expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200);
  });

  it('a new base URL applies to the next lookup', async () => {
    const second = await startFakeUpstream({ key: UPSTREAM_KEY });
    try {
      f.configureRemote({ baseUrl: `${second.url}/` });
      expect((await lookupCbu(DIR.missing.cbu)).statusCode).toBe(200);
      expect(second.hits).toHaveLength(1);
      expect(f.upstream.takeHits()).toHaveLength(0);
    } finally {
      await second.close();
    }
  });
});

describe('remote credit reports (Informes)', () => {
  it('200: POSTs the normalized tax_id with the upstream key, answers the report, takes one Informes credit', async () => {
    f.upstream.setMode({ kind: 'ok', delayMs: 50 });
    const informes = f.balance('informes');
    const cbu = f.balance('cbu');
    const res = await creditLookup('30-71234567-1');
    expect(res.statusCode, res.body).toBe(200);
    const body = creditLookupResultSchema.strict().parse(res.json());
    expect(body.data).toEqual(fakeReport('30712345671'));
    expect(f.balance('informes')).toBe(informes - 1);
    expect(f.balance('cbu')).toBe(cbu);
    expect(f.upstream.takeHits()).toEqual([
      { method: 'POST', path: '/api/v1/credit/lookup', query: {}, authorization: `Bearer ${UPSTREAM_KEY}`, body: { tax_id: '30712345671' } },
    ]);
    const entry = latest('informes');
    expect(entry).toMatchObject({ status: 'SUCCESS', inputType: 'CUIT', creditConsumed: 1 });
    expect(entry.upstreamLatencyMs).toBeGreaterThanOrEqual(50);
  });

  it('404 PA011 is charged; a failing upstream is 503 GE500 and is not', async () => {
    f.upstream.setMode({ kind: 'not-found' });
    const before = f.balance('informes');
    expectError(await creditLookup('30-71234567-1'), 404, 'PA011', { creditsRemaining: before - 1 });

    f.upstream.setMode({ kind: 'failing', status: 503 });
    f.upstream.takeHits();
    expectUpstreamDown(await creditLookup('30-71234567-1'), 'informes', before - 1);
    expect(f.upstream.takeHits()).toHaveLength(ATTEMPTS);
    checkLedgerInvariants(f.titular.database.sqlite);
  });
});

describe('over a real socket', () => {
  it('a lookup through the listening API is answered by the upstream', async () => {
    const address = await f.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${address}/api/v1/lookup?identifier=${DIR.missing.cbu}&type=cbu`, { headers: auth(key) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { bank: { name: string } } }).data.bank.name).toBe('Banco Remoto');
    expect(f.upstream.takeHits()).toHaveLength(1);
  });
});

describe('the upstream key at rest', () => {
  it('appears in no file of the data directory and no log line, only in the Authorization header sent upstream', () => {
    expect(f.upstream.hits.length).toBeGreaterThan(0);
    expect(f.upstream.hits.some((h) => h.authorization === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    expectSecretNowhere(f, UPSTREAM_KEY);
    expect(JSON.stringify(f.titular.audit.list(f.orgId, { limit: 1_000 }))).not.toContain(UPSTREAM_KEY);
    expect(JSON.stringify(f.titular.remote.status())).not.toContain(UPSTREAM_KEY);
  });
});

describe('a key revoked by another process, on the remote source', () => {
  it('is refused before the upstream is called: 401, no upstream hit, nothing charged', async () => {
    const revocable = f.createKey();
    expect((await lookupCbu(DIR.individual.cbu, revocable)).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(1);
    const other = new Database(path.join(f.dataDir, 'titular.db'));
    try {
      other.prepare('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?').run(Date.now(), hashKey(revocable));
    } finally {
      other.close();
    }
    const before = f.balance('cbu');
    expectError(await lookupCbu(DIR.individual.cbu, revocable), 401, 'UNAUTHORIZED');
    expect(f.upstream.takeHits()).toHaveLength(0);
    expect(f.balance('cbu')).toBe(before);
  });
});

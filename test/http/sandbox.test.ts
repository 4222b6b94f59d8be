// Sandbox (sk_test_) keys: the documented sample data, the identifiers that force PA011 and GE500,
// PA006 for invalid input, no credit consumed ever (no 402 either), and a separate history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { expectError, historyTotal, postJson } from '../support/http-helpers';
import { lookupDataSchema, lookupResultSchema } from '../../src/shared/api/lookup';
import { creditLookupResultSchema } from '../../src/shared/api/credit';
import {
  SANDBOX_ACCOUNTS,
  SANDBOX_CREDIT_REPORTS,
  SANDBOX_NOT_FOUND,
  SANDBOX_UPSTREAM_FAILURE,
} from '../../src/main/core/resolvers/sandbox-data';

let f: Fixture;
let sandboxKey: string;
let sandboxInformesKey: string;
let liveKey: string;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 7, informes: 4 } });
  f.importDirectory(DIRECTORY_CSV);
  sandboxKey = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 1000 });
  sandboxInformesKey = f.createKey({ environment: 'sandbox', product: 'informes', scopes: ['lookup', 'balance'], rateLimitPerSecond: 1000 });
  liveKey = f.createKey({ rateLimitPerSecond: 1000 });
});
afterAll(() => f.close());

const getLookup = (identifier: string, type: string, key = sandboxKey) =>
  f.app.inject({ url: `/api/v1/lookup?identifier=${encodeURIComponent(identifier)}&type=${type}`, headers: auth(key) });
const postLookup = (identifier: string, type: string, key = sandboxKey) => postJson(f, '/api/v1/lookup', { identifier, type }, auth(key));

/** Runs `fn` and asserts neither product's balance moved. */
async function free<T>(fn: () => Promise<T>): Promise<T> {
  const cbu = f.balance('cbu');
  const informes = f.balance('informes');
  const result = await fn();
  expect(f.balance('cbu')).toBe(cbu);
  expect(f.balance('informes')).toBe(informes);
  return result;
}

const byType = (t: string) => SANDBOX_ACCOUNTS.filter((a) => a.account_type === t);

describe('sandbox keys', () => {
  it('are issued with the sk_test_ prefix', () => {
    expect(sandboxKey).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(liveKey).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
  });

  it('the sample data covers every branch a client must handle', () => {
    for (const a of SANDBOX_ACCOUNTS) lookupDataSchema.strict().parse(a);
    expect(byType('CC').length).toBeGreaterThan(0);
    expect(byType('CA').length).toBeGreaterThan(0);
    expect(byType('VIRTUAL').length).toBeGreaterThan(0);
    expect(SANDBOX_ACCOUNTS.some((a) => a.account.scheme === 'CVU')).toBe(true);
    expect(SANDBOX_ACCOUNTS.some((a) => a.account.scheme === 'CBU')).toBe(true);
    expect(SANDBOX_ACCOUNTS.some((a) => !a.active)).toBe(true);
    expect(SANDBOX_ACCOUNTS.some((a) => a.holders.length > 1)).toBe(true);
    expect(SANDBOX_ACCOUNTS.some((a) => a.currency === 'USD')).toBe(true);
    expect(SANDBOX_ACCOUNTS.some((a) => a.holders.some((h) => !h.is_individual))).toBe(true);
  });

  it('200: every sample account answers its documented data by number (GET) and by alias (POST), free of charge', async () => {
    for (const account of SANDBOX_ACCOUNTS) {
      for (const res of await free(async () => [await getLookup(account.account.number, 'cbu'), await postLookup(account.alias, 'alias')])) {
        expect(res.statusCode, `${account.account.number}: ${res.body}`).toBe(200);
        const body = lookupResultSchema.strict().parse(res.json());
        expect(body.data).toEqual(account);
        // credits_remaining is the live balance (nothing was taken).
        expect(body.credits_remaining).toBe(f.balance('cbu'));
        expect(body.credits_remaining).toBe(7);
        expect(res.headers['request-id']).toBe(body.request_id);
      }
    }
  });

  it('200: each documented branch — CC, CA, VIRTUAL; CBU and CVU schemes; inactive; joint holders', async () => {
    const cvu = SANDBOX_ACCOUNTS.find((a) => a.account.scheme === 'CVU')!;
    const res = await free(() => getLookup(cvu.account.number, 'cbu'));
    expect(res.json().data).toMatchObject({ account_type: 'VIRTUAL', account: { scheme: 'CVU', number: cvu.account.number } });

    const inactive = SANDBOX_ACCOUNTS.find((a) => !a.active)!;
    expect((await free(() => getLookup(inactive.alias, 'alias'))).json().data.active).toBe(false);

    const joint = SANDBOX_ACCOUNTS.find((a) => a.holders.length > 1)!;
    const jointRes = (await free(() => postLookup(joint.account.number, 'cbu'))).json();
    expect(jointRes.data.holders).toEqual(joint.holders);
    expect(jointRes.data.holders).toHaveLength(2);

    for (const t of ['CC', 'CA', 'VIRTUAL']) {
      const account = byType(t)[0]!;
      const r = await free(() => getLookup(account.account.number, 'cbu'));
      expect(r.statusCode).toBe(200);
      expect(r.json().data.account_type).toBe(t);
    }
    // A legal entity (CUIT, is_individual false).
    const entity = SANDBOX_ACCOUNTS.find((a) => a.holders.some((h) => !h.is_individual))!;
    expect((await free(() => getLookup(entity.alias, 'alias'))).json().data.holders[0]).toMatchObject({ tax_id_type: 'CUIT', is_individual: false });
  });

  it('200: aliases are case-insensitive; a CBU with separators is a 400 PA006 (special characters are rejected), free', async () => {
    const account = SANDBOX_ACCOUNTS[0]!;
    const upper = await free(() => getLookup(account.alias.toUpperCase(), 'alias'));
    expect(upper.statusCode).toBe(200);
    expect(upper.json().data.account.number).toBe(account.account.number);
    const n = account.account.number;
    const spaced = await free(() => getLookup(`${n.slice(0, 8)} ${n.slice(8)}`, 'cbu'));
    expect(spaced.statusCode).toBe(400);
    expect(spaced.json().error.code).toBe('PA006');
  });

  it('404 PA011 for the documented not-found identifiers (and for accounts only in the live directory); no credits_remaining', async () => {
    for (const res of await free(async () => [
      await getLookup(SANDBOX_NOT_FOUND.cbu, 'cbu'),
      await postLookup(SANDBOX_NOT_FOUND.alias, 'alias'),
      await getLookup(DIR.individual.cbu, 'cbu'),
    ])) {
      expect(res.json()).toEqual({ success: false, error: { code: 'PA011', message: expect.any(String) }, request_id: res.headers['request-id'] });
      expectError(res, 404, 'PA011', { creditsRemaining: 'absent' });
    }
  });

  it('503 GE500 with Retry-After for the documented upstream-failure identifiers; nothing consumed', async () => {
    for (const res of await free(async () => [
      await getLookup(SANDBOX_UPSTREAM_FAILURE.cbu, 'cbu'),
      await postLookup(SANDBOX_UPSTREAM_FAILURE.alias, 'alias'),
      await postLookup(SANDBOX_UPSTREAM_FAILURE.alias.toUpperCase(), 'alias'),
    ])) {
      expectError(res, 503, 'GE500', { creditsRemaining: 'absent' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('400 PA006 for invalid input; no credits_remaining since nothing was consumed', async () => {
    const cases: [string, string][] = [
      ['0110001300000012345675', 'cbu'], // wrong check digit
      ['011000130000001234567', 'cbu'], // 21 digits
      ['abc', 'alias'],
      ['maría.gonzález', 'alias'],
      [SANDBOX_ACCOUNTS[0]!.account.number, 'iban'],
      [SANDBOX_ACCOUNTS[0]!.account.number, ''],
    ];
    for (const [identifier, type] of cases) {
      const res = await free(() => getLookup(identifier, type));
      expectError(res, 400, 'PA006', { creditsRemaining: 'absent' });
    }
    const missing = await free(() => postJson(f, '/api/v1/lookup', {}, auth(sandboxKey)));
    expectError(missing, 400, 'PA006', { creditsRemaining: 'absent' });
  });

  it('credit reports with a sandbox Informes key: 200 per sample, 404, 503, 400 — all free', async () => {
    for (const report of SANDBOX_CREDIT_REPORTS) {
      const res = await free(() => postJson(f, '/api/v1/credit/lookup', { tax_id: report.subject.tax_id }, auth(sandboxInformesKey)));
      expect(res.statusCode).toBe(200);
      const body = creditLookupResultSchema.strict().parse(res.json());
      expect(body.data).toEqual(report);
      expect(body.credits_remaining).toBe(f.balance('informes'));
    }
    const notFound = await free(() => postJson(f, '/api/v1/credit/lookup', { tax_id: SANDBOX_NOT_FOUND.taxId }, auth(sandboxInformesKey)));
    expectError(notFound, 404, 'PA011', { creditsRemaining: 'absent' });
    const down = await free(() => postJson(f, '/api/v1/credit/lookup', { tax_id: SANDBOX_UPSTREAM_FAILURE.taxId }, auth(sandboxInformesKey)));
    expectError(down, 503, 'GE500', { creditsRemaining: 'absent' });
    expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const invalid = await free(() => postJson(f, '/api/v1/credit/lookup', { tax_id: '20287654320' }, auth(sandboxInformesKey)));
    expectError(invalid, 400, 'PA006', { creditsRemaining: 'absent' });
  });

  it('sandbox lookups appear in the sandbox key\'s history (creditConsumed 0) and not in the live key\'s', async () => {
    const sandboxBefore = historyTotal(f, 'sandbox', 'cbu');
    const liveBefore = historyTotal(f, 'live', 'cbu');
    const marker = SANDBOX_ACCOUNTS[3]!;
    expect((await getLookup(marker.account.number, 'cbu')).statusCode).toBe(200);
    expect((await getLookup(SANDBOX_NOT_FOUND.cbu, 'cbu')).statusCode).toBe(404);
    // A live lookup, to show the separation both ways.
    expect((await getLookup(DIR.company.cbu, 'cbu', liveKey)).statusCode).toBe(200);

    const sandboxHistory = await f.app.inject({ url: '/api/v1/history?per_page=50', headers: auth(sandboxKey) });
    expect(sandboxHistory.statusCode).toBe(200);
    const sb = sandboxHistory.json();
    expect(sb.pagination.total).toBe(sandboxBefore + 2);
    expect(sb.data.slice(0, 2).map((e: { inputIdentifier: string; status: string }) => [e.inputIdentifier, e.status])).toEqual([
      [SANDBOX_NOT_FOUND.cbu, 'ERROR'],
      [marker.account.number, 'SUCCESS'],
    ]);
    expect(sb.data.every((e: { creditConsumed: number }) => e.creditConsumed === 0)).toBe(true);
    expect(sb.data.map((e: { inputIdentifier: string }) => e.inputIdentifier)).not.toContain(DIR.company.cbu);

    const liveHistory = (await f.app.inject({ url: '/api/v1/history?per_page=50', headers: auth(liveKey) })).json();
    expect(liveHistory.pagination.total).toBe(liveBefore + 1);
    expect(liveHistory.data.map((e: { inputIdentifier: string }) => e.inputIdentifier)).toEqual([DIR.company.cbu]);
    expect(f.balance('cbu')).toBe(6);
  });
});

describe('sandbox keys at a zero balance', () => {
  it('never answer 402: success carries credits_remaining 0, errors none; the live key gets 402', async () => {
    const g = await createFixture();
    try {
      const sb = g.createKey({ environment: 'sandbox' });
      const sbInformes = g.createKey({ environment: 'sandbox', product: 'informes', scopes: ['lookup'] });
      const live = g.createKey();
      expect(g.balance('cbu')).toBe(0);

      for (const account of SANDBOX_ACCOUNTS) {
        const res = await g.app.inject({ url: `/api/v1/lookup?identifier=${account.account.number}&type=cbu`, headers: auth(sb) });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ success: true, data: account, credits_remaining: 0, request_id: res.headers['request-id'] });
      }
      const notFound = await g.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_NOT_FOUND.alias}&type=alias`, headers: auth(sb) });
      expectError(notFound, 404, 'PA011', { creditsRemaining: 'absent' });
      const invalid = await g.app.inject({ url: `/api/v1/lookup?identifier=123&type=cbu`, headers: auth(sb) });
      expectError(invalid, 400, 'PA006', { creditsRemaining: 'absent' });
      const down = await g.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_UPSTREAM_FAILURE.cbu}&type=cbu`, headers: auth(sb) });
      expectError(down, 503, 'GE500', { creditsRemaining: 'absent' });

      const report = await postJson(g, '/api/v1/credit/lookup', { tax_id: SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id }, auth(sbInformes));
      expect(report.statusCode).toBe(200);
      expect(report.json().credits_remaining).toBe(0);

      const liveRes = await g.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_ACCOUNTS[0]!.account.number}&type=cbu`, headers: auth(live) });
      expectError(liveRes, 402, 'INSUFFICIENT_CREDITS', { creditsRemaining: 0 });

      expect(g.balance('cbu')).toBe(0);
      expect(g.balance('informes')).toBe(0);
      expect(historyTotal(g, 'sandbox', 'cbu')).toBe(SANDBOX_ACCOUNTS.length + 3);
      expect(historyTotal(g, 'live', 'cbu')).toBe(0);
    } finally {
      await g.close();
    }
  });
});

// POST /api/v1/credit/lookup (Informes keys): the result shape, the credit each outcome consumes,
// and every status code the endpoint can answer, with live and sandbox keys. Live keys are answered
// from the credit records imported into the directory (test/support/credit-data.ts holds records
// equal to the sandbox's sample reports); sandbox keys from the sample data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { createKeyWithId, expectError, historyTotal, postJson, REQUEST_ID, revokeKey, type Res } from '../support/http-helpers';
import { CREDIT_CSV_HEADER, importCreditRecords } from '../support/credit-data';
import { checkLedgerInvariants } from '../support/invariants';
import { creditLookupResultSchema, creditReportSchema } from '../../src/shared/api/credit';
import { SANDBOX_CREDIT_REPORTS, SANDBOX_NOT_FOUND, SANDBOX_UPSTREAM_FAILURE } from '../../src/main/core/resolvers/sandbox-data';

let f: Fixture;
let key: string;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 7, informes: 100 } });
  key = f.createKey({ product: 'informes', scopes: ['lookup', 'balance'], rateLimitPerSecond: 1000 });
  importCreditRecords(f);
});
afterAll(async () => {
  checkLedgerInvariants(f.titular.database.sqlite);
  await f.close();
});

const lookup = (payload: unknown, headers: Record<string, string> = auth(key)) => postJson(f, '/api/v1/credit/lookup', payload, headers);

/**
 * Asserts the request took `credits` Informes credits and no CBU credit, and wrote `entries` history
 * entries (by default one per charged lookup; a GE500 keeps its entry without a charge).
 */
async function charged<T>(run: () => Promise<T>, credits: number, entries = credits > 0 ? 1 : 0): Promise<T> {
  const informes = f.balance('informes');
  const cbu = f.balance('cbu');
  const history = historyTotal(f, 'live', 'informes');
  const result = await run();
  expect(f.balance('informes')).toBe(informes - credits);
  expect(f.balance('cbu')).toBe(cbu);
  expect(historyTotal(f, 'live', 'informes')).toBe(history + entries);
  return result;
}

describe('POST /api/v1/credit/lookup', () => {
  it('200: each sample CUIT/CUIL answers its report in the strict result shape and takes one credit', async () => {
    for (const report of SANDBOX_CREDIT_REPORTS) {
      const before = f.balance('informes');
      const res = await charged(() => lookup({ tax_id: report.subject.tax_id }), 1);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = creditLookupResultSchema.strict().parse(res.json());
      creditReportSchema.strict().parse(body.data);
      // Deep equality also pins the nested objects (no extra fields anywhere).
      expect(body.data).toEqual(report);
      expect(body.credits_remaining).toBe(before - 1);
      expect(body.request_id).toMatch(REQUEST_ID);
      expect(res.headers['request-id']).toBe(body.request_id);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      // The history entry of the lookup: a CUIT lookup by the API, charged, holding the report.
      const entry = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'informes' }, { page: 1, per_page: 1 }).data[0];
      expect(entry).toMatchObject({
        inputIdentifier: report.subject.tax_id,
        inputType: 'CUIT',
        status: 'SUCCESS',
        source: 'API',
        creditConsumed: 1,
        responseData: report,
      });
    }
  });

  it('200: a re-import replaces the report, and the next lookup answers the new one', async () => {
    const taxId = '27312345671';
    const csv = [CREDIT_CSV_HEADER, 'situation,27-31234567-1,María Laura González,,,2026-10,00007,,2,"1.250,75",45,,,,,', ''].join('\n');
    importCreditRecords(f, csv);
    try {
      const res = await charged(() => lookup({ tax_id: taxId }), 1);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({
        subject: { full_name: 'María Laura González', tax_id: taxId, tax_id_type: 'CUIL', is_individual: true },
        period: '2026-10',
        situations: [{ institution: { code: '007', name: 'Banco de Galicia y Buenos Aires S.A.' }, classification: 2, amount: 1250.75, period: '2026-10', days_overdue: 45 }],
        totals: { amount: 1250.75, institutions: 1, worst_classification: 2 },
        bounced_checks: [],
      });
    } finally {
      importCreditRecords(f, JSON.stringify(SANDBOX_CREDIT_REPORTS.filter((r) => r.subject.tax_id === taxId)), 'json');
    }
    expect((await lookup({ tax_id: taxId })).json().data).toEqual(SANDBOX_CREDIT_REPORTS[2]);
  });

  it('200: a tax_id with dashes (and spaces) is accepted and normalized', async () => {
    for (const taxId of ['20-28765432-5', '30-71234567-1', ' 27-31234567-1 ']) {
      const res = await charged(() => lookup({ tax_id: taxId }), 1);
      expect(res.statusCode, taxId).toBe(200);
      expect(res.json().data.subject.tax_id).toBe(taxId.replace(/\D/g, ''));
    }
    const entries = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'informes' }, { page: 1, per_page: 1 });
    expect(entries.data[0]).toMatchObject({ inputIdentifier: '27312345671', inputType: 'CUIT', status: 'SUCCESS', source: 'API', creditConsumed: 1 });
  });

  it('400 PA006: bad check digit, wrong length, letters, a non-string and a missing tax_id; each consumes a credit', async () => {
    const cases: unknown[] = [
      { tax_id: '20287654326' },
      { tax_id: '20-28765432-0' },
      { tax_id: '2028765432' },
      { tax_id: '202876543255' },
      { tax_id: '20ABC654325' },
      { tax_id: '' },
      { tax_id: 20287654325 },
      {},
      { cuit: '20287654325' },
    ];
    for (const payload of cases) {
      const before = f.balance('informes');
      const res = await charged(() => lookup(payload), 1);
      expectError(res, 400, 'PA006', { creditsRemaining: before - 1 });
    }
    expect((await lookup({ tax_id: 20287654325 })).json().error.message).toBe('tax_id must be a string');
    expect((await lookup({})).json().error.message).toBe('tax_id is required (CUIT/CUIL, 11 digits)');
  });

  it('400 PA006 for a POST without any body (missing tax_id), charged, with or without Content-Type: application/json', async () => {
    for (const headers of [auth(key), { ...auth(key), 'content-type': 'application/json' }]) {
      const before = f.balance('informes');
      const res = await charged(() => f.app.inject({ method: 'POST', url: '/api/v1/credit/lookup', headers }), 1);
      expectError(res, 400, 'PA006', { creditsRemaining: before - 1 });
      expect(res.json().error.message).toBe('tax_id is required (CUIT/CUIL, 11 digits)');
    }
  });

  it('404 PA011: a valid CUIT without a report in the directory consumes a credit', async () => {
    // The sandbox's special CUITs mean nothing to the live directory: both are simply not there.
    for (const taxId of [SANDBOX_NOT_FOUND.taxId, SANDBOX_UPSTREAM_FAILURE.taxId, '20-12345678-6']) {
      const before = f.balance('informes');
      const res = await charged(() => lookup({ tax_id: taxId }), 1);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PA011', message: expect.any(String) },
        credits_remaining: before - 1,
        request_id: res.headers['request-id'],
      });
      expectError(res, 404, 'PA011', { creditsRemaining: before - 1 });
      const entry = f.titular.history.page({ orgId: f.orgId, environment: 'live', product: 'informes' }, { page: 1, per_page: 1 }).data[0];
      expect(entry).toMatchObject({ inputIdentifier: taxId.replace(/\D/g, ''), inputType: 'CUIT', status: 'ERROR', creditConsumed: 1 });
    }
  });

  it('400 INVALID_PARAMETER (the documented error body) for a body that is not a JSON object, or malformed JSON; nothing consumed', async () => {
    for (const payload of ['[1,2]', '"20287654325"', '20287654325', 'null', 'true', '{"tax_id":']) {
      const res = await charged(() => lookup(payload), 0);
      expectError(res, 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
    }
    // Valid JSON that Fastify refuses as prototype poisoning: the message says so, not just "not valid JSON".
    for (const payload of ['{"__proto__":{"x":1},"tax_id":"20287654325"}', '{"constructor":{"prototype":{"x":1}},"tax_id":"20287654325"}']) {
      const res = await charged(() => lookup(payload), 0);
      expectError(res, 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
      expect(res.json().error.message).toMatch(/holds a __proto__ or constructor\.prototype key \(refused\)/);
    }
    const text = await charged(
      () => f.app.inject({ method: 'POST', url: '/api/v1/credit/lookup', headers: { ...auth(key), 'content-type': 'text/plain' }, payload: '20287654325' }),
      0,
    );
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('INVALID_PARAMETER');
  });

  it('401 UNAUTHORIZED: missing, malformed and unknown keys; nothing consumed', async () => {
    for (const headers of [{}, { authorization: `Bearer ${key}x` }, auth(`sk_live_${'B'.repeat(32)}`)]) {
      const res = await charged(() => lookup({ tax_id: '20287654325' }, headers), 0);
      expectError(res, 401, 'UNAUTHORIZED', { creditsRemaining: 'absent' });
    }
  });

  it('403 FORBIDDEN: a CBU key (any scopes), an Informes key without lookup scope, an IP outside the whitelist', async () => {
    const cbu = createKeyWithId(f, { product: 'cbu', scopes: ['lookup', 'balance', 'history'] });
    const cbuSandbox = createKeyWithId(f, { product: 'cbu', environment: 'sandbox' });
    const noScope = createKeyWithId(f, { product: 'informes', scopes: ['balance'] });
    const elsewhere = createKeyWithId(f, { product: 'informes', scopes: ['lookup'], ipWhitelist: ['203.0.113.0/24'] });
    try {
      for (const k of [cbu, cbuSandbox, noScope, elsewhere]) {
        const res = await charged(() => lookup({ tax_id: '20287654325' }, auth(k.secret)), 0);
        expectError(res, 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
      }
      // A bad body does not outrank the product check.
      expectError(await lookup('[1]', auth(cbu.secret)), 403, 'FORBIDDEN');
    } finally {
      for (const k of [cbu, cbuSandbox, noScope, elsewhere]) revokeKey(f, k.id);
    }
  });

  it('429 RATE_LIMITED past the burst, with Retry-After and RateLimit headers; the 429s consume nothing', async () => {
    const slow = createKeyWithId(f, { product: 'informes', scopes: ['lookup'], rateLimitPerSecond: 1 });
    try {
      const before = f.balance('informes');
      let ok = 0;
      let limited;
      for (let i = 0; i < 23; i++) {
        const res = await lookup({ tax_id: '20287654325' }, auth(slow.secret));
        if (res.statusCode === 200) ok++;
        else limited ??= res;
      }
      expect(ok).toBeGreaterThanOrEqual(20);
      expect(ok).toBeLessThanOrEqual(21);
      expect(f.balance('informes')).toBe(before - ok);
      expectError(limited!, 429, 'RATE_LIMITED', { creditsRemaining: 'absent' });
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited!.headers['ratelimit-limit']).toBe('20');
      expect(limited!.headers['ratelimit-remaining']).toBe('0');
    } finally {
      revokeKey(f, slow.id);
    }
  });
});

describe('POST /api/v1/credit/lookup at zero Informes balance', () => {
  it('402 INSUFFICIENT_CREDITS once the Informes credits are spent, whatever the input; CBU credits do not help', async () => {
    const g = await createFixture({ credits: { cbu: 50, informes: 1 } });
    try {
      importCreditRecords(g);
      const k = g.createKey({ product: 'informes', scopes: ['lookup', 'balance'] });
      const first = await postJson(g, '/api/v1/credit/lookup', { tax_id: '20287654325' }, auth(k));
      expect(first.statusCode).toBe(200);
      expect(first.json().credits_remaining).toBe(0);
      for (const payload of [{ tax_id: '20287654325' }, { tax_id: 'bad' }, {}, { tax_id: SANDBOX_NOT_FOUND.taxId }]) {
        const res = await postJson(g, '/api/v1/credit/lookup', payload, auth(k));
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String) },
          credits_remaining: 0,
          request_id: res.headers['request-id'],
        });
        expectError(res, 402, 'INSUFFICIENT_CREDITS', { creditsRemaining: 0 });
      }
      expect(g.balance('informes')).toBe(0);
      expect(g.balance('cbu')).toBe(50);
      expect(historyTotal(g, 'live', 'informes')).toBe(1);
      // Purchasing credits makes the same request work again.
      g.addCredits('informes', 2);
      const again = await postJson(g, '/api/v1/credit/lookup', { tax_id: '20287654325' }, auth(k));
      expect(again.statusCode).toBe(200);
      expect(again.json().credits_remaining).toBe(1);
    } finally {
      await g.close();
    }
  });
});

describe('POST /api/v1/credit/lookup with an Idempotency-Key', () => {
  const withKey = (idempotencyKey: string) => ({ ...auth(key), 'idempotency-key': idempotencyKey });

  function expectReplay(first: Res, retry: Res): void {
    expect(retry.statusCode).toBe(first.statusCode);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['request-id']).toBe(first.headers['request-id']);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
  }

  it('a retry with the same key and body replays the 200 without a second charge or history entry', async () => {
    const before = f.balance('informes');
    const first = await charged(() => lookup({ tax_id: '30-71234567-1' }, withKey('informe-0001')), 1);
    expect(first.statusCode).toBe(200);
    expect(first.json().credits_remaining).toBe(before - 1);
    for (let i = 0; i < 2; i++) expectReplay(first, await charged(() => lookup({ tax_id: '30-71234567-1' }, withKey('informe-0001')), 0));
  });

  it('a charged error (PA011, PA006) is replayed too, charged once', async () => {
    for (const [idempotencyKey, payload, status] of [
      ['informe-404', { tax_id: SANDBOX_NOT_FOUND.taxId }, 404],
      ['informe-400', { tax_id: '20-28765432-0' }, 400],
    ] as const) {
      const first = await charged(() => lookup(payload, withKey(idempotencyKey)), 1);
      expect(first.statusCode).toBe(status);
      expectReplay(first, await charged(() => lookup(payload, withKey(idempotencyKey)), 0));
    }
  });

  it('409 IDEMPOTENCY_CONFLICT for the same key with another tax_id; nothing consumed, the first stays replayable', async () => {
    const first = await lookup({ tax_id: '20287654325' }, withKey('informe-0002'));
    expect(first.statusCode).toBe(200);
    for (const other of [{ tax_id: '27312345671' }, {}, { tax_id: '20-28765432-0' }]) {
      const res = await charged(() => lookup(other, withKey('informe-0002')), 0);
      expectError(res, 409, 'IDEMPOTENCY_CONFLICT', { creditsRemaining: 'absent' });
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expectReplay(first, await charged(() => lookup({ tax_id: '20287654325' }, withKey('informe-0002')), 0));
  });
});

describe('POST /api/v1/credit/lookup with a sandbox key', () => {
  let sandboxKey: string;
  beforeAll(() => {
    sandboxKey = f.createKey({ product: 'informes', environment: 'sandbox', scopes: ['lookup', 'balance'], rateLimitPerSecond: 1000 });
  });
  const sandboxLookup = (payload: unknown, headers: Record<string, string> = auth(sandboxKey)) => postJson(f, '/api/v1/credit/lookup', payload, headers);

  /** Sandbox lookups take no credit and write the sandbox history only (GE500 included). */
  async function free(run: () => Promise<Res>, entries = 1): Promise<Res> {
    const informes = f.balance('informes');
    const live = historyTotal(f, 'live', 'informes');
    const sandbox = historyTotal(f, 'sandbox', 'informes');
    const res = await run();
    expect(f.balance('informes')).toBe(informes);
    expect(historyTotal(f, 'live', 'informes')).toBe(live);
    expect(historyTotal(f, 'sandbox', 'informes')).toBe(sandbox + entries);
    return res;
  }

  it('200: the sample reports, without credits_remaining changing the balance', async () => {
    for (const report of SANDBOX_CREDIT_REPORTS) {
      const res = await free(() => sandboxLookup({ tax_id: report.subject.tax_id }));
      expect(res.statusCode).toBe(200);
      expect(creditLookupResultSchema.strict().parse(res.json()).data).toEqual(report);
      expect(res.json().credits_remaining).toBe(f.balance('informes'));
    }
  });

  it('the sample data, not the directory: a CUIT imported for live keys is PA011 in the sandbox', async () => {
    importCreditRecords(f, [CREDIT_CSV_HEADER, 'subject,20-12345678-6,Solo En Vivo,,,2026-10,,,,,,,,,,', ''].join('\n'));
    expect((await charged(() => lookup({ tax_id: '20123456786' }), 1)).statusCode).toBe(200);
    expectError(await free(() => sandboxLookup({ tax_id: '20123456786' })), 404, 'PA011', { creditsRemaining: 'absent' });
  });

  it('400 PA006, 404 PA011 and 503 GE500 (with Retry-After); none consumes a credit', async () => {
    expectError(await free(() => sandboxLookup({ tax_id: '20-28765432-0' })), 400, 'PA006', { creditsRemaining: 'absent' });
    expectError(await free(() => sandboxLookup({})), 400, 'PA006', { creditsRemaining: 'absent' });
    expectError(await free(() => sandboxLookup({ tax_id: SANDBOX_NOT_FOUND.taxId })), 404, 'PA011', { creditsRemaining: 'absent' });
    const down = await free(() => sandboxLookup({ tax_id: SANDBOX_UPSTREAM_FAILURE.taxId }));
    expectError(down, 503, 'GE500', { creditsRemaining: 'absent' });
    // A credit report's source, not "the account data source".
    expect(down.json().error.message).toBe('The credit report source is unavailable; try again shortly');
    expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const entry = f.titular.history.page({ orgId: f.orgId, environment: 'sandbox', product: 'informes' }, { page: 1, per_page: 1 }).data[0];
    expect(entry).toMatchObject({ inputIdentifier: SANDBOX_UPSTREAM_FAILURE.taxId, inputType: 'CUIT', status: 'ERROR', creditConsumed: 0 });
  });

  it('400 INVALID_PARAMETER for a malformed body, 401 for an unknown sk_test_ key, 403 for a sandbox CBU key', async () => {
    expectError(await free(() => sandboxLookup('{"tax_id":'), 0), 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
    expectError(await free(() => sandboxLookup({ tax_id: '20287654325' }, auth(`sk_test_${'Q'.repeat(32)}`)), 0), 401, 'UNAUTHORIZED');
    const cbu = createKeyWithId(f, { product: 'cbu', environment: 'sandbox' });
    try {
      expectError(await free(() => sandboxLookup({ tax_id: '20287654325' }, auth(cbu.secret)), 0), 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
    } finally {
      revokeKey(f, cbu.id);
    }
  });

  it('429 RATE_LIMITED past the burst, like a live key', async () => {
    const slow = createKeyWithId(f, { product: 'informes', environment: 'sandbox', scopes: ['lookup'], rateLimitPerSecond: 1 });
    try {
      let limited: Res | undefined;
      for (let i = 0; i < 23 && !limited; i++) {
        const res = await sandboxLookup({ tax_id: '20287654325' }, auth(slow.secret));
        if (res.statusCode === 429) limited = res;
      }
      expectError(limited!, 429, 'RATE_LIMITED', { creditsRemaining: 'absent' });
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      revokeKey(f, slow.id);
    }
  });
});

// GET /api/v1/history: the exact entry shape, newest-first order, filters (status, source, from/to in
// date and instant forms), pagination math, live/sandbox separation, and every error status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from '../support/directory-data';
import { importCreditRecords } from '../support/credit-data';
import { createKeyWithId, expectError, ISO_UTC, postJson, recordLookup, REQUEST_ID, revokeKey } from '../support/http-helpers';
import { historyEntrySchema, paginationSchema } from '../../src/shared/api/history';
import { SANDBOX_ACCOUNTS, SANDBOX_NOT_FOUND } from '../../src/main/core/resolvers/sandbox-data';

/** For a CBU key, inputType is CBU, CVU or ALIAS, and the entry has exactly the contract's fields. */
const entrySchema = historyEntrySchema
  .extend({
    inputType: z.enum(['CBU', 'CVU', 'ALIAS']),
    user: z.object({ id: z.string(), name: z.string(), email: z.string() }).strict(),
  })
  .strict();
const responseSchema = z.object({ data: z.array(entrySchema), pagination: paginationSchema.strict() }).strict();

type Entry = z.infer<typeof entrySchema>;

// ---------------------------------------------------------------------------------------------
// Lookups made through the API: entry fields, order, environments, errors.
// ---------------------------------------------------------------------------------------------
describe('GET /api/v1/history over API lookups', () => {
  let f: Fixture;
  let key: string;
  let sandboxKey: string;

  beforeAll(async () => {
    f = await createFixture({ credits: { cbu: 100, informes: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    importCreditRecords(f);
    // Owned by the operator, so the entry's user must be the key owner, not the admin who created it.
    key = f.createKey({ ownerUserId: f.operatorId, rateLimitPerSecond: 1000 });
    sandboxKey = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 1000 });
  });
  afterAll(() => f.close());

  const history = (query = '', k = key) => f.app.inject({ method: 'GET', url: `/api/v1/history${query ? `?${query}` : ''}`, headers: auth(k) });

  it('200 {data, pagination}: empty at first, with total_pages 0 or 1 and the defaults page 1 / per_page 10', async () => {
    const res = await history();
    expect(res.statusCode).toBe(200);
    expect(res.headers['request-id']).toMatch(REQUEST_ID);
    const body = responseSchema.parse(res.json());
    expect(body.data).toEqual([]);
    expect(body.pagination).toMatchObject({ page: 1, per_page: 10, total: 0 });
  });

  it('each entry has exactly the contract fields with the lookup\'s values, newest first', async () => {
    const started = Date.now();
    const answers = [];
    answers.push(await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key) }));
    answers.push(await postJson(f, '/api/v1/lookup', { identifier: DIR.wallet.cbu, type: 'cbu' }, auth(key)));
    answers.push(await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.company.alias}&type=alias`, headers: auth(key) }));
    answers.push(await f.app.inject({ url: `/api/v1/lookup?identifier=${breakCheckDigit(DIR.individual.cbu)}&type=cbu`, headers: auth(key) }));
    answers.push(await postJson(f, '/api/v1/lookup', { identifier: DIR.missing.alias, type: 'alias' }, auth(key)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 400, 404]);
    const finished = Date.now();

    const res = await history();
    expect(res.statusCode).toBe(200);
    const body = responseSchema.parse(res.json());
    expect(body.pagination).toEqual({ page: 1, per_page: 10, total: 5, total_pages: 1 });
    expect(body.data).toHaveLength(5);
    // Newest first: the reverse of the order the lookups were made in.
    const newestFirst = [...answers].reverse();
    const expectedRows: Omit<Entry, 'id' | 'createdAt' | 'upstreamLatencyMs'>[] = [
      {
        inputIdentifier: DIR.missing.alias,
        inputType: 'ALIAS',
        status: 'ERROR',
        source: 'API',
        responseData: { error: newestFirst[0]!.json().error },
        creditConsumed: 1,
        user: { id: f.operatorId, name: 'Oscar Operador', email: 'oscar@acme.test' },
      },
      {
        inputIdentifier: breakCheckDigit(DIR.individual.cbu),
        inputType: 'CBU',
        status: 'ERROR',
        source: 'API',
        responseData: { error: newestFirst[1]!.json().error },
        creditConsumed: 1,
        user: { id: f.operatorId, name: 'Oscar Operador', email: 'oscar@acme.test' },
      },
      {
        inputIdentifier: DIR.company.alias,
        inputType: 'ALIAS',
        status: 'SUCCESS',
        source: 'API',
        responseData: newestFirst[2]!.json().data,
        creditConsumed: 1,
        user: { id: f.operatorId, name: 'Oscar Operador', email: 'oscar@acme.test' },
      },
      {
        inputIdentifier: DIR.wallet.cbu,
        inputType: 'CVU',
        status: 'SUCCESS',
        source: 'API',
        responseData: newestFirst[3]!.json().data,
        creditConsumed: 1,
        user: { id: f.operatorId, name: 'Oscar Operador', email: 'oscar@acme.test' },
      },
      {
        inputIdentifier: DIR.individual.cbu,
        inputType: 'CBU',
        status: 'SUCCESS',
        source: 'API',
        responseData: newestFirst[4]!.json().data,
        creditConsumed: 1,
        user: { id: f.operatorId, name: 'Oscar Operador', email: 'oscar@acme.test' },
      },
    ];
    body.data.forEach((entry, i) => {
      const { id, createdAt, upstreamLatencyMs, ...rest } = entry;
      expect(rest).toEqual(expectedRows[i]);
      expect(id.length).toBeGreaterThan(0);
      expect(createdAt).toMatch(ISO_UTC);
      const at = Date.parse(createdAt);
      expect(at).toBeGreaterThanOrEqual(started - 1);
      expect(at).toBeLessThanOrEqual(finished + 1);
      expect(Number.isInteger(upstreamLatencyMs) && upstreamLatencyMs >= 0).toBe(true);
    });
    // The error responseData is exactly {error:{code,message}} of the answer.
    expect(body.data[0]!.responseData).toEqual({ error: { code: 'PA011', message: expect.any(String) } });
    expect(body.data[1]!.responseData).toEqual({ error: { code: 'PA006', message: expect.any(String) } });
    expect(new Set(body.data.map((e) => e.id)).size).toBe(5);
    const times = body.data.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('a 402 writes no entry, and nothing about the key appears in the entries', async () => {
    const g = await createFixture({ credits: { cbu: 1 } });
    try {
      g.importDirectory(DIRECTORY_CSV);
      const k = g.createKey();
      expect((await g.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(k) })).statusCode).toBe(200);
      expect((await g.app.inject({ url: `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, headers: auth(k) })).statusCode).toBe(402);
      const res = await g.app.inject({ url: '/api/v1/history', headers: auth(k) });
      expect(res.json().pagination.total).toBe(1);
      expect(res.body).not.toContain(k);
      expect(res.body).not.toContain(k.slice(8));
    } finally {
      await g.close();
    }
  });

  it('a live key sees only live lookups, a sandbox key only sandbox ones (creditConsumed 0)', async () => {
    const liveBefore = (await history()).json().pagination.total;
    const sb1 = await f.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_ACCOUNTS[0]!.account.number}&type=cbu`, headers: auth(sandboxKey) });
    const sb2 = await postJson(f, '/api/v1/lookup', { identifier: SANDBOX_NOT_FOUND.alias, type: 'alias' }, auth(sandboxKey));
    expect([sb1.statusCode, sb2.statusCode]).toEqual([200, 404]);

    const live = responseSchema.parse((await history('per_page=50')).json());
    expect(live.pagination.total).toBe(liveBefore);
    expect(live.data.map((e) => e.inputIdentifier)).not.toContain(SANDBOX_ACCOUNTS[0]!.account.number);

    const sandboxRes = await history('', sandboxKey);
    expect(sandboxRes.statusCode).toBe(200);
    const sandbox = responseSchema.parse(sandboxRes.json());
    expect(sandbox.pagination).toEqual({ page: 1, per_page: 10, total: 2, total_pages: 1 });
    expect(sandbox.data.map((e) => [e.inputIdentifier, e.status, e.creditConsumed])).toEqual([
      [SANDBOX_NOT_FOUND.alias, 'ERROR', 0],
      [SANDBOX_ACCOUNTS[0]!.account.number, 'SUCCESS', 0],
    ]);
    expect(sandbox.data[1]!.responseData).toEqual(sb1.json().data);
    expect(sandbox.data[0]!.user).toEqual({ id: f.adminId, name: 'Ada Admin', email: 'ada@acme.test' });
  });

  it('credit reports (Informes) do not appear in a CBU key\'s history', async () => {
    const before = (await history()).json().pagination.total;
    const informes = createKeyWithId(f, { product: 'informes', scopes: ['lookup'] });
    try {
      expect((await postJson(f, '/api/v1/credit/lookup', { tax_id: '20287654325' }, auth(informes.secret))).statusCode).toBe(200);
      const after = (await history()).json();
      expect(after.pagination.total).toBe(before);
      expect(after.data.map((e: Entry) => e.inputIdentifier)).not.toContain('20287654325');
    } finally {
      revokeKey(f, informes.id);
    }
  });

  it('400 INVALID_PARAMETER for bad page, per_page, dates, status, source and unknown parameters; consumes nothing', async () => {
    const balance = f.balance('cbu');
    const total = (await history()).json().pagination.total;
    // Each message names the parameter and says what to send, in the API's words (not zod's).
    const cases: [string, string][] = [
      ['page=0', 'page must be at least 1'],
      ['page=-1', 'page must be a whole number'],
      ['page=abc', 'page must be a whole number'],
      ['page=1.5', 'page must be a whole number'],
      ['page=', 'page must be a whole number'],
      ['per_page=0', 'per_page must be at least 1'],
      ['per_page=51', 'per_page must be at most 50'],
      ['per_page=-5', 'per_page must be a whole number'],
      ['per_page=ten', 'per_page must be a whole number'],
      ['from=2026-03-02&to=2026-03-01', 'from must not be after to'],
      ['from=2026-03-01T10:00:00Z&to=2026-03-01T09:59:59Z', 'from must not be after to'],
      ['from=2026-13-01', 'from must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['to=2026-13-01', 'to must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['from=2026-02-30', 'from must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['to=2026-02-30', 'to must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['from=yesterday', 'from must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['to=yesterday', 'to must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['from=2026-03-01T10:00:00', 'from must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      ['from=', 'from must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
      // An offset's "+" not sent as %2B arrives as a space.
      ['to=2026-03-01T11:00:00+03:00', 'to must be an ISO 8601 date or instant (e.g. 2026-11-01); send the + of an offset as %2B'],
      ['status=success', 'status must be SUCCESS or ERROR'],
      ['status=FAILED', 'status must be SUCCESS or ERROR'],
      ['source=api', 'source must be WEB, API or BULK'],
      ['source=MOBILE', 'source must be WEB, API or BULK'],
      [`q=${'1'.repeat(65)}`, 'q must be at most 64 characters'],
      ['sort=asc', 'Unknown query parameter: sort'],
      ['limit=5', 'Unknown query parameter: limit'],
      ['page=1&page=2', 'page must be given once'],
      ['status=SUCCESS&status=ERROR', 'status must be given once'],
      ['q=1&q=2', 'q must be given once'],
    ];
    for (const [query, message] of cases) {
      const res = await history(query);
      expect(res.statusCode, query).toBe(400);
      const body = expectError(res, 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
      expect(body).not.toHaveProperty('data');
      expect(body.error.message, query).toBe(message);
    }
    expect(f.balance('cbu')).toBe(balance);
    expect((await history()).json().pagination.total).toBe(total);
  });

  it('400 INVALID_PARAMETER for an instant on a day that does not exist (2026-02-30T…, 2026-04-31T…)', async () => {
    for (const query of ['from=2026-02-30T10:00:00Z', 'to=2026-04-31T00:00:00.000Z', 'from=2026-02-29T00:00:00Z&to=2026-03-31T00:00:00Z']) {
      const res = await history(query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expectError(res, 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
    }
  });

  it('401 UNAUTHORIZED without a valid key', async () => {
    for (const headers of [{}, auth(`sk_test_${'q'.repeat(32)}`)]) {
      const res = await f.app.inject({ url: '/api/v1/history', headers });
      expectError(res, 401, 'UNAUTHORIZED', { creditsRemaining: 'absent' });
    }
  });

  it('403 FORBIDDEN for an Informes key (even with the history scope) and for a key without the history scope', async () => {
    // Keys are no longer created so (key-lifecycle.test.ts), but a database may hold one from before.
    const informes = createKeyWithId(f, { product: 'informes', scopes: ['lookup', 'balance'] });
    f.titular.database.sqlite.prepare("UPDATE api_keys SET scopes = 'lookup,balance,history' WHERE id = ?").run(informes.id);
    const noScope = createKeyWithId(f, { scopes: ['lookup', 'balance'] });
    try {
      expectError(await history('', informes.secret), 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
      expectError(await history('', noScope.secret), 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
      // Authorization comes before parameter validation.
      expectError(await history('page=0', noScope.secret), 403, 'FORBIDDEN');
    } finally {
      revokeKey(f, informes.id);
      revokeKey(f, noScope.id);
    }
  });

  it('429 RATE_LIMITED past the burst, with Retry-After and RateLimit headers', async () => {
    const slow = createKeyWithId(f, { rateLimitPerSecond: 1 });
    try {
      let limited;
      let ok = 0;
      for (let i = 0; i < 23; i++) {
        const res = await history('', slow.secret);
        if (res.statusCode === 200) ok++;
        else limited ??= res;
      }
      expect(ok).toBeGreaterThanOrEqual(20);
      expect(ok).toBeLessThanOrEqual(21);
      expectError(limited!, 429, 'RATE_LIMITED', { creditsRemaining: 'absent' });
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited!.headers['ratelimit-limit']).toBe('20');
      expect(limited!.headers['ratelimit-remaining']).toBe('0');
    } finally {
      revokeKey(f, slow.id);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Rows with controlled times (written through the core): filters and pagination math.
// ---------------------------------------------------------------------------------------------
describe('GET /api/v1/history filters and pagination', () => {
  let h: Fixture;
  let key: string;
  const FILLER = 18;
  /** Ids by label, for the rows whose times matter. */
  const ids: Record<string, string> = {};
  let allIdsNewestFirst: string[] = [];

  beforeAll(async () => {
    h = await createFixture({ credits: { cbu: 5 } });
    key = h.createKey({ rateLimitPerSecond: 1000 });
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let i = 0; i < FILLER; i++) {
      recordLookup(h, { createdAt: base + i * 60_000, status: i % 3 === 0 ? 'ERROR' : 'SUCCESS', source: 'API' });
    }
    ids.day9Last = recordLookup(h, { createdAt: '2026-03-09T23:59:59.999Z', status: 'SUCCESS', source: 'API' });
    ids.day10First = recordLookup(h, { createdAt: '2026-03-10T00:00:00.000Z', status: 'ERROR', source: 'WEB' });
    ids.day10Noon = recordLookup(h, { createdAt: '2026-03-10T12:00:00.000Z', status: 'SUCCESS', source: 'BULK' });
    ids.day10Last = recordLookup(h, { createdAt: '2026-03-10T23:59:59.999Z', status: 'SUCCESS', source: 'WEB' });
    ids.day11First = recordLookup(h, { createdAt: '2026-03-11T00:00:00.000Z', status: 'ERROR', source: 'API' });
    // Two rows at the same instant: ties are broken by id, descending.
    ids.tieA = recordLookup(h, { createdAt: '2026-03-12T08:00:00.000Z', id: '019cc000-0000-7000-8000-00000000000a' });
    ids.tieB = recordLookup(h, { createdAt: '2026-03-12T08:00:00.000Z', id: '019cc000-0000-7000-8000-00000000000b' });
    // Rows that a live CBU key must never see.
    recordLookup(h, { createdAt: '2026-03-10T12:00:00.000Z', environment: 'sandbox' });
    recordLookup(h, { createdAt: '2026-03-10T12:00:00.000Z', product: 'informes', inputType: 'CUIT', inputIdentifier: '20287654325' });
    const all = (await page('per_page=50')).json();
    allIdsNewestFirst = all.data.map((e: Entry) => e.id);
  });
  afterAll(() => h.close());

  const TOTAL = FILLER + 7;
  const page = (query = '') => h.app.inject({ url: `/api/v1/history${query ? `?${query}` : ''}`, headers: auth(key) });
  const parse = async (query: string) => {
    const res = await page(query);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return responseSchema.parse(res.json());
  };

  it('defaults: page 1, per_page 10, newest first with ties broken by id descending', async () => {
    const body = await parse('');
    expect(body.pagination).toEqual({ page: 1, per_page: 10, total: TOTAL, total_pages: Math.ceil(TOTAL / 10) });
    expect(body.data).toHaveLength(10);
    expect(body.data.slice(0, 7).map((e) => e.id)).toEqual([ids.tieB, ids.tieA, ids.day11First, ids.day10Last, ids.day10Noon, ids.day10First, ids.day9Last]);
    expect(body.data[0]!.createdAt).toBe('2026-03-12T08:00:00.000Z');
    expect(body.data[3]!.createdAt).toBe('2026-03-10T23:59:59.999Z');
    expect(allIdsNewestFirst).toHaveLength(TOTAL);
    const times = (await parse('per_page=50')).data.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('pagination: total_pages = ceil(total / per_page), pages partition the list, a page past the end is empty', async () => {
    for (const perPage of [1, 7, 10, 25, 50]) {
      const pages = Math.ceil(TOTAL / perPage);
      const seen: string[] = [];
      for (let p = 1; p <= pages; p++) {
        const body = await parse(`page=${p}&per_page=${perPage}`);
        expect(body.pagination).toEqual({ page: p, per_page: perPage, total: TOTAL, total_pages: pages });
        expect(body.data).toHaveLength(p < pages ? perPage : TOTAL - perPage * (pages - 1));
        seen.push(...body.data.map((e) => e.id));
      }
      expect(seen).toEqual(allIdsNewestFirst);
      const past = await parse(`page=${pages + 1}&per_page=${perPage}`);
      expect(past).toEqual({ data: [], pagination: { page: pages + 1, per_page: perPage, total: TOTAL, total_pages: pages } });
    }
  });

  it('a very large page number is past the end, not a server error', async () => {
    for (const p of ['1000000', '9007199254740993', '99999999999999999999', `1${'0'.repeat(400)}`]) {
      const res = await page(`page=${p}`);
      expect(res.statusCode, `page=${p}: ${res.body}`).not.toBe(500);
      if (res.statusCode === 200) expect(res.json().data).toEqual([]);
      else expectError(res, 400, 'INVALID_PARAMETER');
    }
  });

  it('status and source filters', async () => {
    const errors = await parse('status=ERROR&per_page=50');
    const expectedErrors = Math.ceil(FILLER / 3) + 2;
    expect(errors.pagination.total).toBe(expectedErrors);
    expect(errors.data.every((e) => e.status === 'ERROR')).toBe(true);
    const successes = await parse('status=SUCCESS&per_page=50');
    expect(successes.pagination.total).toBe(TOTAL - expectedErrors);
    expect(successes.data.every((e) => e.status === 'SUCCESS')).toBe(true);

    const web = await parse('source=WEB');
    expect(web.data.map((e) => e.id)).toEqual([ids.day10Last, ids.day10First]);
    expect(web.data.every((e) => e.source === 'WEB')).toBe(true);
    const bulk = await parse('source=BULK');
    expect(bulk.data.map((e) => e.id)).toEqual([ids.day10Noon]);
    expect((await parse('source=API')).pagination.total).toBe(TOTAL - 3);

    const combined = await parse('source=WEB&status=ERROR');
    expect(combined.data.map((e) => e.id)).toEqual([ids.day10First]);
    expect(combined.pagination).toEqual({ page: 1, per_page: 10, total: 1, total_pages: 1 });
  });

  it('from/to as dates: from is 00:00:00.000Z of that day, to includes the whole day', async () => {
    const day10 = await parse('from=2026-03-10&to=2026-03-10');
    expect(day10.data.map((e) => e.id)).toEqual([ids.day10Last, ids.day10Noon, ids.day10First]);
    expect(day10.pagination.total).toBe(3);

    const fromDay10 = await parse('from=2026-03-10');
    expect(fromDay10.data.map((e) => e.id)).toEqual([ids.tieB, ids.tieA, ids.day11First, ids.day10Last, ids.day10Noon, ids.day10First]);

    const toDay9 = await parse('to=2026-03-09&per_page=50');
    expect(toDay9.pagination.total).toBe(FILLER + 1);
    expect(toDay9.data[0]!.id).toBe(ids.day9Last);

    const range = await parse('from=2026-03-09&to=2026-03-11');
    expect(range.data.map((e) => e.id)).toEqual([ids.day11First, ids.day10Last, ids.day10Noon, ids.day10First, ids.day9Last]);

    const empty = await parse('from=2026-02-01&to=2026-02-28');
    expect(empty).toEqual({ data: [], pagination: { page: 1, per_page: 10, total: 0, total_pages: 0 } });
  });

  it('from/to as instants (inclusive), with Z or an offset', async () => {
    const window = await parse('from=2026-03-10T00:00:00.000Z&to=2026-03-10T12:00:00Z');
    expect(window.data.map((e) => e.id)).toEqual([ids.day10Noon, ids.day10First]);

    const after = await parse('from=2026-03-10T00:00:00.001Z&to=2026-03-10T23:59:59.998Z');
    expect(after.data.map((e) => e.id)).toEqual([ids.day10Noon]);

    const exact = await parse('from=2026-03-10T12:00:00Z&to=2026-03-10T12:00:00Z');
    expect(exact.data.map((e) => e.id)).toEqual([ids.day10Noon]);

    // 09:00 at -03:00 is 12:00Z.
    const offset = await parse(`from=${encodeURIComponent('2026-03-10T09:00:00-03:00')}&to=${encodeURIComponent('2026-03-10T20:59:59.999-03:00')}`);
    expect(offset.data.map((e) => e.id)).toEqual([ids.day10Last, ids.day10Noon]);

    const mixed = await parse('from=2026-03-10T12:00:00Z&to=2026-03-11');
    expect(mixed.data.map((e) => e.id)).toEqual([ids.day11First, ids.day10Last, ids.day10Noon]);

    const filtered = await parse('from=2026-03-10&to=2026-03-10&status=SUCCESS&per_page=1&page=2');
    expect(filtered).toMatchObject({ pagination: { page: 2, per_page: 1, total: 2, total_pages: 2 } });
    expect(filtered.data.map((e) => e.id)).toEqual([ids.day10Noon]);
  });
});

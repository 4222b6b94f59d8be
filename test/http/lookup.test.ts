// GET and POST /api/v1/lookup: every status code the endpoint can answer, the exact result shape,
// and the credit each outcome consumes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from '../support/directory-data';
import { lookupResultSchema } from '../../src/shared/api/lookup';
import { errorBodySchema } from '../../src/shared/api/common';
import { expectError, postJson } from '../support/http-helpers';

let f: Fixture;
let key: string;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 100, informes: 5 } });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey({ rateLimitPerSecond: 1000 });
});
afterAll(() => f.close());

const get = (query: string, headers: Record<string, string> = auth(key)) =>
  f.app.inject({ method: 'GET', url: `/api/v1/lookup?${query}`, headers });

describe('GET /api/v1/lookup', () => {
  it('200: resolves a directory CBU to the contract shape and takes one credit', async () => {
    const before = f.balance('cbu');
    const res = await get(`identifier=${DIR.individual.cbu}&type=cbu`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(lookupResultSchema.strict().parse(body)).toBeTruthy();
    expect(body.data).toEqual({
      holders: [{ full_name: 'Lucía Luna', tax_id: DIR.individual.taxId, tax_id_type: 'CUIL', is_individual: true }],
      account_type: 'CA',
      active: true,
      currency: 'ARS',
      alias: 'LUNA.RIO.MAR',
      account: { scheme: 'CBU', number: DIR.individual.cbu },
      bank: { name: 'Banco de la Ciudad de Buenos Aires', code: '029' },
    });
    expect(body.credits_remaining).toBe(before - 1);
    expect(f.balance('cbu')).toBe(before - 1);
    expect(res.headers['request-id']).toBe(body.request_id);
    expect(body.request_id).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('200: resolves an alias case-insensitively, a joint account, a CVU and a legal entity', async () => {
    const alias = await get(`identifier=luna.rio.mar&type=alias`);
    expect(alias.statusCode).toBe(200);
    expect(alias.json().data.account.number).toBe(DIR.individual.cbu);

    const joint = (await get(`identifier=${DIR.joint.cbu}&type=cbu`)).json();
    expect(joint.data.holders.map((h: { full_name: string }) => h.full_name)).toEqual(['Pablo Ríos', 'Inés Ríos']);
    expect(joint.data).toMatchObject({ active: false, currency: 'USD', alias: '' });

    const wallet = (await get(`identifier=${DIR.wallet.cbu}&type=cbu`)).json();
    expect(wallet.data.account).toEqual({ scheme: 'CVU', number: DIR.wallet.cbu });
    expect(wallet.data.account_type).toBe('VIRTUAL');

    const company = (await get(`identifier=${DIR.company.alias}&type=alias`)).json();
    expect(company.data.holders[0]).toMatchObject({ full_name: 'Distribuidora Sur, S.R.L.', tax_id_type: 'CUIT', is_individual: false });
  });

  it('400 PA006: special characters are rejected (contract §4.1), not stripped; charged; the history keeps what was sent', async () => {
    const sent = [
      [`${DIR.individual.cbu.slice(0, 8)} - ${DIR.individual.cbu.slice(8)}`, 'cbu', 'CBU must be exactly 22 digits, without spaces, dashes or other characters'],
      [`${DIR.individual.cbu.slice(0, 8)}-${DIR.individual.cbu.slice(8)}`, 'cbu', 'CBU must be exactly 22 digits, without spaces, dashes or other characters'],
      [` ${DIR.individual.cbu}`, 'cbu', 'CBU must be exactly 22 digits, without spaces, dashes or other characters'],
      [` ${DIR.company.alias} `, 'alias', 'Alias may only contain letters (a-z, no accents or ñ), digits and dots'],
      [DIR.individual.cbu, 'CBU', 'type must be cbu or alias'],
      [DIR.company.alias, ' alias', 'type must be cbu or alias'],
    ] as const;
    for (const [identifier, type, message] of sent) {
      const before = f.balance('cbu');
      const res = await get(`identifier=${encodeURIComponent(identifier)}&type=${encodeURIComponent(type)}`);
      expect(res.statusCode, `${identifier}/${type}`).toBe(400);
      expect(errorBodySchema.parse(res.json())).toMatchObject({ error: { code: 'PA006', message }, credits_remaining: before - 1 });
      expect(f.balance('cbu')).toBe(before - 1);
    }
    const stored = f.titular.database.sqlite.prepare('SELECT input_identifier FROM lookups ORDER BY id DESC LIMIT ?').pluck().all(sent.length).reverse();
    expect(stored).toEqual(sent.map(([identifier]) => identifier));
  });

  it('400 PA006: bad check digit, wrong length, letters, bad alias, bad or missing type; each consumes a credit', async () => {
    const cases = [
      `identifier=${breakCheckDigit(DIR.individual.cbu)}&type=cbu`,
      `identifier=${DIR.individual.cbu.slice(1)}&type=cbu`,
      `identifier=01100013000000123456AB&type=cbu`,
      `identifier=abc&type=alias`,
      `identifier=con-guion.x&type=alias`,
      `identifier=${'a'.repeat(21)}&type=alias`,
      `identifier=${DIR.individual.cbu}&type=iban`,
      `identifier=${DIR.individual.cbu}`,
      `type=cbu`,
    ];
    for (const query of cases) {
      const before = f.balance('cbu');
      const res = await get(query);
      expect(res.statusCode, query).toBe(400);
      const body = errorBodySchema.parse(res.json());
      expect(body.error.code).toBe('PA006');
      expect(body.credits_remaining).toBe(before - 1);
      expect(f.balance('cbu')).toBe(before - 1);
    }
  });

  it('400 PA006 says what is wrong with a field sent twice or not as text, instead of "is required"', async () => {
    const cases: [string, string][] = [
      [`identifier=${DIR.individual.cbu}&identifier=${DIR.company.cbu}&type=cbu`, 'identifier must be given once'],
      [`identifier=${DIR.individual.cbu}&type=cbu&type=alias`, 'type must be given once'],
      ['type=cbu', 'identifier is required (a CBU/CVU or a bank alias)'],
    ];
    for (const [query, message] of cases) expect(errorBodySchema.parse((await get(query)).json()).error.message, query).toBe(message);
    const posted = await postJson(f, '/api/v1/lookup', { identifier: 12345, type: 'cbu' }, auth(key));
    expectError(posted, 400, 'PA006');
    expect(posted.json().error.message).toBe('identifier must be a string');
  });

  it('404 PA011: a valid identifier that is not in the directory consumes a credit', async () => {
    for (const query of [`identifier=${DIR.missing.cbu}&type=cbu`, `identifier=${DIR.missing.alias}&type=alias`]) {
      const before = f.balance('cbu');
      const res = await get(query);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PA011', message: expect.any(String) },
        credits_remaining: before - 1,
        request_id: res.headers['request-id'],
      });
    }
  });

  it('401 UNAUTHORIZED: missing, malformed and unknown keys; nothing consumed', async () => {
    const before = f.balance('cbu');
    const headers: Record<string, string>[] = [
      {},
      { authorization: key },
      { authorization: 'Bearer sk_live_short' },
      { authorization: `Basic ${key}` },
      auth(`sk_live_${'A'.repeat(32)}`),
    ];
    for (const h of headers) {
      const res = await get(`identifier=${DIR.individual.cbu}&type=cbu`, h);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
      expect(res.json()).not.toHaveProperty('credits_remaining');
    }
    expect(f.balance('cbu')).toBe(before);
  });

  it('403 FORBIDDEN: an Informes key, a key without the lookup scope, an IP outside the whitelist', async () => {
    const before = f.balance('cbu');
    const informes = f.createKey({ product: 'informes', scopes: ['lookup', 'balance'] });
    const noScope = f.createKey({ scopes: ['balance'] });
    const elsewhere = f.createKey({ ipWhitelist: ['10.0.0.0/8'] });
    for (const k of [informes, noScope, elsewhere]) {
      const res = await get(`identifier=${DIR.individual.cbu}&type=cbu`, auth(k));
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    expect(f.balance('cbu')).toBe(before);
    for (const k of [informes, noScope, elsewhere]) {
      const id = f.titular.keys.list(f.orgId).find((v) => k.startsWith(v.prefix.slice(0, -1)))!.id;
      f.titular.keys.revoke(f.orgId, id, f.adminId);
    }
  });

  it('403 then 200: the whitelist matches the IPv4 peer and its CIDR range', async () => {
    const local = f.createKey({ ipWhitelist: ['127.0.0.0/8'] });
    const res = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(local), remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(200);
    const mapped = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(local), remoteAddress: '::ffff:127.0.0.1' });
    expect(mapped.statusCode).toBe(200);
    f.titular.keys.revoke(f.orgId, f.titular.keys.list(f.orgId)[0]!.id, f.adminId);
  });

  it('429 RATE_LIMITED: past the burst, with Retry-After and RateLimit headers; nothing consumed', async () => {
    const slow = f.createKey({ rateLimitPerSecond: 1 });
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 25; i++) {
      const res = await get(`identifier=${DIR.missing.cbu}&type=cbu`, auth(slow));
      statuses.push(res.statusCode);
      if (res.statusCode === 429) limited ??= res;
    }
    // Burst of 20 (the minimum), then 429s; a 1/s refill may add at most one more in this loop.
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(20);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(21);
    expect(limited).toBeDefined();
    const before = f.balance('cbu');
    expect(limited!.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(limited!.json()).not.toHaveProperty('credits_remaining');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited!.headers['ratelimit-limit']).toBe('20');
    expect(limited!.headers['ratelimit-remaining']).toBe('0');
    const again = await get(`identifier=${DIR.missing.cbu}&type=cbu`, auth(slow));
    expect(again.statusCode).toBe(429);
    expect(f.balance('cbu')).toBe(before);
    f.titular.keys.revoke(f.orgId, f.titular.keys.list(f.orgId)[0]!.id, f.adminId);
  });

  it('402 INSUFFICIENT_CREDITS: at zero balance, before validation; nothing consumed or recorded', async () => {
    const g = await createFixture({ credits: { cbu: 1 } });
    try {
      g.importDirectory(DIRECTORY_CSV);
      const k = g.createKey();
      const first = await g.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(k) });
      expect(first.statusCode).toBe(200);
      expect(first.json().credits_remaining).toBe(0);
      for (const query of [`identifier=${DIR.individual.cbu}&type=cbu`, `identifier=bad&type=cbu`]) {
        const res = await g.app.inject({ url: `/api/v1/lookup?${query}`, headers: auth(k) });
        expect(res.statusCode).toBe(402);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'INSUFFICIENT_CREDITS', message: expect.any(String) },
          credits_remaining: 0,
          request_id: res.headers['request-id'],
        });
      }
      const history = await g.app.inject({ url: '/api/v1/history', headers: auth(k) });
      expect(history.json().pagination.total).toBe(1);
    } finally {
      await g.close();
    }
  });
});

describe('POST /api/v1/lookup', () => {
  const post = (payload: unknown, headers: Record<string, string> = auth(key)) =>
    f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

  it('200 with the same shape as GET', async () => {
    const res = await post({ identifier: DIR.company.cbu, type: 'cbu' });
    expect(res.statusCode).toBe(200);
    expect(lookupResultSchema.strict().parse(res.json()).data.account.number).toBe(DIR.company.cbu);
  });

  it('400 PA006 for an invalid identifier (charged); 400 INVALID_PARAMETER for a body that is not an object or not JSON (not charged)', async () => {
    let before = f.balance('cbu');
    const pa006 = await post({ identifier: 12345, type: 'cbu' });
    expect(pa006.statusCode).toBe(400);
    expect(pa006.json()).toMatchObject({ error: { code: 'PA006' }, credits_remaining: before - 1 });

    before = f.balance('cbu');
    for (const payload of ['[1,2]', '"x"', '{"identifier":', 'null']) {
      const res = await f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(key), 'content-type': 'application/json' }, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error.code).toBe('INVALID_PARAMETER');
    }
    const big = await post({ identifier: 'x'.repeat(20_000), type: 'alias' });
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toEqual({ code: 'INVALID_PARAMETER', message: 'The request body is too large: at most 16 KiB' });
    const text = await f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(key), 'content-type': 'text/plain' }, payload: 'hola' });
    expect(text.statusCode).toBe(415);
    expect(f.balance('cbu')).toBe(before);
  });

  it('400 PA006 for an empty body, with or without Content-Type: application/json (charged once each, as the GET without parameters)', async () => {
    const get = await f.app.inject({ url: '/api/v1/lookup', headers: auth(key) });
    const answers = [];
    for (const headers of [auth(key), { ...auth(key), 'content-type': 'application/json' }, { ...auth(key), 'content-type': 'application/json; charset=utf-8' }]) {
      const before = f.balance('cbu');
      const res = await f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers, payload: '' });
      expect(res.statusCode, JSON.stringify(headers)).toBe(400);
      expect(res.json()).toMatchObject({ error: { code: 'PA006' }, credits_remaining: before - 1 });
      answers.push(res.json().error.message);
    }
    expect(new Set(answers)).toEqual(new Set([get.json().error.message]));
    // Whitespace is a body, and not JSON: malformed, not charged.
    const before = f.balance('cbu');
    const blank = await f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(key), 'content-type': 'application/json' }, payload: ' \n' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.code).toBe('INVALID_PARAMETER');
    expect(f.balance('cbu')).toBe(before);
  });

  it('401 comes before a malformed body', async () => {
    const res = await f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { 'content-type': 'application/json' }, payload: '{oops' });
    expect(res.statusCode).toBe(401);
  });

  it('404 PA011 and 403 FORBIDDEN as for GET', async () => {
    expect((await post({ identifier: DIR.missing.alias, type: 'alias' })).statusCode).toBe(404);
    const informes = f.createKey({ product: 'informes', scopes: ['lookup'] });
    expect((await post({ identifier: DIR.company.cbu, type: 'cbu' }, auth(informes))).json().error.code).toBe('FORBIDDEN');
  });
});

// Fuzzing the HTTP surface with fast-check (fixed seeds, printed; TITULAR_SEED replays one):
//   - through Fastify's inject: random methods, paths, query strings (duplicated and bracketed
//     parameters, bad percent-encoding, huge values), Authorization headers (valid prefix + garbage,
//     unicode, 1 MB), Idempotency-Keys, Host headers, client addresses, content types and bodies
//     (invalid JSON, arrays, scalars, deep nesting, prototype keys, too large);
//   - over real sockets to the server process: malformed request lines and headers, random bytes.
// Properties: the process never crashes; every status is one the README documents for the API;
// every error is the documented body with Request-Id = request_id; a lookup's outcome is the one
// the shared validators predict; and the ledger's consumption equals exactly the answers the
// contract says consume (live key, 200 / PA006 / PA011, not a replay), counted from the responses.
import net from 'node:net';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from '../support/directory-data';
import { checkLedgerInvariants } from '../support/invariants';
import { REQUEST_ID } from '../support/http-helpers';
import { startServer } from '../support/processes';
import { errorBodySchema, type ErrorCode, type ProductSlug } from '../../src/shared/api/common';
import { lookupResultSchema } from '../../src/shared/api/lookup';
import { balanceResponseSchema } from '../../src/shared/api/balance';
import { historyResponseSchema } from '../../src/shared/api/history';
import { creditLookupResultSchema } from '../../src/shared/api/credit';
import { analyzeAlias, analyzeCbu, withCheckDigits } from '../../src/shared/identifiers';
import { SANDBOX_NOT_FOUND, SANDBOX_UPSTREAM_FAILURE } from '../../src/main/core/resolvers/sandbox-data';
import { bearer, Client, countOf, openDatabaseFile, prepareDataDir, seedFor } from './harness';

const SEED = seedFor('fuzz-http', 20_261_122);
const runs = (n: number) => ({ numRuns: n, seed: SEED, endOnFailure: true });

/** Statuses the README documents for the API (413/415: malformed bodies; 503: GE500 data source down). */
const DOCUMENTED = new Set([200, 400, 401, 402, 403, 404, 409, 413, 415, 429, 503]);
/** Before a request exists (raw sockets): malformed HTTP 400, URL segment too long 414, unmet Expect 417, headers too large 431. */
const DOCUMENTED_RAW = new Set([...DOCUMENTED, 414, 417, 431]);
const CODES_BY_STATUS: Record<number, ErrorCode[]> = {
  400: ['PA006', 'INVALID_PARAMETER'],
  401: ['UNAUTHORIZED'],
  402: ['INSUFFICIENT_CREDITS'],
  403: ['FORBIDDEN'],
  404: ['PA011', 'NOT_FOUND'],
  409: ['IDEMPOTENCY_CONFLICT'],
  413: ['INVALID_PARAMETER'],
  414: ['INVALID_PARAMETER'],
  415: ['INVALID_PARAMETER'],
  417: ['INVALID_PARAMETER'],
  429: ['RATE_LIMITED'],
  431: ['INVALID_PARAMETER'],
  503: ['GE500'],
};

interface FuzzKey {
  label: string;
  secret: string;
  environment: 'live' | 'sandbox';
  product: ProductSlug;
}

let f: Fixture;
const keys: FuzzKey[] = [];
/** Credits the contract says were consumed, per product, counted from the answers. */
const expectedConsumption: Record<ProductSlug, number> = { cbu: 0, informes: 0 };
const seenStatuses = new Map<number, number>();

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 1_000_000, informes: 1_000_000 } });
  f.importDirectory(DIRECTORY_CSV);
  const add = (label: string, input: Parameters<Fixture['createKey']>[0] & { environment: 'live' | 'sandbox'; product: ProductSlug }) => {
    const secret = f.createKey({ rateLimitPerSecond: 10_000, ...input });
    keys.push({ label, secret, environment: input.environment, product: input.product });
    return secret;
  };
  add('live cbu', { environment: 'live', product: 'cbu' });
  add('sandbox cbu', { environment: 'sandbox', product: 'cbu' });
  add('live informes', { environment: 'live', product: 'informes', scopes: ['lookup', 'balance'] });
  add('sandbox informes', { environment: 'sandbox', product: 'informes', scopes: ['lookup', 'balance'] });
  add('live cbu, balance scope only', { environment: 'live', product: 'cbu', scopes: ['balance'] });
  add('live cbu, whitelist 10.0.0.0/8', { environment: 'live', product: 'cbu', ipWhitelist: ['10.0.0.0/8'] });
  const revoked = f.titular.keys.create({ orgId: f.orgId, ownerUserId: f.adminId, actorUserId: f.adminId, product: 'cbu', scopes: ['lookup'], environment: 'live' });
  f.titular.keys.revoke(f.orgId, revoked.key.id, f.adminId);
  keys.push({ label: 'revoked', secret: revoked.secret, environment: 'live', product: 'cbu' });
});

afterAll(async () => {
  process.stdout.write(`[fuzz-http] statuses seen: ${JSON.stringify(Object.fromEntries([...seenStatuses].sort((a, b) => a[0] - b[0])))}\n`);
  await f?.close();
});

// ---------------------------------------------------------------------------------------------
// Generators

const HUGE = 1 << 20;
const hugeStrings = fc.constantFrom('x'.repeat(HUGE), '1'.repeat(HUGE), 'ñ'.repeat(HUGE / 2), '%00'.repeat(HUGE / 3));
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', '%00', '\u202e', '../..', "' OR 1=1 --", '{{7*7}}', 'null', 'undefined', '[object Object]'),
);

/** Identifiers: directory hits and misses, broken check digits, pasted forms, aliases, garbage, huge. */
const identifier = fc.oneof(
  { depthSize: 'small' },
  { weight: 3, arbitrary: fc.constantFrom(DIR.individual.cbu, DIR.company.cbu, DIR.wallet.cbu, DIR.missing.cbu, breakCheckDigit(DIR.joint.cbu)) },
  { weight: 3, arbitrary: fc.constantFrom(DIR.individual.alias, DIR.individual.alias.toLowerCase(), ` ${DIR.company.alias} `, DIR.missing.alias) },
  { weight: 3, arbitrary: fc.constantFrom(SANDBOX_NOT_FOUND.cbu, SANDBOX_UPSTREAM_FAILURE.cbu, SANDBOX_UPSTREAM_FAILURE.alias) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('011', '285', '000', '999'), fc.stringMatching(/^\d{4}$/), fc.stringMatching(/^\d{13}$/)).map(([b, s, a]) => withCheckDigits(b, s, a)) },
  { weight: 3, arbitrary: fc.constantFrom(DIR.company.cbu).map((cbu) => `${cbu.slice(0, 8)} ${cbu.slice(8, 14)}-${cbu.slice(14)}`) },
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9.]{1,24}$/) },
  { weight: 3, arbitrary: fc.stringMatching(/^\d{18,26}$/) },
  { weight: 3, arbitrary: text },
  { weight: 1, arbitrary: hugeStrings },
);
const lookupType = fc.oneof(fc.constantFrom('cbu', 'alias', 'CBU', ' Alias ', 'cvu', 'iban', '', 'cbu\u0000'), text);

/** A value of any JSON type, to put where a string belongs. */
const wrongType = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }));

type QueryPairs = [string, string][];

const historyParam = fc.oneof(
  fc.tuple(fc.constantFrom('page', 'per_page'), fc.oneof(fc.constantFrom('0', '1', '2', '50', '51', '-1', '1.5', '1e3', '999999999999999999', ' 1', '0x10', ''), text)),
  fc.tuple(fc.constantFrom('from', 'to'), fc.oneof(fc.constantFrom('2026-11-01', '2026-02-30', '2026-11-01T10:00:00Z', '2026-11-01T10:00Z', '20261101', 'yesterday', ''), text)),
  fc.tuple(fc.constantFrom('status', 'source'), fc.oneof(fc.constantFrom('SUCCESS', 'ERROR', 'API', 'WEB', 'BULK', 'success', ''), text)),
  fc.tuple(fc.constantFrom('q', 'identifier', 'page[]', 'page[a]', 'per_page.x', '__proto__', 'constructor'), text),
);
const anyParam = fc.oneof(
  fc.tuple(fc.constantFrom('identifier', 'type', 'identifier[]', 'identifier[0]', 'identifier[a][b]'), fc.oneof(identifier, lookupType)),
  historyParam,
  fc.tuple(text, text),
);

/** Encodes a query string; `raw` values go through unencoded (bad percent-escapes included). */
function queryString(pairs: QueryPairs, raw: string[] = []): string {
  const parts = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).concat(raw);
  return parts.length ? `?${parts.join('&')}` : '';
}
const rawQueryBits = fc.array(fc.constantFrom('%zz', '%00', '%E0%A4%A', 'a=%', '&&', '=', 'identifier', 'type=cbu&type=alias', '%2e%2e%2f', 'x=' + '%41'.repeat(1000)), { maxLength: 3 });

const authorization = (secrets: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...secrets).map((s) => `Bearer ${s}`) },
    fc.constantFrom(...secrets).chain((s) =>
      fc.constantFrom(`bearer ${s}`, `BEARER   ${s}  `, s, `Basic ${s}`, `Bearer ${s}x`, `Bearer ${s.slice(0, -1)}`, `Bearer ${s} ${s}`, `Bearer\t${s}`, `Bearer ${s.toUpperCase()}`, `Token ${s}`),
    ),
    fc.string({ maxLength: 40 }).map((g) => `Bearer sk_live_${g}`),
    fc.string({ unit: 'grapheme', maxLength: 40 }).map((g) => `Bearer ${g}`),
    fc.stringMatching(/^sk_(live|test)_[A-Za-z0-9]{32}$/).map((s) => `Bearer ${s}`),
    fc.constantFrom('', 'Bearer', 'Bearer ', 'Bearer sk_live_', `Bearer ${'A'.repeat(HUGE)}`, `Bearer sk_test_${'9'.repeat(HUGE)}`),
  );

const host = fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, fc.constantFrom('127.0.0.1:8787', '[::1]:8787', 'LOCALHOST', 'evil.example', '127.0.0.1.evil.example', 'localhost:80@evil', '[::1].evil', ''));
const remoteAddress = fc.oneof(
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`),
  fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `::ffff:10.0.${a}.${b}`),
  fc.constantFrom('::1', '192.168.1.10', '2001:db8::1'),
);
const idempotencyKey = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3') }, fc.constantFrom('', 'a b', 'ñandú', 'x'.repeat(300), '\u0000'));

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=utf-16', 'application/jsonx', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', ''),
  fc.constant(undefined),
  text,
);
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const body = fc.oneof(
  { weight: 4, arbitrary: fc.record({ identifier: fc.oneof(identifier, wrongType), type: fc.oneof(lookupType, wrongType) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: fc.record({ tax_id: fc.oneof(fc.constantFrom('20-28765432-5', '30-71234567-1', '30500012346', '33999999994', '20-28765432-6'), text, wrongType) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)) },
  fc.jsonValue().map((v) => JSON.stringify(v)),
  text,
  fc.constantFrom('', '{', '{"identifier":', 'null', '[]', '"cbu"', '42', deep(3000), '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', JSON.stringify({ identifier: 'x'.repeat(20_000), type: 'alias' })),
  fc.constant(undefined),
);

const method = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST') }, fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE'));
const path = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('/api/v1/lookup', '/api/v1/credit/lookup', '/api/v1/balance', '/api/v1/history') },
  fc.constant('/api/v1/openapi.json'),
  fc.constantFrom('/', '/api/v1', '/api/v1/', '/api/v1/lookup/', '/API/V1/LOOKUP', '//api/v1/lookup', '/api/v1/../v1/balance', '/api/v1/%2e%2e/balance', '/api/v1/lookup%00', '/api/v1/%zz', '/api/v2/lookup', '/bridge/keys.list', `/api/v1/${'a'.repeat(5000)}`),
  fc.string({ maxLength: 30 }).map((s) => `/api/v1/${encodeURIComponent(s)}`),
);

interface FuzzRequest {
  method: string;
  path: string;
  query: QueryPairs;
  rawQuery: string[];
  authorization: string | undefined;
  host: string | undefined;
  remoteAddress: string;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  body: string | undefined;
}

/** Any request at all; built once the keys exist, since most requests present one of them. */
const anyRequest = (): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    method,
    path,
    query: fc.array(anyParam, { maxLength: 5 }),
    rawQuery: rawQueryBits,
    authorization: fc.option(authorization(keys.map((k) => k.secret)), { nil: undefined, freq: 8 }),
    host,
    remoteAddress,
    idempotencyKey,
    contentType,
    body,
  });

/** The key a server reading this Authorization header must find (its own rule: Bearer, exact secret). */
function presentedKey(header: string | undefined): FuzzKey | null {
  const secret = header === undefined ? undefined : /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1];
  return keys.find((k) => k.secret === secret) ?? null;
}

// ---------------------------------------------------------------------------------------------
// Checks

async function send(req: FuzzRequest): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (req.authorization !== undefined) headers.authorization = req.authorization;
  if (req.host !== undefined) headers.host = req.host;
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  return f.app.inject({
    method: req.method as 'GET',
    url: req.path + queryString(req.query, req.rawQuery),
    headers,
    remoteAddress: req.remoteAddress,
    ...(req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD' ? { payload: req.body } : {}),
  });
}

/**
 * The response invariants of every request, and the contract's charge for it (counted into
 * `expectedConsumption`): a live key, a lookup answered 200, PA006 or PA011, and not a replay.
 */
function checkResponse(method: string, authorizationHeader: string | undefined, res: LightMyRequestResponse): void {
  seenStatuses.set(res.statusCode, (seenStatuses.get(res.statusCode) ?? 0) + 1);
  expect(DOCUMENTED.has(res.statusCode), `undocumented status ${res.statusCode}: ${res.body.slice(0, 300)}`).toBe(true);
  const requestId = res.headers['request-id'];
  expect(requestId, 'Request-Id header').toMatch(REQUEST_ID);
  if (method === 'HEAD') return;
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const json = JSON.parse(res.body) as Record<string, unknown>;
  const replayed = res.headers['idempotent-replayed'] === 'true';
  const key = presentedKey(authorizationHeader);
  const live = key?.environment === 'live';

  if (res.statusCode >= 400) {
    const error = errorBodySchema.strict().parse(json);
    expect(error.request_id).toBe(requestId);
    expect(CODES_BY_STATUS[res.statusCode], `${res.statusCode} ${error.error.code}`).toContain(error.error.code);
    expect(error.error.message.length).toBeGreaterThan(0);
    // PA006 and PA011 come only from a lookup route of the key's own product.
    const consumes = (error.error.code === 'PA006' || error.error.code === 'PA011') && live;
    // credits_remaining: present exactly when the error consumed a credit, and on 402.
    expect('credits_remaining' in error, `${error.error.code} credits_remaining`).toBe(consumes || res.statusCode === 402);
    if (consumes && !replayed) expectedConsumption[key!.product]++;
    return;
  }
  expect(res.statusCode).toBe(200);
  if ('openapi' in json) {
    // The API's own description, served without a key: nothing to charge.
    expect(typeof json.openapi).toBe('string');
  } else if ('balances' in json) {
    balanceResponseSchema.strict().parse(json);
  } else if ('pagination' in json) {
    historyResponseSchema.strict().parse(json);
  } else {
    const product: ProductSlug = (json.data as Record<string, unknown> | undefined)?.subject ? 'informes' : 'cbu';
    const parsed = (product === 'cbu' ? lookupResultSchema : creditLookupResultSchema).strict().parse(json);
    expect(key?.product).toBe(product);
    if (!replayed) {
      expect(parsed.request_id).toBe(requestId);
      if (live) expectedConsumption[product]++;
    }
  }
}

function consumed(product: ProductSlug): number {
  return countOf(f.titular.database.sqlite, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption' AND product = ?", product);
}

function expectLedgerMatchesAnswers(): void {
  f.titular.commits.flush();
  expect({ cbu: consumed('cbu'), informes: consumed('informes') }).toEqual(expectedConsumption);
  checkLedgerInvariants(f.titular.database.sqlite);
}

/** A short, safe rendering of any generated value for failure messages. */
const describe_ = (value: unknown) => (JSON.stringify(value) ?? 'undefined').slice(0, 80);

/** What the shared validators predict for a CBU lookup of (identifier, type) with a live key. */
function predictLookup(identifierValue: unknown, typeValue: unknown): { status: 200 | 400 | 404; number?: string } {
  const raw = typeof identifierValue === 'string' ? identifierValue : '';
  if (raw.trim() === '') return { status: 400 };
  // Contract §4.1 to the letter: `type` exactly cbu or alias; a CBU of digits only (the shared
  // validator would strip pasted separators, which the API rejects); an alias as sent, untrimmed.
  const type = typeof typeValue === 'string' ? typeValue : '';
  const directoryNumbers = new Set([DIR.individual.cbu, DIR.company.cbu, DIR.joint.cbu, DIR.wallet.cbu]);
  if (type === 'cbu') {
    if (!/^[0-9]*$/.test(raw)) return { status: 400 };
    const analysis = analyzeCbu(raw);
    if (!analysis.ok) return { status: 400 };
    return directoryNumbers.has(analysis.number) ? { status: 200, number: analysis.number } : { status: 404 };
  }
  if (type === 'alias') {
    const analysis = analyzeAlias(raw, { exact: true });
    if (!analysis.ok) return { status: 400 };
    const aliases: Record<string, string> = { [DIR.individual.alias.toLowerCase()]: DIR.individual.cbu, [DIR.company.alias]: DIR.company.cbu, [DIR.wallet.alias]: DIR.wallet.cbu };
    const number = aliases[analysis.key];
    return number ? { status: 200, number } : { status: 404 };
  }
  return { status: 400 };
}

// ---------------------------------------------------------------------------------------------

describe('fuzzing the HTTP API through inject', () => {
  it('any request: documented status and body, Request-Id = request_id, charges only where the contract says', async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest(), async (req) => {
        checkResponse(req.method, req.authorization, await send(req));
      }),
      runs(500),
    );
    expectLedgerMatchesAnswers();
  });

  it('lookup inputs (GET query, POST JSON) with a live key: the outcome the shared validators predict, charged once', async () => {
    const live = keys.find((k) => k.label === 'live cbu')!;
    const input = fc.record({
      identifier: fc.oneof({ weight: 5, arbitrary: identifier }, wrongType, fc.constant(undefined)),
      type: fc.oneof({ weight: 5, arbitrary: lookupType }, wrongType, fc.constant(undefined)),
      viaGet: fc.boolean(),
      duplicate: fc.constantFrom(null, 'identifier', 'type'),
    });
    await fc.assert(
      fc.asyncProperty(input, async ({ identifier: id, type, viaGet, duplicate }) => {
        let res: LightMyRequestResponse;
        let prediction: ReturnType<typeof predictLookup>;
        if (viaGet) {
          // A query string carries only strings; a repeated parameter arrives as an array.
          const pairs: QueryPairs = [];
          const idString = id === undefined ? undefined : typeof id === 'string' ? id : JSON.stringify(id);
          const typeString = type === undefined ? undefined : typeof type === 'string' ? type : JSON.stringify(type);
          if (idString !== undefined) pairs.push(['identifier', idString]);
          if (typeString !== undefined) pairs.push(['type', typeString]);
          if (duplicate === 'identifier' && idString !== undefined) pairs.push(['identifier', idString]);
          if (duplicate === 'type' && typeString !== undefined) pairs.push(['type', typeString]);
          prediction = predictLookup(duplicate === 'identifier' ? [idString] : idString, duplicate === 'type' ? [typeString] : typeString);
          res = await f.app.inject({ method: 'GET', url: `/api/v1/lookup${queryString(pairs)}`, headers: bearer(live.secret) });
        } else {
          prediction = predictLookup(id, type);
          res = await f.app.inject({
            method: 'POST',
            url: '/api/v1/lookup',
            headers: { ...bearer(live.secret), 'content-type': 'application/json' },
            payload: JSON.stringify({ identifier: id, type }),
          });
        }
        checkResponse(viaGet ? 'GET' : 'POST', `Bearer ${live.secret}`, res);
        const tooLarge = !viaGet && Buffer.byteLength(JSON.stringify({ identifier: id, type })) > 16 * 1024;
        if (tooLarge) {
          expect(res.statusCode).toBe(413);
          return;
        }
        expect(res.statusCode, `${describe_(id)} / ${describe_(type)} via ${viaGet ? 'GET' : 'POST'} (duplicate: ${duplicate}) → ${res.body.slice(0, 200)}`).toBe(prediction.status);
        if (prediction.status === 200) expect((res.json() as { data: { account: { number: string } } }).data.account.number).toBe(prediction.number);
        if (prediction.status === 400) expect(res.json().error.code).toBe('PA006');
        if (prediction.status === 404) expect(res.json().error.code).toBe('PA011');
      }),
      runs(300),
    );
    expectLedgerMatchesAnswers();
  });

  it('Authorization headers: 200 only for an exact, valid, active key; otherwise 401 (or 429 after repeated failures)', async () => {
    const loopbackAddress = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`);
    await fc.assert(
      fc.asyncProperty(authorization(keys.map((k) => k.secret)), loopbackAddress, async (header, address) => {
        const res = await f.app.inject({ method: 'GET', url: '/api/v1/balance', headers: { authorization: header }, remoteAddress: address });
        checkResponse('GET', header, res);
        const presented = presentedKey(header);
        if (presented && presented.label !== 'revoked' && !presented.label.includes('whitelist')) {
          expect(res.statusCode, header.slice(0, 80)).toBe(200);
        } else if (presented?.label.includes('whitelist')) {
          expect(res.statusCode).toBe(403);
        } else {
          expect([401, 429], header.slice(0, 80)).toContain(res.statusCode);
        }
      }),
      runs(200),
    );
    // The balance reads above may not charge anything.
    const before = { ...expectedConsumption };
    expectLedgerMatchesAnswers();
    expect(expectedConsumption).toEqual(before);
  });

  it('history parameters: 200 with the documented page, or 400 INVALID_PARAMETER; never a charge', async () => {
    const live = keys.find((k) => k.label === 'live cbu')!;
    const before = { cbu: consumed('cbu'), informes: consumed('informes') };
    await fc.assert(
      fc.asyncProperty(fc.array(historyParam, { maxLength: 4 }), rawQueryBits, async (pairs, raw) => {
        const res = await f.app.inject({ method: 'GET', url: `/api/v1/history${queryString(pairs, raw)}`, headers: bearer(live.secret) });
        checkResponse('GET', `Bearer ${live.secret}`, res);
        expect([200, 400]).toContain(res.statusCode);
        if (res.statusCode === 400) expect(res.json().error.code).toBe('INVALID_PARAMETER');
        if (res.statusCode === 200) {
          const page = historyResponseSchema.parse(res.json());
          expect(page.data.length).toBeLessThanOrEqual(page.pagination.per_page);
          expect(page.pagination.per_page).toBeLessThanOrEqual(50);
        }
      }),
      runs(200),
    );
    expect({ cbu: consumed('cbu'), informes: consumed('informes') }).toEqual(before);
  });

  it('after the fuzzing the API still answers and the books balance', async () => {
    const live = keys.find((k) => k.label === 'live cbu')!;
    const res = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, headers: bearer(live.secret) });
    checkResponse('GET', `Bearer ${live.secret}`, res);
    expect(res.statusCode).toBe(200);
    expectLedgerMatchesAnswers();
    // The fuzzing reached the outcomes that matter.
    for (const status of [200, 400, 401, 403, 404, 413, 415]) expect(seenStatuses.get(status) ?? 0, `status ${status} seen`).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Raw sockets against the server process

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `data`, half-closes, and collects what comes back until the server closes (or 5 s pass). */
function rawExchange(port: number, data: Buffer): Promise<{ raw: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ raw: Buffer.concat(chunks).toString('latin1'), closed });
    };
    const timer = setTimeout(() => finish(false), 5_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.write(data, () => socket.end());
  });
}

/** Splits what came back into HTTP responses (Content-Length or chunked bodies; 1xx interim answers skipped). */
function parseResponses(raw: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw; // latin1: one character per byte
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) throw new Error(`truncated response head: ${rest.slice(0, 200)}`);
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const status = Number(statusLine!.split(' ')[1]);
    rest = rest.slice(headEnd + 4);
    if (status < 200) continue;
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
        if (size === 0 || Number.isNaN(size)) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    responses.push({ status, headers, body: Buffer.from(body, 'latin1').toString('utf8') });
  }
  expect(rest, 'nothing but HTTP responses on the wire').toBe('');
  return responses;
}

describe('fuzzing the server process over raw sockets', () => {
  let prepared: ReturnType<typeof prepareDataDir<'live'>>;
  beforeAll(() => {
    prepared = prepareDataDir({ keys: { live: {} }, credits: { cbu: 100 }, directoryCsv: DIRECTORY_CSV });
  });
  afterAll(() => rmSync(prepared.dataDir, { recursive: true, force: true }));

  it('malformed request lines, headers and random bytes: documented answers only, and the process lives on', async () => {
    const server = await startServer(['--port', '0', '--data-dir', prepared.dataDir]);
    try {
      const port = Number(new URL(server.url).port);
      const key = prepared.keys.live.secret;
      const fixed = [
        'HELLO\r\n\r\n',
        'GET\r\n\r\n',
        'GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n',
        'FOO /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
        'GET /api/v1/balance HTTP/1.1\r\n\r\n',
        'GET /api/v1/balance HTTP/1.0\r\n\r\n',
        `GET /api/v1/lookup?identifier=${'1'.repeat(20_000)}&type=cbu HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`,
        `GET /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'GET /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n',
        'GET /api/v1/bal\u0000ance HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
        `GET /api/v1/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`,
        `GET /bridge/${'x'.repeat(200)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
        `POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        `POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
        `POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}`,
        `POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n`,
        `POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}`,
        'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
        '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
        `GET http://evil.example/api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`,
        `GET /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\nGET /api/v1/balance HTTP/1.1\r\n\r\nGARBAGE\r\n\r\n`,
        `OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
        `CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
        `GET /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\n\r\n`,
        `POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}`,
        `GET /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
      ].map((s) => Buffer.from(s, 'latin1'));

      const token = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'G ET', 'get', '', 'POST\u0000');
      const target = fc.oneof(fc.constantFrom('/api/v1/lookup', '/api/v1/balance', '/', '*', 'http://127.0.0.1/api/v1/balance'), fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s) => `/${s}`));
      const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/1.2', 'HTTP/2', 'http/1.1', '', 'HTTP/1.1 extra');
      const headerLine = fc.oneof(
        fc.constantFrom('Host: 127.0.0.1', 'Host: evil.example', 'Host:', `Authorization: Bearer ${key}`, 'Authorization: Bearer', 'Content-Length: 0', 'Content-Length: abc', 'Transfer-Encoding: chunked', 'Content-Type: application/json', 'Connection: close', 'Expect: 100-continue', ' folded: header'),
        fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 12 }), fc.string({ unit: 'binary-ascii', maxLength: 30 })).map(([k, v]) => `${k}: ${v}`),
      );
      const requestText = fc.tuple(token, target, version, fc.array(headerLine, { maxLength: 6 }), fc.string({ unit: 'binary-ascii', maxLength: 60 }), fc.constantFrom('\r\n', '\n', '\r')).map(
        ([m, t, v, hs, b, eol]) => Buffer.from(`${m} ${t} ${v}${eol}${hs.join(eol)}${eol}${eol}${b}`, 'latin1'),
      );
      const randomBytes = fc.uint8Array({ minLength: 1, maxLength: 200 }).map((a) => Buffer.from(a));
      const generated = fc.sample(fc.oneof(requestText, randomBytes), { numRuns: 80, seed: SEED });

      const cases = [...fixed, ...generated];
      let answers = 0;
      for (let i = 0; i < cases.length; i += 8) {
        const batch = cases.slice(i, i + 8);
        const results = await Promise.all(batch.map((data) => rawExchange(port, data)));
        results.forEach(({ raw, closed }, j) => {
          const label = JSON.stringify(batch[j]!.toString('latin1').slice(0, 120));
          expect(closed, `${label}: the server answers or closes the connection`).toBe(true);
          for (const r of parseResponses(raw)) {
            answers++;
            expect(DOCUMENTED_RAW.has(r.status), `${label} → undocumented ${r.status} ${r.body}`).toBe(true);
            expect(r.headers['request-id'], `${label} → Request-Id`).toMatch(REQUEST_ID);
            if (r.status >= 400) {
              const error = errorBodySchema.strict().parse(JSON.parse(r.body));
              expect(error.request_id, label).toBe(r.headers['request-id']);
              expect(CODES_BY_STATUS[r.status]).toContain(error.error.code);
            }
          }
        });
        expect(server.child.exitCode, 'the server process is still running').toBeNull();
      }
      expect(answers).toBeGreaterThan(cases.length / 2);

      // Still serving, and nothing was charged by the malformed traffic.
      const client = new Client(server.url, 1);
      const balance = await client.send({ path: '/api/v1/balance', headers: bearer(key) });
      client.close();
      expect(balance.kind === 'answer' && balance.status).toBe(200);
      const db = openDatabaseFile(prepared.dataDir);
      try {
        expect(countOf(db, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'")).toBe(
          countOf(db, "SELECT COUNT(*) AS n FROM lookups WHERE credit_consumed = 1"),
        );
        checkLedgerInvariants(db);
      } finally {
        db.close();
      }
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  });
});

// The OpenAPI document against the server: the document is valid OpenAPI 3.1 with valid JSON Schema
// 2020-12 schemas, the repository's copy and the served copy equal the generated one, and every
// route is driven through every status it documents — and only those — with each real answer
// checked against the document (status listed for that route, body valid for that status's schema,
// documented headers present and valid).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { breakCheckDigit, DIR, DIRECTORY_CSV } from '../support/directory-data';
import { createKeyWithId, postJson, revokeKey } from '../support/http-helpers';
import { formatErrors, openApiDocumentValidator, OpenApiChecker, type Answer } from '../support/openapi-checker';
import { buildHttpApi } from '../../src/main/core/http/server';
import {
  generateOpenApiDocument,
  OPENAPI_FILE,
  OPENAPI_PATH,
  serializeOpenApiDocument,
} from '../../src/main/core/http/openapi/document';
import { SANDBOX_NOT_FOUND, SANDBOX_UPSTREAM_FAILURE } from '../../src/main/core/resolvers/sandbox-data';

const document = generateOpenApiDocument();
const checker = new OpenApiChecker(document);

let f: Fixture;
/** An organization without credits, for 402. */
let broke: Fixture;
const keys = {} as Record<
  'cbuLive' | 'cbuSandbox' | 'cbuBalanceOnly' | 'informesLookupOnly' | 'informesSandbox' | 'whitelisted' | 'slowCbu' | 'slowInformes' | 'revoked' | 'brokeCbu' | 'brokeInformes',
  string
>;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 1000, informes: 1000 } });
  f.importDirectory(DIRECTORY_CSV);
  const fast = { rateLimitPerSecond: 1000 };
  keys.cbuLive = f.createKey(fast);
  keys.cbuSandbox = f.createKey({ ...fast, environment: 'sandbox' });
  keys.cbuBalanceOnly = f.createKey({ ...fast, scopes: ['balance'] });
  keys.informesLookupOnly = f.createKey({ ...fast, product: 'informes', scopes: ['lookup'] });
  keys.informesSandbox = f.createKey({ ...fast, product: 'informes', scopes: ['lookup', 'balance'], environment: 'sandbox' });
  keys.whitelisted = f.createKey({ ...fast, product: 'informes', scopes: ['lookup', 'balance'], ipWhitelist: ['10.0.0.0/8'] });
  // Burst 20, one token a second: a loop of requests empties them. Sandbox keys, so nothing is charged.
  keys.slowCbu = f.createKey({ rateLimitPerSecond: 1, environment: 'sandbox' });
  keys.slowInformes = f.createKey({ rateLimitPerSecond: 1, environment: 'sandbox', product: 'informes', scopes: ['lookup', 'balance'] });
  const revoked = createKeyWithId(f, fast);
  revokeKey(f, revoked.id);
  keys.revoked = revoked.secret;

  broke = await createFixture({ credits: {} });
  keys.brokeCbu = broke.createKey(fast);
  keys.brokeInformes = broke.createKey({ ...fast, product: 'informes', scopes: ['lookup', 'balance'] });
});
afterAll(async () => {
  await f.close();
  await broke.close();
});

// ---------------------------------------------------------------------------------------------
// Requests

type Headers = Record<string, string>;
const UNKNOWN_KEY = `sk_live_${'Q'.repeat(32)}`;
const EVIL_HOST = { host: 'evil.example' };

const get = (url: string, headers: Headers = {}, fx = f) => fx.app.inject({ method: 'GET', url, headers });
const post = (url: string, body: unknown, headers: Headers = {}, fx = f) => postJson(fx, url, body, headers);
const idem = (key: string) => ({ 'idempotency-key': key });
const lookupUrl = (identifier: string, type: string) => `/api/v1/lookup?identifier=${encodeURIComponent(identifier)}&type=${type}`;

/** Requests a route with a key until the key's bucket answers 429 (bounded). */
async function untilLimited(send: () => Promise<Answer>): Promise<Answer> {
  let last: Answer | undefined;
  for (let i = 0; i < 30; i++) {
    last = await send();
    if (last.statusCode === 429) return last;
  }
  return last!;
}

/** Invalid keys from one address until the per-address limit answers (no RateLimit-* headers then). */
async function invalidKeysUntilLimited(send: (headers: Headers, remoteAddress: string) => Promise<Answer>, remoteAddress: string): Promise<Answer> {
  return untilLimited(() => send(auth(UNKNOWN_KEY), remoteAddress));
}

/** Runs a core call that throws once (a simulated internal fault) around one request. */
async function withFault<T extends object>(target: T, method: keyof T & string, send: () => Promise<Answer>, async = true): Promise<Answer> {
  const fault = new Error('simulated internal fault');
  const spy = vi.spyOn(target as Record<string, (...args: unknown[]) => unknown>, method);
  if (async) spy.mockRejectedValueOnce(fault);
  else spy.mockImplementationOnce(() => {
    throw fault;
  });
  try {
    return await send();
  } finally {
    spy.mockRestore();
  }
}

/** Same request twice with one Idempotency-Key: returns the replay (which must say so). */
async function replayed(send: (headers: Headers) => Promise<Answer>, key: string): Promise<Answer> {
  const first = await send(idem(key));
  const second = await send(idem(key));
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(second.headers['idempotent-replayed'], `replay of ${first.statusCode}`).toBe('true');
  expect(second.body).toBe(first.body);
  return second;
}

/** The same key with another input after a first request: 409. */
async function conflict(send: (input: number, headers: Headers) => Promise<Answer>, key: string): Promise<Answer> {
  await send(0, idem(key));
  return send(1, idem(key));
}

/**
 * Every route requested while the server shuts down: the server answers what arrives after close()
 * began (and before it stops listening) with 503. A preClose hook of the test's own holds the server
 * in that state until the requests are answered. Runs once, over real sockets on 127.0.0.1.
 */
let shutdownAnswers: Promise<Map<string, Answer>> | undefined;
function duringShutdown(route: string): () => Promise<Answer> {
  return async () => {
    shutdownAnswers ??= requestDuringShutdown();
    const answer = (await shutdownAnswers).get(route);
    if (!answer) throw new Error(`no shutdown answer for ${route}`);
    return answer;
  };
}

async function requestDuringShutdown(): Promise<Map<string, Answer>> {
  const app = buildHttpApi(f.titular);
  let release!: () => void;
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  app.addHook('preClose', () => new Promise<void>((resolve) => {
    release = resolve;
    holding();
  }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const closed = app.close();
  await held;
  const answers = new Map<string, Answer>();
  try {
    for (const route of checker.routes()) {
      const [method, url] = route.split(' ') as [string, string];
      const isPost = method === 'POST';
      const res = await fetch(`http://127.0.0.1:${port}${url}`, {
        method,
        headers: { ...auth(keys.cbuSandbox), ...(isPost ? { 'content-type': 'application/json' } : {}) },
        body: isPost ? '{}' : undefined,
      });
      answers.set(route, { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
    }
  } finally {
    release();
    await closed;
  }
  return answers;
}

// ---------------------------------------------------------------------------------------------
// Every route × every status it documents. A case may carry the request it sends, checked against
// the documented parameters and body.

interface Case {
  what: string;
  send: () => Promise<Answer>;
  request?: { query?: Record<string, string>; body?: unknown; headers?: Headers };
}

const getLookupCases: Record<number, Case[]> = {
  200: [
    {
      what: 'a directory CBU, live key (charged)',
      send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.cbuLive)),
      request: { query: { identifier: DIR.individual.cbu, type: 'cbu' } },
    },
    {
      what: 'a sandbox alias',
      send: () => get(lookupUrl('maria.gonzalez.cc', 'alias'), auth(keys.cbuSandbox)),
      request: { query: { identifier: 'maria.gonzalez.cc', type: 'alias' } },
    },
    {
      what: 'a replay (Idempotent-Replayed)',
      send: () => replayed((h) => get(lookupUrl(DIR.company.cbu, 'cbu'), { ...auth(keys.cbuLive), ...h }), 'get-200'),
      request: { query: { identifier: DIR.company.cbu, type: 'cbu' }, headers: idem('get-200') },
    },
  ],
  400: [
    { what: 'PA006 bad check digit, live (credits_remaining)', send: () => get(lookupUrl(breakCheckDigit(DIR.individual.cbu), 'cbu'), auth(keys.cbuLive)) },
    { what: 'PA006 no type, sandbox', send: () => get(`/api/v1/lookup?identifier=${DIR.individual.cbu}`, auth(keys.cbuSandbox)) },
    { what: 'PA006 replayed', send: () => replayed((h) => get(lookupUrl('12', 'cbu'), { ...auth(keys.cbuLive), ...h }), 'get-400') },
    { what: 'INVALID_PARAMETER bad Idempotency-Key', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), { ...auth(keys.cbuLive), 'idempotency-key': 'has space' }) },
  ],
  401: [
    { what: 'no Authorization header', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu')) },
    { what: 'an unknown key', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(UNKNOWN_KEY)) },
    { what: 'a revoked key', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.revoked)) },
  ],
  402: [{ what: 'no CBU credits', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.brokeCbu), broke) }],
  403: [
    { what: 'an Informes key', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.informesLookupOnly)) },
    { what: 'no lookup scope', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.cbuBalanceOnly)) },
    { what: 'Host not loopback', send: () => get(lookupUrl(DIR.individual.cbu, 'cbu'), { ...auth(keys.cbuLive), ...EVIL_HOST }) },
  ],
  404: [
    { what: 'PA011 live (credits_remaining)', send: () => get(lookupUrl(DIR.missing.cbu, 'cbu'), auth(keys.cbuLive)) },
    { what: 'PA011 sandbox', send: () => get(lookupUrl(SANDBOX_NOT_FOUND.alias, 'alias'), auth(keys.cbuSandbox)) },
    { what: 'PA011 replayed', send: () => replayed((h) => get(lookupUrl(DIR.missing.alias, 'alias'), { ...auth(keys.cbuLive), ...h }), 'get-404') },
  ],
  409: [
    {
      what: 'Idempotency-Key reused for another identifier',
      send: () => conflict((i, h) => get(lookupUrl([DIR.individual.cbu, DIR.company.cbu][i]!, 'cbu'), { ...auth(keys.cbuLive), ...h }), 'get-409'),
    },
  ],
  429: [
    { what: 'the key\'s bucket', send: () => untilLimited(() => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.slowCbu))) },
    {
      what: 'invalid keys from one address',
      send: () => invalidKeysUntilLimited((headers, remoteAddress) => f.app.inject({ url: lookupUrl(DIR.individual.cbu, 'cbu'), headers, remoteAddress }), '127.0.0.61'),
    },
  ],
  500: [{ what: 'the lookup service fails', send: () => withFault(f.titular.lookups, 'lookupAccount', () => get(lookupUrl(DIR.individual.cbu, 'cbu'), auth(keys.cbuLive))) }],
  503: [
    { what: 'sandbox source down', send: () => get(lookupUrl(SANDBOX_UPSTREAM_FAILURE.cbu, 'cbu'), auth(keys.cbuSandbox)) },
    { what: 'shutting down', send: duringShutdown('GET /api/v1/lookup') },
  ],
};

const lookupBody = (identifier: string, type: string) => ({ identifier, type });
const postLookup = (body: unknown, headers: Headers = {}, fx = f) => post('/api/v1/lookup', body, headers, fx);

const postLookupCases: Record<number, Case[]> = {
  200: [
    {
      what: 'a directory alias, live key',
      send: () => postLookup(lookupBody(DIR.company.alias, 'alias'), auth(keys.cbuLive)),
      request: { body: lookupBody(DIR.company.alias, 'alias') },
    },
    {
      what: 'a sandbox CVU',
      send: () => postLookup(lookupBody('0000003110000123456781', 'cbu'), auth(keys.cbuSandbox)),
      request: { body: lookupBody('0000003110000123456781', 'cbu') },
    },
    {
      what: 'a replay',
      send: () => replayed((h) => postLookup(lookupBody(DIR.wallet.cbu, 'cbu'), { ...auth(keys.cbuLive), ...h }), 'post-200'),
      request: { body: lookupBody(DIR.wallet.cbu, 'cbu'), headers: idem('post-200') },
    },
  ],
  400: [
    { what: 'PA006 alias too short, live', send: () => postLookup(lookupBody('ab', 'alias'), auth(keys.cbuLive)) },
    { what: 'PA006 empty object, sandbox', send: () => postLookup({}, auth(keys.cbuSandbox)) },
    { what: 'PA006 replayed', send: () => replayed((h) => postLookup(lookupBody('x', 'iban'), { ...auth(keys.cbuLive), ...h }), 'post-400') },
    { what: 'INVALID_PARAMETER array body', send: () => postLookup([1], auth(keys.cbuLive)) },
    { what: 'INVALID_PARAMETER not JSON', send: () => postLookup('{broken', auth(keys.cbuLive)) },
    { what: 'INVALID_PARAMETER bad Idempotency-Key', send: () => postLookup(lookupBody(DIR.company.alias, 'alias'), { ...auth(keys.cbuLive), 'idempotency-key': '' }) },
  ],
  401: [
    { what: 'no Authorization header', send: () => postLookup(lookupBody(DIR.company.alias, 'alias')) },
    { what: 'malformed Authorization header', send: () => postLookup(lookupBody(DIR.company.alias, 'alias'), { authorization: `Basic ${keys.cbuLive}` }) },
  ],
  402: [{ what: 'no CBU credits', send: () => postLookup(lookupBody(DIR.company.alias, 'alias'), auth(keys.brokeCbu), broke) }],
  403: [
    { what: 'an Informes key', send: () => postLookup(lookupBody(DIR.company.alias, 'alias'), auth(keys.informesLookupOnly)) },
    { what: 'Host not loopback', send: () => postLookup(lookupBody(DIR.company.alias, 'alias'), { ...auth(keys.cbuLive), ...EVIL_HOST }) },
  ],
  404: [{ what: 'PA011 live', send: () => postLookup(lookupBody(DIR.missing.alias, 'alias'), auth(keys.cbuLive)) }],
  409: [
    {
      what: 'Idempotency-Key reused for another body',
      send: () => conflict((i, h) => postLookup(lookupBody([DIR.company.alias, DIR.individual.alias][i]!, 'alias'), { ...auth(keys.cbuLive), ...h }), 'post-409'),
    },
  ],
  413: [{ what: 'a body over 16 KiB', send: () => postLookup(lookupBody('x'.repeat(20_000), 'alias'), auth(keys.cbuLive)) }],
  415: [
    {
      what: 'a text/plain body',
      send: () => f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(keys.cbuLive), 'content-type': 'text/plain' }, payload: 'x' }),
    },
  ],
  429: [{ what: 'the key\'s bucket', send: () => untilLimited(() => postLookup(lookupBody('maria.gonzalez.cc', 'alias'), auth(keys.slowCbu))) }],
  500: [
    {
      what: 'the lookup service fails',
      send: () => withFault(f.titular.lookups, 'lookupAccount', () => postLookup(lookupBody(DIR.company.alias, 'alias'), auth(keys.cbuLive))),
    },
  ],
  503: [
    { what: 'sandbox source down', send: () => postLookup(lookupBody(SANDBOX_UPSTREAM_FAILURE.alias, 'alias'), auth(keys.cbuSandbox)) },
    { what: 'shutting down', send: duringShutdown('POST /api/v1/lookup') },
  ],
};

const postCredit = (body: unknown, headers: Headers = {}, fx = f) => post('/api/v1/credit/lookup', body, headers, fx);

const creditCases: Record<number, Case[]> = {
  200: [
    { what: 'a sandbox report', send: () => postCredit({ tax_id: '30-71234567-1' }, auth(keys.informesSandbox)), request: { body: { tax_id: '30-71234567-1' } } },
    {
      what: 'a replay',
      send: () => replayed((h) => postCredit({ tax_id: '27312345671' }, { ...auth(keys.informesSandbox), ...h }), 'credit-200'),
      request: { body: { tax_id: '27312345671' }, headers: idem('credit-200') },
    },
  ],
  400: [
    { what: 'PA006 wrong check digit, live (credits_remaining)', send: () => postCredit({ tax_id: '20-28765432-4' }, auth(keys.informesLookupOnly)) },
    { what: 'PA006 no tax_id, sandbox', send: () => postCredit({}, auth(keys.informesSandbox)) },
    { what: 'INVALID_PARAMETER null body', send: () => postCredit('null', auth(keys.informesLookupOnly)) },
  ],
  401: [{ what: 'an unknown key', send: () => postCredit({ tax_id: '20-28765432-5' }, auth(UNKNOWN_KEY)) }],
  402: [{ what: 'no Informes credits', send: () => postCredit({ tax_id: '20-28765432-5' }, auth(keys.brokeInformes), broke) }],
  403: [
    { what: 'a CBU key', send: () => postCredit({ tax_id: '20-28765432-5' }, auth(keys.cbuLive)) },
    { what: 'IP not whitelisted', send: () => postCredit({ tax_id: '20-28765432-5' }, auth(keys.whitelisted)) },
  ],
  404: [{ what: 'PA011 sandbox', send: () => postCredit({ tax_id: '30-50001234-6' }, auth(keys.informesSandbox)) }],
  409: [
    {
      what: 'Idempotency-Key reused for another tax_id',
      send: () => conflict((i, h) => postCredit({ tax_id: ['20-28765432-5', '30-71234567-1'][i] }, { ...auth(keys.informesSandbox), ...h }), 'credit-409'),
    },
  ],
  413: [{ what: 'a body over 16 KiB', send: () => postCredit({ tax_id: '2'.repeat(20_000) }, auth(keys.informesSandbox)) }],
  415: [
    {
      what: 'a form body',
      send: () =>
        f.app.inject({
          method: 'POST',
          url: '/api/v1/credit/lookup',
          headers: { ...auth(keys.informesSandbox), 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'tax_id=20287654325',
        }),
    },
  ],
  429: [{ what: 'the key\'s bucket', send: () => untilLimited(() => postCredit({ tax_id: '20-28765432-5' }, auth(keys.slowInformes))) }],
  500: [
    {
      what: 'the lookup service fails',
      send: () => withFault(f.titular.lookups, 'lookupCreditReport', () => postCredit({ tax_id: '20-28765432-5' }, auth(keys.informesSandbox))),
    },
  ],
  503: [
    { what: 'sandbox source down', send: () => postCredit({ tax_id: '33-99999999-4' }, auth(keys.informesSandbox)) },
    { what: 'shutting down', send: duringShutdown('POST /api/v1/credit/lookup') },
  ],
};

const balanceCases: Record<number, Case[]> = {
  200: [
    { what: 'a CBU key', send: () => get('/api/v1/balance', auth(keys.cbuLive)), request: {} },
    { what: 'an Informes sandbox key', send: () => get('/api/v1/balance', auth(keys.informesSandbox)), request: {} },
  ],
  401: [{ what: 'a revoked key', send: () => get('/api/v1/balance', auth(keys.revoked)) }],
  403: [
    { what: 'no balance scope', send: () => get('/api/v1/balance', auth(keys.informesLookupOnly)) },
    { what: 'Host not loopback', send: () => get('/api/v1/balance', { ...auth(keys.cbuLive), ...EVIL_HOST }) },
  ],
  429: [
    { what: 'the key\'s bucket', send: () => untilLimited(() => get('/api/v1/balance', auth(keys.slowCbu))) },
    {
      what: 'invalid keys from one address',
      send: () => invalidKeysUntilLimited((headers, remoteAddress) => f.app.inject({ url: '/api/v1/balance', headers, remoteAddress }), '127.0.0.62'),
    },
  ],
  500: [{ what: 'the ledger fails', send: () => withFault(f.titular.ledger, 'balances', () => get('/api/v1/balance', auth(keys.cbuLive)), false) }],
  503: [{ what: 'shutting down', send: duringShutdown('GET /api/v1/balance') }],
};

const historyCases: Record<number, Case[]> = {
  200: [
    {
      what: 'live, filtered',
      send: () => get('/api/v1/history?page=1&per_page=5&status=SUCCESS&source=API&from=2020-01-01&to=2099-12-31', auth(keys.cbuLive)),
      request: { query: { page: '1', per_page: '5', status: 'SUCCESS', source: 'API', from: '2020-01-01', to: '2099-12-31' } },
    },
    { what: 'sandbox, errors only', send: () => get('/api/v1/history?status=ERROR&q=0170', auth(keys.cbuSandbox)), request: { query: { status: 'ERROR', q: '0170' } } },
  ],
  400: [
    { what: 'per_page over 50', send: () => get('/api/v1/history?per_page=51', auth(keys.cbuLive)) },
    { what: 'an unknown parameter', send: () => get('/api/v1/history?sort=asc', auth(keys.cbuLive)) },
    { what: 'from after to', send: () => get('/api/v1/history?from=2026-02-01&to=2026-01-01', auth(keys.cbuLive)) },
  ],
  401: [{ what: 'no Authorization header', send: () => get('/api/v1/history') }],
  403: [
    { what: 'an Informes key', send: () => get('/api/v1/history', auth(keys.informesSandbox)) },
    { what: 'no history scope', send: () => get('/api/v1/history', auth(keys.cbuBalanceOnly)) },
  ],
  429: [{ what: 'the key\'s bucket', send: () => untilLimited(() => get('/api/v1/history', auth(keys.slowCbu))) }],
  500: [{ what: 'the history store fails', send: () => withFault(f.titular.history, 'page', () => get('/api/v1/history', auth(keys.cbuLive)), false) }],
  503: [{ what: 'shutting down', send: duringShutdown('GET /api/v1/history') }],
};

const openApiCases: Record<number, Case[]> = {
  200: [
    { what: 'no key needed', send: () => get(OPENAPI_PATH), request: {} },
    { what: 'a key is ignored', send: () => get(OPENAPI_PATH, auth(UNKNOWN_KEY)), request: {} },
  ],
  403: [{ what: 'Host not loopback', send: () => get(OPENAPI_PATH, EVIL_HOST) }],
  503: [{ what: 'shutting down', send: duringShutdown(`GET ${OPENAPI_PATH}`) }],
};

const CASES: Record<string, Record<number, Case[]>> = {
  'GET /api/v1/lookup': getLookupCases,
  'POST /api/v1/lookup': postLookupCases,
  'POST /api/v1/credit/lookup': creditCases,
  'GET /api/v1/balance': balanceCases,
  'GET /api/v1/history': historyCases,
  [`GET ${OPENAPI_PATH}`]: openApiCases,
};

// ---------------------------------------------------------------------------------------------

describe('the document', () => {
  it('is valid OpenAPI 3.1 (the official schema)', () => {
    const validate = openApiDocumentValidator();
    expect(validate(document), formatErrors(validate.errors)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('every schema in it is valid JSON Schema 2020-12 and compiles with every reference resolved', () => {
    const pointers = schemaPointers(document);
    expect(pointers.length).toBeGreaterThan(50);
    const errors: string[] = [];
    for (const pointer of pointers) {
      const schema = at(document, pointer);
      if (!checker.ajv.validateSchema(schema as object)) errors.push(`${pointer}: ${formatErrors(checker.ajv.errors)}`);
      try {
        if (!checker.ajv.getSchema(`urn:titular:openapi${pointer}`)) errors.push(`${pointer}: not found`);
      } catch (error) {
        errors.push(`${pointer}: ${(error as Error).message}`);
      }
    }
    for (const ref of references(document)) {
      if (at(document, ref) === undefined) errors.push(`unresolved $ref ${ref}`);
    }
    expect(errors, errors.join('\n')).toEqual([]);
  });

  it('every example matches its schema', () => {
    const errors: string[] = [];
    let examples = 0;
    walk(document, '#', (node, pointer) => {
      if ('example' in node && 'schema' in node) {
        examples++;
        errors.push(...checker.validateAt(`${pointer}/schema`, node.example, `example at ${pointer}`));
      }
    });
    expect(examples).toBeGreaterThanOrEqual(9);
    expect(errors, errors.join('\n')).toEqual([]);
  });

  it('has unique operation ids; only the document route is public; the bridge and the UI are not listed', () => {
    const ids = checker.routes().map((route) => {
      const [method, url] = route.split(' ') as [string, string];
      return checker.operation(method, url)!.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(checker.operation('get', OPENAPI_PATH)!.security).toEqual([]);
    for (const route of checker.routes().filter((r) => !r.endsWith(OPENAPI_PATH))) {
      const [method, url] = route.split(' ') as [string, string];
      expect(checker.operation(method, url)!.security, route).toBeUndefined();
    }
    expect(Object.keys(document.paths as object).some((p) => p.startsWith('/bridge') || p === '/' || p.startsWith('/assets'))).toBe(false);
  });

  it('history\'s page and per_page are integers with their ranges and defaults, as a client generator reads them', () => {
    const parameters = checker.operation('get', '/api/v1/history')!.parameters as { name: string; schema: unknown }[];
    const schemaOf = (name: string) => parameters.find((p) => p.name === name)?.schema;
    expect(schemaOf('page')).toEqual({ type: 'integer', minimum: 1, maximum: 100_000_000, default: 1 });
    expect(schemaOf('per_page')).toEqual({ type: 'integer', minimum: 1, maximum: 50, default: 10 });
    // The document and the server agree on the edges: what one refuses, the other does.
    expect(checker.checkRequest('get', '/api/v1/history', { query: { page: '100000000', per_page: '50' } })).toEqual([]);
    const refused: Record<string, string>[] = [{ per_page: '51' }, { per_page: '0' }, { page: '0' }, { page: 'x' }, { per_page: '2.5' }];
    for (const query of refused) {
      expect(checker.checkRequest('get', '/api/v1/history', { query }), JSON.stringify(query)).not.toEqual([]);
    }
  });

  it(`the repository's ${OPENAPI_FILE} is the generated document`, () => {
    const committed = readFileSync(path.resolve(import.meta.dirname, '../..', OPENAPI_FILE), 'utf8');
    const generated = serializeOpenApiDocument(generateOpenApiDocument());
    if (committed !== generated) {
      const a = committed.split('\n');
      const b = generated.split('\n');
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        `${OPENAPI_FILE} is out of date: run \`npm run openapi\` and commit the result.\n` +
          `first difference at line ${line + 1}:\n  committed: ${a[line]}\n  generated: ${b[line]}`,
      );
    }
  });

  it(`is served at ${OPENAPI_PATH} without a key, equal to the generated one`, async () => {
    const res = await get(OPENAPI_PATH);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(generateOpenApiDocument());
  });
});

describe('every route answers only what the document says', () => {
  it('the cases below drive exactly the statuses the document lists, for every documented route', () => {
    expect(Object.keys(CASES).sort()).toEqual(checker.routes().sort());
    for (const route of checker.routes()) {
      const [method, url] = route.split(' ') as [string, string];
      expect(Object.keys(CASES[route] ?? {}).map(Number), `statuses of ${route}`).toEqual(checker.documentedStatuses(method, url));
    }
  });

  for (const [route, statuses] of Object.entries(CASES)) {
    const [method, url] = route.split(' ') as [string, string];
    describe(route, () => {
      for (const [status, cases] of Object.entries(statuses)) {
        for (const testCase of cases) {
          it(`${status}: ${testCase.what}`, async () => {
            const answer = await testCase.send();
            expect(answer.statusCode, `${route} (${testCase.what}) answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`).toBe(Number(status));
            const errors = checker.checkAnswer(method, url, answer);
            if (testCase.request) errors.push(...checker.checkRequest(method, url, testCase.request));
            expect(errors, errors.join('\n')).toEqual([]);
            // Documented in words: the Request-Id header equals the body's request_id.
            const body = JSON.parse(answer.body) as { request_id?: string };
            if (body.request_id !== undefined) expect(answer.headers['request-id']).toBe(body.request_id);
          });
        }
      }
    });
  }
});

describe('routes the document does not list', () => {
  const unknown: [string, string][] = [
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/api/v2/lookup'],
    ['DELETE', '/api/v1/balance'],
    ['PUT', '/api/v1/lookup'],
    ['GET', '/api/v1/credit/lookup'],
    ['POST', OPENAPI_PATH],
    ['POST', '/bridge/balance'],
    ['GET', '/'],
  ];
  for (const [method, url] of unknown) {
    it(`${method} ${url}: 404 NOT_FOUND, the RouteNotFound response`, async () => {
      const res = await f.app.inject({ method: method as 'GET', url, headers: { ...auth(keys.cbuLive), 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{}' });
      const errors = checker.checkUnknownRoute(method, url, res);
      expect(errors, errors.join('\n')).toEqual([]);
    });
  }

  it('HEAD is not served: 404 with a Request-Id and no body', async () => {
    const res = await f.app.inject({ method: 'HEAD', url: '/api/v1/balance', headers: auth(keys.cbuLive) });
    expect(res.statusCode).toBe(404);
    expect(checker.operation('head', '/api/v1/balance')).toBeUndefined();
    expect(res.headers['request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.body).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// Walking the document

type Node = Record<string, unknown>;

function walk(node: unknown, pointer: string, visit: (node: Node, pointer: string) => void): void {
  if (Array.isArray(node)) node.forEach((child, i) => walk(child, `${pointer}/${i}`, visit));
  else if (node && typeof node === 'object') {
    visit(node as Node, pointer);
    for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, visit);
  }
}

function at(root: unknown, pointer: string): unknown {
  let node = root;
  for (const part of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = (node as Node | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

/** Pointers of every Schema Object: components, parameters, headers, request and response bodies. */
function schemaPointers(doc: Node): string[] {
  const pointers = Object.keys((doc.components as Node).schemas as Node).map((name) => `#/components/schemas/${name}`);
  walk(doc, '#', (node, pointer) => {
    if (pointer.startsWith('#/components/schemas')) return;
    if ('schema' in node && typeof node.schema === 'object') pointers.push(`${pointer}/schema`);
  });
  return pointers;
}

function references(doc: Node): string[] {
  const refs: string[] = [];
  walk(doc, '#', (node) => {
    if (typeof node.$ref === 'string') refs.push(node.$ref);
  });
  return refs;
}

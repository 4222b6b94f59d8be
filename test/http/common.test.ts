// Concerns shared by every endpoint: the Request-Id header, unknown routes, the Host guard, CORS,
// throttling of repeated authentication failures, and never echoing the presented key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { createKeyWithId, expectError, postJson, REQUEST_ID, revokeKey, type Res } from '../support/http-helpers';
import { SANDBOX_UPSTREAM_FAILURE } from '../../src/main/core/resolvers/sandbox-data';

let f: Fixture;
let key: string;
let sandboxKey: string;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 50, informes: 5 } });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey({ rateLimitPerSecond: 1000 });
  sandboxKey = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 1000 });
});
afterAll(() => f.close());

describe('Request-Id', () => {
  it('every response carries a Request-Id; for errors it equals the body\'s request_id; ids are unique', async () => {
    const noScope = createKeyWithId(f, { scopes: ['balance'] });
    const slow = createKeyWithId(f, { rateLimitPerSecond: 1 });
    try {
      const seen = new Set<string>();
      const check = (res: Res, status: number) => {
        expect(res.statusCode, res.body).toBe(status);
        const id = res.headers['request-id'];
        expect(typeof id).toBe('string');
        expect(id).toMatch(REQUEST_ID);
        expect(seen.has(id as string)).toBe(false);
        seen.add(id as string);
        const body = res.json();
        if (status >= 400 || 'request_id' in body) expect(body.request_id).toBe(id);
      };
      check(await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key) }), 200);
      check(await postJson(f, '/api/v1/lookup', { identifier: DIR.company.alias, type: 'alias' }, auth(key)), 200);
      check(await f.app.inject({ url: '/api/v1/balance', headers: auth(key) }), 200);
      check(await f.app.inject({ url: '/api/v1/history', headers: auth(key) }), 200);
      check(await f.app.inject({ url: '/api/v1/lookup?identifier=1&type=cbu', headers: auth(key) }), 400);
      check(await f.app.inject({ url: '/api/v1/history?page=0', headers: auth(key) }), 400);
      check(await postJson(f, '/api/v1/lookup', '{broken', auth(key)), 400);
      check(await f.app.inject({ url: '/api/v1/balance' }), 401);
      check(await f.app.inject({ url: '/api/v1/lookup?identifier=1&type=cbu', headers: auth(noScope.secret) }), 403);
      check(await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.missing.cbu}&type=cbu`, headers: auth(key) }), 404);
      check(await f.app.inject({ url: '/api/v1/nothing-here', headers: auth(key) }), 404);
      check(await postJson(f, '/api/v1/lookup', { identifier: DIR.individual.cbu, type: 'cbu' }, { ...auth(key), 'idempotency-key': 'rid-1' }), 200);
      check(await postJson(f, '/api/v1/lookup', { identifier: DIR.company.cbu, type: 'cbu' }, { ...auth(key), 'idempotency-key': 'rid-1' }), 409);
      check(await f.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(key), 'content-type': 'text/plain' }, payload: 'x' }), 415);
      check(await postJson(f, '/api/v1/lookup', { identifier: 'x'.repeat(20_000), type: 'alias' }, auth(key)), 413);
      check(await f.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_UPSTREAM_FAILURE.cbu}&type=cbu`, headers: auth(sandboxKey) }), 503);
      let limited: Res | undefined;
      for (let i = 0; i < 25 && !limited; i++) {
        const res = await f.app.inject({ url: '/api/v1/balance', headers: auth(slow.secret) });
        if (res.statusCode === 429) limited = res;
      }
      check(limited!, 429);
      check(await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), host: 'evil.example' } }), 403);

      const broke = await createFixture({ credits: {} });
      try {
        const k = broke.createKey();
        const res = await broke.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(k) });
        expectError(res, 402, 'INSUFFICIENT_CREDITS', { creditsRemaining: 0 });
      } finally {
        await broke.close();
      }
    } finally {
      revokeKey(f, noScope.id);
      revokeKey(f, slow.id);
    }
  });

  it('a client-sent Request-Id is not trusted: the server always makes its own', async () => {
    const res = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), 'request-id': 'req_attacker', 'x-request-id': 'evil' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['request-id']).toMatch(REQUEST_ID);
  });
});

describe('unknown routes and methods', () => {
  it('404 NOT_FOUND with the error body, authenticated or not, and nothing consumed', async () => {
    const before = f.balance('cbu');
    // A path that exists, asked with another method, says which methods it answers.
    const cases: [string, string, string][] = [
      ['DELETE', '/api/v1/lookup', '; this path answers GET and POST'],
      ['PUT', '/api/v1/lookup?identifier=x', '; this path answers GET and POST'],
      ['PATCH', '/api/v1/balance', '; this path answers GET'],
      ['POST', '/api/v1/balance', '; this path answers GET'],
      ['POST', '/api/v1/history', '; this path answers GET'],
      ['GET', '/api/v1/credit/lookup', '; this path answers POST'],
      ['GET', '/api/v2/x', ''],
      ['GET', '/api/v2/lookup', ''],
      ['GET', '/', ''],
      ['GET', '/api/v1', ''],
      ['GET', '/api/v1/lookups', ''],
    ];
    for (const [method, url, answers] of cases) {
      for (const headers of [auth(key), {}]) {
        const res = await f.app.inject({ method: method as 'GET', url, headers });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        const body = expectError(res, 404, 'NOT_FOUND', { creditsRemaining: 'absent' });
        expect(body.error.message).toBe(`No route ${method} ${url.split('?')[0]}${answers}`);
      }
    }
    expect(f.balance('cbu')).toBe(before);
  });
});

describe('HEAD requests', () => {
  it('HEAD /api/v1/lookup is not a lookup: 404, no credit taken, no history entry (the body could never be read)', async () => {
    const before = f.balance('cbu');
    const history = (await f.app.inject({ url: '/api/v1/history', headers: auth(key) })).json().pagination.total;
    const res = await f.app.inject({ method: 'HEAD', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key) });
    expect(f.balance('cbu')).toBe(before);
    expect((await f.app.inject({ url: '/api/v1/history', headers: auth(key) })).json().pagination.total).toBe(history);
    expect(res.statusCode).toBe(404);
  });
});

describe('Host header guard (DNS rebinding)', () => {
  it('refuses a foreign Host with the error body, before any work is done', async () => {
    const before = f.balance('cbu');
    for (const host of ['evil.example', 'evil.example:8787', 'localhost.evil.example', '127.0.0.1.nip.io', 'attacker.test:80']) {
      const res = await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: { ...auth(key), host } });
      const body = expectError(res, 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
      expect(body).not.toHaveProperty('data');
      const balance = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), host } });
      expectError(balance, 403, 'FORBIDDEN');
    }
    expect(f.balance('cbu')).toBe(before);
  });

  it('accepts loopback names with or without a port', async () => {
    for (const host of ['localhost:8787', 'localhost', 'LOCALHOST:8787', '127.0.0.1', '127.0.0.1:8787', '[::1]:8787', '[::1]', '127.1.2.3:8787']) {
      const res = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), host } });
      expect(res.statusCode, host).toBe(200);
      expect(res.json()).toHaveProperty('balances');
    }
  });

  it('accepts a configured extra host name', async () => {
    const g = await createFixture({ extraHosts: ['titular.lan'] });
    try {
      const k = g.createKey();
      expect((await g.app.inject({ url: '/api/v1/balance', headers: { ...auth(k), host: 'titular.lan:8787' } })).statusCode).toBe(200);
      expectError(await g.app.inject({ url: '/api/v1/balance', headers: { ...auth(k), host: 'other.lan' } }), 403, 'FORBIDDEN');
    } finally {
      await g.close();
    }
  });
});

describe('caching', () => {
  it('every API answer, error or not, says Cache-Control: no-store (they name holders and tax ids)', async () => {
    const answers = [
      await f.app.inject({ url: '/api/v1/balance', headers: auth(key) }),
      await f.app.inject({ url: '/api/v1/history', headers: auth(key) }),
      await f.app.inject({ url: '/api/v1/lookup?identifier=x&type=alias', headers: auth(key) }),
      await f.app.inject({ url: '/api/v1/balance' }),
      await f.app.inject({ url: '/api/v1/nope', headers: auth(key) }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 400, 401, 404]);
    for (const answer of answers) expect(answer.headers['cache-control']).toBe('no-store');
    // The OpenAPI document may be kept, and checked again (no-cache), as before.
    expect((await f.app.inject({ url: '/api/v1/openapi.json' })).headers['cache-control']).toBe('no-cache');
  });
});

describe('CORS', () => {
  it('sends no CORS headers by default, and refuses a web page\'s request (403 FORBIDDEN) before reading its key', async () => {
    const res = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), origin: 'http://tool.local' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'FORBIDDEN', message: expect.stringMatching(/^Requests from web pages are refused unless their origin is allowed \(serve --allow-origin/) } });
    for (const name of Object.keys(res.headers)) expect(name.toLowerCase().startsWith('access-control-')).toBe(false);
    const preflight = await f.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/balance',
      headers: { origin: 'http://tool.local', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    // A tool outside a browser sends neither Origin nor Sec-Fetch-Site: served as ever.
    expect((await f.app.inject({ url: '/api/v1/balance', headers: auth(key) })).statusCode).toBe(200);
  });

  it('tells a page\'s request by Sec-Fetch-Site when it carries no Origin (an <img>, a no-cors fetch)', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const res = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), 'sec-fetch-site': site } });
      expect(res.statusCode, site).toBe(403);
    }
    // Typed in the address bar (`none`) or asked by a page of the server's own origin: served.
    for (const site of ['none', 'same-origin']) {
      const res = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), 'sec-fetch-site': site } });
      expect(res.statusCode, site).toBe(200);
    }
    const sameOrigin = await f.app.inject({ url: '/api/v1/balance', headers: { ...auth(key), host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' } });
    expect(sameOrigin.statusCode).toBe(200);
  });

  it('a page sending made-up keys does not use up the local tools\' budget of failed authentications', async () => {
    const g = await createFixture();
    try {
      for (let i = 0; i < 15; i++) {
        const page = await g.app.inject({ url: '/api/v1/balance', headers: { authorization: `Bearer sk_live_${'x'.repeat(32)}`, origin: 'https://evil.example' } });
        expect(page.statusCode).toBe(403);
      }
      // The local tool's own mistyped key is still told it is wrong, not throttled (429).
      const tool = await g.app.inject({ url: '/api/v1/balance', headers: { authorization: `Bearer sk_live_${'y'.repeat(32)}` } });
      expect(tool.statusCode).toBe(401);
    } finally {
      await g.close();
    }
  });

  it('with corsOrigins configured, only the allowed origin gets Access-Control-Allow-Origin', async () => {
    const g = await createFixture({ corsOrigins: ['http://tool.local'] });
    try {
      const k = g.createKey();
      const allowed = await g.app.inject({ url: '/api/v1/balance', headers: { ...auth(k), origin: 'http://tool.local' } });
      expect(allowed.statusCode).toBe(200);
      expect(allowed.headers['access-control-allow-origin']).toBe('http://tool.local');
      expect(String(allowed.headers.vary)).toMatch(/Origin/i);
      expect(String(allowed.headers['access-control-expose-headers'])).toMatch(/Request-Id/);

      // Errors carry it too, so the browser can read the error body.
      const unauthorized = await g.app.inject({ url: '/api/v1/balance', headers: { origin: 'http://tool.local' } });
      expect(unauthorized.statusCode).toBe(401);
      expect(unauthorized.headers['access-control-allow-origin']).toBe('http://tool.local');

      for (const origin of ['http://evil.example', 'http://tool.local:8080', 'https://tool.local', 'null']) {
        const other = await g.app.inject({ url: '/api/v1/balance', headers: { ...auth(k), origin } });
        expect(other.statusCode, origin).toBe(403);
        expect(other.headers['access-control-allow-origin'], origin).toBeUndefined();
      }
      const none = await g.app.inject({ url: '/api/v1/balance', headers: auth(k) });
      expect(none.headers['access-control-allow-origin']).toBeUndefined();

      const preflight = await g.app.inject({
        method: 'OPTIONS',
        url: '/api/v1/lookup',
        headers: { origin: 'http://tool.local', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('http://tool.local');
      expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/Authorization/i);
      expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/Idempotency-Key/i);
      const foreignPreflight = await g.app.inject({
        method: 'OPTIONS',
        url: '/api/v1/lookup',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(foreignPreflight.statusCode).toBe(403);
      expect(foreignPreflight.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await g.close();
    }
  });
});

describe('throttling of repeated authentication failures', () => {
  it('after 10 failures from one address the 11th is 429; a valid key from that address still works; other addresses are unaffected', async () => {
    const attacker = '198.51.100.23';
    const bad = [
      auth(`sk_live_${'A'.repeat(32)}`),
      {},
      { authorization: 'Bearer nonsense' },
      auth(`sk_test_${'b'.repeat(32)}`),
    ];
    for (let i = 0; i < 10; i++) {
      const res = await f.app.inject({ url: '/api/v1/balance', headers: bad[i % bad.length]!, remoteAddress: attacker });
      expectError(res, 401, 'UNAUTHORIZED', { creditsRemaining: 'absent' });
    }
    for (const url of ['/api/v1/balance', `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, '/api/v1/history']) {
      const res = await f.app.inject({ url, headers: auth(`sk_live_${'C'.repeat(32)}`), remoteAddress: attacker });
      expectError(res, 429, 'RATE_LIMITED', { creditsRemaining: 'absent' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Every 429 describes its bucket (decisions, step 3): this address's, 10 burst, none left.
      expect(res.headers).toMatchObject({ 'ratelimit-limit': '10', 'ratelimit-remaining': '0' });
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }
    // A valid key from the same address is still served.
    const ok = await f.app.inject({ url: '/api/v1/balance', headers: auth(key), remoteAddress: attacker });
    expect(ok.statusCode).toBe(200);
    const lookup = await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key), remoteAddress: attacker });
    expect(lookup.statusCode).toBe(200);
    // Another address is not affected.
    const elsewhere = await f.app.inject({ url: '/api/v1/balance', headers: auth(`sk_live_${'A'.repeat(32)}`), remoteAddress: '198.51.100.24' });
    expectError(elsewhere, 401, 'UNAUTHORIZED');
  });
});

describe('the presented key is never echoed', () => {
  it('no error body (401, 403, 404, 400, 429, 409) and no log line contains the key or its secret part', async () => {
    const unknown = `sk_live_${'Q1w2E3r4'.repeat(4)}`;
    const noScope = createKeyWithId(f, { scopes: ['balance'] });
    const informes = createKeyWithId(f, { product: 'informes', scopes: ['lookup'] });
    const secrets = [unknown, noScope.secret, informes.secret, key];
    try {
      const responses: Res[] = [
        await f.app.inject({ url: '/api/v1/balance', headers: auth(unknown), remoteAddress: '203.0.113.9' }),
        await f.app.inject({ url: '/api/v1/balance', headers: { authorization: unknown }, remoteAddress: '203.0.113.9' }),
        await f.app.inject({ url: '/api/v1/balance', headers: { authorization: `Bearer ${unknown} extra` }, remoteAddress: '203.0.113.9' }),
        await f.app.inject({ url: '/api/v1/history', headers: auth(noScope.secret) }),
        await postJson(f, '/api/v1/lookup', { identifier: DIR.individual.cbu, type: 'cbu' }, auth(informes.secret)),
        await f.app.inject({ url: `/api/v1/lookup?identifier=${encodeURIComponent(key)}&type=alias`, headers: auth(key) }),
        await f.app.inject({ url: '/api/v1/unknown', headers: auth(key) }),
        // A common mistake: the key sent as a query parameter instead of the header.
        await f.app.inject({ url: `/api/v1/balance?api_key=${key}`, remoteAddress: '203.0.113.11' }),
        await f.app.inject({ url: `/api/v1/history?api_key=${key}`, headers: auth(key) }),
        await postJson(f, '/api/v1/lookup', { identifier: DIR.individual.cbu, type: 'cbu' }, { ...auth(key), 'idempotency-key': 'echo-1' }),
        await postJson(f, '/api/v1/lookup', { identifier: DIR.company.cbu, type: 'cbu' }, { ...auth(key), 'idempotency-key': 'echo-1' }),
      ];
      expect(responses.at(-1)!.statusCode).toBe(409);
      responses.splice(-2, 1);
      for (let i = 0; i < 11; i++) responses.push(await f.app.inject({ url: '/api/v1/balance', headers: auth(unknown), remoteAddress: '203.0.113.10' }));
      const lastLimited = responses.at(-1)!;
      expect(lastLimited.statusCode).toBe(429);
      for (const res of responses) {
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
        for (const secret of secrets) {
          expect(res.body).not.toContain(secret);
          expect(res.body).not.toContain(secret.slice(8));
          for (const value of Object.values(res.headers)) expect(String(value)).not.toContain(secret.slice(8));
        }
      }
      for (const line of f.logs) for (const secret of secrets) expect(line).not.toContain(secret.slice(8));
    } finally {
      revokeKey(f, noScope.id);
      revokeKey(f, informes.id);
    }
  });
});

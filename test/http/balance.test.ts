// GET /api/v1/balance: the exact body, figures that follow purchases and lookups, both products'
// keys, sandbox keys (read-only, same balance), and every error status the endpoint can answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { importCreditRecords } from '../support/credit-data';
import { createKeyWithId, expectError, historyTotal, postJson, REQUEST_ID, revokeKey } from '../support/http-helpers';
import { balanceEntrySchema } from '../../src/shared/api/balance';
import { SANDBOX_ACCOUNTS } from '../../src/main/core/resolvers/sandbox-data';

const strictBalance = z.object({ balances: z.array(balanceEntrySchema.strict()) }).strict();

let f: Fixture;
let cbuKey: string;
let informesKey: string;
let sandboxKey: string;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 10, informes: 3 } });
  f.importDirectory(DIRECTORY_CSV);
  importCreditRecords(f);
  cbuKey = f.createKey({ rateLimitPerSecond: 1000 });
  informesKey = f.createKey({ product: 'informes', scopes: ['lookup', 'balance'], rateLimitPerSecond: 1000 });
  sandboxKey = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 1000 });
});
afterAll(() => f.close());

const balance = (key: string, extra: { remoteAddress?: string } = {}) =>
  f.app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(key), ...extra });

function expected(cbu: [number, number, number], informes: [number, number, number]) {
  return {
    balances: [
      { productId: expect.any(String), productName: 'Consulta CBU', productSlug: 'cbu', balance: cbu[0], totalPurchased: cbu[1], totalConsumed: cbu[2] },
      {
        productId: expect.any(String),
        productName: 'Informe Crediticio',
        productSlug: 'informes',
        balance: informes[0],
        totalPurchased: informes[1],
        totalConsumed: informes[2],
      },
    ],
  };
}

describe('GET /api/v1/balance', () => {
  it('200: exactly {balances:[…]} with one strict entry per product', async () => {
    const res = await balance(cbuKey);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['request-id']).toMatch(REQUEST_ID);
    const body = strictBalance.parse(res.json());
    expect(body).toEqual(expected([10, 10, 0], [3, 3, 0]));
    const [cbu, informes] = body.balances;
    expect(cbu!.productId).not.toBe(informes!.productId);
    expect(cbu!.productId.length).toBeGreaterThan(0);
    // Successful answers carry the rate-limit headers too.
    expect(res.headers['ratelimit-limit']).toBe('2000');
    expect(res.headers['ratelimit-remaining']).toBeDefined();
    expect(res.headers['ratelimit-reset']).toBeDefined();
  });

  it('200: figures move after purchases and lookups (success, PA006, PA011 and credit reports consume; 402 does not)', async () => {
    f.addCredits('cbu', 5);
    expect((await balance(cbuKey)).json()).toEqual(expected([15, 15, 0], [3, 3, 0]));

    const ok = await f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(cbuKey) });
    expect(ok.statusCode).toBe(200);
    const bad = await f.app.inject({ url: `/api/v1/lookup?identifier=123&type=cbu`, headers: auth(cbuKey) });
    expect(bad.statusCode).toBe(400);
    const missing = await postJson(f, '/api/v1/lookup', { identifier: DIR.missing.alias, type: 'alias' }, auth(cbuKey));
    expect(missing.statusCode).toBe(404);
    expect((await balance(cbuKey)).json()).toEqual(expected([12, 15, 3], [3, 3, 0]));

    const report = await postJson(f, '/api/v1/credit/lookup', { tax_id: '20287654325' }, auth(informesKey));
    expect(report.statusCode).toBe(200);
    expect((await balance(informesKey)).json()).toEqual(expected([12, 15, 3], [2, 3, 1]));

    // Spend the remaining Informes credits, then a 402 changes nothing.
    for (let i = 0; i < 2; i++) expect((await postJson(f, '/api/v1/credit/lookup', { tax_id: '20287654325' }, auth(informesKey))).statusCode).toBe(200);
    const refused = await postJson(f, '/api/v1/credit/lookup', { tax_id: '20287654325' }, auth(informesKey));
    expect(refused.statusCode).toBe(402);
    expect((await balance(cbuKey)).json()).toEqual(expected([12, 15, 3], [0, 3, 3]));

    f.addCredits('informes', 4);
    expect((await balance(informesKey)).json()).toEqual(expected([12, 15, 3], [4, 7, 3]));
  });

  it('200: a CBU key and an Informes key see the same organization balance', async () => {
    const a = await balance(cbuKey);
    const b = await balance(informesKey);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
  });

  it('200: a sandbox key sees the same (live) balance, and sandbox lookups leave it unchanged', async () => {
    expect(sandboxKey.startsWith('sk_test_')).toBe(true);
    const live = (await balance(cbuKey)).json();
    const sandbox = await balance(sandboxKey);
    expect(sandbox.statusCode).toBe(200);
    expect(strictBalance.parse(sandbox.json())).toEqual(live);

    const lookup = await f.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_ACCOUNTS[0]!.account.number}&type=cbu`, headers: auth(sandboxKey) });
    expect(lookup.statusCode).toBe(200);
    expect((await balance(sandboxKey)).json()).toEqual(live);
    expect((await balance(cbuKey)).json()).toEqual(live);
  });

  it('reading the balance consumes nothing and records no history', async () => {
    const before = (await balance(cbuKey)).json();
    const liveHistory = historyTotal(f, 'live', 'cbu');
    const sandboxHistory = historyTotal(f, 'sandbox', 'cbu');
    const informesHistory = historyTotal(f, 'live', 'informes');
    for (let i = 0; i < 5; i++) {
      expect((await balance(cbuKey)).statusCode).toBe(200);
      expect((await balance(informesKey)).statusCode).toBe(200);
      expect((await balance(sandboxKey)).statusCode).toBe(200);
    }
    expect((await balance(cbuKey)).json()).toEqual(before);
    expect(historyTotal(f, 'live', 'cbu')).toBe(liveHistory);
    expect(historyTotal(f, 'sandbox', 'cbu')).toBe(sandboxHistory);
    expect(historyTotal(f, 'live', 'informes')).toBe(informesHistory);
  });

  it('401 UNAUTHORIZED: missing header, malformed header, unknown and revoked keys', async () => {
    const revoked = createKeyWithId(f);
    revokeKey(f, revoked.id);
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: `Token ${cbuKey}` },
      auth(`sk_live_${'Z'.repeat(32)}`),
      auth(revoked.secret),
    ];
    for (const headers of cases) {
      const res = await f.app.inject({ method: 'GET', url: '/api/v1/balance', headers });
      const body = expectError(res, 401, 'UNAUTHORIZED', { creditsRemaining: 'absent' });
      expect(body).not.toHaveProperty('balances');
      // RFC 6750's challenge; a key that was sent and refused is an invalid_token.
      const sent = headers.authorization?.startsWith('Bearer sk_');
      expect(res.headers['www-authenticate']).toBe(sent ? 'Bearer realm="titular", error="invalid_token"' : 'Bearer realm="titular"');
    }
  });

  it('401 says why to whoever holds the key: revoked, or expired and when; an unknown or rotated-away key is just invalid', async () => {
    const message = async (secret: string) => (await f.app.inject({ url: '/api/v1/balance', headers: auth(secret) })).json().error.message;
    const revoked = createKeyWithId(f);
    revokeKey(f, revoked.id);
    expect(await message(revoked.secret)).toBe('This API key was revoked; ask an administrator for a new one');

    const expiring = createKeyWithId(f, { expiresAt: Date.now() + 60_000 });
    // Moved into the past where no request has read (and cached) the key yet.
    const expiredAt = Date.now() - 1_000;
    f.titular.database.sqlite.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(expiredAt, expiring.id);
    expect(await message(expiring.secret)).toBe(`This API key expired at ${new Date(expiredAt).toISOString()}; ask an administrator for a new one`);

    const rotated = createKeyWithId(f);
    f.titular.keys.rotate(f.orgId, rotated.id, f.adminId);
    expect(await message(rotated.secret)).toBe('Invalid API key');
    expect(await message(`sk_live_${'Q'.repeat(32)}`)).toBe('Invalid API key');
    revokeKey(f, rotated.id);
  });

  it('403 FORBIDDEN: a key without the balance scope (either product) and a caller outside the IP whitelist', async () => {
    const noScope = createKeyWithId(f, { scopes: ['lookup', 'history'] });
    const informesNoScope = createKeyWithId(f, { product: 'informes', scopes: ['lookup'] });
    const whitelisted = createKeyWithId(f, { ipWhitelist: ['10.0.0.0/8', '192.168.1.7'] });
    try {
      for (const key of [noScope.secret, informesNoScope.secret]) {
        expectError(await balance(key), 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
      }
      expectError(await balance(whitelisted.secret), 403, 'FORBIDDEN', { creditsRemaining: 'absent' });
      const outside = expectError(await balance(whitelisted.secret, { remoteAddress: '192.168.1.8' }), 403, 'FORBIDDEN');
      // The address the server saw: what the admin must add to the whitelist, or why it differs.
      expect(outside.error.message).toBe("The caller address 192.168.1.8 is not in this key's IP whitelist");
      // Inside the whitelist the same key is answered.
      expect((await balance(whitelisted.secret, { remoteAddress: '10.20.30.40' })).statusCode).toBe(200);
      expect((await balance(whitelisted.secret, { remoteAddress: '192.168.1.7' })).statusCode).toBe(200);
    } finally {
      for (const k of [noScope, informesNoScope, whitelisted]) revokeKey(f, k.id);
    }
  });

  it('429 RATE_LIMITED past the burst, with Retry-After and RateLimit headers; the balance is still unchanged', async () => {
    const slow = createKeyWithId(f, { rateLimitPerSecond: 1 });
    try {
      const before = (await balance(cbuKey)).json();
      const statuses: number[] = [];
      let limited;
      for (let i = 0; i < 23; i++) {
        const res = await balance(slow.secret);
        statuses.push(res.statusCode);
        if (res.statusCode === 429) limited ??= res;
      }
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(20);
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(21);
      expect(limited).toBeDefined();
      const body = expectError(limited!, 429, 'RATE_LIMITED', { creditsRemaining: 'absent' });
      expect(body).not.toHaveProperty('balances');
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited!.headers['ratelimit-limit']).toBe('20');
      expect(limited!.headers['ratelimit-remaining']).toBe('0');
      expect(Number(limited!.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect((await balance(cbuKey)).json()).toEqual(before);
    } finally {
      revokeKey(f, slow.id);
    }
  });

  it('a key created with a higher rate bursts to twice it (RateLimit-Limit says so); the default key to 20', async () => {
    const fast = createKeyWithId(f, { rateLimitPerSecond: 150 });
    const plain = createKeyWithId(f, {});
    try {
      expect((await balance(fast.secret)).headers['ratelimit-limit']).toBe('300');
      expect((await balance(plain.secret)).headers['ratelimit-limit']).toBe('20');
    } finally {
      revokeKey(f, fast.id);
      revokeKey(f, plain.id);
    }
  });
});

// API key lifecycle (contract §5.6, decisions "Keys"): revocation, rotation and expiry apply to the
// very next request; the 10-active-key limit; reveal is faithful and audited; secrets have the
// documented shape and are drawn uniformly from [A-Za-z0-9].
import { afterEach, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { checkLedgerInvariants } from './support/invariants';
import { liveKeyInput } from './support/data-dir';
import { TitularError } from '../src/main/core/errors';
import { MAX_ACTIVE_KEYS, type CreateKeyInput } from '../src/main/core/keys/api-keys';
import { generateKeySecret } from '../src/main/core/keys/secrets';
import { openTitular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

async function setup(credits = 100): Promise<Fixture> {
  f = await createFixture({ credits: { cbu: credits } });
  f.importDirectory(DIRECTORY_CSV);
  return f;
}

function newKey(fx: Fixture, input: Partial<Omit<CreateKeyInput, 'orgId'>> = {}) {
  return fx.titular.keys.create(liveKeyInput(fx.orgId, fx.adminId, { rateLimitPerSecond: 10_000, ...input }));
}

const lookup = (fx: Fixture, secret: string) =>
  fx.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) });

function expectUnauthorized(res: Awaited<ReturnType<typeof lookup>>) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  expect(res.json()).not.toHaveProperty('credits_remaining');
}

function expectTitularError(run: () => unknown, status: number, code: string): TitularError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(TitularError);
  expect((caught as TitularError).status).toBe(status);
  expect((caught as TitularError).code).toBe(code);
  return caught as TitularError;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('revocation, rotation and expiry take effect on the very next request', () => {
  it('revoke: 200, then 401 on the next request, and for good; nothing charged for the 401s', async () => {
    const fx = await setup();
    const { key, secret } = newKey(fx);
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    const revoked = fx.titular.keys.revoke(fx.orgId, key.id, fx.adminId);
    expect(revoked.status).toBe('revoked');
    const before = fx.balance('cbu');
    expectUnauthorized(await lookup(fx, secret));
    expectUnauthorized(await fx.app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(secret) }));
    expectUnauthorized(await fx.app.inject({ method: 'GET', url: '/api/v1/history', headers: auth(secret) }));
    // Revoking again changes nothing and does not resurrect it.
    expect(fx.titular.keys.revoke(fx.orgId, key.id, fx.adminId).status).toBe('revoked');
    expectUnauthorized(await lookup(fx, secret));
    expect(fx.balance('cbu')).toBe(before);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });

  it('revoke from another process on the same data directory (the CLI) applies to the next request', async () => {
    const fx = await setup();
    const { key, secret } = newKey(fx);
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    const cli = openTitular({ dataDir: fx.dataDir, keyProvider: headlessKeyProvider(fx.dataDir, {}) });
    try {
      cli.keys.revoke(fx.orgId, key.id, fx.adminId);
    } finally {
      cli.close();
    }
    expectUnauthorized(await lookup(fx, secret));
  });

  it('rotate: the old secret answers 401 on the next request, the new one 200, same key record', async () => {
    const fx = await setup();
    const { key, secret: oldSecret } = newKey(fx);
    expect((await lookup(fx, oldSecret)).statusCode).toBe(200);
    const rotated = fx.titular.keys.rotate(fx.orgId, key.id, fx.adminId);
    expect(rotated.key.id).toBe(key.id);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(rotated.secret).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(rotated.key.rotatedAt).not.toBeNull();
    expect(rotated.key.prefix).toBe(`${rotated.secret.slice(0, 12)}…`);
    expectUnauthorized(await lookup(fx, oldSecret));
    expect((await lookup(fx, rotated.secret)).statusCode).toBe(200);
    expect(fx.titular.keys.reveal(fx.orgId, key.id, fx.adminId)).toBe(rotated.secret);
    // Rotating twice: only the latest secret works.
    const again = fx.titular.keys.rotate(fx.orgId, key.id, fx.adminId);
    expectUnauthorized(await lookup(fx, rotated.secret));
    expect((await lookup(fx, again.secret)).statusCode).toBe(200);
    // Rotation keeps the record active (it does not count as a new key).
    expect(fx.titular.keys.activeCount(fx.orgId)).toBe(1);
  });

  it('expiry: a key created to expire in 300 ms works, then answers 401 after ~400 ms', async () => {
    const fx = await setup();
    const { key, secret } = newKey(fx, { expiresAt: Date.now() + 300 });
    expect(key.status).toBe('active');
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    await sleep(400);
    expectUnauthorized(await lookup(fx, secret));
    expect(fx.titular.keys.get(fx.orgId, key.id).status).toBe('expired');
  });

  it('a key cannot be created already expired', async () => {
    const fx = await setup();
    expectTitularError(() => newKey(fx, { expiresAt: Date.now() - 1 }), 400, 'INVALID_PARAMETER');
  });

  it('an Informes key cannot take the history scope, which it could never use; a CBU key can', async () => {
    const fx = await setup();
    const refused = expectTitularError(() => newKey(fx, { product: 'informes', scopes: ['lookup', 'history'] }), 400, 'INVALID_PARAMETER');
    expect(refused.message).toMatch(/^The history scope is for CBU keys/);
    expect(fx.titular.keys.list(fx.orgId).filter((k) => k.product === 'informes')).toEqual([]);
    expect(newKey(fx, { product: 'informes', scopes: ['lookup', 'balance'] }).key.scopes).toEqual(['lookup', 'balance']);
    expect(newKey(fx, { product: 'cbu', scopes: ['history'] }).key.scopes).toEqual(['history']);
  });

  it('a revoked key cannot be rotated (TitularError) and stays revoked', async () => {
    const fx = await setup();
    const { key, secret } = newKey(fx);
    fx.titular.keys.revoke(fx.orgId, key.id, fx.adminId);
    let error: unknown;
    try {
      fx.titular.keys.rotate(fx.orgId, key.id, fx.adminId);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TitularError);
    expect((error as TitularError).status).toBeGreaterThanOrEqual(400);
    expect((error as TitularError).status).toBeLessThan(500);
    expect((error as TitularError).message).toMatch(/revoked/i);
    expect(fx.titular.keys.get(fx.orgId, key.id)).toMatchObject({ status: 'revoked', rotatedAt: null });
    expectUnauthorized(await lookup(fx, secret));
  });
});

describe('the 10-active-key limit', () => {
  it('the 11th active key fails with 409 KEY_LIMIT_REACHED; after revoking one, a new key can be created', async () => {
    const fx = await setup();
    const ids: string[] = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) {
      // Live and sandbox, both products: all count towards the organization's limit.
      ids.push(newKey(fx, { environment: i % 2 ? 'sandbox' : 'live', product: i % 3 ? 'cbu' : 'informes', scopes: ['balance'] }).key.id);
    }
    expect(MAX_ACTIVE_KEYS).toBe(10);
    const error = expectTitularError(() => newKey(fx), 409, 'KEY_LIMIT_REACHED');
    expect(error.message).toMatch(/10 active keys/);
    expect(fx.titular.keys.list(fx.orgId)).toHaveLength(10);

    fx.titular.keys.revoke(fx.orgId, ids[3]!, fx.adminId);
    const { secret } = newKey(fx);
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    expectTitularError(() => newKey(fx), 409, 'KEY_LIMIT_REACHED');
    // Rotation is not creation: allowed at the limit.
    expect(() => fx.titular.keys.rotate(fx.orgId, ids[0]!, fx.adminId)).not.toThrow();
  });

  it('expired keys do not count as active', async () => {
    const fx = await setup();
    for (let i = 0; i < MAX_ACTIVE_KEYS - 1; i++) newKey(fx);
    newKey(fx, { expiresAt: Date.now() + 250 });
    expect(fx.titular.keys.activeCount(fx.orgId)).toBe(10);
    expectTitularError(() => newKey(fx), 409, 'KEY_LIMIT_REACHED');
    await sleep(350);
    expect(fx.titular.keys.activeCount(fx.orgId)).toBe(9);
    const { secret } = newKey(fx);
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    expect(fx.titular.keys.list(fx.orgId).filter((k) => k.status === 'expired')).toHaveLength(1);
  });
});

describe('reveal', () => {
  it('returns the same secret as creation, and is audited without the secret', async () => {
    const fx = await setup();
    const live = newKey(fx);
    const sandbox = newKey(fx, { environment: 'sandbox' });
    expect(fx.titular.keys.reveal(fx.orgId, live.key.id, fx.adminId)).toBe(live.secret);
    expect(fx.titular.keys.reveal(fx.orgId, sandbox.key.id, fx.operatorId)).toBe(sandbox.secret);

    const audit = fx.titular.audit.list(fx.orgId, { targetType: 'api_key' });
    const reveals = audit.filter((e) => e.action === 'key.revealed');
    expect(reveals).toHaveLength(2);
    expect(reveals.find((e) => e.targetId === live.key.id)?.actor?.id).toBe(fx.adminId);
    expect(reveals.find((e) => e.targetId === sandbox.key.id)?.actor?.id).toBe(fx.operatorId);
    expect(audit.filter((e) => e.action === 'key.created')).toHaveLength(2);
    const auditText = JSON.stringify(audit);
    for (const { secret } of [live, sandbox]) {
      expect(auditText).not.toContain(secret);
      expect(auditText).not.toContain(secret.slice(8));
    }
  });

  it('the trail names the prefix a key had when it was revealed or revoked, not the one a later rotation gave it', async () => {
    const fx = await setup();
    const { key, secret } = newKey(fx);
    fx.titular.keys.reveal(fx.orgId, key.id, fx.adminId);
    const rotated = fx.titular.keys.rotate(fx.orgId, key.id, fx.adminId);
    fx.titular.keys.revoke(fx.orgId, key.id, fx.adminId);
    const detailsOf = (action: string) => fx.titular.audit.list(fx.orgId, { targetType: 'api_key' }).find((e) => e.action === action)?.details;
    expect(detailsOf('key.revealed')).toEqual({ prefix: `${secret.slice(0, 12)}…` });
    expect(detailsOf('key.revoked')).toEqual({ prefix: `${rotated.secret.slice(0, 12)}…` });
  });

  it('reveal of an unknown key id is NOT_FOUND', async () => {
    const fx = await setup();
    expectTitularError(() => fx.titular.keys.reveal(fx.orgId, '01900000-0000-7000-8000-000000000000', fx.adminId), 404, 'NOT_FOUND');
  });
});

describe('secret format and randomness', () => {
  it('created keys: sk_live_ / sk_test_ + 32 chars of [A-Za-z0-9]', async () => {
    const fx = await setup();
    expect(newKey(fx).secret).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(newKey(fx, { environment: 'sandbox' }).secret).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
  });

  it('2,000 secrets: no duplicates, every one of the 62 characters appears, uniform distribution', () => {
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const secrets = Array.from({ length: 2000 }, (_, i) => generateKeySecret(i % 2 ? 'live' : 'sandbox'));
    expect(new Set(secrets).size).toBe(secrets.length);
    const counts = new Map<string, number>([...ALPHABET].map((c) => [c, 0]));
    for (const secret of secrets) {
      expect(secret).toMatch(/^sk_(live|test)_[A-Za-z0-9]{32}$/);
      for (const c of secret.slice(8)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const total = secrets.length * 32;
    const mean = total / 62;
    for (const [c, n] of counts) {
      expect(n, `character ${c}`).toBeGreaterThan(0);
      expect(n, `character ${c}`).toBeLessThan(2 * mean);
      expect(n, `character ${c}`).toBeGreaterThan(mean / 2);
    }
    // Pearson chi-square against the uniform distribution, 61 degrees of freedom. 129 is the
    // p ≈ 1e-6 critical value, so a correct generator fails this about once in a million runs; a
    // `byte % 62` generator (8 characters at 5/256, the rest at 4/256) scores ≈ 400 here.
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - mean) ** 2 / mean, 0);
    expect(chiSquare).toBeLessThan(129);
  });
});

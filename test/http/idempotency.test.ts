// Idempotency-Key on POST /lookup, POST /credit/lookup and GET /lookup: replays charge once and
// return the first answer, a different request with the same key is a conflict, system errors are
// not stored, invalid keys are refused without a charge, and keys are scoped per API key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { importCreditRecords } from '../support/credit-data';
import { createKeyWithId, expectError, historyTotal, postJson, revokeKey, type Res } from '../support/http-helpers';
import { SANDBOX_CREDIT_REPORTS, SANDBOX_UPSTREAM_FAILURE } from '../../src/main/core/resolvers/sandbox-data';

let f: Fixture;
let cbuKey: string;
let informesKey: string;

beforeAll(async () => {
  f = await createFixture({ credits: { cbu: 100, informes: 50 } });
  f.importDirectory(DIRECTORY_CSV);
  importCreditRecords(f);
  cbuKey = f.createKey({ rateLimitPerSecond: 1000 });
  informesKey = f.createKey({ product: 'informes', scopes: ['lookup', 'balance'], rateLimitPerSecond: 1000 });
});
afterAll(() => f.close());

const idem = (k: string) => ({ 'idempotency-key': k });
const postLookup = (body: unknown, idemKey?: string, key = cbuKey, fx = f) =>
  postJson(fx, '/api/v1/lookup', body, { ...auth(key), ...(idemKey === undefined ? {} : idem(idemKey)) });
const postCredit = (body: unknown, idemKey?: string, key = informesKey) =>
  postJson(f, '/api/v1/credit/lookup', body, { ...auth(key), ...(idemKey === undefined ? {} : idem(idemKey)) });
const getLookup = (query: string, idemKey?: string, key = cbuKey) =>
  f.app.inject({ url: `/api/v1/lookup?${query}`, headers: { ...auth(key), ...(idemKey === undefined ? {} : idem(idemKey)) } });

/** The retry replays the first answer byte for byte, with the replay header and the first Request-Id. */
function expectReplay(first: Res, retry: Res): void {
  expect(retry.statusCode).toBe(first.statusCode);
  expect(retry.json()).toEqual(first.json());
  expect(retry.headers['request-id']).toBe(first.json().request_id);
  expect(retry.headers['request-id']).toBe(first.headers['request-id']);
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(first.headers['idempotent-replayed']).toBeUndefined();
}

describe('Idempotency-Key replays', () => {
  it('POST /api/v1/lookup: a retry with the same key and body replays the 200 and charges once', async () => {
    const before = f.balance('cbu');
    const history = historyTotal(f, 'live', 'cbu');
    const body = { identifier: DIR.individual.cbu, type: 'cbu' };
    const first = await postLookup(body, 'order-1001');
    expect(first.statusCode).toBe(200);
    expect(first.json().credits_remaining).toBe(before - 1);
    const logged = f.logs.length;
    for (let i = 0; i < 3; i++) expectReplay(first, await postLookup(body, 'order-1001'));
    // The request log names each replay under its own id and the first one's, which its client quotes.
    const replays = f.logs.slice(logged).filter((line) => line.startsWith('POST /api/v1/lookup 200 '));
    expect(replays).toHaveLength(3);
    for (const line of replays) expect(line).toMatch(new RegExp(` req_[0-9a-f]{32} replay-of ${first.json().request_id}$`));
    expect(f.balance('cbu')).toBe(before - 1);
    expect(historyTotal(f, 'live', 'cbu')).toBe(history + 1);
    // Without the header every request is a new, charged lookup.
    const fresh = await postLookup(body);
    expect(fresh.json().request_id).not.toBe(first.json().request_id);
    expect(f.balance('cbu')).toBe(before - 2);
  });

  it('POST /api/v1/lookup: a charged error (PA011, PA006) is replayed too, charged once', async () => {
    for (const [k, body, status] of [
      ['missing-1', { identifier: DIR.missing.alias, type: 'alias' }, 404],
      ['invalid-1', { identifier: '123', type: 'cbu' }, 400],
    ] as const) {
      const before = f.balance('cbu');
      const first = await postLookup(body, k);
      expect(first.statusCode).toBe(status);
      expect(first.json().credits_remaining).toBe(before - 1);
      expectReplay(first, await postLookup(body, k));
      expect(f.balance('cbu')).toBe(before - 1);
    }
  });

  it('POST /api/v1/credit/lookup: a retry replays the report and charges once', async () => {
    const before = f.balance('informes');
    const history = historyTotal(f, 'live', 'informes');
    const body = { tax_id: SANDBOX_CREDIT_REPORTS[1]!.subject.tax_id };
    const first = await postCredit(body, 'credit-1');
    expect(first.statusCode).toBe(200);
    expectReplay(first, await postCredit(body, 'credit-1'));
    expect(f.balance('informes')).toBe(before - 1);
    expect(historyTotal(f, 'live', 'informes')).toBe(history + 1);
  });

  it('GET /api/v1/lookup honours Idempotency-Key as well', async () => {
    const before = f.balance('cbu');
    const query = `identifier=${DIR.company.alias}&type=alias`;
    const first = await getLookup(query, 'get-1');
    expect(first.statusCode).toBe(200);
    expectReplay(first, await getLookup(query, 'get-1'));
    expect(f.balance('cbu')).toBe(before - 1);
  });
});

describe('Idempotency-Key conflicts', () => {
  it('409 IDEMPOTENCY_CONFLICT for the same key with a different body; nothing charged, the original stays replayable', async () => {
    const first = await postLookup({ identifier: DIR.company.cbu, type: 'cbu' }, 'conflict-1');
    expect(first.statusCode).toBe(200);
    const before = f.balance('cbu');
    const history = historyTotal(f, 'live', 'cbu');
    // Any difference in the body is another request: a field added (even one the lookup ignores) too.
    for (const other of [{ identifier: DIR.wallet.cbu, type: 'cbu' }, { identifier: DIR.company.alias, type: 'alias' }, {}, { identifier: DIR.company.cbu, type: 'cbu', reference: 'x' }]) {
      const res = await postLookup(other, 'conflict-1');
      const body = expectError(res, 409, 'IDEMPOTENCY_CONFLICT', { creditsRemaining: 'absent' });
      expect(body.request_id).not.toBe(first.json().request_id);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(f.balance('cbu')).toBe(before);
    expect(historyTotal(f, 'live', 'cbu')).toBe(history);
    expectReplay(first, await postLookup({ identifier: DIR.company.cbu, type: 'cbu' }, 'conflict-1'));
  });

  it('the same body with its keys in another order is the same request: replayed, charged once', async () => {
    const before = f.balance('cbu');
    const first = await postLookup({ identifier: DIR.individual.cbu, type: 'cbu', meta: { a: 1, b: [2, 3] } }, 'reordered-1');
    expect(first.statusCode).toBe(200);
    expectReplay(first, await postLookup({ meta: { b: [2, 3], a: 1 }, type: 'cbu', identifier: DIR.individual.cbu }, 'reordered-1'));
    // Arrays keep their order: reversed, it is another body.
    expectError(await postLookup({ identifier: DIR.individual.cbu, type: 'cbu', meta: { a: 1, b: [3, 2] } }, 'reordered-1'), 409, 'IDEMPOTENCY_CONFLICT', { creditsRemaining: 'absent' });
    expect(f.balance('cbu')).toBe(before - 1);
  });

  it('GET /api/v1/lookup: another query parameter with the same key is a conflict, not a replay', async () => {
    const query = `identifier=${DIR.individual.cbu}&type=cbu`;
    const first = await getLookup(query, 'get-query-1');
    expect(first.statusCode).toBe(200);
    const before = f.balance('cbu');
    expectError(await getLookup(`${query}&ref=7`, 'get-query-1'), 409, 'IDEMPOTENCY_CONFLICT', { creditsRemaining: 'absent' });
    expectReplay(first, await getLookup(`type=cbu&identifier=${DIR.individual.cbu}`, 'get-query-1'));
    expect(f.balance('cbu')).toBe(before);
  });

  it('409 IDEMPOTENCY_CONFLICT on POST /credit/lookup for a different tax_id', async () => {
    const first = await postCredit({ tax_id: '20287654325' }, 'conflict-credit');
    expect(first.statusCode).toBe(200);
    const before = f.balance('informes');
    expectError(await postCredit({ tax_id: '30712345671' }, 'conflict-credit'), 409, 'IDEMPOTENCY_CONFLICT', { creditsRemaining: 'absent' });
    expect(f.balance('informes')).toBe(before);
  });
});

describe('Idempotency-Key and the last credit', () => {
  it('a retry of the request that spent the last credit replays its 200 instead of a 402', async () => {
    const g = await createFixture({ credits: { cbu: 1 } });
    try {
      g.importDirectory(DIRECTORY_CSV);
      const k = g.createKey();
      const body = { identifier: DIR.individual.alias, type: 'alias' };
      const first = await postLookup(body, 'last-credit', k, g);
      expect(first.statusCode).toBe(200);
      expect(first.json().credits_remaining).toBe(0);
      const retry = await postLookup(body, 'last-credit', k, g);
      expectReplay(first, retry);
      expect(retry.json().credits_remaining).toBe(0);
      // A new request (no key, or another key) is refused.
      expectError(await postLookup(body, undefined, k, g), 402, 'INSUFFICIENT_CREDITS', { creditsRemaining: 0 });
      expectError(await postLookup(body, 'another-key', k, g), 402, 'INSUFFICIENT_CREDITS', { creditsRemaining: 0 });
      // A 402 is not stored: once credits are bought, the same Idempotency-Key runs for real.
      g.addCredits('cbu', 1);
      const later = await postLookup(body, 'another-key', k, g);
      expect(later.statusCode).toBe(200);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(g.balance('cbu')).toBe(0);
    } finally {
      await g.close();
    }
  });
});

describe('Idempotency-Key under concurrency', () => {
  it('10 concurrent requests with the same key charge once and all get the same answer', async () => {
    const before = f.balance('cbu');
    const history = historyTotal(f, 'live', 'cbu');
    const body = { identifier: DIR.joint.cbu, type: 'cbu' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => postLookup(body, 'burst-1')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    const ids = new Set(answers.map((a) => a.json().request_id));
    expect(ids.size).toBe(1);
    for (const a of answers) {
      expect(a.json()).toEqual(answers[0]!.json());
      expect(a.headers['request-id']).toBe(answers[0]!.json().request_id);
    }
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(answers[0]!.json().credits_remaining).toBe(before - 1);
    expect(f.balance('cbu')).toBe(before - 1);
    expect(historyTotal(f, 'live', 'cbu')).toBe(history + 1);
  });

  it('10 concurrent credit reports with the same key charge once', async () => {
    const before = f.balance('informes');
    const answers = await Promise.all(Array.from({ length: 10 }, () => postCredit({ tax_id: '27312345671' }, 'burst-credit')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json().request_id)).size).toBe(1);
    expect(f.balance('informes')).toBe(before - 1);
  });
});

describe('Idempotency-Key and system errors', () => {
  it('a GE500 answer is not stored: a retry runs again (new request_id, no replay header), and may then succeed', async () => {
    const before = f.balance('informes');
    const history = historyTotal(f, 'live', 'informes');
    const body = { tax_id: '20287654325' };
    // A live source that cannot answer: the remote resolver chosen but not configured.
    f.titular.settings.set('resolver.informes', 'remote');
    const first = await postCredit(body, 'flaky-1');
    expectError(first, 503, 'GE500', { creditsRemaining: 'absent' });
    const retry = await postCredit(body, 'flaky-1');
    f.titular.settings.set('resolver.informes', 'directory');
    expectError(retry, 503, 'GE500', { creditsRemaining: 'absent' });
    expect(retry.json().request_id).not.toBe(first.json().request_id);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(Number(retry.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Both attempts really ran (two history entries), neither was charged.
    expect(historyTotal(f, 'live', 'informes')).toBe(history + 2);
    expect(f.balance('informes')).toBe(before);
    // Nothing was stored under the key, so it is free for the next (successful) request.
    const ok = await postCredit({ tax_id: '20287654325' }, 'flaky-1');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
    expect(f.balance('informes')).toBe(before - 1);
  });

  it('a sandbox GE500 is not stored either', async () => {
    const sandbox = createKeyWithId(f, { environment: 'sandbox' });
    try {
      const body = { identifier: SANDBOX_UPSTREAM_FAILURE.cbu, type: 'cbu' };
      const first = await postLookup(body, 'sandbox-flaky', sandbox.secret);
      const retry = await postLookup(body, 'sandbox-flaky', sandbox.secret);
      expect([first.statusCode, retry.statusCode]).toEqual([503, 503]);
      expect(retry.json().request_id).not.toBe(first.json().request_id);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      revokeKey(f, sandbox.id);
    }
  });
});

describe('invalid Idempotency-Key values', () => {
  it('400 INVALID_PARAMETER without a charge or a history entry: empty, 256+ characters, spaces, control characters', async () => {
    const before = { cbu: f.balance('cbu'), informes: f.balance('informes') };
    const history = { cbu: historyTotal(f, 'live', 'cbu'), informes: historyTotal(f, 'live', 'informes') };
    const invalid = ['', 'x'.repeat(300), 'x'.repeat(256), 'has space', 'tab\there'];
    for (const k of invalid) {
      expectError(await postLookup({ identifier: DIR.individual.cbu, type: 'cbu' }, k), 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
      expectError(await getLookup(`identifier=${DIR.individual.cbu}&type=cbu`, k), 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
      expectError(await postCredit({ tax_id: '20287654325' }, k), 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
    }
    expect({ cbu: f.balance('cbu'), informes: f.balance('informes') }).toEqual(before);
    expect({ cbu: historyTotal(f, 'live', 'cbu'), informes: historyTotal(f, 'live', 'informes') }).toEqual(history);
  });

  it('two Idempotency-Key headers: 400 that says to send one (not that the key is malformed); nothing charged', async () => {
    const before = f.balance('cbu');
    const twice = await f.app.inject({
      method: 'POST',
      url: '/api/v1/lookup',
      headers: { ...auth(cbuKey), 'content-type': 'application/json', 'idempotency-key': ['retry-a', 'retry-b'] },
      payload: JSON.stringify({ identifier: DIR.individual.cbu, type: 'cbu' }),
    });
    expectError(twice, 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
    expect(twice.json().error.message).toBe('Idempotency-Key was sent more than once: send it once per request');
    // One key holding ", " is still just malformed (a key has no spaces).
    expect((await postLookup({ identifier: DIR.individual.cbu, type: 'cbu' }, 'retry-a, retry-b')).json().error.message).toMatch(/^Idempotency-Key must be 1 to 255 visible ASCII characters/);
    expect(f.balance('cbu')).toBe(before);
  });

  it('an invalid key is refused even when the lookup itself would be PA006 (no charge)', async () => {
    const before = f.balance('cbu');
    expectError(await postLookup({ identifier: 'bad', type: 'cbu' }, ' '), 400, 'INVALID_PARAMETER', { creditsRemaining: 'absent' });
    expect(f.balance('cbu')).toBe(before);
  });

  it('the longest valid key (255 visible ASCII characters) is accepted and replayed', async () => {
    const long = `${'k'.repeat(250)}-_.~!`;
    expect(long).toHaveLength(255);
    const before = f.balance('cbu');
    const first = await postLookup({ identifier: DIR.wallet.alias, type: 'alias' }, long);
    expect(first.statusCode).toBe(200);
    expectReplay(first, await postLookup({ identifier: DIR.wallet.alias, type: 'alias' }, long));
    expect(f.balance('cbu')).toBe(before - 1);
  });
});

describe('Idempotency-Key scope', () => {
  it('is per API key: two keys may use the same Idempotency-Key independently (no conflict, no cross-replay)', async () => {
    const other = createKeyWithId(f, { rateLimitPerSecond: 1000 });
    try {
      const before = f.balance('cbu');
      const a = await postLookup({ identifier: DIR.individual.cbu, type: 'cbu' }, 'shared-key');
      const b = await postLookup({ identifier: DIR.company.cbu, type: 'cbu' }, 'shared-key', other.secret);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.json().data.account.number).toBe(DIR.company.cbu);
      // Same body under the other API key: a new lookup, not a replay of the first key's answer.
      const c = await postLookup({ identifier: DIR.individual.cbu, type: 'cbu' }, 'shared-key-2');
      const d = await postLookup({ identifier: DIR.individual.cbu, type: 'cbu' }, 'shared-key-2', other.secret);
      expect(d.statusCode).toBe(200);
      expect(d.headers['idempotent-replayed']).toBeUndefined();
      expect(d.json().request_id).not.toBe(c.json().request_id);
      expect(f.balance('cbu')).toBe(before - 4);
      // Each key still replays its own answer.
      expectReplay(a, await postLookup({ identifier: DIR.individual.cbu, type: 'cbu' }, 'shared-key'));
      expectReplay(b, await postLookup({ identifier: DIR.company.cbu, type: 'cbu' }, 'shared-key', other.secret));
      expect(f.balance('cbu')).toBe(before - 4);
    } finally {
      revokeKey(f, other.id);
    }
  });
});

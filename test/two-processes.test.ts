// Two cores on one data directory (a second server, or the CLI, next to the first): what each one
// believes from its own caches is checked again under the write lock, so the credit rules hold
// across processes as they do within one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openTitular, type Titular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { UpstreamError } from '../src/main/core/resolvers/resolver';
import type { LookupContext } from '../src/main/core/lookup/lookup-service';
import { IdempotencyStore } from '../src/main/core/lookup/idempotency';
import { createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { checkLedgerInvariants } from './support/invariants';

let f: Fixture;
let other: Titular;
beforeEach(async () => {
  f = await createFixture();
  f.importDirectory(DIRECTORY_CSV);
  other = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
});
afterEach(async () => {
  vi.restoreAllMocks();
  other.close();
  checkLedgerInvariants(f.titular.database.sqlite);
  await f.close();
});

const consumptions = () => f.titular.database.sqlite.prepare("SELECT COUNT(*) FROM credit_ledger WHERE kind = 'consumption'").pluck().get() as number;

function apiContext(idempotencyKey?: string): LookupContext {
  f.createKey();
  const key = f.titular.keys.list(f.orgId)[0]!;
  const input = [DIR.individual.cbu, 'cbu'];
  return {
    orgId: f.orgId,
    environment: 'live',
    source: 'API',
    userId: f.adminId,
    apiKeyId: key.id,
    idempotency: idempotencyKey ? { apiKeyId: key.id, key: idempotencyKey, requestHash: IdempotencyStore.hashRequest(input) } : null,
  };
}

describe('two cores on one data directory', () => {
  it('one Idempotency-Key sent to both at once is charged once; every other answer replays it', async () => {
    f.addCredits('cbu', 100);
    const ctx = apiContext('pago-0001');
    const input = { identifier: DIR.individual.cbu, type: 'cbu' };
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : f.titular).lookups.lookupAccount(ctx, input)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.charged)).toHaveLength(1);
    expect(answers.filter((a) => a.headers?.['Idempotent-Replayed'] === 'true')).toHaveLength(9);
    // Every answer is the first one: the same credits_remaining and request id.
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(consumptions()).toBe(1);
    expect(f.balance('cbu')).toBe(99);
  });

  it('a balance the other core spent answers 402, not the source\'s GE500, though this core last saw credits', async () => {
    f.addCredits('cbu', 3);
    const ctx = apiContext();
    const input = { identifier: DIR.individual.cbu, type: 'cbu' };
    expect((await f.titular.lookups.lookupAccount(ctx, input)).body).toMatchObject({ credits_remaining: 2 });
    for (let i = 0; i < 2; i++) expect((await other.lookups.lookupAccount(ctx, input)).status).toBe(200);
    expect(f.balance('cbu')).toBe(0);
    // The source is down now; this core still believes 2 credits are left.
    vi.spyOn(f.titular.directory, 'resolveAccountNow').mockImplementation(() => {
      throw new UpstreamError('down', 30);
    });
    const answer = await f.titular.lookups.lookupAccount(ctx, input);
    expect(answer).toMatchObject({ status: 402, charged: false, body: { error: { code: 'INSUFFICIENT_CREDITS' }, credits_remaining: 0 } });
    expect(f.titular.database.sqlite.prepare('SELECT COUNT(*) FROM lookups').pluck().get()).toBe(3);
  });
});

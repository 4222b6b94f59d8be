// Purchases: a repeated reference is safe to retry, a reused reference with another amount is an
// error, and history export pages through every entry in order.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createFixture, type Fixture } from './support/fixture';
import { TitularError } from '../src/main/core/errors';
import { checkLedgerInvariants } from './support/invariants';

let f: Fixture;
beforeEach(async () => {
  f = await createFixture();
});
afterEach(() => f.close());

it('adds a purchase once per reference and refuses the same reference with another amount', () => {
  const purchase = (amount: number) => f.titular.ledger.addPurchase({ orgId: f.orgId, product: 'cbu', amount, reference: 'FAC-0001', userId: f.adminId });
  expect(purchase(100)).toMatchObject({ added: true, balance: 100 });
  expect(purchase(100)).toMatchObject({ added: false, balance: 100 });
  expect(() => purchase(250)).toThrow(TitularError);
  expect(() => purchase(250)).toThrow(/already used/);
  expect(f.balance('cbu')).toBe(100);
  for (const amount of [0, -5, 1.5, Number.NaN]) {
    expect(() => f.titular.ledger.addPurchase({ orgId: f.orgId, product: 'cbu', amount, userId: f.adminId })).toThrow(/amount/);
  }
  checkLedgerInvariants(f.titular.database.sqlite);
});

it('iterates the whole history newest first across chunk boundaries', async () => {
  f.addCredits('cbu', 10);
  const ctx = { orgId: f.orgId, environment: 'live' as const, source: 'WEB' as const, userId: f.adminId, apiKeyId: null };
  for (let i = 0; i < 7; i++) await f.titular.lookups.lookupAccount(ctx, { identifier: `bad${i}`, type: 'cbu' });
  const scope = { orgId: f.orgId, environment: 'live' as const, product: 'cbu' as const };
  const all = [...f.titular.history.iterate(scope, {}, 3)];
  expect(all).toHaveLength(7);
  expect(all.map((e) => e.inputIdentifier)).toEqual(['bad6', 'bad5', 'bad4', 'bad3', 'bad2', 'bad1', 'bad0']);
  expect([...f.titular.history.iterate(scope, { status: 'SUCCESS' }, 3)]).toHaveLength(0);
});

it('a consumption carries its lookup id as its own, and a second charge of one lookup fails whole', async () => {
  f.addCredits('cbu', 5);
  const ctx = { orgId: f.orgId, environment: 'live' as const, source: 'WEB' as const, userId: f.adminId, apiKeyId: null };
  for (let i = 0; i < 3; i++) await f.titular.lookups.lookupAccount(ctx, { identifier: `bad${i}`, type: 'cbu' });
  const sqlite = f.titular.database.sqlite;
  const consumptions = sqlite.prepare("SELECT id, lookup_id AS lookupId FROM credit_ledger WHERE kind = 'consumption'").all() as { id: string; lookupId: string }[];
  expect(consumptions).toHaveLength(3);
  for (const c of consumptions) expect(c.id).toBe(c.lookupId);
  // The primary key is what stops a lookup from being charged twice (there is no index on lookup_id).
  const again = consumptions[0]!.lookupId;
  const chargeAgain = sqlite.transaction(() => f.titular.ledger.consumeOne(f.orgId, 'cbu', again, f.adminId, Date.now()));
  expect(() => chargeAgain.immediate()).toThrow(/UNIQUE constraint failed: credit_ledger\.id/);
  expect(f.balance('cbu')).toBe(2);
  checkLedgerInvariants(sqlite);
});

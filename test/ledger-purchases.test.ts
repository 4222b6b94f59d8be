// Purchases: a repeated reference is safe to retry, a reused reference with another amount is an
// error, and history export pages through every entry in order.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createFixture, type Fixture } from './support/fixture';
import { TitularError } from '../src/main/core/errors';
import { checkLedgerInvariants, ledgerIdsBeforeTheirTime } from './support/invariants';
import { CONSUMED_BY_DAY_SQL } from '../src/main/core/ledger/ledger';
import { calendarDay } from '../src/main/core/time/wall-clock';
import { uuidv7Floor } from '../src/main/core/db/ids';

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

it('counts consumption per day through a range of the primary key (migration 0007 dropped the org/product/time index)', () => {
  f.addCredits('cbu', 20);
  f.addCredits('informes', 5);
  const sqlite = f.titular.database.sqlite;
  const day = 86_400_000;
  const today = Date.UTC(2026, 10, 22);
  const since = today - day; // yesterday 00:00 UTC
  // Ids made at a given millisecond (uuidv7() never goes back in time, so these are built by hand).
  let n = 0;
  const idAt = (ms: number) => `${uuidv7Floor(ms).slice(0, -4)}${String(++n).padStart(4, '0')}`;
  const charge = (product: 'cbu' | 'informes', createdAt: number, idMadeAt = createdAt) =>
    sqlite.transaction(() => f.titular.ledger.consumeOne(f.orgId, product, idAt(idMadeAt), f.adminId, createdAt)).immediate();
  charge('cbu', since - 3 * day); // before the range
  charge('cbu', since - 1); // the last millisecond before it
  charge('cbu', since); // its first
  charge('cbu', today + 12 * 3_600_000);
  charge('cbu', today + 13 * 3_600_000);
  charge('informes', today + 14 * 3_600_000); // the other product
  // An id made a little before its row's created_at is still found (the read keeps a day's margin)...
  charge('cbu', since + 2 * 3_600_000, since - 3 * 3_600_000);
  // ...and one made days before is not: the range, not a scan of the whole ledger, decides what is read.
  charge('cbu', today + 16 * 3_600_000, since - 5 * day);
  expect(f.titular.ledger.consumedByDay(f.orgId, 'cbu', since, calendarDay('UTC'))).toEqual(new Map([['2026-11-21', 2], ['2026-11-22', 2]]));
  expect(f.titular.ledger.consumedByDay(f.orgId, 'informes', since, calendarDay('UTC'))).toEqual(new Map([['2026-11-22', 1]]));
  // The same rows by Buenos Aires's days (UTC−3): 00:00 and 02:00 UTC of the 21st were the 20th's evening there.
  expect(f.titular.ledger.consumedByDay(f.orgId, 'cbu', since, calendarDay('America/Argentina/Buenos_Aires'))).toEqual(new Map([['2026-11-20', 2], ['2026-11-22', 2]]));
  // And by India's (UTC+5:30), whose days start on a half hour: 18:29:59.999 UTC is still the 22nd there.
  charge('cbu', today + 18 * 3_600_000 + 29 * 60_000 + 59_999);
  charge('cbu', today + 18 * 3_600_000 + 30 * 60_000);
  expect(f.titular.ledger.consumedByDay(f.orgId, 'cbu', since, calendarDay('Asia/Kolkata'))).toEqual(new Map([['2026-11-21', 2], ['2026-11-22', 3], ['2026-11-23', 1]]));
  const plan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${CONSUMED_BY_DAY_SQL}`).all('', '', '', 0) as { detail: string }[]).map((row) => row.detail);
  expect(plan).toContain('SEARCH credit_ledger USING INDEX sqlite_autoindex_credit_ledger_1 (id>?)');
  expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE name = 'credit_ledger_org_product'").all()).toEqual([]);
  // Bare charges, without their lookups: the ledger invariants (I4) would rightly fail here. I3c flags
  // exactly the row whose id is days older than it, and not the one a few hours older.
  expect(f.balance('cbu')).toBe(11);
  expect(ledgerIdsBeforeTheirTime(sqlite).map((row) => row.created_at)).toEqual([today + 16 * 3_600_000]);
});

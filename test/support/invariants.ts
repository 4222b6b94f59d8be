// Ledger invariants, checked with raw SQL against the database itself (TigerBeetle-style: the
// properties are written down next to the query that proves them, and every test that moves money
// ends by running them). Each query returns the rows that VIOLATE its invariant, so a failure shows
// exactly which organization, product or lookup is wrong.
import type Database from 'better-sqlite3';
import { expect } from 'vitest';

export interface LedgerTotals {
  orgId: string;
  product: string;
  balance: number;
  totalPurchased: number;
  totalConsumed: number;
}

/** Asserts every ledger invariant; returns the balances it checked, for further assertions. */
export function checkLedgerInvariants(sqlite: Database.Database): LedgerTotals[] {
  // I1. The balance projection equals the ledger, per org and product:
  //       credit_balances.balance         = SUM(credit_ledger.amount)
  //       credit_balances.total_purchased = SUM(amount)  WHERE kind = 'purchase'
  //       credit_balances.total_consumed  = -SUM(amount) WHERE kind = 'consumption'
  //     (a ledger row for an org/product without a balance row is a violation too, see I1b).
  const projectionMismatches = sqlite
    .prepare(
      `SELECT b.org_id, b.product, b.balance, b.total_purchased, b.total_consumed,
              COALESCE(SUM(l.amount), 0)                                                AS ledger_balance,
              COALESCE(SUM(CASE WHEN l.kind = 'purchase'    THEN l.amount END), 0)      AS ledger_purchased,
              COALESCE(-SUM(CASE WHEN l.kind = 'consumption' THEN l.amount END), 0)     AS ledger_consumed
         FROM credit_balances b
         LEFT JOIN credit_ledger l ON l.org_id = b.org_id AND l.product = b.product
        GROUP BY b.org_id, b.product
       HAVING b.balance         != COALESCE(SUM(l.amount), 0)
           OR b.total_purchased != COALESCE(SUM(CASE WHEN l.kind = 'purchase'    THEN l.amount END), 0)
           OR b.total_consumed  != COALESCE(-SUM(CASE WHEN l.kind = 'consumption' THEN l.amount END), 0)`,
    )
    .all();
  expect(projectionMismatches, 'I1: credit_balances must equal the sums of credit_ledger').toEqual([]);

  // I1b. Every ledger row belongs to an org/product that has a balance row:
  //       SELECT ... FROM credit_ledger l LEFT JOIN credit_balances b USING (org_id, product) WHERE b.org_id IS NULL
  const orphanLedgerRows = sqlite
    .prepare(
      `SELECT l.id, l.org_id, l.product FROM credit_ledger l
         LEFT JOIN credit_balances b ON b.org_id = l.org_id AND b.product = l.product
        WHERE b.org_id IS NULL`,
    )
    .all();
  expect(orphanLedgerRows, 'I1b: ledger rows without a balance row').toEqual([]);

  // I2. No balance is ever negative:  SELECT * FROM credit_balances WHERE balance < 0
  const negative = sqlite.prepare('SELECT org_id, product, balance FROM credit_balances WHERE balance < 0').all();
  expect(negative, 'I2: balance >= 0').toEqual([]);

  // I3. Ledger rows have the sign and links of their kind:
  //       purchase    → amount > 0 AND lookup_id IS NULL
  //       consumption → amount = -1 AND lookup_id IS NOT NULL
  const malformed = sqlite
    .prepare(
      `SELECT id, kind, amount, lookup_id FROM credit_ledger
        WHERE NOT ((kind = 'purchase' AND amount > 0 AND lookup_id IS NULL)
                OR (kind = 'consumption' AND amount = -1 AND lookup_id IS NOT NULL))`,
    )
    .all();
  expect(malformed, 'I3: purchase > 0 without lookup; consumption = -1 with a lookup').toEqual([]);

  // I3b. A consumption's id is its lookup's id (since migration 0006), so the primary key refuses a
  //      second charge of one lookup:  SELECT id FROM credit_ledger WHERE kind = 'consumption' AND id != lookup_id
  const consumptionIds = sqlite.prepare("SELECT id, lookup_id FROM credit_ledger WHERE kind = 'consumption' AND id IS NOT lookup_id").all();
  expect(consumptionIds, "I3b: a consumption's id is its lookup's id").toEqual([]);

  // I3c. A ledger row's id (UUIDv7) was made no earlier than a day before its created_at: the desktop's
  //      consumption chart reads a time range through the primary key with that margin (ledger.ts,
  //      consumedByDay; migration 0007). The ids below the floor of created_at − 1 day:
  const idsBeforeTheirTime = ledgerIdsBeforeTheirTime(sqlite);
  expect(idsBeforeTheirTime, "I3c: a ledger row's id is not older than its created_at minus a day").toEqual([]);

  // I4. Every consumption has its history entry: a lookups row with id = lookup_id, credit_consumed = 1,
  //     the same org and product, in the live environment:
  //       SELECT c.* FROM credit_ledger c LEFT JOIN lookups h ON h.id = c.lookup_id
  //        WHERE c.kind = 'consumption' AND (h.id IS NULL OR h.credit_consumed != 1
  //              OR h.org_id != c.org_id OR h.product != c.product OR h.environment != 'live')
  const consumptionsWithoutLookup = sqlite
    .prepare(
      `SELECT c.id, c.lookup_id, c.org_id, c.product, h.id AS history_id, h.credit_consumed, h.org_id AS history_org,
              h.product AS history_product, h.environment
         FROM credit_ledger c
         LEFT JOIN lookups h ON h.id = c.lookup_id
        WHERE c.kind = 'consumption'
          AND (h.id IS NULL OR h.credit_consumed != 1 OR h.org_id != c.org_id OR h.product != c.product OR h.environment != 'live')`,
    )
    .all();
  expect(consumptionsWithoutLookup, 'I4: each consumption matches a charged live lookup of the same org and product').toEqual([]);

  // I5. Every charged lookup has exactly one consumption (a credit is never taken twice, never lost):
  //       SELECT h.id, COUNT(c.id) FROM lookups h LEFT JOIN credit_ledger c ON c.lookup_id = h.id AND c.kind = 'consumption'
  //        WHERE h.credit_consumed = 1 GROUP BY h.id HAVING COUNT(c.id) != 1
  const chargedLookupsWithoutOneConsumption = sqlite
    .prepare(
      `SELECT h.id, COUNT(c.id) AS consumptions
         FROM lookups h
         LEFT JOIN credit_ledger c ON c.lookup_id = h.id AND c.kind = 'consumption'
        WHERE h.credit_consumed = 1
        GROUP BY h.id
       HAVING COUNT(c.id) != 1`,
    )
    .all();
  expect(chargedLookupsWithoutOneConsumption, 'I5: each charged lookup has exactly one consumption').toEqual([]);

  // I5b. A lookup that did not consume has no consumption row either:
  //       SELECT h.id FROM lookups h JOIN credit_ledger c ON c.lookup_id = h.id WHERE h.credit_consumed = 0
  const unchargedWithConsumption = sqlite
    .prepare('SELECT h.id FROM lookups h JOIN credit_ledger c ON c.lookup_id = h.id WHERE h.credit_consumed = 0')
    .all();
  expect(unchargedWithConsumption, 'I5b: an uncharged lookup has no consumption').toEqual([]);

  // I5c. credit_consumed is 0 or 1:  SELECT id FROM lookups WHERE credit_consumed NOT IN (0, 1)
  const badFlags = sqlite.prepare('SELECT id, credit_consumed FROM lookups WHERE credit_consumed NOT IN (0, 1)').all();
  expect(badFlags, 'I5c: credit_consumed in {0,1}').toEqual([]);

  // I6. No lookup_id appears twice in the ledger:
  //       SELECT lookup_id FROM credit_ledger WHERE lookup_id IS NOT NULL GROUP BY lookup_id HAVING COUNT(*) > 1
  const doubleCharged = sqlite
    .prepare('SELECT lookup_id, COUNT(*) AS n FROM credit_ledger WHERE lookup_id IS NOT NULL GROUP BY lookup_id HAVING COUNT(*) > 1')
    .all();
  expect(doubleCharged, 'I6: a lookup is charged at most once').toEqual([]);

  // I7. Sandbox lookups never consume:  SELECT id FROM lookups WHERE environment = 'sandbox' AND credit_consumed = 1
  const chargedSandbox = sqlite.prepare("SELECT id FROM lookups WHERE environment = 'sandbox' AND credit_consumed = 1").all();
  expect(chargedSandbox, 'I7: sandbox lookups never consume').toEqual([]);

  // I8. System errors never consume: SELECT id FROM lookups WHERE http_status >= 500 AND credit_consumed = 1
  const chargedSystemErrors = sqlite.prepare('SELECT id, error_code FROM lookups WHERE http_status >= 500 AND credit_consumed = 1').all();
  expect(chargedSystemErrors, 'I8: GE500 lookups never consume').toEqual([]);

  return (
    sqlite
      .prepare('SELECT org_id, product, balance, total_purchased, total_consumed FROM credit_balances ORDER BY org_id, product')
      .all() as { org_id: string; product: string; balance: number; total_purchased: number; total_consumed: number }[]
  ).map((r) => ({ orgId: r.org_id, product: r.product, balance: r.balance, totalPurchased: r.total_purchased, totalConsumed: r.total_consumed }));
}

/**
 * History counters: `lookup_daily_counts` holds, for every (org, environment, product, UTC day,
 * status, source), exactly the number of history rows, and no counter exists without rows:
 *   counts = SELECT org_id, environment, product, created_at / 86400000 AS day, status, source, COUNT(*)
 *              FROM lookups GROUP BY 1, 2, 3, 4, 5, 6
 * Checked both ways (rows missing from the counters, counters without their rows).
 */
export function checkHistoryCountInvariants(sqlite: Database.Database): number {
  const actual = `SELECT org_id, environment, product, created_at / 86400000 AS day, status, source, COUNT(*) AS count
                    FROM lookups GROUP BY org_id, environment, product, created_at / 86400000, status, source`;
  const stored = 'SELECT org_id, environment, product, day, status, source, count FROM lookup_daily_counts';
  const missing = sqlite.prepare(`${actual} EXCEPT ${stored}`).all();
  expect(missing, 'H1: every day, status and source of the history has its exact counter').toEqual([]);
  const extra = sqlite.prepare(`${stored} EXCEPT ${actual}`).all();
  expect(extra, 'H1: no counter without (or beyond) its history rows').toEqual([]);
  return (sqlite.prepare('SELECT COUNT(*) AS n FROM lookups').get() as { n: number }).n;
}

/** I3c's violations: ledger rows whose id is older than their created_at minus a day. */
export function ledgerIdsBeforeTheirTime(sqlite: Database.Database): { id: string; created_at: number }[] {
  return sqlite
    .prepare(
      `SELECT id, created_at FROM credit_ledger
        WHERE id < substr(printf('%012x', created_at - 86400000), 1, 8) || '-' || substr(printf('%012x', created_at - 86400000), 9, 4)`,
    )
    .all() as { id: string; created_at: number }[];
}

// The credit ledger. Money moves only here and only inside a transaction: a purchase inserts a
// ledger row and raises the balance; a consumption lowers the balance only if it is above zero and
// inserts a ledger row tied to its lookup. `credit_balances` is the running projection of the ledger.
import type Database from 'better-sqlite3';
import { and, desc as sqlDesc, eq, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { BatchFolding } from '../db/commit-queue';
import type { Db } from '../db/open';
import { uuidv7, uuidv7Floor } from '../db/ids';
import { WriteInvalidatedCache } from '../db/write-invalidated-cache';
import { deepFreeze } from '../frozen-json';
import { DAY_MS } from '../../../shared/day';
import { creditBalances, creditLedger } from '../db/schema';
import { invalidParameter, stateRefusal } from '../errors';
import { PRODUCT_NAMES, type ProductSlug } from '../../../shared/api/common';
import { MAX_PURCHASE, type BalanceEntry } from '../../../shared/api/balance';
import type { AuditLog } from '../audit/audit-log';
import { refuseKeyLike } from '../keys/secrets';

export interface PurchaseResult {
  added: boolean;
  /** Present when a purchase with the same reference already existed (nothing was added). */
  existingId?: string;
  id: string;
  balance: number;
}

export interface LedgerEntryView {
  id: string;
  product: ProductSlug;
  kind: 'purchase' | 'consumption';
  amount: number;
  reference: string | null;
  lookupId: string | null;
  createdAt: string;
}


/** A balance as a group-committed batch leaves it: read once, lowered per charge, written once. */
interface FoldedBalance {
  orgId: string;
  product: ProductSlug;
  balance: number;
  taken: number;
}

/** Exported for the test that checks its query plan: a range of the primary key, not a scan of the ledger. */
const QUARTER_HOUR_MS = 15 * 60_000;

// Summed per quarter hour: every time zone's offset is a whole number of quarter hours, so each
// quarter falls within one calendar day of any zone, and the days are counted in the reader's.
export const CONSUMED_BY_DAY_SQL = `SELECT created_at / ${QUARTER_HOUR_MS} AS quarter, -SUM(amount) AS consumed
  FROM credit_ledger
  WHERE id >= ? AND org_id = ? AND product = ? AND kind = 'consumption' AND created_at >= ?
  GROUP BY quarter`;

export class Ledger implements BatchFolding {
  readonly #balanceOf: Database.Statement<[string, string], { balance: number }>;
  readonly #balancesOf: Database.Statement<[string], { product: ProductSlug; balance: number; totalPurchased: number; totalConsumed: number }>;
  readonly #debit: Database.Statement<[string, string], { balance: number }>;
  readonly #debitMany: Database.Statement<[number, number, string, string, number]>;
  /** Balances charged in the group-committed batch being written; null outside one (see begin()). */
  #folded: Map<string, FoldedBalance> | null = null;
  readonly #insertConsumption: Database.Statement<[string, string, string, string, string | null, number]>;
  readonly #consumedByDay: Database.Statement<[string, string, string, number], { quarter: number; consumed: number }>;
  /**
   * GET /api/v1/balance's rows per organization, as last read outside any transaction. Emptied by
   * every balance change this process makes (charges, purchases) and by any commit of another
   * connection (data_version, read once per request with the key check).
   */
  readonly #balancesCache: WriteInvalidatedCache<string, BalanceEntry[]>;
  /** The balance after this process's last charge, per organization and product (see hasCredit). */
  readonly #lastCharged = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly sqlite: Database.Database,
    private readonly audit: AuditLog,
  ) {
    // Hot path of every lookup: raw prepared statements.
    this.#balanceOf = sqlite.prepare('SELECT balance FROM credit_balances WHERE org_id = ? AND product = ?');
    // GET /api/v1/balance: built by drizzle's query builder on every call, this read cost ~80 µs of
    // CPU (the SQL rebuilt and prepared again each time), a third of the whole request.
    this.#balancesOf = sqlite.prepare(
      'SELECT product, balance, total_purchased AS totalPurchased, total_consumed AS totalConsumed FROM credit_balances WHERE org_id = ?',
    );
    this.#debit = sqlite.prepare(
      // RETURNING gives the balance after the charge without a second read on the hot path.
      'UPDATE credit_balances SET balance = balance - 1, total_consumed = total_consumed + 1 WHERE org_id = ? AND product = ? AND balance > 0 RETURNING balance',
    );
    this.#debitMany = sqlite.prepare(
      'UPDATE credit_balances SET balance = balance - ?, total_consumed = total_consumed + ? WHERE org_id = ? AND product = ? AND balance = ?',
    );
    this.#balancesCache = new WriteInvalidatedCache(sqlite, 1_000);
    this.#insertConsumption = sqlite.prepare(
      "INSERT INTO credit_ledger (id, org_id, product, kind, amount, lookup_id, user_id, created_at) VALUES (?, ?, ?, 'consumption', -1, ?, ?, ?)",
    );
    // The time range is read through the primary key (migration 0007 dropped the index on
    // org/product/created_at that every charge paid for): a row's id is a UUIDv7 made at or after its
    // created_at (consumeOne, addPurchase), so no row created since `since` has an id below its floor.
    this.#consumedByDay = sqlite.prepare(CONSUMED_BY_DAY_SQL);
  }

  /**
   * Credits consumed per calendar day (YYYY-MM-DD, as `dayOf` names an instant's day: the reader's
   * zone) from `since` (ms) on; days without any are absent.
   */
  consumedByDay(orgId: string, product: ProductSlug, since: number, dayOf: (at: number) => string): Map<string, number> {
    // A day's margin below the floor: a row whose id was made a little before its created_at (none
    // is, today) is still found.
    const rows = this.#consumedByDay.all(uuidv7Floor(since - DAY_MS), orgId, product, since);
    const byDay = new Map<string, number>();
    for (const { quarter, consumed } of rows) {
      const day = dayOf(quarter * QUARTER_HOUR_MS);
      byDay.set(day, (byDay.get(day) ?? 0) + consumed);
    }
    return byDay;
  }

  balance(orgId: string, product: ProductSlug): number {
    const folded = this.#folded?.get(`${orgId}:${product}`);
    if (folded) return folded.balance;
    return this.#balanceOf.get(orgId, product)?.balance ?? 0;
  }

  /**
   * The credit pre-check of a lookup (402 before anything else is spent). While this process's last
   * charge left credits, no read is needed: a balance that reached 0 since (another process spent
   * it) is still caught by consumeOne, which never charges below zero and then answers 402 itself.
   * A 0 is always confirmed from the database, so a purchase made elsewhere is seen at once.
   */
  hasCredit(orgId: string, product: ProductSlug): boolean {
    if ((this.#lastCharged.get(`${orgId}:${product}`) ?? 0) > 0) return true;
    return this.balance(orgId, product) > 0;
  }

  /**
   * Takes one credit for `lookupId`. Must run inside the transaction that records the lookup.
   * Returns the balance after the charge, or null when there was no credit left (nothing written).
   */
  consumeOne(orgId: string, product: ProductSlug, lookupId: string, userId: string | null, now: number): number | null {
    const key = `${orgId}:${product}`;
    this.#balancesCache.clear();
    let after: number | null;
    if (this.#folded) {
      // Inside a batch's write transaction: no other writer can move the balance until it commits,
      // so it is read once and lowered here; end() writes the batch's charges in one UPDATE.
      let folded = this.#folded.get(key);
      if (!folded) {
        folded = { orgId, product, balance: this.#balanceOf.get(orgId, product)?.balance ?? 0, taken: 0 };
        this.#folded.set(key, folded);
      }
      if (folded.balance > 0) {
        folded.balance--;
        folded.taken++;
        after = folded.balance;
      } else {
        after = null;
      }
    } else {
      after = this.#debit.get(orgId, product)?.balance ?? null;
    }
    this.#lastCharged.set(key, after ?? 0);
    if (after === null) return null;
    // The lookup's id is the consumption's too: a second charge of one lookup breaks the primary key.
    this.#insertConsumption.run(lookupId, orgId, product, lookupId, userId, now);
    return after;
  }

  begin(): void {
    this.#folded = new Map();
  }

  end(): void {
    const folded = this.#folded;
    this.#folded = null;
    if (!folded) return;
    for (const f of folded.values()) {
      if (f.taken === 0) continue;
      // `balance = ?` re-checks what the batch read: a mismatch (which the write lock rules out)
      // throws and rolls the whole batch back rather than charging from a wrong balance.
      const changed = this.#debitMany.run(f.taken, f.taken, f.orgId, f.product, f.balance + f.taken).changes;
      if (changed !== 1) throw new Error('credit balance changed during a batch');
    }
  }

  abort(): void {
    this.#folded = null;
  }

  /** Records a purchase. A repeated reference adds nothing and says so (safe to retry). */
  addPurchase(input: { orgId: string; product: ProductSlug; amount: number; reference?: string | null; userId: string | null }): PurchaseResult {
    if (!Number.isSafeInteger(input.amount) || input.amount < 1 || input.amount > MAX_PURCHASE) {
      throw invalidParameter(`amount must be a whole number from 1 to ${MAX_PURCHASE}`);
    }
    const reference = input.reference?.trim() || null;
    if (reference && reference.length > 200) throw invalidParameter('reference must have at most 200 characters');
    refuseKeyLike('The reference', reference);
    // IMMEDIATE: the CLI adds credits while the server commits lookups; a deferred transaction that
    // read first could fail with SQLITE_BUSY_SNAPSHOT.
    this.#balancesCache.clear();
    return this.db.transaction((tx) => {
      if (reference) {
        const existing = tx
          .select({ id: creditLedger.id, amount: creditLedger.amount })
          .from(creditLedger)
          .where(and(eq(creditLedger.orgId, input.orgId), eq(creditLedger.product, input.product), eq(creditLedger.reference, reference)))
          .get();
        if (existing && existing.amount !== input.amount) {
          throw stateRefusal(`The reference "${reference}" was already used for a purchase of ${existing.amount} credits`);
        }
        if (existing) return { added: false, existingId: existing.id, id: existing.id, balance: this.balance(input.orgId, input.product) };
      }
      const now = Date.now();
      const id = uuidv7(now);
      tx.insert(creditLedger)
        .values({ id, orgId: input.orgId, product: input.product, kind: 'purchase', amount: input.amount, reference, userId: input.userId, createdAt: now })
        .run();
      const updated = tx
        .update(creditBalances)
        .set({
          balance: sqlAdd(creditBalances.balance, input.amount),
          totalPurchased: sqlAdd(creditBalances.totalPurchased, input.amount),
        })
        .where(and(eq(creditBalances.orgId, input.orgId), eq(creditBalances.product, input.product)))
        .run();
      if (updated.changes !== 1) throw new Error('credit_balances row missing for this organization');
      this.audit.record({
        orgId: input.orgId,
        actorUserId: input.userId,
        action: 'credits.purchased',
        targetType: 'credits',
        targetId: id,
        details: { product: input.product, amount: input.amount, reference },
      });
      return { added: true, id, balance: this.balance(input.orgId, input.product) };
    }, { behavior: 'immediate' });
  }

  balances(orgId: string): BalanceEntry[] {
    // Inside a transaction the rows may be uncommitted: read, never cache.
    if (this.sqlite.inTransaction) return this.#readBalances(orgId);
    return this.#balancesCache.get(orgId, () => deepFreeze(this.#readBalances(orgId)))!;
  }

  #readBalances(orgId: string): BalanceEntry[] {
    const rows = this.#balancesOf.all(orgId);
    return (['cbu', 'informes'] as const).map((slug) => {
      const row = rows.find((r) => r.product === slug);
      return {
        productId: slug,
        productName: PRODUCT_NAMES[slug],
        productSlug: slug,
        balance: row?.balance ?? 0,
        totalPurchased: row?.totalPurchased ?? 0,
        totalConsumed: row?.totalConsumed ?? 0,
      };
    });
  }

  entries(orgId: string, options: { product?: ProductSlug; kind?: 'purchase' | 'consumption'; limit?: number } = {}): LedgerEntryView[] {
    return this.db
      .select()
      .from(creditLedger)
      .where(
        and(
          eq(creditLedger.orgId, orgId),
          options.product ? eq(creditLedger.product, options.product) : undefined,
          options.kind ? eq(creditLedger.kind, options.kind) : undefined,
        ),
      )
      .orderBy(sqlDesc(creditLedger.id))
      .limit(options.limit ?? 100)
      .all()
      .map((row) => ({
        id: row.id,
        product: row.product,
        kind: row.kind,
        amount: row.amount,
        reference: row.reference,
        lookupId: row.lookupId,
        createdAt: new Date(row.createdAt).toISOString(),
      }));
  }
}

function sqlAdd(column: SQLiteColumn, amount: number) {
  return sql`${column} + ${amount}`;
}

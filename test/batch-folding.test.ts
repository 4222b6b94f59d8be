// Batch folding in the group commit (CommitQueue + BatchFolding), and what it means for the books.
//
// A. CommitQueue with a fake BatchFolding on a WAL file: a batch whose writes all succeed folds
//    (begin, writes, end inside the transaction, one commit); a batch with a failing write rolls the
//    optimistic attempt back whole — nothing its end() would have written survives — and reruns with
//    one savepoint per write and no folding, so only the failing write rejects. An end() that throws
//    takes the batch down the same path, undoing what an earlier folding's end() wrote.
// B. The real core (DailyCounts and Ledger fold): lookups started in one tick leave
//    `lookup_daily_counts` equal to a GROUP BY over `lookups`, and `credit_balances` equal to the
//    purchases minus the consumption rows, with one consumption per charged lookup — when every write
//    succeeds, when one write fails inside the batch, when credits run out mid-batch, and when a
//    local resolver throws inside the recording transaction (500 / 503 GE500, history kept, no charge).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommitQueue, type BatchFolding } from '../src/main/core/db/commit-queue';
import { UpstreamError, type AccountQuery } from '../src/main/core/resolvers/resolver';
import type { LookupAnswer, LookupContext } from '../src/main/core/lookup/lookup-service';
import type { KeyEnvironment } from '../src/main/core/keys/secrets';
import type { ErrorBody, LookupSource, ProductSlug } from '../src/shared/api/common';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDIT_REPORTS, SANDBOX_UPSTREAM_FAILURE } from '../src/main/core/resolvers/sandbox-data';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from './support/directory-data';
import { importCreditRecords } from './support/credit-data';
import { checkLedgerInvariants } from './support/invariants';
import { walCommits } from './support/wal-commits';

// ---------------------------------------------------------------------------------------------
// A. CommitQueue with a fake folding
// ---------------------------------------------------------------------------------------------

describe('CommitQueue batch folding (fake BatchFolding)', () => {
  let dir: string;
  let file: string;
  let writer: Database.Database;
  let reader: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'titular-batch-folding-'));
    file = path.join(dir, 'queue.db');
    writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0'); // keep every frame in the WAL for counting
    writer.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)');
    // What a folding writes: one `folded` row per end(), or one `direct` row per write when not folding.
    writer.exec('CREATE TABLE tally (seq INTEGER PRIMARY KEY, folding TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL)');
    writer.pragma('wal_checkpoint(TRUNCATE)');
    reader = new Database(file, { readonly: true });
  });

  afterEach(() => {
    reader.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const walCommitsNow = () => walCommits(file);

  const insert = (id: number) => writer.prepare('INSERT INTO items (id, label) VALUES (?, ?)').run(id, `item ${id}`);
  const committedItems = () => (reader.prepare('SELECT id FROM items ORDER BY id').all() as { id: number }[]).map((r) => r.id);
  const committedTally = () => reader.prepare('SELECT folding, kind, n FROM tally ORDER BY seq').all();

  /** Counts the writes of a batch: folded while an optimistic batch runs, written at once otherwise (like DailyCounts). */
  class FakeFolding implements BatchFolding {
    readonly calls: string[] = [];
    /** Per add(): whether it was folded. */
    readonly adds: boolean[] = [];
    readonly seenAtEnd: { inTransaction: boolean; committedItems: number }[] = [];
    #pending: number | null = null;

    constructor(
      readonly name: string,
      private readonly options: { failEnd?: boolean } = {},
    ) {}

    begin(): void {
      this.calls.push('begin');
      this.#pending = 0;
    }

    end(): void {
      this.calls.push('end');
      this.seenAtEnd.push({ inTransaction: writer.inTransaction, committedItems: committedItems().length });
      const pending = this.#pending;
      this.#pending = null;
      if (pending) writer.prepare("INSERT INTO tally (folding, kind, n) VALUES (?, 'folded', ?)").run(this.name, pending);
      if (this.options.failEnd) throw new Error(`${this.name}: conflict found at the end of the batch`);
    }

    abort(): void {
      this.calls.push('abort');
      this.#pending = null;
    }

    add(): void {
      this.adds.push(this.#pending !== null);
      if (this.#pending !== null) this.#pending++;
      else writer.prepare("INSERT INTO tally (folding, kind, n) VALUES (?, 'direct', 1)").run(this.name);
    }
  }

  it('a batch whose writes all succeed folds: begin once, end once inside the transaction, one commit; abort afterwards is harmless', async () => {
    const folding = new FakeFolding('counts');
    const queue = new CommitQueue(writer, { folding: [folding] });
    const before = walCommitsNow();

    const values = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        queue.enqueue(() => {
          insert(i + 1);
          folding.add();
          return i + 1;
        }),
      ),
    );

    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(folding.calls).toEqual(['begin', 'end', 'abort']);
    expect(folding.adds).toEqual(Array(20).fill(true));
    // end() ran inside the group transaction, before anything was visible to another connection.
    expect(folding.seenAtEnd).toEqual([{ inTransaction: true, committedItems: 0 }]);
    expect(walCommitsNow() - before).toBe(1);
    expect(committedItems()).toHaveLength(20);
    expect(committedTally()).toEqual([{ folding: 'counts', kind: 'folded', n: 20 }]);

    // The abort() after end() dropped nothing: the next batch folds afresh.
    await Promise.all([1, 2, 3].map((i) => queue.enqueue(() => (insert(100 + i), folding.add()))));
    expect(folding.calls).toEqual(['begin', 'end', 'abort', 'begin', 'end', 'abort']);
    expect(committedTally()).toEqual([
      { folding: 'counts', kind: 'folded', n: 20 },
      { folding: 'counts', kind: 'folded', n: 3 },
    ]);
    expect(walCommitsNow() - before).toBe(2);
  });

  it('one failing write rejects alone; the folded attempt is rolled back whole and the rerun neither begins nor folds', async () => {
    const folding = new FakeFolding('counts');
    const queue = new CommitQueue(writer, { folding: [folding] });
    const before = walCommitsNow();
    let failingRuns = 0;

    const promises = [1, 2, 3, 4, 5, 6].map((id) =>
      queue.enqueue(() => {
        insert(id);
        folding.add();
        if (id === 3) {
          failingRuns++;
          throw new Error('write 3 failed');
        }
        return id;
      }),
    );
    const results = await Promise.allSettled(promises);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason.message).toBe('write 3 failed');
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual([1, 2, 4, 5, 6]);
    // Optimistic attempt (begin, failure, abort), then the rerun: no begin, no end.
    expect(folding.calls).toEqual(['begin', 'abort']);
    expect(failingRuns).toBe(2);
    // Three folded adds before the failure, then six direct ones in the rerun.
    expect(folding.adds).toEqual([true, true, true, false, false, false, false, false, false]);
    // Exactly the direct writes of the successful writes: nothing folded, nothing of write 3.
    expect(committedItems()).toEqual([1, 2, 4, 5, 6]);
    expect(committedTally()).toEqual(Array(5).fill({ folding: 'counts', kind: 'direct', n: 1 }));
    expect(walCommitsNow() - before).toBe(1);

    // The next batch folds again.
    await queue.enqueue(() => (insert(7), folding.add()));
    expect(folding.calls).toEqual(['begin', 'abort', 'begin', 'end', 'abort']);
    expect(committedTally()).toHaveLength(6);
    expect(committedTally()[5]).toEqual({ folding: 'counts', kind: 'folded', n: 1 });
  });

  it('an end() that throws rolls back what an earlier end() wrote, and the batch commits through the rerun', async () => {
    const counts = new FakeFolding('counts');
    const conflicting = new FakeFolding('balance', { failEnd: true });
    const queue = new CommitQueue(writer, { folding: [counts, conflicting] });
    const before = walCommitsNow();

    const values = await Promise.all(
      [1, 2, 3, 4].map((id) =>
        queue.enqueue(() => {
          insert(id);
          counts.add();
          conflicting.add();
          return id;
        }),
      ),
    );

    expect(values).toEqual([1, 2, 3, 4]);
    expect(counts.calls).toEqual(['begin', 'end', 'abort']);
    expect(conflicting.calls).toEqual(['begin', 'end', 'abort']);
    expect(committedItems()).toEqual([1, 2, 3, 4]);
    // counts' folded row was written by its end() and rolled back with the attempt.
    expect(committedTally()).toEqual(
      [1, 2, 3, 4].flatMap(() => [
        { folding: 'counts', kind: 'direct', n: 1 },
        { folding: 'balance', kind: 'direct', n: 1 },
      ]),
    );
    expect(walCommitsNow() - before).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// B. The real core: DailyCounts and Ledger folded per batch
// ---------------------------------------------------------------------------------------------

const PURCHASED = { cbu: 100, informes: 20 } as const;
const TAX_ID_OK = SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id;

/** One lookup of the mix, and what it must answer. */
interface Planned {
  run: () => Promise<LookupAnswer>;
  status: number;
  charged: boolean;
}

const SOURCES: LookupSource[] = ['API', 'WEB', 'BULK'];

function contextFor(f: Fixture, i: number, environment: KeyEnvironment, extra: Partial<LookupContext> = {}): LookupContext {
  return { orgId: f.orgId, environment, source: SOURCES[i % 3]!, userId: f.adminId, apiKeyId: null, requestId: `req-${i}`, ...extra };
}

/** Lookup number i of a mix: found / not found / invalid (live CBU), live Informes, sandbox found / upstream failure. */
function planned(f: Fixture, i: number, extra: Partial<LookupContext> = {}): Planned {
  const { lookups } = f.titular;
  const live = contextFor(f, i, 'live', extra);
  const sandbox = contextFor(f, i, 'sandbox', extra);
  switch (i % 7) {
    case 0:
      return { run: () => lookups.lookupAccount(live, { identifier: DIR.individual.cbu, type: 'cbu' }), status: 200, charged: true };
    case 1:
      return { run: () => lookups.lookupAccount(live, { identifier: DIR.company.alias, type: 'alias' }), status: 200, charged: true };
    case 2:
      return { run: () => lookups.lookupAccount(live, { identifier: DIR.missing.cbu, type: 'cbu' }), status: 404, charged: true };
    case 3:
      return { run: () => lookups.lookupAccount(live, { identifier: breakCheckDigit(DIR.wallet.cbu), type: 'cbu' }), status: 400, charged: true };
    case 4:
      return { run: () => lookups.lookupCreditReport(live, { tax_id: TAX_ID_OK }), status: 200, charged: true };
    case 5:
      return { run: () => lookups.lookupAccount(sandbox, { identifier: SANDBOX_ACCOUNTS[0]!.account.number, type: 'cbu' }), status: 200, charged: false };
    default:
      return { run: () => lookups.lookupAccount(sandbox, { identifier: SANDBOX_UPSTREAM_FAILURE.cbu, type: 'cbu' }), status: 503, charged: false };
  }
}

const productOf = (i: number): ProductSlug => (i % 7 === 4 ? 'informes' : 'cbu');

/**
 * The books after a batch: the day counters are exactly the history grouped by their key, each
 * product's balance is its purchases minus its consumption rows (`charged` of them), and every
 * ledger invariant holds (one consumption per charged history row, none for the others).
 */
function expectBooks(f: Fixture, charged: Record<ProductSlug, number>, purchased: Record<ProductSlug, number> = PURCHASED): void {
  const sqlite = f.titular.database.sqlite;
  const counters = sqlite
    .prepare(
      `SELECT org_id, environment, product, day, status, source, count FROM lookup_daily_counts
        ORDER BY org_id, environment, product, day, status, source`,
    )
    .all();
  const history = sqlite
    .prepare(
      `SELECT org_id, environment, product, created_at / 86400000 AS day, status, source, COUNT(*) AS count FROM lookups
        GROUP BY org_id, environment, product, created_at / 86400000, status, source
        ORDER BY org_id, environment, product, day, status, source`,
    )
    .all();
  expect(counters, 'lookup_daily_counts = history grouped by day, status and source').toEqual(history);

  for (const product of ['cbu', 'informes'] as const) {
    const consumed = (
      sqlite.prepare("SELECT COUNT(*) AS n FROM credit_ledger WHERE org_id = ? AND product = ? AND kind = 'consumption'").get(f.orgId, product) as {
        n: number;
      }
    ).n;
    expect(consumed, `${product}: consumption rows`).toBe(charged[product]);
    const row = sqlite.prepare('SELECT balance, total_purchased, total_consumed FROM credit_balances WHERE org_id = ? AND product = ?').get(f.orgId, product);
    expect(row, `${product}: balance = purchases - consumptions`).toEqual({
      balance: purchased[product] - consumed,
      total_purchased: purchased[product],
      total_consumed: consumed,
    });
  }
  checkLedgerInvariants(sqlite);
}

const countWhere = (f: Fixture, sql: string, ...params: unknown[]) => (f.titular.database.sqlite.prepare(sql).get(...params) as { n: number }).n;

/** Spies on the foldings of the core's commit queue (the same objects titular.ts passes to it). */
function spyFoldings(f: Fixture) {
  return {
    ledgerBegin: vi.spyOn(f.titular.ledger, 'begin'),
    ledgerEnd: vi.spyOn(f.titular.ledger, 'end'),
    ledgerAbort: vi.spyOn(f.titular.ledger, 'abort'),
    countsBegin: vi.spyOn(f.titular.history.folding, 'begin'),
    countsEnd: vi.spyOn(f.titular.history.folding, 'end'),
  };
}

describe('batch folding in the core: counters and balances stay exact', () => {
  let f: Fixture;

  beforeEach(async () => {
    f = await createFixture({ credits: { ...PURCHASED }, tmpPrefix: 'titular-batch-folding-' });
    f.importDirectory(DIRECTORY_CSV);
    importCreditRecords(f);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await f.close();
  });

  it('60 lookups started in one tick commit as one folded batch with exact counters and balances', async () => {
    const spies = spyFoldings(f);
    const plan = Array.from({ length: 60 }, (_, i) => planned(f, i));
    const answers = await Promise.all(plan.map((p) => p.run()));

    expect(answers.map((a) => a.status)).toEqual(plan.map((p) => p.status));
    expect(answers.map((a) => a.charged)).toEqual(plan.map((p) => p.charged));
    // One optimistic batch that folded and succeeded.
    expect(spies.ledgerBegin).toHaveBeenCalledTimes(1);
    expect(spies.ledgerEnd).toHaveBeenCalledTimes(1);
    expect(spies.countsBegin).toHaveBeenCalledTimes(1);
    expect(spies.countsEnd).toHaveBeenCalledTimes(1);

    const charged = { cbu: 0, informes: 0 };
    plan.forEach((p, i) => p.charged && charged[productOf(i)]++);
    expect(charged).toEqual({ cbu: 36, informes: 8 });
    expect(countWhere(f, 'SELECT COUNT(*) AS n FROM lookups')).toBe(60);
    expectBooks(f, charged);
    // credits_remaining of the charged answers counts down through the folded balance.
    const remaining = (product: ProductSlug) =>
      answers
        .filter((a, i) => a.charged && productOf(i) === product)
        .map((a) => (a.body as { credits_remaining: number }).credits_remaining);
    expect(remaining('cbu')).toEqual(Array.from({ length: 36 }, (_, k) => PURCHASED.cbu - 1 - k));
    expect(remaining('informes')).toEqual(Array.from({ length: 8 }, (_, k) => PURCHASED.informes - 1 - k));
    // An uncharged answer reports the balance as folded so far (Ledger.balance() during the batch).
    let cbuCharged = 0;
    plan.forEach((p, i) => {
      if (p.charged && productOf(i) === 'cbu') cbuCharged++;
      if (i % 7 === 5) expect((answers[i]!.body as { credits_remaining: number }).credits_remaining, `sandbox lookup ${i}`).toBe(PURCHASED.cbu - cbuCharged);
    });
  });

  it('one write failing inside the batch (onCommit throws) rejects alone; the others commit with exact counters and balances', async () => {
    const spies = spyFoldings(f);
    const FAILING = 28; // a live, charged CBU lookup in the middle of the batch (28 % 7 === 0)
    const plan = Array.from({ length: 60 }, (_, i) =>
      planned(
        f,
        i,
        i === FAILING
          ? {
              onCommit: () => {
                throw new Error('caller record failed');
              },
            }
          : {},
      ),
    );
    const results = await Promise.allSettled(plan.map((p) => p.run()));

    results.forEach((r, i) => {
      if (i === FAILING) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason.message).toBe('caller record failed');
      } else {
        expect(r.status, `lookup ${i}`).toBe('fulfilled');
        expect((r as PromiseFulfilledResult<LookupAnswer>).value.status, `lookup ${i}`).toBe(plan[i]!.status);
      }
    });
    // The optimistic attempt began, failed and was dropped; the rerun neither began nor ended a fold.
    expect(spies.ledgerBegin).toHaveBeenCalledTimes(1);
    expect(spies.countsBegin).toHaveBeenCalledTimes(1);
    expect(spies.ledgerEnd).not.toHaveBeenCalled();
    expect(spies.countsEnd).not.toHaveBeenCalled();
    expect(spies.ledgerAbort).toHaveBeenCalled();

    // Nothing of the failed lookup: no history row (hence no counter), no charge.
    expect(countWhere(f, 'SELECT COUNT(*) AS n FROM lookups WHERE request_id = ?', `req-${FAILING}`)).toBe(0);
    expect(countWhere(f, 'SELECT COUNT(*) AS n FROM lookups')).toBe(59);
    const charged = { cbu: 0, informes: 0 };
    plan.forEach((p, i) => p.charged && i !== FAILING && charged[productOf(i)]++);
    expect(charged).toEqual({ cbu: 35, informes: 8 });
    expectBooks(f, charged);

    // The next batch folds again.
    await Promise.all([planned(f, 100).run(), planned(f, 101).run()]);
    expect(spies.ledgerBegin).toHaveBeenCalledTimes(2);
    expect(spies.ledgerEnd).toHaveBeenCalledTimes(1);
    expectBooks(f, { cbu: 37, informes: 8 });
  });

  describe.each([
    { thrown: () => new Error('boom'), status: 500, retryAfter: undefined },
    { thrown: () => new UpstreamError('down', 7), status: 503, retryAfter: '7' },
  ])('a directory resolver that throws inside the recording transaction', ({ thrown, status, retryAfter }) => {
    it(`${thrown().name}: ${status} GE500${retryAfter ? ` with Retry-After ${retryAfter}` : ''}, history kept, no credit; the rest of the batch is charged`, async () => {
      const directory = f.titular.directory;
      const original = directory.resolveAccountNow.bind(directory);
      const failing = vi.spyOn(directory, 'resolveAccountNow').mockImplementation((query: AccountQuery) => {
        if (query.kind === 'number' && query.number === DIR.individual.cbu) throw thrown();
        return original(query);
      });
      const spies = spyFoldings(f);
      const ctx = (i: number) => contextFor(f, i, 'live');
      const identifiers = [DIR.company.cbu, DIR.wallet.cbu, DIR.individual.cbu, DIR.missing.cbu, DIR.company.cbu];
      const answers = await Promise.all(identifiers.map((identifier, i) => f.titular.lookups.lookupAccount(ctx(i), { identifier, type: 'cbu' })));

      expect(answers.map((a) => a.status)).toEqual([200, 200, status, 404, 200]);
      expect(failing).toHaveBeenCalledTimes(5); // resolved once each: no rerun of the batch
      expect(spies.ledgerBegin).toHaveBeenCalledTimes(1);
      expect(spies.ledgerEnd).toHaveBeenCalledTimes(1);
      const failed = answers[2]!;
      expect(failed.charged).toBe(false);
      expect((failed.body as ErrorBody).error.code).toBe('GE500');
      expect(failed.body).not.toHaveProperty('credits_remaining');
      expect(failed.headers?.['Retry-After']).toBe(retryAfter);
      const entry = f.titular.database.sqlite
        .prepare('SELECT http_status, error_code, credit_consumed FROM lookups WHERE id = ?')
        .get(failed.lookupId);
      expect(entry).toEqual({ http_status: status, error_code: 'GE500', credit_consumed: 0 });
      expectBooks(f, { cbu: 4, informes: 0 });

      // The same over HTTP: status, error code and Retry-After reach the client.
      const key = f.createKey({ rateLimitPerSecond: 10_000 });
      const res = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key) });
      expect(res.statusCode).toBe(status);
      expect(res.json().error.code).toBe('GE500');
      expect(res.headers['retry-after']).toBe(retryAfter);
      expect(countWhere(f, 'SELECT COUNT(*) AS n FROM lookups WHERE http_status = ? AND credit_consumed = 0', status)).toBe(2);
      expectBooks(f, { cbu: 4, informes: 0 });
    });
  });
});

describe('batch folding in the core: credits running out mid-batch', () => {
  let f: Fixture;

  beforeEach(async () => {
    f = await createFixture({ credits: { cbu: 10 }, tmpPrefix: 'titular-batch-folding-' });
    f.importDirectory(DIRECTORY_CSV);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await f.close();
  });

  it('30 lookups in one tick against 10 credits: exactly 10 charged, 20 answer 402, balance 0', async () => {
    const spies = spyFoldings(f);
    // All 30 pass the pre-check (balance 10 > 0) in the same tick; the folded balance decides.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        f.titular.lookups.lookupAccount(contextFor(f, i, 'live'), { identifier: i % 2 ? DIR.company.cbu : DIR.missing.cbu, type: 'cbu' }),
      ),
    );
    expect(spies.ledgerBegin).toHaveBeenCalledTimes(1);
    expect(spies.ledgerEnd).toHaveBeenCalledTimes(1);

    // The first ten of the batch were charged, in order, down to 0; the other twenty got 402.
    expect(answers.map((a) => a.status)).toEqual([...Array.from({ length: 10 }, (_, i) => (i % 2 ? 200 : 404)), ...Array(20).fill(402)]);
    expect(answers.slice(0, 10).map((a) => (a.body as { credits_remaining: number }).credits_remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (const a of answers.slice(10)) {
      expect(a).toMatchObject({ status: 402, charged: false, body: { error: { code: 'INSUFFICIENT_CREDITS' }, credits_remaining: 0 } });
      expect(a.lookupId).toBeUndefined();
    }
    expect(countWhere(f, 'SELECT COUNT(*) AS n FROM lookups')).toBe(10);
    expect(f.titular.ledger.balance(f.orgId, 'cbu')).toBe(0);
    expectBooks(f, { cbu: 10, informes: 0 }, { cbu: 10, informes: 0 });
  });
});

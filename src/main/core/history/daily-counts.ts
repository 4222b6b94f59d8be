// `lookup_daily_counts`: how many history rows each UTC day holds per scope, status and source.
// Kept in the same transaction as every history insert, so a history page can total and locate
// whole days by summing a few hundred counters instead of counting a million rows.
import type Database from 'better-sqlite3';
import type { BatchFolding } from '../db/commit-queue';
import type { KeyEnvironment } from '../keys/secrets';
import type { LookupSource, LookupStatus, ProductSlug } from '../../../shared/api/common';
import { DAY_MS } from '../../../shared/day';

/** The UTC day of an instant, as days since the epoch (the `day` column). */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

export interface CountedRow {
  orgId: string;
  environment: KeyEnvironment;
  product: ProductSlug;
  status: LookupStatus;
  source: LookupSource;
  createdAt: number;
}

export interface DayFilter {
  orgId: string;
  environment: KeyEnvironment;
  product: ProductSlug;
  status?: LookupStatus;
  source?: LookupSource;
}

export interface DayCount {
  day: number;
  n: number;
}

interface FoldedCount {
  row: CountedRow;
  day: number;
  n: number;
}

export class DailyCounts implements BatchFolding {
  readonly #add: Database.Statement<unknown[]>;
  readonly #statements = new Map<string, Database.Statement<unknown[]>>();
  /** Counts of the group-committed batch being written, per counter; null outside one. */
  #folded: Map<string, FoldedCount> | null = null;

  constructor(private readonly sqlite: Database.Database) {
    this.#add = sqlite.prepare(
      `INSERT INTO lookup_daily_counts (org_id, environment, product, day, status, source, count) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, environment, product, day, status, source) DO UPDATE SET count = count + excluded.count`,
    );
  }

  /**
   * Counts one history row. The caller runs it in the transaction that inserts the row; inside a
   * group-committed batch the count is folded and written once when the batch ends (end()).
   */
  increment(row: CountedRow): void {
    const day = dayOf(row.createdAt);
    if (!this.#folded) {
      this.#add.run(row.orgId, row.environment, row.product, day, row.status, row.source, 1);
      return;
    }
    const key = `${row.orgId}\u0000${row.environment}\u0000${row.product}\u0000${day}\u0000${row.status}\u0000${row.source}`;
    const folded = this.#folded.get(key);
    if (folded) folded.n++;
    else this.#folded.set(key, { row, day, n: 1 });
  }

  begin(): void {
    this.#folded = new Map();
  }

  end(): void {
    const folded = this.#folded;
    this.#folded = null;
    if (!folded) return;
    for (const { row, day, n } of folded.values()) {
      this.#add.run(row.orgId, row.environment, row.product, day, row.status, row.source, n);
    }
  }

  abort(): void {
    this.#folded = null;
  }

  /** Rows in days firstDay..lastDay (inclusive). */
  sum(filter: DayFilter, firstDay: number, lastDay: number): number {
    const { sql, params } = this.#select('SELECT COALESCE(SUM(count), 0) AS n', filter, firstDay, lastDay, '');
    return (this.#statement(sql).get(...params) as { n: number }).n;
  }

  /**
   * Rows per day for days firstDay..lastDay, newest or oldest day first; days without rows are
   * absent. Read lazily: a caller that stops early leaves the remaining days unread. The connection
   * runs no other statement until the iteration ends (better-sqlite3 iterators hold it).
   */
  days(filter: DayFilter, firstDay: number, lastDay: number, order: 'newest' | 'oldest'): IterableIterator<DayCount> {
    const { sql, params } = this.#select(
      'SELECT day, SUM(count) AS n',
      filter,
      firstDay,
      lastDay,
      ` GROUP BY day ORDER BY day ${order === 'newest' ? 'DESC' : 'ASC'}`,
    );
    return this.#statement(sql).iterate(...params) as IterableIterator<DayCount>;
  }

  #select(columns: string, filter: DayFilter, firstDay: number, lastDay: number, tail: string): { sql: string; params: unknown[] } {
    const params: unknown[] = [filter.orgId, filter.environment, filter.product, firstDay, lastDay];
    let where = 'org_id = ? AND environment = ? AND product = ? AND day BETWEEN ? AND ?';
    if (filter.status) {
      where += ' AND status = ?';
      params.push(filter.status);
    }
    if (filter.source) {
      where += ' AND source = ?';
      params.push(filter.source);
    }
    return { sql: `${columns} FROM lookup_daily_counts INDEXED BY lookup_daily_counts_sum WHERE ${where}${tail}`, params };
  }

  #statement(sql: string): Database.Statement<unknown[]> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}

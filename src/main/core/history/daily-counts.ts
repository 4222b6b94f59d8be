// `lookup_daily_counts`: how many history rows each UTC day holds per scope, status and source.
// Kept in the same transaction as every history insert, so a history page can total and locate
// whole days by summing a few hundred counters instead of counting a million rows.
import type Database from 'better-sqlite3';
import type { KeyEnvironment } from '../keys/secrets';
import type { LookupSource, LookupStatus, ProductSlug } from '../../../shared/api/common';

export const DAY_MS = 86_400_000;

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

export class DailyCounts {
  readonly #increment: Database.Statement<unknown[]>;
  readonly #perDay = new Map<string, Database.Statement<unknown[]>>();

  constructor(private readonly sqlite: Database.Database) {
    this.#increment = sqlite.prepare(
      `INSERT INTO lookup_daily_counts (org_id, environment, product, day, status, source, count) VALUES (?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (org_id, environment, product, day, status, source) DO UPDATE SET count = count + 1`,
    );
  }

  /** Counts one history row. The caller runs it in the transaction that inserts the row. */
  increment(row: CountedRow): void {
    this.#increment.run(row.orgId, row.environment, row.product, dayOf(row.createdAt), row.status, row.source);
  }

  /** Rows per day for days firstDay..lastDay (inclusive), newest day first; days without rows are absent. */
  perDay(filter: DayFilter, firstDay: number, lastDay: number): DayCount[] {
    const params: unknown[] = [filter.orgId, filter.environment, filter.product, firstDay, lastDay];
    let extra = '';
    if (filter.status) {
      extra += ' AND status = ?';
      params.push(filter.status);
    }
    if (filter.source) {
      extra += ' AND source = ?';
      params.push(filter.source);
    }
    let statement = this.#perDay.get(extra);
    if (!statement) {
      statement = this.sqlite.prepare(
        `SELECT day, SUM(count) AS n FROM lookup_daily_counts INDEXED BY lookup_daily_counts_sum
          WHERE org_id = ? AND environment = ? AND product = ? AND day BETWEEN ? AND ?${extra}
          GROUP BY day ORDER BY day DESC`,
      );
      this.#perDay.set(extra, statement);
    }
    return statement.all(...params) as DayCount[];
  }
}

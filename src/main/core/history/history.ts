// The lookup history: one append-only row per lookup that reached validation or resolution.
// Reads page newest-first (createdAt desc, id desc). On large histories a page costs about the same
// at page 1 and page 10 000: totals come from per-day counters, the page is located by day from
// them, and rows are skipped on a covering index before the 50 rows of the page are read (see
// page-window.ts). The `q` text search has no counters and counts on the covering index instead.
import type Database from 'better-sqlite3';
import type { KeyEnvironment } from '../keys/secrets';
import type { LookupSource, LookupStatus, ProductSlug } from '../../../shared/api/common';
import type { HistoryQuery, KeyedHistoryEntry, KeyedHistoryPage } from '../../../shared/api/history';
import type { BatchFolding } from '../db/commit-queue';
import { jsonOf } from '../frozen-json';
import { toEntry, type Row } from './stored-entry';
import { DAY_MS } from '../../../shared/day';
import { DailyCounts, dayOf, type DayFilter } from './daily-counts';
import { EARLIEST_MS, LATEST_MS, dayEnd, dayStart, locateFromNewest, locateFromOldest, splitRange, type Edge, type PageWindow, type Span } from './page-window';

export type InputType = 'CBU' | 'CVU' | 'ALIAS' | 'CUIT';

export interface NewLookupRecord {
  id: string;
  orgId: string;
  environment: KeyEnvironment;
  product: ProductSlug;
  inputIdentifier: string;
  inputType: InputType;
  status: LookupStatus;
  errorCode: string | null;
  httpStatus: number;
  source: LookupSource;
  responseData: unknown;
  upstreamLatencyMs: number;
  creditConsumed: 0 | 1;
  userId: string;
  apiKeyId: string | null;
  requestId: string;
  createdAt: number;
}

export interface HistoryScope {
  orgId: string;
  environment: KeyEnvironment;
  product: ProductSlug;
}

export class History {
  readonly #insert: Database.Statement<unknown[]>;
  readonly #recordAlone: Database.Transaction<(r: NewLookupRecord) => void>;
  readonly #readPage: Database.Transaction<(scope: HistoryScope, query: HistoryQuery) => KeyedHistoryPage>;
  readonly #counts: DailyCounts;
  /** The day counters, folded per group-committed batch (CommitQueue). */
  readonly folding: BatchFolding;
  readonly #pageCache = new Map<string, Database.Statement<unknown[]>>();

  constructor(private readonly sqlite: Database.Database) {
    this.#insert = sqlite.prepare(
      `INSERT INTO lookups (id, org_id, environment, product, input_identifier, input_type, status, error_code, http_status,
        source, response_data, upstream_latency_ms, credit_consumed, user_id, api_key_id, request_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#counts = new DailyCounts(sqlite);
    this.folding = this.#counts;
    this.#recordAlone = sqlite.transaction((r: NewLookupRecord) => this.#write(r));
    this.#readPage = sqlite.transaction((scope: HistoryScope, query: HistoryQuery) => this.#page(scope, query));
  }

  /**
   * Appends a history row and counts it for its day. Runs inside the transaction that charges its
   * credit, if any; called outside one, it opens its own so the row and its count never part.
   */
  record(r: NewLookupRecord): void {
    if (this.sqlite.inTransaction) this.#write(r);
    else this.#recordAlone(r);
  }

  #write(r: NewLookupRecord): void {
    this.#insert.run(
      r.id,
      r.orgId,
      r.environment,
      r.product,
      r.inputIdentifier,
      r.inputType,
      r.status,
      r.errorCode,
      r.httpStatus,
      r.source,
      jsonOf(r.responseData),
      r.upstreamLatencyMs,
      r.creditConsumed,
      r.userId,
      r.apiKeyId,
      r.requestId,
      r.createdAt,
    );
    this.#counts.increment(r);
  }

  /**
   * One page and the total. The counters, edge counts and rows are read in one transaction, so they
   * agree even while another process (the CLI, a second window) appends lookups.
   */
  page(scope: HistoryScope, query: HistoryQuery): KeyedHistoryPage {
    return this.#readPage(scope, query);
  }

  #page(scope: HistoryScope, query: HistoryQuery): KeyedHistoryPage {
    const lo = query.from ?? EARLIEST_MS;
    const hi = query.to ?? LATEST_MS;
    const offset = (query.page - 1) * query.per_page;
    let total: number;
    let window: PageWindow | null;
    if (query.q) {
      total = this.#countRange(scope, query, lo, hi);
      window = offset < total ? { lo, hi, skip: offset } : null;
    } else {
      ({ total, window } = this.#locate(scope, query, lo, hi, offset));
    }
    const rows = window ? this.#pageRows(scope, query, window, query.per_page) : [];
    return {
      data: rows.map(toEntry),
      pagination: {
        page: query.page,
        per_page: query.per_page,
        total,
        total_pages: Math.ceil(total / query.per_page),
      },
    };
  }

  /**
   * The total and the page's window from the counters: whole days summed, partial edge days counted,
   * then the days walked lazily from whichever end of the range is nearer to the page.
   */
  #locate(scope: HistoryScope, query: HistoryQuery, lo: number, hi: number, offset: number): { total: number; window: PageWindow | null } {
    const filter: DayFilter = { ...scope, status: query.status, source: query.source };
    const split = splitRange(lo, hi);
    const newer: Span | null = split.newerEdge && { ...split.newerEdge, count: this.#countEdge(scope, query, split.newerEdge) };
    const older: Span | null = split.olderEdge && { ...split.olderEdge, count: this.#countEdge(scope, query, split.olderEdge) };
    const hasDays = split.firstDay <= split.lastDay;
    const total = (newer?.count ?? 0) + (hasDays ? this.#counts.sum(filter, split.firstDay, split.lastDay) : 0) + (older?.count ?? 0);
    if (offset >= total) return { total, window: null };
    const counts = this.#counts;
    function* walk(order: 'newest' | 'oldest'): Generator<Span> {
      const [first, last] = order === 'newest' ? [newer, older] : [older, newer];
      if (first) yield first;
      if (hasDays) {
        for (const { day, n } of counts.days(filter, split.firstDay, split.lastDay, order)) yield { lo: dayStart(day), hi: dayEnd(day), count: n };
      }
      if (last) yield last;
    }
    const window =
      offset + query.per_page / 2 <= total / 2
        ? locateFromNewest(walk('newest'), offset, query.per_page)
        : locateFromOldest(walk('oldest'), total, offset, query.per_page);
    return { total, window };
  }

  /**
   * Rows in an edge (part of one day). When the edge is most of its day, the rest of the day is
   * counted instead and taken from the day's counter: a local-time bound (`…T00:00:00-03:00`)
   * then costs three hours of rows, not twenty-one.
   */
  #countEdge(scope: HistoryScope, query: HistoryQuery, edge: Edge): number {
    const day = dayOf(edge.lo);
    const [start, end] = [dayStart(day), dayEnd(day)];
    if (edge.hi - edge.lo < DAY_MS / 2 || (edge.lo !== start && edge.hi !== end)) return this.#countRange(scope, query, edge.lo, edge.hi);
    const rest = edge.lo === start ? this.#countRange(scope, query, edge.hi + 1, end) : this.#countRange(scope, query, start, edge.lo - 1);
    return this.#counts.sum({ ...scope, status: query.status, source: query.source }, day, day) - rest;
  }

  #countRange(scope: HistoryScope, query: HistoryQuery, lo: number, hi: number): number {
    const { where, params } = rangeFilter(scope, query, lo, hi);
    const sql = `SELECT COUNT(*) AS n FROM lookups INDEXED BY ${indexFor(query)} WHERE ${where}`;
    return (this.#statement(sql).get(...params) as { n: number }).n;
  }

  /**
   * Skips and picks the page's rows on a covering index (no table row is read for a skipped entry),
   * then reads just those rows, their users and their keys.
   */
  #pageRows(scope: HistoryScope, query: HistoryQuery, window: PageWindow, limit: number): Row[] {
    const { where, params } = rangeFilter(scope, query, window.lo, window.hi);
    const sql = `SELECT l.id, l.input_identifier, l.input_type, l.status, l.source, l.response_data, l.upstream_latency_ms,
                        l.credit_consumed, l.created_at, l.user_id, u.name AS user_name, u.email AS user_email,
                        l.api_key_id, k.name AS key_name, k.display_prefix AS key_prefix
                   FROM (SELECT rowid AS rid FROM lookups INDEXED BY ${indexFor(query)} WHERE ${where}
                          ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) AS p
                   JOIN lookups l ON l.rowid = p.rid
                   LEFT JOIN users u ON u.id = l.user_id
                   LEFT JOIN api_keys k ON k.id = l.api_key_id
                  ORDER BY l.created_at DESC, l.id DESC`;
    return this.#statement(sql).all(...params, limit, window.skip) as Row[];
  }

  /**
   * Every entry matching the filter, newest first, for exports. Reads in keyset-paged chunks so no
   * statement stays open between chunks: a slow consumer never blocks the connection's other users.
   */
  *iterate(scope: HistoryScope, query: Omit<HistoryQuery, 'page' | 'per_page'>, chunk = 1000): Generator<KeyedHistoryEntry> {
    const { where, params } = buildFilter(scope, { ...query, page: 1, per_page: 1 });
    const first = this.#statement(`${selectEntries(where)} LIMIT ?`);
    const next = this.#statement(`${selectEntries(`${where} AND (l.created_at, l.id) < (?, ?)`)} LIMIT ?`);
    let rows = first.all(...params, chunk) as Row[];
    while (rows.length > 0) {
      for (const row of rows) yield toEntry(row);
      if (rows.length < chunk) return;
      const last = rows[rows.length - 1]!;
      rows = next.all(...params, last.created_at, last.id, chunk) as Row[];
    }
  }

  /**
   * The organization's entries that are in no history: their environment or product is not one
   * Titular writes (a damaged cell), so no page or export of any scope reads them, and none can take
   * them in without guessing whether a lookup was live or sandbox, an account or a credit report.
   * The exports say how many there are (stored-answer.ts unplacedWarning). Found by ranges around the
   * valid values on the page index, which leads with (org, environment, product): a few index seeks,
   * not a scan.
   */
  unplaced(orgId: string): { count: number; firstId: string } | null {
    const found = this.#statement(UNPLACED).get({ org: orgId }) as { n: number; first: string | null };
    return found.n > 0 && found.first !== null ? { count: found.n, firstId: found.first } : null;
  }

  #statement(sql: string): Database.Statement<unknown[]> {
    let statement = this.#pageCache.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      this.#pageCache.set(sql, statement);
    }
    return statement;
  }
}

/**
 * The index a page reads: `lookups_page` keeps (created_at, id) order under (org, env, product) and
 * carries status, source and the identifier after them, so filters are checked in the index itself
 * and neither skipping nor counting touches the table. (Separate status and source indexes made
 * filtered pages a little faster but cost two more B-tree writes on every lookup.)
 */
function indexFor(_query: Pick<HistoryQuery, 'status' | 'source' | 'q'>): string {
  return 'lookups_page';
}

/**
 * History.unplaced: every value below, between and above the valid ones, first of the environment,
 * then of the product under each valid environment. A stored value is text or a blob (the columns'
 * text affinity stores a number as text), and a blob sorts after all text.
 */
const UNPLACED = (() => {
  const ranges = (column: string, valid: readonly [string, string]) => [
    `${column} < '${valid[0]}'`,
    `${column} > '${valid[0]}' AND ${column} < '${valid[1]}'`,
    `${column} > '${valid[1]}'`,
  ];
  const terms = [
    ...ranges('environment', ['live', 'sandbox']),
    ...(['live', 'sandbox'] as const).flatMap((env) => ranges('product', ['cbu', 'informes']).map((range) => `environment = '${env}' AND ${range}`)),
  ];
  const union = terms.map((term) => `SELECT id, created_at FROM lookups INDEXED BY lookups_page WHERE org_id = @org AND ${term}`).join(' UNION ALL ');
  return `WITH u AS (${union}) SELECT (SELECT COUNT(*) FROM u) AS n, (SELECT id FROM u ORDER BY created_at DESC, id DESC LIMIT 1) AS first`;
})();

/** WHERE clause (unaliased `lookups`) for a scope, the query's filters and createdAt in [lo, hi]. */
function rangeFilter(scope: HistoryScope, query: HistoryQuery, lo: number, hi: number): { where: string; params: unknown[] } {
  const clauses = ['org_id = ?', 'environment = ?', 'product = ?'];
  const params: unknown[] = [scope.orgId, scope.environment, scope.product];
  if (query.status) {
    clauses.push('status = ?');
    params.push(query.status);
  }
  if (query.source) {
    clauses.push('source = ?');
    params.push(query.source);
  }
  clauses.push('created_at BETWEEN ? AND ?');
  params.push(lo, hi);
  if (query.q) {
    clauses.push("input_identifier LIKE ? ESCAPE '\\'");
    params.push(likeContains(query.q));
  }
  return { where: clauses.join(' AND '), params };
}

function likeContains(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function selectEntries(where: string): string {
  return `SELECT l.id, l.input_identifier, l.input_type, l.status, l.source, l.response_data, l.upstream_latency_ms,
                 l.credit_consumed, l.created_at, l.user_id, u.name AS user_name, u.email AS user_email,
                 l.api_key_id, k.name AS key_name, k.display_prefix AS key_prefix
            FROM lookups l LEFT JOIN users u ON u.id = l.user_id LEFT JOIN api_keys k ON k.id = l.api_key_id
           WHERE ${where}
           ORDER BY l.created_at DESC, l.id DESC`;
}

/** WHERE clause over the `lookups l` alias; values are always bound, never interpolated. */
function buildFilter(scope: HistoryScope, query: HistoryQuery): { where: string; params: unknown[] } {
  const clauses = ['l.org_id = ?', 'l.environment = ?', 'l.product = ?'];
  const params: unknown[] = [scope.orgId, scope.environment, scope.product];
  if (query.status) {
    clauses.push('l.status = ?');
    params.push(query.status);
  }
  if (query.source) {
    clauses.push('l.source = ?');
    params.push(query.source);
  }
  if (query.from !== undefined) {
    clauses.push('l.created_at >= ?');
    params.push(query.from);
  }
  if (query.to !== undefined) {
    clauses.push('l.created_at <= ?');
    params.push(query.to);
  }
  if (query.q) {
    clauses.push("l.input_identifier LIKE ? ESCAPE '\\'");
    params.push(likeContains(query.q));
  }
  return { where: clauses.join(' AND '), params };
}

// The lookup history: one append-only row per lookup that reached validation or resolution.
// Reads page newest-first (createdAt desc, id desc) over covering indexes.
import type Database from 'better-sqlite3';
import type { KeyEnvironment } from '../keys/secrets';
import type { LookupSource, LookupStatus, ProductSlug } from '../../../shared/api/common';
import type { HistoryEntry, HistoryQuery, HistoryResponse } from '../../../shared/api/history';

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

interface Row {
  id: string;
  input_identifier: string;
  input_type: InputType;
  status: LookupStatus;
  source: LookupSource;
  response_data: string;
  upstream_latency_ms: number;
  credit_consumed: number;
  created_at: number;
  user_id: string;
  user_name: string | null;
  user_email: string | null;
}

export class History {
  readonly #insert: Database.Statement<unknown[]>;
  readonly #pageCache = new Map<string, Database.Statement<unknown[]>>();

  constructor(private readonly sqlite: Database.Database) {
    this.#insert = sqlite.prepare(
      `INSERT INTO lookups (id, org_id, environment, product, input_identifier, input_type, status, error_code, http_status,
        source, response_data, upstream_latency_ms, credit_consumed, user_id, api_key_id, request_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Appends a history row. Runs inside the transaction that charges its credit, if any. */
  record(r: NewLookupRecord): void {
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
      JSON.stringify(r.responseData),
      r.upstreamLatencyMs,
      r.creditConsumed,
      r.userId,
      r.apiKeyId,
      r.requestId,
      r.createdAt,
    );
  }

  page(scope: HistoryScope, query: HistoryQuery): HistoryResponse {
    const { where, params } = buildFilter(scope, query);
    const total = (this.#statement(`SELECT COUNT(*) AS n FROM lookups l WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = this.#statement(
      `${selectEntries(where)} LIMIT ? OFFSET ?`,
    ).all(...params, query.per_page, (query.page - 1) * query.per_page) as Row[];
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
   * Every entry matching the filter, newest first, for exports. Reads in keyset-paged chunks so no
   * statement stays open between chunks: a slow consumer never blocks the connection's other users.
   */
  *iterate(scope: HistoryScope, query: Omit<HistoryQuery, 'page' | 'per_page'>, chunk = 1000): Generator<HistoryEntry> {
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

  #statement(sql: string): Database.Statement<unknown[]> {
    let statement = this.#pageCache.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      this.#pageCache.set(sql, statement);
    }
    return statement;
  }
}

function selectEntries(where: string): string {
  return `SELECT l.id, l.input_identifier, l.input_type, l.status, l.source, l.response_data, l.upstream_latency_ms,
                 l.credit_consumed, l.created_at, l.user_id, u.name AS user_name, u.email AS user_email
            FROM lookups l LEFT JOIN users u ON u.id = l.user_id
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
    params.push(`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  return { where: clauses.join(' AND '), params };
}

function toEntry(row: Row): HistoryEntry {
  return {
    id: row.id,
    inputIdentifier: row.input_identifier,
    inputType: row.input_type,
    status: row.status,
    source: row.source,
    responseData: JSON.parse(row.response_data) as Record<string, unknown>,
    upstreamLatencyMs: row.upstream_latency_ms,
    creditConsumed: row.credit_consumed,
    createdAt: new Date(row.created_at).toISOString(),
    user: { id: row.user_id, name: row.user_name ?? '', email: row.user_email ?? '' },
  };
}

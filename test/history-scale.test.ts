// History pages on large histories answer exactly what a naive query would: the per-day counters
// and the day-located, index-skipped pages (history/history.ts, page-window.ts) are checked against
// a reference that filters, sorts and slices every row in plain JavaScript.
//
// - A history of tens of thousands of rows over ~50 days (rows at exact day edges, many sharing one
//   millisecond, gap days, a busy day; both environments, both products, another organization, a
//   user that no longer resolves) is written with SQL and counted by the migration's own backfill
//   statement; real lookups (HTTP as API, the core as WEB and BULK) then add rows counted by
//   History.record. GET /api/v1/history is compared with the reference for every filter, date
//   forms at and around day edges, and first, middle, last and past-the-end pages, then for random
//   queries (fast-check), including the desktop's `q` search.
// - The migration backfill gives the same counters as counting the rows (a database at 0000 with
//   history, then migrated).
// - Counters equal COUNT(*) after random sequences of concurrent lookups, including lookups whose
//   transaction fails (rolled back with their counter) and 402s (no row, no counter).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from './support/directory-data';
import { postJson } from './support/http-helpers';
import { prng } from './support/prng';
import { checkHistoryCountInvariants, checkLedgerInvariants } from './support/invariants';
import { requestId, uuidv7 } from '../src/main/core/db/ids';
import { openDatabase } from '../src/main/core/db/open';
import { SANDBOX_ACCOUNTS, SANDBOX_NOT_FOUND } from '../src/main/core/resolvers/sandbox-data';
import type { LookupContext } from '../src/main/core/lookup/lookup-service';
import type Database from 'better-sqlite3';

const MIGRATIONS = path.resolve(import.meta.dirname, '../drizzle');
const DAY = 86_400_000;
const FIRST_DAY = Date.parse('2026-09-01T00:00:00.000Z');
const DAYS = 50;
const GAP_DAYS = new Set([7, 8, 30]); // no rows at all on these days
const BUSY_DAY = 20; // ten times the rows of a normal day

/** The backfill statement exactly as migration 0001 runs it. */
function backfillStatement(): string {
  const sql = readFileSync(path.join(MIGRATIONS, '0001_resolvers_informes_bulk.sql'), 'utf8');
  const statement = sql.split('--> statement-breakpoint').map((s) => s.trim()).find((s) => s.includes('INSERT INTO `lookup_daily_counts`'));
  if (!statement) throw new Error('backfill statement not found in migration 0001');
  return statement;
}

interface SeedOptions {
  orgIds: string[];
  userIds: string[];
  rows: number;
  seed: number;
}

/** Writes history rows with plain SQL (no counters: the caller runs the backfill). */
function insertRows(sqlite: Database.Database, { orgIds, userIds, rows, seed }: SeedOptions): void {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const insert = sqlite.prepare(
    `INSERT INTO lookups (id, org_id, environment, product, input_identifier, input_type, status, error_code, http_status,
       source, response_data, upstream_latency_ms, credit_consumed, user_id, api_key_id, request_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  const days = Array.from({ length: DAYS }, (_, d) => d).filter((d) => !GAP_DAYS.has(d));
  const weighted = days.flatMap((d) => (d === BUSY_DAY ? Array<number>(10).fill(d) : [d]));
  const tieInstants = Array.from({ length: 40 }, () => FIRST_DAY + pick(days) * DAY + Math.floor(random() * DAY));
  const identifiers = ['0290001100000000007770', 'luna.rio.mar', 'cuenta_50%.test', 'x\\y.alias', '2850590100000012345670', 'billetera.test', '27301112229'];
  sqlite.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const day = FIRST_DAY + pick(weighted) * DAY;
      const r = random();
      // Rows exactly on the first and last millisecond of a day, and clusters sharing one millisecond.
      const createdAt = r < 0.04 ? day : r < 0.08 ? day + DAY - 1 : r < 0.14 ? pick(tieInstants) : day + Math.floor(random() * DAY);
      const status = random() < 0.8 ? 'SUCCESS' : 'ERROR';
      const id = uuidv7(createdAt);
      insert.run(
        id,
        random() < 0.93 ? orgIds[0] : pick(orgIds.slice(1)),
        random() < 0.75 ? 'live' : 'sandbox',
        random() < 0.85 ? 'cbu' : 'informes',
        pick(identifiers),
        pick(['CBU', 'CVU', 'ALIAS']),
        status,
        status === 'SUCCESS' ? null : 'PA011',
        status === 'SUCCESS' ? 200 : 404,
        pick(['WEB', 'API', 'API', 'BULK']),
        JSON.stringify(status === 'SUCCESS' ? { seeded: i } : { error: { code: 'PA011', message: `seeded ${i}` } }),
        Math.floor(random() * 90),
        0, // seeded rows took no credit: the ledger invariants still hold over them
        pick(userIds),
        `req_${id.replaceAll('-', '')}`,
        createdAt,
      );
    }
  })();
}

interface RawRow {
  id: string;
  org_id: string;
  environment: string;
  product: string;
  input_identifier: string;
  input_type: string;
  status: string;
  source: string;
  response_data: string;
  upstream_latency_ms: number;
  credit_consumed: number;
  created_at: number;
  user_id: string;
  user_name: string | null;
  user_email: string | null;
}

interface RefQuery {
  environment: 'live' | 'sandbox';
  from?: string;
  to?: string;
  status?: string;
  source?: string;
  q?: string;
  page: number;
  per_page: number;
}

function boundMs(value: string, bound: 'from' | 'to'): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(`${value}T00:00:00.000Z`) + (bound === 'to' ? DAY - 1 : 0);
  return Date.parse(value);
}

/** The reference: every row of the database, filtered, sorted and sliced in JavaScript. */
class Reference {
  readonly rows: RawRow[];
  constructor(sqlite: Database.Database, orgId: string) {
    this.rows = (
      sqlite
        .prepare('SELECT l.*, u.name AS user_name, u.email AS user_email FROM lookups l LEFT JOIN users u ON u.id = l.user_id')
        .all() as RawRow[]
    ).filter((r) => r.org_id === orgId && r.product === 'cbu');
    this.rows.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  matching(q: Omit<RefQuery, 'page' | 'per_page'>): RawRow[] {
    const lo = q.from === undefined ? -Infinity : boundMs(q.from, 'from');
    const hi = q.to === undefined ? Infinity : boundMs(q.to, 'to');
    // SQLite's LIKE folds ASCII case only; every identifier here is ASCII.
    const needle = q.q?.toLowerCase();
    return this.rows.filter(
      (r) =>
        r.environment === q.environment &&
        (!q.status || r.status === q.status) &&
        (!q.source || r.source === q.source) &&
        r.created_at >= lo &&
        r.created_at <= hi &&
        (!needle || r.input_identifier.toLowerCase().includes(needle)),
    );
  }

  page(q: RefQuery, matching = this.matching(q)) {
    const slice = matching.slice((q.page - 1) * q.per_page, q.page * q.per_page);
    return {
      data: slice.map((r) => ({
        id: r.id,
        inputIdentifier: r.input_identifier,
        inputType: r.input_type,
        status: r.status,
        source: r.source,
        responseData: JSON.parse(r.response_data),
        upstreamLatencyMs: r.upstream_latency_ms,
        creditConsumed: r.credit_consumed,
        createdAt: new Date(r.created_at).toISOString(),
        user: { id: r.user_id, name: r.user_name ?? '', email: r.user_email ?? '' },
      })),
      pagination: { page: q.page, per_page: q.per_page, total: matching.length, total_pages: Math.ceil(matching.length / q.per_page) },
    };
  }
}

function queryString(q: RefQuery): string {
  const params = new URLSearchParams({ page: String(q.page), per_page: String(q.per_page) });
  for (const name of ['from', 'to', 'status', 'source', 'q'] as const) {
    const value = q[name];
    if (value !== undefined) params.set(name, value);
  }
  return params.toString();
}

const day = (n: number) => new Date(FIRST_DAY + n * DAY).toISOString().slice(0, 10);
const instant = (n: number, ms: number) => new Date(FIRST_DAY + n * DAY + ms).toISOString();

/** Date forms at and around day edges; each is [from, to] (either may be absent). */
const RANGES: [string | undefined, string | undefined][] = [
  [undefined, undefined],
  [day(12), undefined],
  [undefined, day(33)],
  [day(5), day(25)],
  [day(BUSY_DAY), day(BUSY_DAY)],
  [day(7), day(8)], // gap days only
  [`${day(10)}T00:00:00.000Z`, `${day(19)}T23:59:59.999Z`], // instants on exact day edges: whole days
  [instant(10, 1), instant(20, -2)], // one millisecond inside each edge: rows on the edges excluded
  [instant(10, -1), instant(20, 0)], // one millisecond outside: the previous day's last and the next day's first included
  [`${day(3)}T00:00:00-03:00`, `${day(40)}T23:59:59.999-03:00`], // local (Buenos Aires) days
  [instant(BUSY_DAY, 36_000_000), instant(BUSY_DAY, 54_000_000)], // within one day
  [instant(14, 43_200_000), instant(15, 43_199_999)], // two partial days, no whole day
  [instant(6, 50_000_000), instant(9, 10_000_000)], // partial edges around gap days
  ['2020-01-01', '2030-12-31'],
  ['2019-01-01', '2019-12-31'], // before all rows
  [undefined, instant(-1, 0)], // ends before the first row
];

describe('GET /api/v1/history equals a naive reference on a large history', () => {
  let f: Fixture;
  let liveKey: string;
  let sandboxKey: string;
  let ref: Reference;

  beforeAll(async () => {
    f = await createFixture({ credits: { cbu: 500, informes: 50 } });
    f.importDirectory(DIRECTORY_CSV);
    liveKey = f.createKey({ ownerUserId: f.operatorId, rateLimitPerSecond: 10_000 });
    sandboxKey = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 10_000 });
    const sqlite = f.titular.database.sqlite;
    sqlite.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run('org-other', 'Otra S.A.', FIRST_DAY);
    insertRows(sqlite, { orgIds: [f.orgId, 'org-other'], userIds: [f.adminId, f.operatorId, f.operatorId, 'user-gone'], rows: 30_000, seed: 7 });
    sqlite.exec(backfillStatement());

    // Real lookups on top, counted by History.record: API over HTTP, WEB and BULK through the core.
    const api = [
      `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`,
      `/api/v1/lookup?identifier=${DIR.company.alias}&type=alias`,
      `/api/v1/lookup?identifier=${DIR.missing.cbu}&type=cbu`,
      `/api/v1/lookup?identifier=${breakCheckDigit(DIR.wallet.cbu)}&type=cbu`,
    ];
    for (let i = 0; i < 12; i++) {
      await Promise.all(api.map((url) => f.app.inject({ url, headers: auth(liveKey) })));
      await Promise.all([
        f.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_ACCOUNTS[i % 5]!.account.number}&type=cbu`, headers: auth(sandboxKey) }),
        f.app.inject({ url: `/api/v1/lookup?identifier=${SANDBOX_NOT_FOUND.alias}&type=alias`, headers: auth(sandboxKey) }),
        f.app.inject({ url: '/api/v1/lookup?identifier=falla.upstream&type=alias', headers: auth(sandboxKey) }),
      ]);
      for (const source of ['WEB', 'BULK'] as const) {
        const ctx: LookupContext = { orgId: f.orgId, environment: 'live', source, userId: f.adminId, apiKeyId: null };
        await f.titular.lookups.lookupAccount(ctx, { identifier: i % 2 ? DIR.wallet.alias : DIR.joint.cbu, type: i % 2 ? 'alias' : 'cbu' });
      }
    }
    ref = new Reference(sqlite, f.orgId);
    // Sanity of the data set itself: big enough, with every kind of row the cases rely on.
    expect(ref.rows.length).toBeGreaterThan(20_000);
    expect(ref.rows.filter((r) => r.environment === 'sandbox').length).toBeGreaterThan(3000);
    expect(ref.rows.some((r) => r.user_name === null)).toBe(true);
    expect(ref.rows.filter((r) => r.created_at % DAY === 0).length).toBeGreaterThan(500);
    expect(ref.rows.filter((r) => r.created_at % DAY === DAY - 1).length).toBeGreaterThan(500);
    const perMs = new Map<number, number>();
    for (const r of ref.rows) perMs.set(r.created_at, (perMs.get(r.created_at) ?? 0) + 1);
    expect(Math.max(...perMs.values())).toBeGreaterThan(20);
    expect(ref.rows.filter((r) => r.source === 'WEB' && r.created_at > FIRST_DAY + DAYS * DAY).length).toBe(12);
  }, 120_000);
  afterAll(() => f?.close());

  async function compare(q: RefQuery, matching?: RawRow[]) {
    const res = await f.app.inject({ url: `/api/v1/history?${queryString(q)}`, headers: auth(q.environment === 'live' ? liveKey : sandboxKey) });
    expect(res.statusCode, res.body).toBe(200);
    const actual: unknown = res.json();
    const expected = ref.page(q, matching);
    // Deep equality through node first (fast); vitest's toEqual only to report a difference.
    if (!isDeepStrictEqual(actual, expected)) expect(actual, queryString(q)).toEqual(expected);
  }

  it('the counters equal the rows (seeded and backfilled, then kept by real lookups)', () => {
    const rows = checkHistoryCountInvariants(f.titular.database.sqlite);
    expect(rows).toBeGreaterThan(30_000);
    checkLedgerInvariants(f.titular.database.sqlite);
  });

  it('every filter × date form at day edges × first, second, middle, last and past-the-end pages, live and sandbox', async () => {
    let compared = 0;
    let nonEmpty = 0;
    for (const environment of ['live', 'sandbox'] as const) {
      for (const [rangeIndex, [from, to]] of RANGES.entries()) {
        for (const status of [undefined, 'SUCCESS', 'ERROR']) {
          for (const source of [undefined, 'WEB', 'API', 'BULK']) {
            // The sandbox history gets the full filter grid on a few ranges only.
            if (environment === 'sandbox' && (status || source) && rangeIndex % 4 !== 0) continue;
            const filter = { environment, from, to, status, source };
            const matching = ref.matching(filter);
            if (matching.length > 0) nonEmpty++;
            for (const perPage of [50, 7]) {
              const last = Math.max(1, Math.ceil(matching.length / perPage));
              const pages = perPage === 50 ? [1, 2, Math.ceil(last / 2), last - 1, last, last + 1] : [Math.ceil(last / 3)];
              for (const page of new Set(pages.filter((p) => p >= 1))) {
                await compare({ ...filter, page, per_page: perPage }, matching);
                compared++;
              }
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(nonEmpty).toBeGreaterThan(150);
  }, 300_000);

  it('bounds on the very instant of rows (several rows in that millisecond): the bound row is in, its neighbours out', async () => {
    // Instants holding several rows, early and late in their day: an early `from` and a late `to`
    // leave most of the edge day inside the range, so its count is taken as the day's counter minus
    // the rest of the day; early `to` and late `from` count the edge itself.
    const perMs = new Map<number, number>();
    for (const r of ref.rows) perMs.set(r.created_at, (perMs.get(r.created_at) ?? 0) + 1);
    const ties = [...perMs].filter(([, n]) => n >= 5).map(([t]) => t);
    const early = ties.filter((t) => t % DAY < DAY / 2 && t % DAY > 0).sort((a, b) => a - b);
    const late = ties.filter((t) => t % DAY >= DAY / 2 && t % DAY < DAY - 1).sort((a, b) => a - b);
    expect(early.length).toBeGreaterThan(3);
    expect(late.length).toBeGreaterThan(3);
    const iso = (t: number) => new Date(t).toISOString();
    const ranges: [string, string][] = [
      [iso(early[0]!), iso(late[late.length - 1]!)],
      [iso(late[0]!), iso(early[early.length - 1]!)].sort() as [string, string],
      [iso(early[1]!), iso(early[1]!)], // one millisecond
      [iso(early[2]!), iso(early[2]! + DAY)], // the same time the next day: two partial days
    ];
    let compared = 0;
    for (const [from, to] of ranges) {
      for (const status of [undefined, 'ERROR']) {
        for (const source of [undefined, 'API']) {
          const filter = { environment: 'live' as const, from, to, status, source };
          const matching = ref.matching(filter);
          const last = Math.max(1, Math.ceil(matching.length / 50));
          for (const page of new Set([1, Math.ceil(last / 2), last])) {
            await compare({ ...filter, page, per_page: 50 }, matching);
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  it('a page walk covers the filtered history exactly once, in order', async () => {
    const q = { environment: 'live' as const, status: 'ERROR', from: instant(2, 12_345), to: instant(45, -1) };
    const matching = ref.matching(q);
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const res = await f.app.inject({ url: `/api/v1/history?${queryString({ ...q, page, per_page: 50 })}`, headers: auth(liveKey) });
      const body = res.json() as { data: { id: string }[]; pagination: { total: number } };
      expect(body.pagination.total).toBe(matching.length);
      if (body.data.length === 0) break;
      seen.push(...body.data.map((e) => e.id));
    }
    expect(seen).toEqual(matching.map((r) => r.id));
  }, 120_000);

  it('random queries (fast-check): any filters, date or instant bounds, any page and size, and the q search', async () => {
    const lo = FIRST_DAY - 2 * DAY;
    const hi = FIRST_DAY + (DAYS + 2) * DAY;
    // Bounds are drawn near day edges half of the time, where a range splits into whole and partial days.
    // Bounds on the instant of existing rows decide whether those rows are in: drawn a third of the time.
    const rowInstants = [...new Set(ref.rows.map((r) => r.created_at))];
    const ms = fc.oneof(
      fc.integer({ min: lo, max: hi }),
      fc.constantFrom(...rowInstants),
      fc.tuple(fc.integer({ min: -2, max: DAYS + 2 }), fc.constantFrom(0, 1, -1, DAY - 1)).map(([d, off]) => FIRST_DAY + d * DAY + off),
    );
    const bound = fc.option(fc.tuple(ms, fc.boolean()).map(([t, asDate]) => (asDate ? new Date(t).toISOString().slice(0, 10) : new Date(t).toISOString())), { nil: undefined });
    const query = fc
      .record({
        environment: fc.constantFrom('live' as const, 'sandbox' as const),
        from: bound,
        to: bound,
        status: fc.option(fc.constantFrom('SUCCESS', 'ERROR'), { nil: undefined }),
        source: fc.option(fc.constantFrom('WEB', 'API', 'BULK'), { nil: undefined }),
        q: fc.option(fc.constantFrom('0290', 'LUNA', '.test', '50%', '_', '\\', 'rio.mar', '7', 'nada'), { freq: 4, nil: undefined }),
        per_page: fc.integer({ min: 1, max: 50 }),
        pageAt: fc.double({ min: 0, max: 1.05, noNaN: true }),
      })
      .filter((q) => q.from === undefined || q.to === undefined || boundMs(q.from, 'from') <= boundMs(q.to, 'to'));
    await fc.assert(
      fc.asyncProperty(query, async ({ pageAt, ...q }) => {
        const matching = ref.matching(q);
        const pages = Math.max(1, Math.ceil(matching.length / q.per_page));
        await compare({ ...q, page: Math.max(1, Math.ceil(pageAt * pages)) }, matching);
      }),
      { numRuns: 150, seed: 20261122 },
    );
  }, 300_000);
});

describe('the migration backfill', () => {
  it('builds the same counters as counting the history it finds (a database at 0000 with history, then migrated)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'titular-backfill-'));
    try {
      // A migrations folder that stops at 0000: the schema an older desktop left behind.
      const old = path.join(dir, 'drizzle-0000');
      mkdirSync(path.join(old, 'meta'), { recursive: true });
      copyFileSync(path.join(MIGRATIONS, '0000_init.sql'), path.join(old, '0000_init.sql'));
      const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
      writeFileSync(path.join(old, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.filter((e) => e.tag === '0000_init') }));
      const file = path.join(dir, 'titular.db');

      const before = openDatabase({ file, migrationsFolder: old });
      const tables = before.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'lookup_daily_counts'").all();
      expect(tables).toEqual([]);
      before.sqlite.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run('org-a', 'A', FIRST_DAY);
      before.sqlite.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run('org-b', 'B', FIRST_DAY);
      insertRows(before.sqlite, { orgIds: ['org-a', 'org-b'], userIds: ['u1', 'u2'], rows: 5000, seed: 11 });
      const groups = before.sqlite
        .prepare('SELECT COUNT(*) AS n FROM (SELECT 1 FROM lookups GROUP BY org_id, environment, product, created_at / 86400000, status, source)')
        .get() as { n: number };
      before.close();

      const after = openDatabase({ file, migrationsFolder: MIGRATIONS });
      try {
        expect(checkHistoryCountInvariants(after.sqlite)).toBe(5000);
        const counters = after.sqlite.prepare('SELECT COUNT(*) AS n, SUM(count) AS total FROM lookup_daily_counts').get() as { n: number; total: number };
        expect(counters).toEqual({ n: groups.n, total: 5000 });
        // The history indexes of this schema exist after the upgrade (the pages name them).
        const indexes = after.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('lookups_page', 'lookup_daily_counts_sum')").all();
        expect(indexes).toHaveLength(2);
        const pageColumns = (after.sqlite.prepare("SELECT name FROM pragma_index_info('lookups_page') ORDER BY seqno").all() as { name: string }[]).map((c) => c.name);
        expect(pageColumns).toEqual(['org_id', 'environment', 'product', 'created_at', 'id', 'status', 'source', 'input_identifier']);
      } finally {
        after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the counters follow every lookup', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await createFixture({ credits: { cbu: 150, informes: 20 } });
    f.importDirectory(DIRECTORY_CSV);
  });
  afterAll(() => f?.close());

  it('after random bursts of concurrent lookups (API, WEB, BULK, live and sandbox, both products, 402s, failed transactions)', async () => {
    const random = prng(99);
    const live = f.createKey({ rateLimitPerSecond: 10_000 });
    const sandbox = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 10_000 });
    const informes = f.createKey({ product: 'informes', scopes: ['lookup'], rateLimitPerSecond: 10_000 });
    const identifiers = [DIR.individual.cbu, DIR.company.cbu, DIR.missing.cbu, breakCheckDigit(DIR.joint.cbu), DIR.wallet.cbu];
    const outcomes = new Map<number, number>();
    let failedOnPurpose = 0;
    for (let burst = 0; burst < 25; burst++) {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 12; i++) {
        const identifier = identifiers[Math.floor(random() * identifiers.length)]!;
        const kind = Math.floor(random() * 6);
        if (kind === 0) work.push(f.app.inject({ url: `/api/v1/lookup?identifier=${identifier}&type=cbu`, headers: auth(live) }).then((r) => r.statusCode));
        else if (kind === 1) work.push(postJson(f, '/api/v1/lookup', { identifier: random() < 0.5 ? 'falla.upstream' : SANDBOX_NOT_FOUND.alias, type: 'alias' }, auth(sandbox)).then((r) => r.statusCode));
        else if (kind === 2) work.push(postJson(f, '/api/v1/credit/lookup', { tax_id: random() < 0.5 ? '20-28765432-5' : '1' }, auth(informes)).then((r) => r.statusCode));
        else {
          const source = kind === 3 ? 'WEB' : 'BULK';
          const fail = kind === 5;
          const ctx: LookupContext = {
            orgId: f.orgId,
            environment: random() < 0.8 ? 'live' : 'sandbox',
            source,
            userId: f.operatorId,
            apiKeyId: null,
            // A caller record that fails inside the lookup's transaction: the row and its counter go with it.
            onCommit: fail
              ? () => {
                  throw new Error('caller record failed');
                }
              : undefined,
          };
          work.push(
            f.titular.lookups.lookupAccount(ctx, { identifier, type: 'cbu' }).then(
              (a) => a.status,
              () => {
                failedOnPurpose++;
                return -1;
              },
            ),
          );
        }
      }
      // History.record called outside any transaction (as tools and tests do) keeps row and counter together too.
      if (burst % 5 === 0) recordUncharged(f, Date.now() - burst * DAY);
      for (const status of (await Promise.all(work)) as number[]) outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
      checkHistoryCountInvariants(f.titular.database.sqlite);
    }
    checkLedgerInvariants(f.titular.database.sqlite);
    // The sequence did reach every branch it is meant to cover.
    expect(failedOnPurpose).toBeGreaterThan(0);
    for (const status of [200, 400, 402, 404, 503]) expect(outcomes.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);
    const sqlite = f.titular.database.sqlite;
    const total = (sqlite.prepare('SELECT COUNT(*) AS n FROM lookups').get() as { n: number }).n;
    expect(total).toBe((sqlite.prepare('SELECT SUM(count) AS n FROM lookup_daily_counts').get() as { n: number }).n);
    // Each history (key scope) totals what its rows count.
    const liveCbu = (sqlite.prepare("SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live' AND product = 'cbu'").get() as { n: number }).n;
    const res = await f.app.inject({ url: '/api/v1/history?per_page=1', headers: auth(live) });
    expect(res.json().pagination.total).toBe(liveCbu);
  }, 120_000);
});

function recordUncharged(f: Fixture, createdAt: number): void {
  f.titular.history.record({
    id: uuidv7(createdAt),
    orgId: f.orgId,
    environment: 'live',
    product: 'cbu',
    inputIdentifier: 'recorded.alias',
    inputType: 'ALIAS',
    status: 'ERROR',
    errorCode: 'GE500',
    httpStatus: 503,
    source: 'BULK',
    responseData: { error: { code: 'GE500', message: 'recorded' } },
    upstreamLatencyMs: 3,
    creditConsumed: 0,
    userId: f.adminId,
    apiKeyId: null,
    requestId: requestId(),
    createdAt,
  });
}

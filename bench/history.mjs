// History pages on 1,000,000 rows: `node bench/history.mjs [--duration 5] [--connections 10] [--rows 1000000]`.
//
// Seeds a data directory with a year of history (bench/history-seed.mjs; cached under bench/.cache/
// keyed by the migrations and the seeder, so only the first run pays the ~30 s of seeding), starts
// the built headless server on 127.0.0.1 as a separate process, and drives GET /api/v1/history with
// autocannon for a bounded time per case: the first page and a deep page, without a filter and with
// status, source, from/to and all of them. Writes bench/results/history.json; bench/run.mjs calls
// runHistoryBench() for bench/results/latest.json. Nothing leaves the machine.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ensureBuilt } from './build.mjs';
import { seedHistory } from './history-seed.mjs';
import { cliIn, processCpuMicros, ROOT, SERVE, startServer, stopServer } from './processes.mjs';

const CACHE = path.join(ROOT, 'bench/.cache');
const Database = createRequire(import.meta.url)('better-sqlite3');
const DAY_MS = 86_400_000;
const PER_PAGE = 50;
/** Bump when seed() below changes what it writes (the seeder's own file is hashed into the key). */
const SEED_VERSION = 2;
/** The page the "deep" cases ask for (or the last page, when a filter has fewer). */
const DEEP_PAGE = 1000;

/** The cache key: what the seeded database depends on (the schema's migrations, the seeder, the size). */
function cacheKey(rows) {
  const hash = createHash('sha256');
  const drizzle = path.join(ROOT, 'drizzle');
  for (const file of readdirSync(drizzle).filter((f) => f.endsWith('.sql')).sort()) hash.update(file).update(readFileSync(path.join(drizzle, file)));
  hash.update(readFileSync(path.join(ROOT, 'bench/history-seed.mjs'))).update(String(SEED_VERSION));
  return `history-${rows}-${hash.digest('hex').slice(0, 16)}`;
}

/** Creates a data directory with the CLI and writes `rows` history rows into it. Returns the seconds spent seeding. */
function seed(dataDir, rows, endMs) {
  const cli = cliIn(dataDir);
  cli('init', '--org', 'Bench Cobranzas', '--admin-name', 'Bench Admin', '--admin-email', 'bench@titular.test');
  cli('users', 'add', '--name', 'Olga Operadora', '--email', 'olga@titular.test', '--role', 'operator');
  const sqlite = new Database(path.join(dataDir, 'titular.db'));
  try {
    // Bulk load only: the server reopens the file with the product's own settings.
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = OFF');
    const orgId = sqlite.prepare('SELECT id FROM organizations').get().id;
    const userIds = sqlite.prepare('SELECT id FROM users').all().map((u) => u.id);
    const started = performance.now();
    const perScope = seedHistory(sqlite, { orgId, userIds, rows, endMs });
    const seconds = (performance.now() - started) / 1000;
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    process.stdout.write(`seeded ${rows} rows in ${seconds.toFixed(1)} s: ${JSON.stringify(perScope)}\n`);
    return seconds;
  } finally {
    sqlite.close();
  }
}

/** A working copy of the cached seeded data directory (seeding it first if needed). */
function preparedDataDir(rows) {
  const key = cacheKey(rows);
  const cached = path.join(CACHE, key);
  let seedSeconds = null;
  if (!existsSync(path.join(cached, 'titular.db'))) {
    mkdirSync(CACHE, { recursive: true });
    // The cache is machine-local: keep it out of git without touching the repository's .gitignore.
    writeFileSync(path.join(CACHE, '.gitignore'), '*\n');
    // Older caches go; a seeding directory goes only once abandoned (another run may be filling it).
    for (const entry of readdirSync(CACHE)) {
      const stale = entry.startsWith('history-') || (entry.startsWith('seeding-') && Date.now() - statSync(path.join(CACHE, entry)).mtimeMs > 3_600_000);
      if (stale) rmSync(path.join(CACHE, entry), { recursive: true, force: true });
    }
    const building = mkdtempSync(path.join(CACHE, 'seeding-'));
    seedSeconds = seed(building, rows, Date.now());
    writeFileSync(path.join(building, 'seed.json'), `${JSON.stringify({ rows, seedSeconds, date: new Date().toISOString() })}\n`);
    try {
      renameSync(building, cached);
    } catch (error) {
      // A concurrent run finished the same cache first: use that one.
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(path.join(cached, 'titular.db'))) throw error;
    }
  } else {
    seedSeconds = JSON.parse(readFileSync(path.join(cached, 'seed.json'), 'utf8')).seedSeconds;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-history-bench-'));
  for (const file of ['titular.db', 'master.key']) copyFileSync(path.join(cached, file), path.join(dataDir, file));
  return { dataDir, seedSeconds };
}

function load(url, headers, { durationSeconds, connections, amount }) {
  return new Promise((resolve, reject) => {
    const options = amount ? { url, headers, connections, amount } : { url, headers, connections, duration: durationSeconds };
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * The cases: first and deep page × (no filter, status, source, from/to, all filters), the last page,
 * and the desktop's text search (slower by design, measured with a bounded number of requests and
 * returned apart as `textSearch`).
 */
function cases(endMs) {
  const day = (daysBack) => new Date(endMs - daysBack * DAY_MS).toISOString().slice(0, 10);
  // A quarter of the year, as a back office asks for it: local (Buenos Aires) days, so both ends are partial UTC days.
  const from = `${day(200)}T00:00:00-03:00`;
  const to = `${day(110)}T23:59:59.999-03:00`;
  const filters = [
    ['no filter', {}],
    ['status=ERROR', { status: 'ERROR' }],
    ['source=WEB', { source: 'WEB' }],
    ['from/to', { from, to }],
    ['all filters', { status: 'SUCCESS', source: 'API', from, to }],
  ];
  const list = [];
  for (const [name, filter] of filters) {
    list.push({ name: `${name}, first page`, filter, page: 'first' });
    list.push({ name: `${name}, deep page`, filter, page: 'deep' });
  }
  list.push({ name: 'no filter, last page', filter: {}, page: 'last' });
  // A search for one account's alias: ~140 matches, found by reading the whole scope's index.
  list.push({ name: 'q (text search), first page', filter: { q: 'cliente.1234.' }, page: 'first', amount: 20, search: true });
  return list;
}

const query = (filter, page) => new URLSearchParams({ ...filter, per_page: String(PER_PAGE), page: String(page) }).toString();

/**
 * Runs the history benchmark. `dataDir`: a data directory to use as it is (seeded first when it has
 * no database); by default a fresh copy of the cached 1M-row one. Returns the measured cases.
 */
export async function runHistoryBench({ dataDir, durationSeconds = 5, connections = 10, rows = 1_000_000, build = true } = {}) {
  if (build) ensureBuilt();
  let seedSeconds = null;
  let workDir = dataDir;
  let temporary = false;
  if (!workDir) {
    ({ dataDir: workDir, seedSeconds } = preparedDataDir(rows));
    temporary = true;
  } else if (!existsSync(path.join(workDir, 'titular.db'))) {
    mkdirSync(workDir, { recursive: true });
    seedSeconds = seed(workDir, rows, Date.now());
  }
  let server = null;
  try {
    const endMs = Date.now();
    const key = JSON.parse(cliIn(workDir)('keys', 'create', '--product', 'cbu', '--scopes', 'history', '--rate-limit', '10000', '--name', 'history bench', '--json')).key;
    const headers = { authorization: `Bearer ${key}` };
    const sqlite = new Database(path.join(workDir, 'titular.db'), { readonly: true });
    const totalRows = sqlite.prepare('SELECT COUNT(*) AS n FROM lookups').get().n;
    sqlite.close();

    server = await startServer(SERVE, ['--port', '0', '--data-dir', workDir]);
    const results = [];
    for (const c of cases(endMs)) {
      // One plain request first: it checks the answer and tells how many pages the filter has.
      const first = await fetch(`${server.url}/api/v1/history?${query(c.filter, 1)}`, { headers });
      if (first.status !== 200) throw new Error(`${c.name}: HTTP ${first.status} ${await first.text()}`);
      const { pagination, data } = await first.json();
      const page = c.page === 'first' ? 1 : c.page === 'last' ? pagination.total_pages : Math.min(DEEP_PAGE, pagination.total_pages);
      const url = `${server.url}/api/v1/history?${query(c.filter, page)}`;
      const check = await (await fetch(url, { headers })).json();
      if (data.length === 0 || check.data.length === 0) throw new Error(`${c.name}: empty page ${page}`);
      // Warm-up (JIT, SQLite's page cache), then latency with one client (nothing queued behind
      // another request: the time a page costs), then throughput with `connections` clients.
      await load(url, headers, { connections: 1, amount: c.amount ? 2 : 200 });
      const cpuBefore = processCpuMicros(server.child.pid) / 1000;
      const alone = await load(url, headers, { durationSeconds, connections: 1, amount: c.amount });
      const cpuAfter = processCpuMicros(server.child.pid) / 1000;
      const loaded = c.amount ? null : await load(url, headers, { durationSeconds, connections });
      const summary = {
        name: c.name,
        ...(c.search ? { search: true } : {}),
        page,
        total: pagination.total,
        rps: Math.round((loaded ?? alone).requests.average),
        p50: alone.latency.p50,
        p99: alone.latency.p99,
        max: alone.latency.max,
        requests: alone.requests.total,
        serverCpuMsPerRequest: Number(((cpuAfter - cpuBefore) / alone.requests.total).toFixed(2)),
        underLoad: loaded && { connections, rps: Math.round(loaded.requests.average), p50: loaded.latency.p50, p99: loaded.latency.p99, max: loaded.latency.max },
        non2xx: alone.non2xx + (loaded?.non2xx ?? 0),
        errors: alone.errors + (loaded?.errors ?? 0),
      };
      process.stdout.write(
        `${summary.name.padEnd(30)} page ${String(page).padStart(5)}/${String(pagination.total_pages).padEnd(6)} 1 client: p50 ${summary.p50} ms p99 ${summary.p99} ms max ${summary.max} ms cpu ${summary.serverCpuMsPerRequest} ms/req` +
          (summary.underLoad ? ` | ${connections} clients: ${summary.rps} req/s p50 ${summary.underLoad.p50} ms p99 ${summary.underLoad.p99} ms` : '') +
          '\n',
      );
      if (summary.non2xx > 0 || summary.errors > 0) throw new Error(`${c.name}: ${summary.non2xx} non-2xx answers, ${summary.errors} errors`);
      results.push(summary);
    }
    // p50/p99/max: one client (a page's own cost); rps and underLoad: `connections` clients at once.
    // The text search is reported apart: it has no counters and is outside the pages' 10 ms target.
    return {
      rows: totalRows,
      perPage: PER_PAGE,
      latencyConnections: 1,
      connections,
      durationSeconds,
      seedSeconds,
      cases: results.filter((r) => !r.search),
      textSearch: results.filter((r) => r.search).map(({ search, ...r }) => r),
    };
  } finally {
    if (server) await stopServer(server);
    if (temporary) rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      rows: { type: 'string', default: '1000000' },
      'data-dir': { type: 'string' },
    },
  });
  const report = await runHistoryBench({
    dataDir: values['data-dir'],
    durationSeconds: Math.min(Number(values.duration), 60),
    connections: Math.min(Number(values.connections), 200),
    rows: Math.min(Number(values.rows), 5_000_000),
  });
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))) },
    ...report,
  };
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/results/history.json'), `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write('wrote bench/results/history.json\n');
}

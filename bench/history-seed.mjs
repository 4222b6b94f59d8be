// Writes a large, realistic lookup history straight into a migrated Titular database, for the
// history benchmark. Rows go in with plain prepared INSERTs in big transactions (a lookup per row
// through the service would take hours for 1,000,000 rows); `lookup_daily_counts` is filled from the
// same generated rows, so the database is exactly what History.record would have left.
//
// The spread is deterministic (seeded PRNG): ~12 months back from `endMs`, weekdays busier than
// weekends, office hours busier than nights; 90% live CBU, 5% sandbox CBU, 5% live Informes;
// ~85% SUCCESS; sources API 70%, WEB 20%, BULK 10%.
import { randomFillSync } from 'node:crypto';
import { cbu, cuit } from './directory-fixture.mjs';

const DAY_MS = 86_400_000;

/** mulberry32: small, fast, good enough to spread rows; deterministic for a given seed. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pool = Buffer.alloc(16 * 4096);
let poolOffset = pool.length;
/** A UUIDv7 string for `ms` (random tail; ties within one millisecond are ordered by it, as in production). */
function uuidv7(ms) {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Shares of rows per scope; the benchmark pages the first (live CBU) one.
const SCOPES = [
  { environment: 'live', product: 'cbu', share: 0.9 },
  { environment: 'sandbox', product: 'cbu', share: 0.05 },
  { environment: 'live', product: 'informes', share: 0.05 },
];

function pick(random, weighted) {
  let r = random();
  for (const [value, weight] of weighted) {
    if ((r -= weight) < 0) return value;
  }
  return weighted[weighted.length - 1][0];
}

/** A pool of plausible identifiers and their answers, reused across rows (as real traffic repeats). */
function identifierPool(random, size) {
  const accounts = [];
  for (let i = 0; i < size; i++) {
    let taxId = null;
    let dni = 20_000_000 + Math.floor(random() * 30_000_000);
    while (!taxId) taxId = cuit('20', dni++);
    const number = cbu('285', '0590', 1_000_000 + i);
    const alias = `cliente.${i}.pagos`;
    const data = JSON.stringify({
      holders: [{ full_name: `Titular Numero ${i}`, tax_id: taxId, tax_id_type: 'CUIL', is_individual: true }],
      account_type: i % 3 === 0 ? 'CC' : 'CA',
      active: i % 17 !== 0,
      currency: i % 9 === 0 ? 'USD' : 'ARS',
      alias,
      account: { scheme: 'CBU', number },
      bank: { name: 'Banco Macro S.A.', code: '285' },
    });
    const report = JSON.stringify({
      subject: { full_name: `Titular Numero ${i}`, tax_id: taxId, tax_id_type: 'CUIL' },
      situation: 1,
      debts: [{ institution: 'Banco Macro S.A.', situation: 1, amount: 150000 + i, period: '2026-09' }],
      bounced_checks: [],
    });
    accounts.push({ number, alias, taxId, data, report });
  }
  return accounts;
}

const NOT_FOUND = JSON.stringify({ error: { code: 'PA011', message: 'No account was found for this identifier' } });
const INVALID = JSON.stringify({ error: { code: 'PA006', message: 'CBU must be 22 digits with valid check digits' } });
const DOWN = JSON.stringify({ error: { code: 'GE500', message: 'The data source is unavailable; try again later' } });

/**
 * Inserts `rows` history rows for `orgId` spread over `days` days ending at `endMs`, and the
 * matching daily counts. `userIds` are existing users (the entries' `user`). Returns the row count
 * per scope, e.g. { 'live/cbu': 900123, ... }.
 */
export function seedHistory(sqlite, { orgId, userIds, apiKeyId = null, rows, endMs = Date.now(), days = 365, seed = 42, batch = 50_000 }) {
  const random = prng(seed);
  const accounts = identifierPool(random, 2000);
  const insert = sqlite.prepare(
    `INSERT INTO lookups (id, org_id, environment, product, input_identifier, input_type, status, error_code, http_status,
       source, response_data, upstream_latency_ms, credit_consumed, user_id, api_key_id, request_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const upsertCount = sqlite.prepare(
    `INSERT INTO lookup_daily_counts (org_id, environment, product, day, status, source, count) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET count = count + excluded.count`,
  );

  // Rows per day: weekdays weigh 1, Saturdays 0.35, Sundays 0.15, plus ±30% noise and slow growth.
  const firstDay = Math.floor(endMs / DAY_MS) - days + 1;
  const weights = [];
  for (let d = 0; d < days; d++) {
    const weekday = new Date((firstDay + d) * DAY_MS).getUTCDay();
    const base = weekday === 0 ? 0.15 : weekday === 6 ? 0.35 : 1;
    weights.push(base * (0.7 + 0.6 * random()) * (0.6 + (0.8 * d) / days));
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  const perDay = weights.map((w) => Math.floor((w / sum) * rows));
  let missing = rows - perDay.reduce((a, b) => a + b, 0);
  for (let d = days - 1; missing > 0; d = (d - 1 + days) % days, missing--) perDay[d]++;

  // Office hours (12:00–21:00 UTC = 09:00–18:00 in Buenos Aires) carry ~85% of a day's traffic; the
  // last day's rows all lie before `endMs`, so exactly `rows` rows are written.
  const msInDay = (dayStart) => {
    const ms = random() < 0.85 ? 12 * 3_600_000 + Math.floor(random() * 9 * 3_600_000) : Math.floor(random() * DAY_MS);
    return dayStart + ms <= endMs ? ms : Math.floor(random() * (endMs - dayStart + 1));
  };

  const counts = new Map();
  const perScope = {};
  const writeDay = sqlite.transaction((dayRows) => {
    for (const r of dayRows) insert.run(...r);
  });
  let pending = [];
  for (let d = 0; d < days; d++) {
    const dayStart = (firstDay + d) * DAY_MS;
    const times = Array.from({ length: perDay[d] }, () => dayStart + msInDay(dayStart)).sort((a, b) => a - b);
    for (const createdAt of times) {
      const scope = pick(random, SCOPES.map((s) => [s, s.share]));
      const source = pick(random, [['API', 0.7], ['WEB', 0.2], ['BULK', 0.1]]);
      const account = accounts[Math.floor(random() * accounts.length)];
      const outcome = pick(random, [['found', 0.85], ['missing', 0.09], ['invalid', 0.05], ['down', 0.01]]);
      const informes = scope.product === 'informes';
      const byAlias = !informes && random() < 0.3;
      const inputIdentifier = informes ? account.taxId : byAlias ? account.alias : account.number;
      const inputType = informes ? 'CUIT' : byAlias ? 'ALIAS' : 'CBU';
      const status = outcome === 'found' ? 'SUCCESS' : 'ERROR';
      const httpStatus = { found: 200, missing: 404, invalid: 400, down: 503 }[outcome];
      const errorCode = { found: null, missing: 'PA011', invalid: 'PA006', down: 'GE500' }[outcome];
      const responseData = { found: informes ? account.report : account.data, missing: NOT_FOUND, invalid: INVALID, down: DOWN }[outcome];
      const charged = scope.environment === 'live' && outcome !== 'down' ? 1 : 0;
      const userId = userIds[Math.floor(random() * userIds.length)];
      const id = uuidv7(createdAt);
      pending.push([
        id, orgId, scope.environment, scope.product, inputIdentifier, inputType, status, errorCode, httpStatus, source,
        responseData, 5 + Math.floor(random() * 80), charged, userId, source === 'API' ? apiKeyId : null,
        `req_${id.replaceAll('-', '')}`, createdAt,
      ]);
      const countKey = `${scope.environment}\t${scope.product}\t${Math.floor(createdAt / DAY_MS)}\t${status}\t${source}`;
      counts.set(countKey, (counts.get(countKey) ?? 0) + 1);
      const scopeKey = `${scope.environment}/${scope.product}`;
      perScope[scopeKey] = (perScope[scopeKey] ?? 0) + 1;
      if (pending.length >= batch) {
        writeDay(pending);
        pending = [];
      }
    }
  }
  writeDay(pending);
  sqlite.transaction(() => {
    for (const [key, count] of counts) {
      const [environment, product, day, status, source] = key.split('\t');
      upsertCount.run(orgId, environment, product, Number(day), status, source, count);
    }
  })();
  return perScope;
}

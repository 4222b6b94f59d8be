// History entries (lookups rows) with a cell outside the set Titular writes — a status that is neither
// SUCCESS nor ERROR, a source that is not WEB, API or BULK, credits that are not 0 or 1, a date that
// is no time, an environment or product that is neither of its two — as another tool or a bit flipped
// on disk leaves them (the table's columns keep any value). An unreadable answer is
// damaged-history.test.ts's. Before:
// - the desktop's history.list refused the whole page (GE500: its output schema rejected the entry);
// - GET /api/v1/history answered 200 with the value in it, outside the contract ("status": "PENDING");
// - a date that is no time failed the desktop's CSV export (500) and `titular history export`
//   (exit 1, "unexpected error: Invalid time value"); the other values went into the files as they were;
// - an entry whose environment or product is neither of its two was in no page and no export, unsaid.
// Now the desktop and the exports list such an entry with what is intact, the field null (an empty
// CSV cell) and named in `damaged`, and say how many; the HTTP API, whose shape has no null and no
// "unknown", leaves it out of the page rather than invent a status, and the host's log names it; the
// exports say how many entries are in no history.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pastAppendOnlyGuard } from './support/append-only';
import { auth } from './support/fixture';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { runCli } from './support/processes';
import { tempDirsOf } from './support/temp-dirs';
import { historyEntrySchema, historyResponseSchema, keyedHistoryEntrySchema, keyedHistoryPageSchema, type HistoryResponse } from '../src/shared/api/history';

const TIMEOUT_MS = 60_000;
const tempDir = tempDirsOf('titular-damaged-enum-');

let f: BridgeFixture;
let key: string;
type Name = 'individual' | 'company' | 'missing' | 'wallet' | 'joint' | 'spare';
/** The lookups' ids, by what was looked up; `spare` is damaged and put back by one test. */
const ids = {} as Record<Name, string>;
/** The API's page before any damage. */
let before: HistoryResponse;

/** Sets a lookup's cell through a connection of the test's own, as another tool would (past the append-only guard). */
function damage(id: string, column: string, value: unknown): void {
  const db = new Database(path.join(f.dataDir, 'titular.db'));
  try {
    expect(pastAppendOnlyGuard(db, () => db.prepare(`UPDATE lookups SET ${column} = ? WHERE id = ?`).run(value, id).changes)).toBe(1);
  } finally {
    db.close();
  }
}

function cell(id: string, column: string): unknown {
  const db = new Database(path.join(f.dataDir, 'titular.db'), { readonly: true });
  try {
    return db.prepare(`SELECT ${column} FROM lookups WHERE id = ?`).pluck().get(id);
  } finally {
    db.close();
  }
}

const history = (query = 'per_page=50') => f.app.inject({ method: 'GET', url: `/api/v1/history?${query}`, headers: auth(key) });
const value = (channel: string, input: unknown) => f.value(channel, input);
const cli = (...args: string[]) => runCli([...args, '--data-dir', f.dataDir], { timeoutMs: 40_000 });
/** The contract's page, to the letter: its entries carry nothing more than spec 2.3's fields. */
const contractPage = historyResponseSchema.extend({ data: historyEntrySchema.strict().array() }).strict();

beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 100 } });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey({ rateLimitPerSecond: 1000 });
  for (const [name, identifier] of [
    ['spare', DIR.individual.alias],
    ['individual', DIR.individual.cbu],
    ['company', DIR.company.cbu],
    ['missing', DIR.missing.cbu],
    ['wallet', DIR.wallet.cbu],
    ['joint', DIR.joint.cbu],
  ] as const) {
    const res = await f.app.inject({ url: `/api/v1/lookup?identifier=${identifier}&type=${name === 'spare' ? 'alias' : 'cbu'}`, headers: auth(key) });
    expect(res.statusCode).toBe(name === 'missing' ? 404 : 200);
    ids[name] = (await history('per_page=1')).json().data[0].id;
  }
  before = historyResponseSchema.parse((await history()).json());
  expect(before.data).toHaveLength(6);
  damage(ids.company, 'status', 'PENDING');
  damage(ids.wallet, 'source', 'CLI');
  damage(ids.wallet, 'credit_consumed', 'one');
  damage(ids.joint, 'created_at', 'yesterday');
  damage(ids.missing, 'environment', 'production');
});
afterAll(() => f.close());

describe('history entries with a cell outside its set', () => {
  it('GET /api/v1/history: 200 within the contract; the entries it cannot state left out and logged, the others as before', async () => {
    const res = await history();
    expect(res.statusCode, res.body).toBe(200);
    const page = contractPage.parse(res.json());
    // A status or source stands for no value of the contract: the entry is not listed with a made-up one.
    expect(page.data.map((e) => e.id)).toEqual([ids.individual, ids.spare]);
    expect(page.data).toEqual(before.data.filter((e) => e.id === ids.individual || e.id === ids.spare));
    // The counters still count every entry of the day: the page says how many there are.
    expect(page.pagination).toEqual(before.pagination);
    const requestId = res.headers['request-id'];
    for (const [id, words] of [
      [ids.company, 'status'],
      [ids.wallet, 'source and credits'],
    ]) {
      expect(f.logs).toContainEqual(
        `error ${requestId} listing the history: DamagedRecordError: History entry left out of the page: its ${words} cannot be read (damaged in Titular's database); the desktop's Historial lists it (record ${id})`,
      );
    }
    // Filtered, paged one at a time: every page still answers.
    for (const query of ['status=SUCCESS', 'source=API', 'per_page=1&page=2', 'per_page=1&page=4']) {
      const filtered = await history(query);
      expect(filtered.statusCode, `${query}: ${filtered.body}`).toBe(200);
      contractPage.parse(filtered.json());
    }
  });

  it('the desktop: history.list lists them with what is intact, the unreadable fields null and named', async () => {
    const page = keyedHistoryPageSchema.parse(await value('history.list', { page: 1, per_page: 50 }));
    expect(page.data.map((e) => e.id)).toEqual([ids.wallet, ids.company, ids.individual, ids.spare]);
    const entry = (id: string) => keyedHistoryEntrySchema.strict().parse(page.data.find((e) => e.id === id));
    const intact = (id: string) => before.data.find((e) => e.id === id)!;
    expect(entry(ids.company)).toEqual({ ...intact(ids.company), status: null, apiKey: expect.any(Object), damaged: ['status'] });
    expect(entry(ids.company).responseData).toHaveProperty('holders');
    expect(entry(ids.wallet)).toEqual({ ...intact(ids.wallet), source: null, creditConsumed: null, apiKey: expect.any(Object), damaged: ['source', 'creditConsumed'] });
    expect(entry(ids.individual)).not.toHaveProperty('damaged');
    // Filtered by status or source, the page answers too (the damaged entry matches neither).
    for (const filter of [{ status: 'SUCCESS' }, { source: 'API' }]) {
      keyedHistoryPageSchema.parse(await value('history.list', { page: 1, per_page: 50, ...filter }));
    }
  });

  it('the desktop: history.exportCsv exports them with those cells empty, says how many, and how many are in no history', async () => {
    const exported = await value('history.exportCsv', { language: 'en' });
    expect(exported.rows).toBe(5);
    expect(exported.damaged).toBeNull();
    // Newest first: a date that is no time sorts before every other.
    expect(exported.damagedFields).toEqual({ count: 3, firstId: ids.joint, fields: ['createdAt'] });
    expect(exported.unplaced).toEqual({ count: 1, firstId: ids.missing });
    const lines = (exported.csv as string).split('\r\n');
    const line = (id: string) => lines.find((l) => l.startsWith(`${id},`));
    // A spreadsheet's CBU is written as text: "=""…""".
    const digits = (cbu: string) => `"=""${cbu}"""`;
    expect(line(ids.joint)).toMatch(new RegExp(`^${ids.joint},,${digits(DIR.joint.cbu)},CBU,Success,API,1,`));
    expect(line(ids.company)).toMatch(new RegExp(`^${ids.company},[^,]+,${digits(DIR.company.cbu)},CBU,,API,1,\\d+,`));
    expect(line(ids.wallet)).toMatch(new RegExp(`^${ids.wallet},[^,]+,${digits(DIR.wallet.cbu)},CVU,Success,,,\\d+,ada@acme\\.test,[^,]*,Tomás Billetera,$`));
    expect(line(ids.missing)).toBeUndefined();
  });

  it('titular history export (JSON, CSV, to a file): exit 0, every entry of the history exported, the damaged ones said on stderr', async () => {
    const warnings =
      `Warning: 3 entries have damaged fields (the first: id ${ids.joint}, its date): exported without them (they cannot be read).\n` +
      `Warning: 1 entry is in no history (id ${ids.missing}): its environment or product cannot be read, so no export includes it.\n`;
    const json = await cli('history', 'export', '--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe(warnings);
    const entries = (JSON.parse(json.stdout) as unknown[]).map((e) => keyedHistoryEntrySchema.strict().parse(e));
    expect(entries.map((e) => e.id)).toEqual([ids.joint, ids.wallet, ids.company, ids.individual, ids.spare]);
    expect(entries[0]).toMatchObject({ createdAt: null, damaged: ['createdAt'], inputIdentifier: DIR.joint.cbu, status: 'SUCCESS', creditConsumed: 1 });
    expect(entries[1]).toMatchObject({ source: null, creditConsumed: null, damaged: ['source', 'creditConsumed'], status: 'SUCCESS' });
    expect(entries[2]).toMatchObject({ status: null, damaged: ['status'], source: 'API', responseData: { holders: expect.any(Array) } });
    expect(entries[3]).not.toHaveProperty('damaged');

    const csv = await cli('history', 'export', '--format', 'csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stderr).toBe(warnings);
    const lines = csv.stdout.split('\r\n');
    expect(lines).toHaveLength(7); // header, five entries, the last line's end
    expect(lines[1]).toMatch(new RegExp(`^${ids.joint},,${DIR.joint.cbu},CBU,SUCCESS,API,1,`));
    expect(lines[3]).toMatch(new RegExp(`^${ids.company},[^,]+,${DIR.company.cbu},CBU,,API,1,`));

    const out = path.join(tempDir(), 'historial.csv');
    const toFile = await cli('history', 'export', '--format', 'csv', '--output', out, '--json');
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stderr).toBe(warnings);
    expect(JSON.parse(toFile.stdout)).toEqual({ exported: 5, format: 'csv', output: out, damaged: 0, damagedFields: 3, unplaced: 1 });
    expect(readFileSync(out, 'utf8')).toBe(csv.stdout);
  }, TIMEOUT_MS);

  it('every kind of value outside its set: the desktop lists the entry marked, the API leaves it out, neither fails', async () => {
    const cases: [column: string, field: string, stored: unknown][] = [
      ['input_type', 'inputType', 'IBAN'],
      ['status', 'status', 7],
      ['status', 'status', 'success'],
      ['source', 'source', ''],
      ['input_identifier', 'inputIdentifier', Buffer.from([0xff, 0x00])],
      ['upstream_latency_ms', 'upstreamLatencyMs', -3],
      ['upstream_latency_ms', 'upstreamLatencyMs', 'slow'],
      ['credit_consumed', 'creditConsumed', 2],
      ['credit_consumed', 'creditConsumed', 0.5],
      ['response_data', 'responseData', Buffer.from('{}')],
    ];
    for (const [column, field, stored] of cases) {
      const said = `${column} = ${JSON.stringify(stored)}`;
      const original = cell(ids.spare, column);
      damage(ids.spare, column, stored);
      try {
        const page = keyedHistoryPageSchema.parse(await value('history.list', { page: 1, per_page: 50 }));
        const entry = page.data.find((e) => e.id === ids.spare);
        expect(entry?.damaged, said).toEqual([field]);
        expect(entry?.[field as keyof typeof entry], said).toEqual(field === 'responseData' ? { damaged: true } : null);
        const res = await history();
        expect(res.statusCode, said).toBe(200);
        const listed = contractPage.parse(res.json()).data.map((e) => e.id);
        // An unreadable answer alone keeps the entry, as `{ "damaged": true }`; any other field leaves it out.
        expect(listed.includes(ids.spare), said).toBe(field === 'responseData');
      } finally {
        damage(ids.spare, column, original);
      }
    }
  });
});

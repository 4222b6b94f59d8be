// A history entry whose stored answer (lookups.response_data) is not readable JSON — SQLite's pages
// valid, the cell's text not: written by another tool, or a bit flipped on disk. It used to fail the
// whole page or export with a raw `SyntaxError` (the API answered 500; `titular history export`
// exited 1 with "unexpected error: Unterminated string in JSON"). Now every interface lists it with
// what is intact, its answer `{ "damaged": true }`, and the exports say once how many and which was
// first: `GET /api/v1/history`, the desktop's history.list and both CSV exports, and the CLI's
// `history export` (JSON and CSV) and `bulk export`, run as processes.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pastAppendOnlyGuard } from './support/append-only';
import { auth } from './support/fixture';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { runCli } from './support/processes';
import { tempDirsOf } from './support/temp-dirs';
import { historyResponseSchema, keyedHistoryEntrySchema } from '../src/shared/api/history';

const TIMEOUT_MS = 60_000;
const tempDir = tempDirsOf('titular-damaged-');

let f: BridgeFixture;
let key: string;
/** The ids of the three lookups, by what was looked up. */
const ids: Record<'individual' | 'company' | 'missing', string> = { individual: '', company: '', missing: '' };

/** Writes `text` into a lookup's stored answer through a connection of the test's own, as another tool would (past the append-only guard). */
function damage(id: string, text: string): void {
  const db = new Database(path.join(f.dataDir, 'titular.db'));
  try {
    expect(pastAppendOnlyGuard(db, () => db.prepare('UPDATE lookups SET response_data = ? WHERE id = ?').run(text, id).changes)).toBe(1);
  } finally {
    db.close();
  }
}

const value = (channel: string, input: unknown) => f.value(channel, input);

const history = (query = 'per_page=50') => f.app.inject({ method: 'GET', url: `/api/v1/history?${query}`, headers: auth(key) });
const cli = (...args: string[]) => runCli([...args, '--data-dir', f.dataDir], { timeoutMs: 40_000 });
const warning = (which: string) => `Warning: 1 entry has damaged contents (id ${which}): exported without its account data (its stored answer cannot be read).\n`;

beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 100 } });
  f.importDirectory(DIRECTORY_CSV);
  key = f.createKey({ rateLimitPerSecond: 1000 });
  for (const [name, identifier] of [
    ['individual', DIR.individual.cbu],
    ['company', DIR.company.cbu],
    ['missing', DIR.missing.cbu],
  ] as const) {
    const res = await f.app.inject({ url: `/api/v1/lookup?identifier=${identifier}&type=cbu`, headers: auth(key) });
    expect(res.statusCode).toBe(name === 'missing' ? 404 : 200);
    ids[name] = (await history('per_page=1')).json().data[0].id;
  }
});
afterAll(() => f.close());

describe('a history entry whose stored answer cannot be read', () => {
  it('GET /api/v1/history: 200, the entry listed with its other fields as recorded and responseData {"damaged": true}', async () => {
    const before = historyResponseSchema.parse((await history()).json());
    damage(ids.company, '{"holders":[{"full_na');
    const res = await history();
    expect(res.statusCode, res.body).toBe(200);
    const after = historyResponseSchema.parse(res.json());
    expect(after.pagination).toEqual(before.pagination);
    // Only its answer differs: the rest of the entry, and every other entry, as before.
    expect(after.data).toEqual(before.data.map((entry) => (entry.id === ids.company ? { ...entry, responseData: { damaged: true } } : entry)));
    expect(before.data.find((e) => e.id === ids.company)!.responseData).toHaveProperty('holders');
    // A page holding nothing but it.
    const alone = await history('per_page=1&page=2');
    expect(alone.statusCode).toBe(200);
    expect(alone.json().data).toEqual([expect.objectContaining({ id: ids.company, status: 'SUCCESS', creditConsumed: 1, responseData: { damaged: true } })]);
  });

  it('the desktop: history.list lists it; history.exportCsv exports it without holders and says so', async () => {
    const page = await value('history.list', { page: 1, per_page: 50 });
    const entry = keyedHistoryEntrySchema.parse(page.data.find((e: { id: string }) => e.id === ids.company));
    expect(entry).toMatchObject({ inputIdentifier: DIR.company.cbu, status: 'SUCCESS', responseData: { damaged: true } });

    const exported = await value('history.exportCsv', { language: 'en' });
    expect(exported.rows).toBe(3);
    expect(exported.damaged).toEqual({ count: 1, firstId: ids.company });
    const row = (exported.csv as string).split('\r\n').find((line) => line.startsWith(ids.company))!;
    expect(row).toMatch(/,CBU,Success,API,1,\d+,ada@acme\.test,[^,]*,,$/); // no holders, no error code
    expect((exported.csv as string).split('\r\n').find((line) => line.startsWith(ids.individual))).toContain(',Lucía Luna,');
  });

  it('titular history export (JSON and CSV, stdout and file): exit 0, every entry exported, one warning on stderr', async () => {
    const json = await cli('history', 'export', '--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe(warning(ids.company));
    const entries = (JSON.parse(json.stdout) as unknown[]).map((e) => keyedHistoryEntrySchema.strict().parse(e));
    expect(entries.map((e) => e.id)).toEqual([ids.missing, ids.company, ids.individual]);
    expect(entries[1]).toMatchObject({ inputIdentifier: DIR.company.cbu, inputType: 'CBU', status: 'SUCCESS', creditConsumed: 1, responseData: { damaged: true } });
    expect(entries[2]!.responseData).toHaveProperty('holders');

    const csv = await cli('history', 'export', '--format', 'csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stderr).toBe(warning(ids.company));
    const lines = csv.stdout.split('\r\n');
    expect(lines).toHaveLength(5); // header, three entries, the last line's end
    expect(lines.find((l) => l.startsWith(ids.company))).toMatch(new RegExp(`^${ids.company},[^,]+,${DIR.company.cbu},CBU,SUCCESS,API,1,\\d+,ada@acme\\.test,[^,]*,,$`));
    expect(lines.find((l) => l.startsWith(ids.missing))).toMatch(/,PA011$/);

    // Into a file with --json: the count is in the answer too, for a script to check.
    const out = path.join(tempDir(), 'historial.csv');
    const toFile = await cli('history', 'export', '--format', 'csv', '--output', out, '--json');
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stderr).toBe(warning(ids.company));
    expect(JSON.parse(toFile.stdout)).toEqual({ exported: 3, format: 'csv', output: out, damaged: 1, damagedFields: 0, unplaced: 0 });
    expect(readFileSync(out, 'utf8')).toBe(csv.stdout);

    // Valid JSON that is not an object (no holders to read either): damaged too. Two of them: counted, the newest named.
    damage(ids.missing, 'null');
    const two = await cli('history', 'export', '--format', 'json');
    expect(two.code, two.stderr).toBe(0);
    expect(two.stderr).toBe(
      `Warning: 2 entries have damaged contents (the first: id ${ids.missing}): exported without their account data (their stored answers cannot be read).\n`,
    );
    expect((JSON.parse(two.stdout) as { responseData: unknown }[]).map((e) => e.responseData)).toEqual([{ damaged: true }, { damaged: true }, expect.objectContaining({ holders: expect.any(Array) })]);
    // The API still answers the page.
    expect((await history()).statusCode).toBe(200);
  }, TIMEOUT_MS);

  it('titular bulk export and the desktop\'s bulk.exportCsv: the row exported without holders or bank, and said', async () => {
    const list = path.join(tempDir(), 'lista.csv');
    writeFileSync(list, `identifier\n${DIR.individual.cbu}\n${DIR.wallet.cbu}\n`);
    const run = await cli('bulk', 'run', list, '--json');
    expect(run.code, run.stderr).toBe(0);
    const jobId = (JSON.parse(run.stdout) as { job: { id: string } }).job.id;
    const db = new Database(path.join(f.dataDir, 'titular.db'), { readonly: true });
    const walletLookup = db.prepare('SELECT lookup_id FROM bulk_job_items WHERE job_id = ? AND identifier = ?').pluck().get(jobId, DIR.wallet.cbu) as string;
    db.close();
    damage(walletLookup, '{"holders":[{"full_name":"Tom\u0000');

    const exported = await cli('bulk', 'export', jobId);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe(
      `Warning: 1 row has damaged contents (row 3, lookup ${walletLookup}): exported without its account data (its stored answer cannot be read).\n`,
    );
    const rows = exported.stdout.split('\r\n');
    expect(rows[1]).toContain(',Lucía Luna,');
    expect(rows[2]).toBe(`3,${DIR.wallet.cbu},${DIR.wallet.cbu},CVU,SUCCESS,200,,,1,,,,,${walletLookup}`);

    const desktop = await value('bulk.exportCsv', { id: jobId, language: 'en' });
    expect(desktop.damaged).toEqual({ count: 1, firstId: walletLookup, firstRow: 3 });
    // The screen's results: the row marked, without holders or bank; the others as they were.
    const results = await value('bulk.results', { id: jobId });
    expect(results.rows.find((r: { row: number }) => r.row === 3)).toMatchObject({ status: 'SUCCESS', damaged: true, holders: [], bank: null, creditConsumed: 1 });
    expect(results.rows.find((r: { row: number }) => r.row === 2)).toMatchObject({ damaged: false, holders: [{ name: 'Lucía Luna' }] });
  }, TIMEOUT_MS);
});

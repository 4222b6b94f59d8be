// The desktop's bulk channels over the headless HTTP bridge: an operator runs a job in the server
// process and polls its progress; each user sees their own jobs, admins see all; large pasted
// lists fit in one call, and only for a signed-in session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../support/fixture';
import { createBridgeFixture, type BridgeFixture } from '../support/bridge-fixture';
import { checkLedgerInvariants } from '../support/invariants';
import { bulkJobSchema, type BulkResultRow } from '../../src/shared/api/bulk';
import { bulkList, generateDirectory, spaced } from './bulk-data';

let f: BridgeFixture;
let adminToken: string;
let operatorToken: string;
const directory = generateDirectory(3000);

beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 10_000 } });
  f.importDirectory(directory.csv);
  ({ adminToken, operatorToken } = f);
});
afterAll(async () => {
  checkLedgerInvariants(f.titular.database.sqlite);
  await f.close();
});

const call = (channel: string, input: unknown, token: string | null = adminToken) => f.call(channel, input, token);

const value = (channel: string, input: unknown, token: string | null = adminToken) => f.value(channel, input, token);

/** Polls bulk.get like the screen does, until the job stops running (bounded). */
async function waitForEnd(id: string, token: string) {
  for (let i = 0; i < 600; i++) {
    const { job } = await value('bulk.get', { id }, token);
    if (!job.active) return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`bulk job ${id} still running after the polling budget`);
}

describe('bulk channels', () => {
  it('let an operator paste a large list, run it in the server, follow its progress and export it', async () => {
    const list = bulkList(directory.numbers, { repeatEvery: 10, invalid: ['12345'] });
    expect(list.text.length).toBeGreaterThan(64 * 1024);
    const created = await value('bulk.create', { name: 'lista pegada', product: 'cbu', content: list.text }, operatorToken);
    expect(created).toMatchObject({ resumed: false, completedBefore: null, job: { status: 'pending', totalItems: 3000, invalidRows: 1, user: { id: f.operatorId } } });
    const id = created.job.id;

    const started = await value('bulk.start', { id }, operatorToken);
    expect(started.job).toMatchObject({ status: 'running', active: true });
    bulkJobSchema.parse(started.job);
    const done = await waitForEnd(id, operatorToken);
    expect(done).toMatchObject({ status: 'completed', progress: { total: 3000, done: 3000, remaining: 0, charged: 3000, found: 3000 } });
    expect(f.balance('cbu')).toBe(10_000 - 3000);

    const detail = await value('bulk.get', { id }, operatorToken);
    expect(detail.invalidRows).toEqual([{ row: list.rows, input: '12345', message: 'CBU must be 22 digits with valid check digits (got 5 digits)' }]);

    const exported = await value('bulk.exportCsv', { id }, operatorToken);
    expect(exported.fileName).toMatch(/^titular-lote-lista-pegada-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(exported.rows).toBe(list.rows);
    expect(exported.csv.trim().split('\r\n')).toHaveLength(list.rows + 1);

    // The same content again, now that the job completed, is a new job that names the earlier one.
    const again = await value('bulk.create', { name: 'lista pegada', product: 'cbu', content: list.text }, operatorToken);
    expect(again).toMatchObject({ resumed: false, completedBefore: { id } });
    const cancelled = await value('bulk.cancel', { id: again.job.id }, operatorToken);
    expect(cancelled.job.status).toBe('cancelled');
    // Again (a second window, a double click): what was asked is so; a completed job still cannot be.
    expect(await value('bulk.cancel', { id: again.job.id }, operatorToken)).toEqual(cancelled);
    expect((await call('bulk.cancel', { id }, operatorToken)).body).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER', message: expect.stringContaining('completed') } });
  });

  it('shows each user their own jobs and admins every job; others answer NOT_FOUND', async () => {
    const mine = await value('bulk.create', { name: 'admin.txt', product: 'cbu', content: directory.numbers.slice(0, 5).join('\n') }, adminToken);
    const operatorList = await value('bulk.list', {}, operatorToken);
    expect(operatorList.jobs.every((j: { user: { id: string } }) => j.user.id === f.operatorId)).toBe(true);
    const adminList = await value('bulk.list', {}, adminToken);
    expect(adminList.jobs.map((j: { id: string }) => j.id)).toEqual(expect.arrayContaining([mine.job.id, ...operatorList.jobs.map((j: { id: string }) => j.id)]));
    for (const channel of ['bulk.get', 'bulk.results', 'bulk.start', 'bulk.pause', 'bulk.cancel', 'bulk.exportCsv']) {
      const { body } = await call(channel, { id: mine.job.id }, operatorToken);
      expect(body, channel).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', status: 404 } });
    }
    // Pausing a job that is not running here leaves it paused; starting it again runs it to the end.
    expect((await value('bulk.pause', { id: mine.job.id })).job).toMatchObject({ status: 'paused', active: false });
    await value('bulk.start', { id: mine.job.id });
    expect(await waitForEnd(mine.job.id, adminToken)).toMatchObject({ status: 'completed', progress: { charged: 5 } });
  });

  it("lists a job's rows with their outcomes, 50 at a time, with the export's facts", async () => {
    const missing = generateDirectory(1, 9_000).numbers[0]!;
    const found = directory.numbers.slice(100, 160);
    const lines = [...found, spaced(found[0]!), missing, '12345'];
    const created = await value('bulk.create', { name: 'resultados', product: 'cbu', content: lines.join('\n') }, operatorToken);
    const id = created.job.id;
    // Before the run: the valid rows are pending and have charged nothing.
    const pending = await value('bulk.results', { id }, operatorToken);
    expect(pending.rows[0]).toMatchObject({ row: 1, status: 'PENDING', code: null, creditConsumed: 0, holders: [] });
    await value('bulk.start', { id }, operatorToken);
    await waitForEnd(id, operatorToken);

    const first = await value('bulk.results', { id }, operatorToken);
    expect(first.rows.map((r: BulkResultRow) => r.row)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(first.next).toBe(50);
    expect(first.rows[0]).toEqual({
      row: 1,
      input: found[0],
      identifier: found[0],
      status: 'SUCCESS',
      code: null,
      message: null,
      creditConsumed: 1,
      duplicateOfRow: null,
      holders: [{ name: 'Titular Lote 100', taxId: expect.stringMatching(/^27\d{9}$/) }],
      bank: expect.stringMatching(/\S/),
      report: null,
      damaged: false,
    });
    const second = await value('bulk.results', { id, after: first.next }, operatorToken);
    expect(second.next).toBeNull();
    expect(second.rows.map((r: BulkResultRow) => r.row)).toEqual(Array.from({ length: 13 }, (_, i) => i + 51));
    const [repeated, notFound, invalid] = second.rows.slice(-3);
    // A repeated identifier shows its first row's outcome and charges nothing itself.
    expect(repeated).toMatchObject({ row: 61, input: spaced(found[0]!), identifier: found[0], status: 'SUCCESS', duplicateOfRow: 1, creditConsumed: 0, holders: [{ name: 'Titular Lote 100' }] });
    expect(notFound).toMatchObject({ row: 62, status: 'ERROR', code: 'PA011', message: 'No account was found for this identifier', creditConsumed: 1, holders: [], bank: null });
    expect(invalid).toMatchObject({ row: 63, input: '12345', identifier: null, status: 'INVALID', code: null, message: 'CBU must be 22 digits with valid check digits (got 5 digits)', creditConsumed: 0 });
    // The rows' credits add up to what the job charged.
    const charged = [...first.rows, ...second.rows].reduce((sum: number, r: BulkResultRow) => sum + r.creditConsumed, 0);
    expect(charged).toBe((await value('bulk.get', { id }, operatorToken)).job.progress.charged);
    expect(charged).toBe(61);
    // Past the end: an empty page.
    expect(await value('bulk.results', { id, after: 63 }, operatorToken)).toEqual({ rows: [], next: null });
  });

  it('refuses empty or oversized input, and reads a large body only for a signed-in session', async () => {
    const empty = await call('bulk.create', { name: 'x', product: 'cbu', content: '\n\n  \n' });
    expect(empty.body).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
    const big = 'x'.repeat(200 * 1024);
    const anonymous = await call('bulk.create', { name: 'x', product: 'cbu', content: big }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    // Other API routes keep the small body limit.
    const api = await f.app.inject({
      method: 'POST',
      url: '/api/v1/lookup',
      headers: { ...auth(f.createKey()), 'content-type': 'application/json' },
      payload: JSON.stringify({ identifier: big, type: 'alias' }),
    });
    expect(api.statusCode).toBe(413);
  });
});

// Exports of personal data in the audit trail, through the CLI as a process: `history export` (to a
// file and to stdout) and a batch's results (`bulk run --export`, `bulk export`) are each recorded once
// they are whole, with who made them, how many rows and which filters; a refused export records nothing.
// The desktop's channels record the same (test/csv-exports.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/processes';
import type { AuditEntry } from '../src/main/core/audit/audit-log';

const TIMEOUT_MS = 120_000;
const EXAMPLES = path.resolve(__dirname, '..', 'examples', 'accounts.csv');

describe('exports in the audit trail (CLI)', () => {
  let work: string;
  let dataDir: string;
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { timeoutMs: 60_000 });
  const ok = async (args: string[]) => {
    const run = await cli(args);
    expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
    return run.stdout;
  };
  const exports = async () => (JSON.parse(await ok(['audit', '--json'])) as AuditEntry[]).filter((e) => e.action.endsWith('.exported'));

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'titular-cli-export-audit-'));
    dataDir = path.join(work, 'data');
    await ok(['init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test']);
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '10']);
    await ok(['directory', 'import', EXAMPLES]);
    writeFileSync(path.join(work, 'list.txt'), '0290001800000000007773\n2850590900000012345674\n0290001800000000007773\n');
  }, TIMEOUT_MS);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('a batch run with --export, then its export to stdout: two bulk.exported entries naming the job and its rows', async () => {
    const run = JSON.parse(await ok(['bulk', 'run', path.join(work, 'list.txt'), '--export', path.join(work, 'out.csv'), '--json'])) as { job: { id: string } };
    const jobId = run.job.id;
    const csv = await ok(['bulk', 'export', jobId]);
    expect(csv.split('\n').length).toBeGreaterThan(3);
    const entries = await exports();
    expect(entries).toHaveLength(2);
    for (const entry of entries) {
      expect(entry).toMatchObject({ action: 'bulk.exported', targetType: 'bulk_job', targetId: jobId, details: { name: 'list.txt', rows: 3 }, actor: { email: 'ana@acme.test' } });
    }
  }, TIMEOUT_MS);

  it('history export, to a file and to stdout: history.exported with the rows, product, environment, form and filters given', async () => {
    const before = (await exports()).length;
    await ok(['history', 'export', '--format', 'csv', '--output', path.join(work, 'history.csv'), '--status', 'SUCCESS']);
    await ok(['history', 'export', '--format', 'json', '--environment', 'sandbox']);
    const entries = (await exports()).slice(0, (await exports()).length - before);
    expect(entries.map((e) => e.details)).toEqual([
      { rows: 0, product: 'cbu', environment: 'sandbox', format: 'json' },
      { rows: 2, product: 'cbu', environment: 'live', format: 'csv', filters: { status: 'SUCCESS' } },
    ]);
    expect(entries.every((e) => e.action === 'history.exported' && e.targetType === 'history')).toBe(true);
  }, TIMEOUT_MS);

  it('an export that is refused (a bad filter, a path inside the data directory) records nothing', async () => {
    const before = (await exports()).length;
    expect((await cli(['history', 'export', '--format', 'csv', '--from', 'ayer'])).code).toBe(2);
    expect((await cli(['history', 'export', '--format', 'csv', '--output', path.join(dataDir, 'h.csv')])).code).toBe(1);
    expect(await exports()).toHaveLength(before);
  }, TIMEOUT_MS);
});

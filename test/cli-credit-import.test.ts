// `titular directory import-credit` driven as a process, the way an admin runs it: exit codes,
// "line N: reason" on stderr, the JSON report, what ends up in the data directory (reports that
// answer live Informes lookups, the audit entry), and the refusals.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTitular, type Titular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { SANDBOX_CREDIT_REPORTS } from '../src/main/core/resolvers/sandbox-data';
import { CREDIT_CSV_HEADER, CREDIT_RECORDS_CSV } from './support/credit-data';
import { runCli } from './support/processes';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MIGRATIONS = path.join(ROOT, 'drizzle');
const TEST_TIMEOUT_MS = 60_000;

const cli = (args: string[]) => runCli(args);

/** Opens the data directory in this process between CLI runs. */
async function withCore<T>(dataDir: string, fn: (t: Titular) => T | Promise<T>): Promise<T> {
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}), migrationsFolder: MIGRATIONS });
  try {
    return await fn(titular);
  } finally {
    titular.close();
  }
}

let work: string;
let dataDir: string;
const d = (...args: string[]) => [...args, '--data-dir', dataDir];
const file = (name: string, content: string) => {
  const target = path.join(work, name);
  writeFileSync(target, content);
  return target;
};

const JUAN_OK = 'situation,20-28765432-5,Juan Carlos Pérez,,,2026-10,007,,1,1250.5,0,,,,,';
const JUAN_BAD = 'situation,20-28765432-5,Juan Carlos Pérez,,,2026-10,011,,9,310,0,,,,,';
const MARIA_OK = 'subject,27-31234567-1,María Laura González,,,2026-10,,,,,,,,,,';

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'titular-cli-credit-'));
  dataDir = path.join(work, 'data');
  const init = await cli(d('init', '--org', 'Acme Cobranzas', '--admin-name', 'Ada Admin', '--admin-email', 'ada@acme.test'));
  expect(init.code, init.stderr).toBe(0);
  const operator = await cli(d('users', 'add', '--name', 'Oscar', '--email', 'oscar@acme.test', '--role', 'operator'));
  expect(operator.code, operator.stderr).toBe(0);
}, TEST_TIMEOUT_MS);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const imports = (t: Titular) => t.audit.list(t.users.organization()!.id).filter((e) => e.action === 'directory.credit_reports_imported');

describe('titular directory import-credit', () => {
  it('is listed in the help; a missing FILE is a usage error (exit 2), a missing file an operational one (exit 1)', async () => {
    const help = await cli(['help', 'directory']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('import-credit');
    const usage = await cli(['help', 'directory', 'import-credit']);
    expect(usage.stdout).toMatch(/record,tax_id,full_name/);
    const missing = await cli(d('directory', 'import-credit'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Missing FILE/);
    const absent = await cli(d('directory', 'import-credit', path.join(work, 'nope.csv')));
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(/No such file/);
  }, TEST_TIMEOUT_MS);

  it('a bad row imports nothing and names its line; --skip-invalid imports the other subjects and withholds its own', async () => {
    const bad = file('bad.csv', [CREDIT_CSV_HEADER, JUAN_OK, JUAN_BAD, MARIA_OK, ''].join('\n'));
    const refused = await cli(d('directory', 'import-credit', bad));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^line 3: classification "9" is not valid/m);
    expect(refused.stderr).toMatch(/Nothing was imported: 1 invalid row/);
    expect(refused.stdout).toBe('');
    expect(await withCore(dataDir, (t) => [t.creditReports.count(t.users.organization()!.id), imports(t).length])).toEqual([0, 0]);

    const skipped = await cli(d('directory', 'import-credit', bad, '--skip-invalid', '--json'));
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(JSON.parse(skipped.stdout)).toEqual({
      imported: 1,
      replaced: 0,
      rows: 3,
      errors: [{ line: 3, reason: expect.stringMatching(/^classification/) }],
      withheld: [{ tax_id: '20287654325', lines: [2] }],
      committed: true,
    });
    expect(skipped.stderr).toMatch(/^line 3:/m);
    expect(skipped.stderr).toMatch(/^20-28765432-5: not imported because another of its rows is invalid \(valid lines 2\)$/m);
    await withCore(dataDir, (t) => {
      const orgId = t.users.organization()!.id;
      expect(t.creditReports.count(orgId)).toBe(1);
      expect(t.creditReports.resolveCreditReportNow({ orgId, taxId: '20287654325' })).toEqual({ found: false });
      expect(imports(t)[0]).toMatchObject({ details: { file: 'bad.csv', reports: 1, replaced: 0, skippedRows: 1, withheldSubjects: 1 }, actor: { email: 'ada@acme.test' } });
    });
  }, TEST_TIMEOUT_MS);

  it('a good CSV imports every report (replacing the one already there), and live Informes lookups answer from them', async () => {
    const good = file('informes.csv', CREDIT_RECORDS_CSV.replace(/\n/g, '\r\n'));
    const run = await cli(d('directory', 'import-credit', good));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Imported 3 credit reports from');
    expect(run.stdout).toContain('(1 replaced existing report); 7 rows read, 0 skipped.');
    expect(run.stdout).toContain('The directory now holds 3 credit reports.');

    await withCore(dataDir, async (t) => {
      const org = t.users.organization()!;
      const admin = t.users.list(org.id).find((u) => u.role === 'admin')!;
      t.ledger.addPurchase({ orgId: org.id, product: 'informes', amount: 2, userId: admin.id });
      const ctx = { orgId: org.id, environment: 'live' as const, source: 'WEB' as const, userId: admin.id, apiKeyId: null };
      const found = await t.lookups.lookupCreditReport(ctx, { tax_id: '30-71234567-1' });
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ success: true, data: SANDBOX_CREDIT_REPORTS[1], credits_remaining: 1 });
      const unknown = await t.lookups.lookupCreditReport(ctx, { tax_id: '30-50001234-6' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ success: false, error: { code: 'PA011' }, credits_remaining: 0 });
    });
  }, TEST_TIMEOUT_MS);

  it('JSON reports import too; their errors are named by item', async () => {
    const reports = [{ ...SANDBOX_CREDIT_REPORTS[0], subject: { ...SANDBOX_CREDIT_REPORTS[0]!.subject, full_name: 'Juan C. Pérez' } }];
    const good = await cli(d('directory', 'import-credit', file('informes.json', JSON.stringify(reports)), '--json'));
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ imported: 1, replaced: 1, rows: 1, errors: [], withheld: [], committed: true });
    expect(await withCore(dataDir, (t) => t.creditReports.resolveCreditReportNow({ orgId: t.users.organization()!.id, taxId: '20287654325' }))).toMatchObject({
      found: true,
      data: { subject: { full_name: 'Juan C. Pérez' } },
    });

    const bad = await cli(d('directory', 'import-credit', file('bad.json', JSON.stringify([SANDBOX_CREDIT_REPORTS[2], { subject: { tax_id: '1' } }]))));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^item 2: subject\.full_name is required; subject\.tax_id: CUIT\/CUIL must be 11 digits/m);
  }, TEST_TIMEOUT_MS);

  it('only admins import: --as an operator is refused and nothing changes', async () => {
    const before = await withCore(dataDir, (t) => imports(t).length);
    const run = await cli(d('directory', 'import-credit', file('again.csv', CREDIT_RECORDS_CSV), '--as', 'oscar@acme.test'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/admin/i);
    expect(await withCore(dataDir, (t) => imports(t).length)).toBe(before);
  }, TEST_TIMEOUT_MS);
});

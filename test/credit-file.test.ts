// The credit-record file parser (CSV rows grouped into reports, JSON reports): good files, every
// kind of bad row with its line number, totals computed on import, and subjects withheld whole.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CREDIT_CSV_COLUMNS, parseCreditFile, type ParsedCreditFile } from '../src/main/core/directory/credit-file';
import { creditReportSchema } from '../src/shared/api/credit';
import { SANDBOX_CREDIT_REPORTS } from '../src/main/core/resolvers/sandbox-data';
import { CREDIT_CLOCK, CREDIT_CSV_HEADER, CREDIT_RECORDS_CSV } from './support/credit-data';

const NOW = CREDIT_CLOCK; // 2026-11-20, so 2026-11 is this month and 2026-12 is in the future
const csv = (...rows: string[]) => parseCreditFile([CREDIT_CSV_HEADER, ...rows, ''].join('\n'), 'csv', { now: NOW });
const json = (value: unknown) => parseCreditFile(JSON.stringify(value), 'json', { now: NOW });

/** A CSV row from named values; every other column empty. */
function row(values: Partial<Record<(typeof CREDIT_CSV_COLUMNS)[number], string>>): string {
  return CREDIT_CSV_COLUMNS.map((column) => {
    const value = values[column] ?? '';
    return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  }).join(',');
}

const JUAN = '20-28765432-5';
const ACME = '30-71234567-1';
const situation = (extra: Parameters<typeof row>[0] = {}) =>
  row({ record: 'situation', tax_id: JUAN, full_name: 'Juan Carlos Pérez', period: '2026-10', institution_code: '007', classification: '1', amount: '100', ...extra });
const check = (extra: Parameters<typeof row>[0] = {}) =>
  row({ record: 'check', tax_id: ACME, full_name: 'ACME Logística S.A.', institution_code: '072', check_number: '00012345', check_date: '2026-08-14', check_amount: '350000', check_reason: 'Sin fondos suficientes', ...extra });

/** The only error of a one-row file: its line (2) and reason. */
function onlyError(parsed: ParsedCreditFile): string {
  expect(parsed.errors).toHaveLength(1);
  expect(parsed.errors[0]!.line).toBe(2);
  expect(parsed.reports).toEqual([]);
  return parsed.errors[0]!.reason;
}

describe('parseCreditFile (CSV): good files', () => {
  it('groups rows by tax_id into the documented reports (the fixture equals the sandbox sample set)', () => {
    const parsed = parseCreditFile(CREDIT_RECORDS_CSV, 'csv', { now: NOW });
    expect(parsed.errors).toEqual([]);
    expect(parsed.withheld).toEqual([]);
    expect(parsed.rows).toBe(7);
    expect(parsed.reports).toEqual(SANDBOX_CREDIT_REPORTS);
    for (const report of parsed.reports) creditReportSchema.strict().parse(report);
  });

  it('computes the totals (sum, institutions, worst classification), ignoring row order and interleaving', () => {
    const parsed = csv(
      situation({ institution_code: '011', classification: '2', amount: '0.1' }),
      row({ record: 'subject', tax_id: ACME, full_name: 'ACME Logística S.A.' }),
      situation({ institution_code: '007', classification: '5', amount: '0.2', days_overdue: '400' }),
      situation({ institution_code: '70012', institution_name: 'Tarjeta Naranja S.A.', classification: '1', amount: '1.250.000' }),
    );
    expect(parsed.errors).toEqual([]);
    const juan = parsed.reports.find((r) => r.subject.tax_id === '20287654325')!;
    // 0.1 + 0.2 + 1250000 without binary noise.
    expect(juan.totals).toEqual({ amount: 1250000.3, institutions: 3, worst_classification: 5 });
    expect(juan.situations.map((s) => [s.institution.code, s.institution.name, s.days_overdue])).toEqual([
      ['011', 'Banco de la Nación Argentina', 0],
      ['007', 'Banco de Galicia y Buenos Aires S.A.', 400],
      ['70012', 'Tarjeta Naranja S.A.', 0],
    ]);
  });

  it('a subject with no situations is a clean record; without a period it is as of the import month', () => {
    const parsed = csv(row({ record: 'subject', tax_id: '27-31234567-1', full_name: 'María Laura González' }));
    expect(parsed.errors).toEqual([]);
    expect(parsed.reports).toEqual([
      {
        subject: { full_name: 'María Laura González', tax_id: '27312345671', tax_id_type: 'CUIL', is_individual: true },
        period: '2026-11',
        situations: [],
        totals: { amount: 0, institutions: 0, worst_classification: null },
        bounced_checks: [],
      },
    ]);
  });

  it('a subject made only of bounced checks has no debts and keeps its checks', () => {
    const parsed = csv(check(), check({ check_number: '99', check_date: '30/09/2026', check_amount: '1.200.000,50', check_paid: 'sí' }));
    expect(parsed.errors).toEqual([]);
    const [acme] = parsed.reports;
    expect(acme!.subject).toEqual({ full_name: 'ACME Logística S.A.', tax_id: '30712345671', tax_id_type: 'CUIT', is_individual: false });
    expect(acme!.totals).toEqual({ amount: 0, institutions: 0, worst_classification: null });
    expect(acme!.bounced_checks).toEqual([
      { number: '00012345', date: '2026-08-14', amount: 350000, reason: 'Sin fondos suficientes', institution: { code: '072', name: 'Banco Santander Argentina S.A.' }, paid: false },
      { number: '99', date: '2026-09-30', amount: 1200000.5, reason: 'Sin fondos suficientes', institution: { code: '072', name: 'Banco Santander Argentina S.A.' }, paid: true },
    ]);
  });

  it('reads a spreadsheet export: ";" separator, decimal commas, BOM, CRLF, Spanish record names, columns in any order, optional columns left out', () => {
    const text = [
      '\uFEFFtax_id;record;full_name;period;institution_code;classification;amount',
      `${JUAN};Deuda;Juan Carlos Pérez;202610;7;1;1250,5`,
      `${JUAN};situación;juan carlos pérez;10/2026;11;1;310`,
      '',
    ].join('\r\n');
    const parsed = parseCreditFile(text, 'csv', { now: NOW });
    expect(parsed.errors).toEqual([]);
    expect(parsed.reports).toEqual([SANDBOX_CREDIT_REPORTS[0]]);
  });

  it('the subject fields may be stated on any row, and explicit values replace the ones derived from the prefix', () => {
    const parsed = csv(
      situation({ full_name: '' }),
      row({ record: 'subject', tax_id: JUAN, full_name: 'Juan Carlos Pérez', tax_id_type: 'CUIT' }),
      row({ record: 'subject', tax_id: '30-50001234-6', full_name: 'Fideicomiso', is_individual: 'no' }),
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.reports.map((r) => r.subject)).toEqual([
      { full_name: 'Juan Carlos Pérez', tax_id: '20287654325', tax_id_type: 'CUIT', is_individual: true },
      { full_name: 'Fideicomiso', tax_id: '30500012346', tax_id_type: 'CUIT', is_individual: false },
    ]);
  });

  it('amounts: Argentine and English grouping, up to 2 decimals; "1.250" is one thousand two hundred fifty', () => {
    const cases: [string, number][] = [
      ['1250.5', 1250.5],
      ['1250,5', 1250.5],
      ['1.250', 1250],
      ['1,250', 1250],
      ['1.250.000', 1250000],
      ['1.250,50', 1250.5],
      ['1,250.50', 1250.5],
      ['$ 1 250', 1250],
      ['0', 0],
    ];
    for (const [text, value] of cases) {
      const parsed = csv(situation({ amount: text }));
      expect(parsed.errors, text).toEqual([]);
      expect(parsed.reports[0]!.situations[0]!.amount, text).toBe(value);
    }
  });
});

describe('the README', () => {
  it("documents a CSV example that imports to the example answer it shows", () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const example = /```csv\n([\s\S]*?)```/.exec(readme)?.[1];
    const answer = /```json\n(\{ "success": true,[\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(answer).toBeDefined();
    const parsed = parseCreditFile(example!, 'csv', { now: NOW });
    expect(parsed.errors).toEqual([]);
    expect(parsed.reports[0]).toEqual(JSON.parse(answer!.replace('"req_…"', '"req"')).data);
    expect(parsed.reports[1]!.totals).toEqual({ amount: 0, institutions: 0, worst_classification: null });
  });
});

describe('parseCreditFile (CSV): each kind of bad row, by line', () => {
  it('tax_id: missing, bad check digit, bad prefix, wrong length', () => {
    expect(onlyError(csv(situation({ tax_id: '' })))).toBe('tax_id is required');
    expect(onlyError(csv(situation({ tax_id: '20-28765432-6' })))).toBe('tax_id: CUIT/CUIL check digit is invalid');
    expect(onlyError(csv(situation({ tax_id: '99-28765432-5' })))).toMatch(/^tax_id: CUIT\/CUIL prefix 99 is not valid/);
    expect(onlyError(csv(situation({ tax_id: '2028765432' })))).toMatch(/^tax_id: CUIT\/CUIL must be 11 digits/);
  });

  it('record: missing or unknown', () => {
    expect(onlyError(csv(situation({ record: '' })))).toBe('record is required (subject, situation or check)');
    expect(onlyError(csv(situation({ record: 'debtor' })))).toBe('record "debtor" is not valid (expected subject, situation or check)');
  });

  it('classification outside 1–6, missing or not a whole number', () => {
    for (const value of ['0', '7', '2.5', 'A']) {
      expect(onlyError(csv(situation({ classification: value }))), value).toBe(`classification "${value}" is not valid (expected a whole number from 1 to 6)`);
    }
    expect(onlyError(csv(situation({ classification: '' })))).toBe('classification is required');
  });

  it('amounts: negative, three decimals, scientific notation, text, mixed-up separators, missing', () => {
    expect(onlyError(csv(situation({ amount: '-5' })))).toBe('amount must not be negative');
    for (const value of ['1.2345', '1e5', 'mil', '1.250.50', '1,25,000']) {
      expect(onlyError(csv(situation({ amount: value }))), value).toMatch(/^amount ".*" is not a valid amount/);
    }
    expect(onlyError(csv(situation({ amount: '' })))).toBe('amount is required');
    expect(onlyError(csv(check({ check_amount: '-1' })))).toBe('check_amount must not be negative');
  });

  it('period: required on a situation, YYYY-MM, a real month, not before 1990, not in the future', () => {
    expect(onlyError(csv(situation({ period: '' })))).toBe('period is required on a situation row');
    expect(onlyError(csv(situation({ period: '2026-13' })))).toBe('period "2026-13" is not valid (expected YYYY-MM, e.g. 2026-10)');
    expect(onlyError(csv(situation({ period: 'oct-26' })))).toBe('period "oct-26" is not valid (expected YYYY-MM, e.g. 2026-10)');
    expect(onlyError(csv(situation({ period: '1989-12' })))).toBe('period 1989-12 is before 1990');
    expect(onlyError(csv(situation({ period: '2026-12' })))).toBe('period 2026-12 is in the future');
    expect(csv(situation({ period: '2026-11' })).errors).toEqual([]);
  });

  it('institution: unknown bank code, a 5-digit code without a name, not digits, missing', () => {
    expect(onlyError(csv(situation({ institution_code: '999' })))).toBe("institution_code 999 is not a known BCRA bank code (write the entity's 5-digit code)");
    expect(onlyError(csv(situation({ institution_code: '70012' })))).toBe('institution_name is required for institution_code 70012 (not in the bank registry)');
    expect(onlyError(csv(situation({ institution_code: 'BNA' })))).toBe('institution_code "BNA" is not valid (a 3-digit BCRA bank code or a 5-digit entity code)');
    expect(onlyError(csv(situation({ institution_code: '123456' })))).toMatch(/^institution_code "123456" is not valid/);
    expect(onlyError(csv(situation({ institution_code: '' })))).toBe('institution_code is required');
    // A known bank written as Excel leaves it, or with the Central de Deudores' 5 digits.
    for (const code of ['7', '07', '00007']) expect(csv(situation({ institution_code: code })).reports[0]!.situations[0]!.institution.code, code).toBe('007');
  });

  it('days_overdue: not a whole number, negative', () => {
    expect(onlyError(csv(situation({ days_overdue: '-1' })))).toBe('days_overdue "-1" is not valid (expected a whole number from 0 to 99999)');
    expect(onlyError(csv(situation({ days_overdue: '12.5' })))).toMatch(/^days_overdue "12.5" is not valid/);
  });

  it('checks: date that does not exist, month-first or in the future, missing number and reason, a bad paid value', () => {
    expect(onlyError(csv(check({ check_date: '31/02/2026' })))).toBe('check_date "31/02/2026" is not a valid date (expected YYYY-MM-DD or DD/MM/YYYY)');
    expect(onlyError(csv(check({ check_date: '08/31/2026' })))).toMatch(/^check_date "08\/31\/2026" is not a valid date/);
    expect(onlyError(csv(check({ check_date: '2026-11-21' })))).toBe('check_date 2026-11-21 is in the future');
    expect(onlyError(csv(check({ check_number: '', check_reason: '' })))).toBe('check_number is required; check_reason is required');
    expect(onlyError(csv(check({ check_number: 'A-12' })))).toBe('check_number "A-12" is not valid (1 to 15 digits)');
    expect(onlyError(csv(check({ check_paid: 'quizás' })))).toBe('check_paid "quizás" is not valid (expected true/false, yes/no, sí/no or 1/0)');
  });

  it('values in the columns of another kind of row', () => {
    expect(onlyError(csv(situation({ check_number: '1', check_paid: 'no' })))).toBe('check_number, check_paid must be empty on a situation row');
    expect(onlyError(csv(check({ classification: '1' })))).toBe('classification must be empty on a check row');
    expect(onlyError(csv(row({ record: 'subject', tax_id: JUAN, full_name: 'Juan', amount: '5' })))).toBe('amount must be empty on a subject row');
  });

  it('subject fields: too long a name, bad is_individual or tax_id_type, a CUIL for a company', () => {
    expect(onlyError(csv(situation({ full_name: 'x'.repeat(201) })))).toBe('full_name is too long (201 characters, at most 200)');
    expect(onlyError(csv(situation({ is_individual: 'maybe' })))).toMatch(/^is_individual "maybe" is not valid/);
    expect(onlyError(csv(situation({ tax_id_type: 'DNI' })))).toBe('tax_id_type "DNI" is not valid (expected CUIT or CUIL)');
    expect(onlyError(csv(check({ tax_id_type: 'CUIL' })))).toBe('tax_id_type CUIL is only for individuals (use CUIT)');
  });

  it('rules across rows: disagreeing subject fields, two periods, a repeated institution, check or subject row; no name anywhere', () => {
    const parsed = csv(
      situation(), // 2
      situation({ institution_code: '011', full_name: 'JUAN CARLOS PÉREZ' }), // 3: the same name in capitals is fine
      situation({ institution_code: '014', full_name: 'Juan Pérez' }), // 4
      situation({ institution_code: '015', period: '2026-09' }), // 5
      situation({ amount: '5' }), // 6: 007 again
      situation({ institution_code: '016', is_individual: 'no' }), // 7: the first statement…
      situation({ institution_code: '017', is_individual: 'yes' }), // 8
      check(), // 9
      check({ check_amount: '1' }), // 10: same check again
      row({ record: 'subject', tax_id: ACME }), // 11
      row({ record: 'subject', tax_id: ACME }), // 12
      row({ record: 'subject', tax_id: '27-31234567-1' }), // 13: no name on any row
    );
    expect(parsed.errors).toEqual([
      { line: 4, reason: 'full_name differs from line 2 for the same tax_id' },
      { line: 5, reason: 'period 2026-09 differs from line 2 (2026-10): a report covers one period' },
      { line: 6, reason: 'institution 007 already has a situation for this tax_id on line 2 (one per institution)' },
      { line: 8, reason: 'is_individual differs from line 7 for the same tax_id' },
      { line: 10, reason: 'check 00012345 of institution 072 is already on line 9' },
      { line: 12, reason: 'a subject row for this tax_id is already on line 11' },
      { line: 13, reason: 'full_name is required: no row of tax_id 27-31234567-1 gives it' },
    ]);
  });

  it('row shape: a wrong number of fields, text after a closing quote', () => {
    expect(onlyError(csv(`${situation()},extra`))).toBe('expected 16 fields but found 17');
    expect(onlyError(csv(situation({ full_name: 'X' }).replace(',X,', ',"X"y,')))).toBe('field 3 has text after its closing quote');
  });

  it('collects every bad row of a file with its line, and withholds the subjects they belong to', () => {
    const parsed = csv(
      situation(), // 2: valid, but Juan's line 4 is not
      check(), // 3: ACME, valid
      situation({ institution_code: '011', classification: '9' }), // 4
      '', // 5: blank lines are skipped and still counted
      situation({ tax_id: '20-28765432-6' }), // 6: bad tax id: belongs to no subject
      row({ record: 'subject', tax_id: '27-31234567-1', full_name: 'María Laura González' }), // 7
    );
    expect(parsed.errors.map((e) => e.line)).toEqual([4, 6]);
    expect(parsed.rows).toBe(5);
    expect(parsed.withheld).toEqual([{ tax_id: '20287654325', lines: [2] }]);
    expect(parsed.reports.map((r) => r.subject.tax_id)).toEqual(['30712345671', '27312345671']);
  });
});

describe('parseCreditFile (CSV): whole-file problems', () => {
  it('an empty file, a bad header, an unterminated quote', () => {
    expect(parseCreditFile('', 'csv').errors[0]!.reason).toMatch(/^file is empty/);
    const header = parseCreditFile('record,cuit,amount,amount\n', 'csv');
    expect(header.errors).toEqual([
      {
        line: 1,
        reason: expect.stringMatching(/^invalid header: missing column tax_id; unknown column cuit; repeated column amount \(the columns are record,tax_id,/),
      },
    ]);
    const quote = csv(situation(), situation({ institution_code: '011' }).replace('Juan Carlos Pérez', '"Juan'), situation({ institution_code: '014' }));
    expect(quote.errors).toEqual([{ line: 3, reason: 'unterminated quoted field (a " is never closed)' }]);
    expect(quote.reports).toEqual([]);
  });
});

describe('parseCreditFile (JSON)', () => {
  it('whole reports in the API shape (an exported answer re-imports to itself), or {"reports": [...]}', () => {
    expect(json(SANDBOX_CREDIT_REPORTS)).toEqual({ reports: SANDBOX_CREDIT_REPORTS, errors: [], withheld: [], rows: 3 });
    expect(json({ reports: SANDBOX_CREDIT_REPORTS }).reports).toEqual(SANDBOX_CREDIT_REPORTS);
  });

  it('recomputes the totals instead of trusting them; optional fields take their defaults', () => {
    const parsed = json([
      {
        subject: { full_name: 'Juan Carlos Pérez', tax_id: JUAN },
        period: '2026-10',
        situations: [
          { institution: { code: '7' }, classification: 2, amount: 10.25 },
          { institution: { code: '55001', name: 'Mutual del Sur' }, classification: '4', amount: '1.000,5', period: '2026-10', days_overdue: 95 },
        ],
        totals: { amount: 1, institutions: 9, worst_classification: 1 },
      },
    ]);
    expect(parsed.errors).toEqual([]);
    expect(parsed.reports[0]).toEqual({
      subject: { full_name: 'Juan Carlos Pérez', tax_id: '20287654325', tax_id_type: 'CUIL', is_individual: true },
      period: '2026-10',
      situations: [
        { institution: { code: '007', name: 'Banco de Galicia y Buenos Aires S.A.' }, classification: 2, amount: 10.25, period: '2026-10', days_overdue: 0 },
        { institution: { code: '55001', name: 'Mutual del Sur' }, classification: 4, amount: 1000.5, period: '2026-10', days_overdue: 95 },
      ],
      totals: { amount: 1010.75, institutions: 2, worst_classification: 4 },
      bounced_checks: [],
    });
  });

  it('each bad item is reported by its index with the path of every bad field', () => {
    const parsed = json([
      SANDBOX_CREDIT_REPORTS[0],
      { subject: { full_name: 'X', tax_id: JUAN } },
      {
        subject: { full_name: '', tax_id: '27-31234567-1', nickname: 'M' },
        situations: [{ institution: { code: '999' }, classification: 0, amount: -1, period: '2026-10' }],
        bounced_checks: [{ number: '1', date: '2026-02-30', amount: 5, reason: 'x', institution: { code: '072' }, paid: 'maybe' }],
        score: 700,
      },
      {
        subject: { full_name: 'ACME', tax_id: ACME },
        period: '2026-10',
        situations: [
          { institution: { code: '072' }, classification: 1, amount: 1, period: '2026-09' },
          { institution: { code: '72' }, classification: 1, amount: 1 },
        ],
      },
      'not a report',
    ]);
    expect(parsed.errors).toEqual([
      { line: 2, reason: 'subject.tax_id 20-28765432-5 is already on item 1' },
      {
        line: 3,
        reason: [
          'unknown field score',
          'unknown field subject.nickname',
          'subject.full_name is required',
          "situations[0].institution.code 999 is not a known BCRA bank code (write the entity's 5-digit code)",
          'situations[0].classification "0" is not valid (expected a whole number from 1 to 6)',
          'situations[0].amount must not be negative',
          'bounced_checks[0].date "2026-02-30" is not a valid date (expected YYYY-MM-DD or DD/MM/YYYY)',
          'bounced_checks[0].paid "maybe" is not valid (expected true/false, yes/no, sí/no or 1/0)',
        ].join('; '),
      },
      {
        line: 4,
        reason:
          'item 4 situations[0]: period 2026-09 differs from item 4 (2026-10): a report covers one period; institution 072 already has a situation for this tax_id on item 4 situations[0] (one per institution)',
      },
      { line: 5, reason: 'item must be an object' },
    ]);
    // Juan's first report is valid but its tax id is repeated: the file is ambiguous about him.
    expect(parsed.withheld).toEqual([{ tax_id: '20287654325', lines: [1] }]);
    expect(parsed.reports).toEqual([]);
  });

  it('invalid JSON or another document is one whole-file error', () => {
    expect(parseCreditFile('[{"subject":', 'json').errors).toEqual([{ line: 1, reason: expect.stringMatching(/^invalid JSON: /) }]);
    expect(json({ accounts: [] }).errors).toEqual([{ line: 1, reason: 'expected an array of credit reports or an object with a "reports" array' }]);
  });
});

// Parses a credit-record file (CSV rows or JSON reports) into the credit reports the directory
// answers live Informes lookups with. Pure and synchronous, like directory-file.ts: every bad row
// becomes one error naming its line, and the caller chooses all-or-nothing or skipping.
//
// CSV: one row per fact, grouped by tax_id into one report per subject. `record` says what the row
// is: `subject` (the person or company, needed only for a clean record), `situation` (the debt at
// one institution in the report's period) or `check` (a bounced check). The README documents the
// columns. Totals are computed here, never read from the file.
//
// A subject with any invalid row is withheld whole, even with --skip-invalid: a report missing one
// of its debts would look better than the truth.
import type { CreditReport } from '../../../shared/api/credit';
import {
  MAX_DAYS_OVERDUE,
  MAX_NAME_LENGTH,
  MAX_REASON_LENGTH,
  parseAmount,
  parseBoolean,
  parseCheckNumber,
  parseClassification,
  parseDate,
  parseInstitution,
  parseInteger,
  parsePeriod,
  parseRecordKind,
  parseTaxIdType,
  parseText,
  todayInArgentina,
  type Today,
} from './credit-fields';
import { isRecord, parseTaxId, unknownKeys, type ParsedTaxId } from './field-rules';
import { CsvReader, detectSeparator, isBlank, stripBom, type CsvRecord } from './csv-reader';
import { MAX_DIRECTORY_ROWS, type DirectoryRowError } from './directory-file';

type DebtSituation = CreditReport['situations'][number];
type BouncedCheck = CreditReport['bounced_checks'][number];

export const CREDIT_CSV_COLUMNS = [
  'record',
  'tax_id',
  'full_name',
  'is_individual',
  'tax_id_type',
  'period',
  'institution_code',
  'institution_name',
  'classification',
  'amount',
  'days_overdue',
  'check_number',
  'check_date',
  'check_amount',
  'check_reason',
  'check_paid',
] as const;
type Column = (typeof CREDIT_CSV_COLUMNS)[number];
/** Every other column may be left out of the header; a missing column reads as empty. */
const REQUIRED_COLUMNS: readonly Column[] = ['record', 'tax_id'];

export const MAX_SITUATIONS_PER_REPORT = 200;
export const MAX_CHECKS_PER_REPORT = 1_000;

export interface WithheldSubject {
  /** 11 digits. */
  tax_id: string;
  /** Valid rows (CSV lines or JSON items) of the subject that were not imported. */
  lines: number[];
}

export interface ParsedCreditFile {
  reports: CreditReport[];
  /** Sorted by line. Reasons in English; several problems of one row are joined with "; ". */
  errors: DirectoryRowError[];
  /** Subjects left out because one of their rows is invalid. */
  withheld: WithheldSubject[];
  /** Data rows (CSV, blank lines excluded) or items (JSON) read. */
  rows: number;
  /** The whole file was refused (bad header, invalid JSON, too many rows): its one error says why. */
  fileProblem?: true;
}

export interface CreditFileOptions {
  /** The clock for "in the future" checks and for the period of a clean record (default: now). */
  now?: number;
}

export function parseCreditFile(content: string, format: 'csv' | 'json', options: CreditFileOptions = {}): ParsedCreditFile {
  const text = stripBom(content);
  const today = todayInArgentina(options.now ?? Date.now());
  return format === 'json' ? parseJson(text, today) : parseCsv(text, today);
}

// ---------------------------------------------------------------------------------------------
// Grouping rows into reports

/** The subject-level values one row (or JSON item) states; null = not stated there. */
interface SubjectFields {
  taxId: ParsedTaxId;
  name: string | null;
  isIndividual: boolean | null;
  taxIdType: 'CUIT' | 'CUIL' | null;
  period: string | null;
}

/** One fact of a report; `ref` names it in messages ("line 4", "item 2 situations[0]"). */
type Entry =
  | { kind: 'subject'; ref: string }
  | { kind: 'situation'; ref: string; period: string | null; situation: Omit<DebtSituation, 'period'> }
  | { kind: 'check'; ref: string; check: BouncedCheck };

/** A value several rows may state; the first statement wins and later ones must agree. */
interface Stated<T> {
  value: T;
  ref: string;
}

interface PendingReport {
  taxId: ParsedTaxId;
  firstLine: number;
  /** Lines whose rows were accepted, for the withheld list. */
  lines: number[];
  invalid: boolean;
  name?: Stated<string>;
  isIndividual?: Stated<boolean>;
  taxIdType?: Stated<'CUIT' | 'CUIL'>;
  period?: Stated<string>;
  subjectRef?: string;
  situations: Omit<DebtSituation, 'period'>[];
  /** institution code → where its situation is. */
  situationAt: Map<string, string>;
  checks: BouncedCheck[];
  /** institution code + check number → where that check is. */
  checkAt: Map<string, string>;
}

class ReportCollector {
  readonly #reports = new Map<string, PendingReport>();

  /** @param where  how a position is named: "line 3" (CSV) or "item 3" (JSON). */
  constructor(private readonly where: (line: number) => string) {}

  /** The subject of an invalid row: its other rows will be withheld. */
  markInvalid(taxId: ParsedTaxId, line: number): void {
    this.#pending(taxId, line).invalid = true;
  }

  find(taxId: string): PendingReport | undefined {
    return this.#reports.get(taxId);
  }

  /**
   * Adds the facts of one row (CSV) or item (JSON); returns its problems. A row with problems
   * changes nothing but marks its subject invalid. Checks run against the subject's earlier rows
   * and against the other facts of this row, before anything is applied.
   */
  add(fields: SubjectFields, entries: readonly Entry[], line: number): string[] {
    const report = this.#pending(fields.taxId, line);
    const here = this.where(line);
    const problems = this.#disagreements(report, fields);
    let period = report.period ?? (fields.period === null ? undefined : { value: fields.period, ref: here });
    let subjectRef = report.subjectRef;
    const situationAt = new Map<string, string>();
    const checkAt = new Map<string, string>();
    let situations = report.situations.length;
    let checks = report.checks.length;
    for (const entry of entries) {
      switch (entry.kind) {
        case 'subject':
          if (subjectRef !== undefined) problems.push(`a subject row for this tax_id is already on ${subjectRef}`);
          subjectRef = entry.ref;
          break;
        case 'situation': {
          situations++;
          const code = entry.situation.institution.code;
          const earlier = report.situationAt.get(code) ?? situationAt.get(code);
          if (earlier !== undefined) problems.push(`institution ${code} already has a situation for this tax_id on ${earlier} (one per institution)`);
          situationAt.set(code, entry.ref);
          if (entry.period === null) break;
          if (period === undefined) period = { value: entry.period, ref: entry.ref };
          else if (period.value !== entry.period) {
            problems.push(`${entry.ref}: period ${entry.period} differs from ${period.ref} (${period.value}): a report covers one period`);
          }
          break;
        }
        case 'check': {
          checks++;
          const key = checkKey(entry.check);
          const earlier = report.checkAt.get(key) ?? checkAt.get(key);
          if (earlier !== undefined) problems.push(`check ${entry.check.number} of institution ${entry.check.institution.code} is already on ${earlier}`);
          checkAt.set(key, entry.ref);
          break;
        }
      }
    }
    if (situations > MAX_SITUATIONS_PER_REPORT) problems.push(`too many situations for this tax_id (at most ${MAX_SITUATIONS_PER_REPORT})`);
    if (checks > MAX_CHECKS_PER_REPORT) problems.push(`too many checks for this tax_id (at most ${MAX_CHECKS_PER_REPORT})`);
    if (problems.length > 0) {
      report.invalid = true;
      return problems;
    }

    if (fields.name !== null) report.name ??= { value: fields.name, ref: here };
    if (fields.isIndividual !== null) report.isIndividual ??= { value: fields.isIndividual, ref: here };
    if (fields.taxIdType !== null) report.taxIdType ??= { value: fields.taxIdType, ref: here };
    report.period = period;
    report.subjectRef = subjectRef;
    for (const entry of entries) {
      if (entry.kind === 'situation') report.situations.push(entry.situation);
      if (entry.kind === 'check') report.checks.push(entry.check);
    }
    for (const [code, ref] of situationAt) report.situationAt.set(code, ref);
    for (const [key, ref] of checkAt) report.checkAt.set(key, ref);
    report.lines.push(line);
    return problems;
  }

  /** The finished reports, the subjects withheld, and the subjects that lack a name. */
  finish(today: Today): { reports: CreditReport[]; withheld: WithheldSubject[]; errors: DirectoryRowError[] } {
    const reports: CreditReport[] = [];
    const withheld: WithheldSubject[] = [];
    const errors: DirectoryRowError[] = [];
    for (const report of this.#reports.values()) {
      if (!report.invalid && report.name === undefined) {
        errors.push({ line: report.firstLine, reason: `full_name is required: no row of tax_id ${report.taxId.formatted} gives it` });
        report.invalid = true;
      }
      if (report.invalid) {
        if (report.lines.length > 0) withheld.push({ tax_id: report.taxId.taxId, lines: report.lines });
        continue;
      }
      reports.push(toCreditReport(report, today));
    }
    return { reports, withheld, errors };
  }

  #pending(taxId: ParsedTaxId, line: number): PendingReport {
    let report = this.#reports.get(taxId.taxId);
    if (!report) {
      report = { taxId, firstLine: line, lines: [], invalid: false, situations: [], situationAt: new Map(), checks: [], checkAt: new Map() };
      this.#reports.set(taxId.taxId, report);
    }
    return report;
  }

  /** Subject-level values must agree across the subject's rows. */
  #disagreements(report: PendingReport, fields: SubjectFields): string[] {
    const problems: string[] = [];
    const differs = (field: string, stated: Stated<unknown> | undefined) => problems.push(`${field} differs from ${stated!.ref} for the same tax_id`);
    // Names agree when they differ only in case ("ACME S.A." and "Acme S.A.").
    if (report.name && fields.name !== null && report.name.value.toLocaleLowerCase('es') !== fields.name.toLocaleLowerCase('es')) differs('full_name', report.name);
    if (report.isIndividual && fields.isIndividual !== null && report.isIndividual.value !== fields.isIndividual) differs('is_individual', report.isIndividual);
    if (report.taxIdType && fields.taxIdType !== null && report.taxIdType.value !== fields.taxIdType) differs('tax_id_type', report.taxIdType);
    if (report.period && fields.period !== null && report.period.value !== fields.period) {
      problems.push(`period ${fields.period} differs from ${report.period.ref} (${report.period.value}): a report covers one period`);
    }
    // A CUIL identifies a person: a company (or a row saying "not an individual") has a CUIT.
    const type = fields.taxIdType ?? report.taxIdType?.value;
    const individual = fields.isIndividual ?? report.isIndividual?.value ?? report.taxId.isIndividual;
    if (problems.length === 0 && type === 'CUIL' && !individual) problems.push('tax_id_type CUIL is only for individuals (use CUIT)');
    return problems;
  }
}

const checkKey = (check: BouncedCheck) => `${check.institution.code}#${check.number}`;

/** Two decimals: sums of amounts with cents must not show binary noise (0.1 + 0.2). */
const round2 = (n: number) => Math.round(n * 100) / 100;

function toCreditReport(report: PendingReport, today: Today): CreditReport {
  // A clean record without a stated period is as of the import.
  const period = report.period?.value ?? today.month;
  const isIndividual = report.isIndividual?.value ?? report.taxId.isIndividual;
  // Keys in the API's order, so a stored report reads like the documented example.
  const situations = report.situations.map((s) => ({ institution: s.institution, classification: s.classification, amount: s.amount, period, days_overdue: s.days_overdue }));
  return {
    subject: {
      full_name: report.name!.value,
      tax_id: report.taxId.taxId,
      tax_id_type: report.taxIdType?.value ?? (isIndividual ? report.taxId.type : 'CUIT'),
      is_individual: isIndividual,
    },
    period,
    situations,
    totals: {
      amount: round2(situations.reduce((sum, s) => sum + s.amount, 0)),
      institutions: new Set(situations.map((s) => s.institution.code)).size,
      worst_classification: situations.length === 0 ? null : Math.max(...situations.map((s) => s.classification)),
    },
    bounced_checks: report.checks,
  };
}

function byLine(a: DirectoryRowError, b: DirectoryRowError): number {
  return a.line - b.line;
}

function finish(collector: ReportCollector, errors: DirectoryRowError[], rows: number, today: Today): ParsedCreditFile {
  const done = collector.finish(today);
  return { reports: done.reports, errors: [...errors, ...done.errors].sort(byLine), withheld: done.withheld, rows };
}

/** A whole-file problem (bad header, invalid JSON, too many rows): nothing is imported. */
function fileError(line: number, reason: string, rows = 0): ParsedCreditFile {
  return { reports: [], errors: [{ line, reason }], withheld: [], rows, fileProblem: true };
}

function tooManyRows(line: number, rows: number, unit: string): ParsedCreditFile {
  return fileError(line, `file has more than ${MAX_DIRECTORY_ROWS} ${unit} (the limit per import); split it into several files`, rows);
}

// ---------------------------------------------------------------------------------------------
// CSV

type ColumnIndex = Partial<Record<Column, number>>;

function readHeader(fields: readonly string[], separator: number): { columns: ColumnIndex } | { problem: string } {
  const names = fields.map((field) => stripBom(field).trim().toLowerCase());
  const known: readonly string[] = CREDIT_CSV_COLUMNS;
  const unknown = names.filter((name) => !known.includes(name)).map((name) => (name === '' ? '(empty)' : name));
  const repeated = [...new Set(names.filter((name, i) => known.includes(name) && names.indexOf(name) !== i))];
  const missing = REQUIRED_COLUMNS.filter((name) => !names.includes(name));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (unknown.length > 0) parts.push(`unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  if (repeated.length > 0) parts.push(`repeated column${repeated.length > 1 ? 's' : ''} ${repeated.join(', ')}`);
  if (parts.length > 0) {
    const sep = String.fromCharCode(separator);
    return { problem: `invalid header: ${parts.join('; ')} (the columns are ${CREDIT_CSV_COLUMNS.join(sep)}; record and tax_id are required, the others may be left out)` };
  }
  const columns: ColumnIndex = {};
  names.forEach((name, i) => {
    columns[name as Column] = i;
  });
  return { columns };
}

function parseCsv(text: string, today: Today): ParsedCreditFile {
  const separator = detectSeparator(text);
  const reader = new CsvReader(text, separator);
  let header = reader.next();
  while (header !== null && header.error === undefined && isBlank(header.fields)) header = reader.next();
  if (header === null) return fileError(1, `file is empty (expected a header such as ${CREDIT_CSV_COLUMNS.join(',')})`);
  if (header.error !== undefined) return fileError(header.line, `invalid header: ${header.error}`);
  const read = readHeader(header.fields, separator);
  if ('problem' in read) return fileError(header.line, read.problem);
  const { columns } = read;
  const width = header.fields.length;

  const records: CsvRecord[] = [];
  for (let record = reader.next(); record !== null; record = reader.next()) {
    if (record.error === undefined && isBlank(record.fields)) continue;
    if (records.length === MAX_DIRECTORY_ROWS) return tooManyRows(record.line, records.length + 1, 'rows');
    // An unclosed quote swallows the rest of the file: the rows after it cannot be told apart.
    if (record.error?.startsWith('unterminated')) return fileError(record.line, record.error, records.length + 1);
    records.push(record);
  }

  const collector = new ReportCollector((line) => `line ${line}`);
  const errors: DirectoryRowError[] = [];
  for (const record of records) {
    const problems = csvRowProblems(record, columns, width, collector, today);
    if (problems.length > 0) errors.push({ line: record.line, reason: problems.join('; ') });
  }
  return finish(collector, errors, records.length, today);
}

/** Columns each kind of row must leave empty (a value there means the row is mixed up). */
const FOREIGN_COLUMNS: Record<'subject' | 'situation' | 'check', readonly Column[]> = {
  subject: ['institution_code', 'institution_name', 'classification', 'amount', 'days_overdue', 'check_number', 'check_date', 'check_amount', 'check_reason', 'check_paid'],
  situation: ['check_number', 'check_date', 'check_amount', 'check_reason', 'check_paid'],
  check: ['classification', 'amount', 'days_overdue'],
};

function csvRowProblems(record: CsvRecord, columns: ColumnIndex, width: number, collector: ReportCollector, today: Today): string[] {
  const field = (column: Column): string => {
    const index = columns[column];
    return index === undefined ? '' : (record.fields[index] ?? '');
  };
  if (record.error !== undefined || record.fields.length !== width) {
    const problem = record.error ?? `expected ${width} fields but found ${record.fields.length}`;
    // The fields may be shifted; the subject is withheld only when its tax id still reads right.
    const taxId = parseTaxId(field('tax_id'), 'tax_id', []);
    if (taxId) collector.markInvalid(taxId, record.line);
    return [problem];
  }

  const problems: string[] = [];
  const kind = parseRecordKind(field('record'), problems);
  const subject = subjectFields(
    { taxId: field('tax_id'), name: field('full_name'), isIndividual: field('is_individual'), taxIdType: field('tax_id_type'), period: field('period') },
    today,
    problems,
  );
  const ref = `line ${record.line}`;
  let entry: Entry | undefined;
  if (kind !== undefined) {
    const foreign = FOREIGN_COLUMNS[kind].filter((column) => field(column).trim() !== '');
    if (foreign.length > 0) problems.push(`${foreign.join(', ')} must be empty on a ${kind} row`);
    entry = csvEntry(kind, field, ref, today, problems);
  }
  if (problems.length > 0 || subject === undefined || entry === undefined) {
    if (subject) collector.markInvalid(subject.taxId, record.line);
    return problems;
  }
  return collector.add(subject, [entry], record.line);
}

function csvEntry(
  kind: 'subject' | 'situation' | 'check',
  field: (column: Column) => string,
  ref: string,
  today: Today,
  problems: string[],
): Entry | undefined {
  switch (kind) {
    case 'subject':
      return { kind, ref };
    case 'situation': {
      const before = problems.length;
      if (field('period').trim() === '') problems.push('period is required on a situation row');
      const situation = situationFields(
        { code: field('institution_code'), name: field('institution_name'), classification: field('classification'), amount: field('amount'), daysOverdue: field('days_overdue') },
        SITUATION_CSV_LABELS,
        problems,
      );
      // The row's period is a subject-level value (SubjectFields.period), checked there.
      return problems.length > before || situation === undefined ? undefined : { kind, ref, period: null, situation };
    }
    case 'check': {
      const check = checkFields(
        {
          code: field('institution_code'),
          name: field('institution_name'),
          number: field('check_number'),
          date: field('check_date'),
          amount: field('check_amount'),
          reason: field('check_reason'),
          paid: field('check_paid'),
        },
        CHECK_CSV_LABELS,
        today,
        problems,
      );
      return check === undefined ? undefined : { kind, ref, check };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The facts of a row, shared by CSV and JSON (which name the fields differently).

interface SubjectInput {
  taxId: string;
  name: string;
  isIndividual: string;
  taxIdType: string;
  period: string;
}

function subjectFields(input: SubjectInput, today: Today, problems: string[], labels = SUBJECT_CSV_LABELS): SubjectFields | undefined {
  const before = problems.length;
  const taxId = parseTaxId(input.taxId, labels.taxId, problems);
  const name = parseText(input.name, labels.name, MAX_NAME_LENGTH, problems);
  const isIndividual = parseBoolean(input.isIndividual, labels.isIndividual, problems);
  const taxIdType = parseTaxIdType(input.taxIdType, labels.taxIdType, problems);
  const period = parsePeriod(input.period, labels.period, today, problems);
  if (taxId === undefined) return undefined;
  // The tax id is good: the caller withholds this subject when another field is bad.
  if (problems.length > before || name === undefined || isIndividual === undefined || taxIdType === undefined || period === undefined) {
    return { taxId, name: null, isIndividual: null, taxIdType: null, period: null };
  }
  return { taxId, name, isIndividual, taxIdType, period };
}

const SUBJECT_CSV_LABELS = { taxId: 'tax_id', name: 'full_name', isIndividual: 'is_individual', taxIdType: 'tax_id_type', period: 'period' };

interface SituationInput {
  code: string;
  name: string;
  classification: string;
  amount: string;
  daysOverdue: string;
}

type SituationLabels = Record<keyof SituationInput, string>;
const SITUATION_CSV_LABELS: SituationLabels = {
  code: 'institution_code',
  name: 'institution_name',
  classification: 'classification',
  amount: 'amount',
  daysOverdue: 'days_overdue',
};

function situationFields(input: SituationInput, labels: SituationLabels, problems: string[]): Omit<DebtSituation, 'period'> | undefined {
  const institution = parseInstitution(input.code, input.name, labels, problems);
  const classification = required(parseClassification(input.classification, labels.classification, problems), labels.classification, problems);
  const amount = required(parseAmount(input.amount, labels.amount, problems), labels.amount, problems);
  const days = parseInteger(input.daysOverdue, labels.daysOverdue, { min: 0, max: MAX_DAYS_OVERDUE }, problems);
  if (institution === undefined || classification === undefined || amount === undefined || days === undefined) return undefined;
  return { institution, classification, amount, days_overdue: days ?? 0 };
}

interface CheckInput {
  code: string;
  name: string;
  number: string;
  date: string;
  amount: string;
  reason: string;
  paid: string;
}

type CheckLabels = Record<keyof CheckInput, string>;
const CHECK_CSV_LABELS: CheckLabels = {
  code: 'institution_code',
  name: 'institution_name',
  number: 'check_number',
  date: 'check_date',
  amount: 'check_amount',
  reason: 'check_reason',
  paid: 'check_paid',
};

function checkFields(input: CheckInput, labels: CheckLabels, today: Today, problems: string[]): BouncedCheck | undefined {
  const institution = parseInstitution(input.code, input.name, labels, problems);
  const number = required(parseCheckNumber(input.number, labels.number, problems), labels.number, problems);
  const date = required(parseDate(input.date, labels.date, today, problems), labels.date, problems);
  const amount = required(parseAmount(input.amount, labels.amount, problems), labels.amount, problems);
  const reason = required(parseText(input.reason, labels.reason, MAX_REASON_LENGTH, problems), labels.reason, problems);
  const paid = parseBoolean(input.paid, labels.paid, problems);
  if (institution === undefined || number === undefined || date === undefined || amount === undefined || reason === undefined || paid === undefined) {
    return undefined;
  }
  return { number, date, amount, reason, institution, paid: paid ?? false };
}

/** An optional field's null becomes a "required" problem; undefined (already reported) passes through. */
function required<T>(value: T | null | undefined, label: string, problems: string[]): T | undefined {
  if (value === null) {
    problems.push(`${label} is required`);
    return undefined;
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// JSON: an array of whole reports in the API's shape (or {"reports": [...]}). `totals` may be
// present, as in an exported report, and is recomputed.

const REPORT_KEYS: ReadonlySet<string> = new Set(['subject', 'period', 'situations', 'bounced_checks', 'totals']);
const SUBJECT_KEYS: ReadonlySet<string> = new Set(['full_name', 'tax_id', 'tax_id_type', 'is_individual']);
const SITUATION_KEYS: ReadonlySet<string> = new Set(['institution', 'classification', 'amount', 'period', 'days_overdue']);
const CHECK_KEYS: ReadonlySet<string> = new Set(['number', 'date', 'amount', 'reason', 'institution', 'paid']);
const INSTITUTION_KEYS: ReadonlySet<string> = new Set(['code', 'name']);

function parseJson(text: string, today: Today): ParsedCreditFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return fileError(1, `invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const items = Array.isArray(document) ? document : isRecord(document) && Array.isArray(document.reports) ? (document.reports as unknown[]) : null;
  if (items === null) return fileError(1, 'expected an array of credit reports or an object with a "reports" array');
  if (items.length > MAX_DIRECTORY_ROWS) return tooManyRows(MAX_DIRECTORY_ROWS + 1, items.length, 'items');

  const collector = new ReportCollector((index) => `item ${index}`);
  const errors: DirectoryRowError[] = [];
  items.forEach((item, i) => {
    const problems = jsonItemProblems(item, i + 1, collector, today);
    if (problems.length > 0) errors.push({ line: i + 1, reason: problems.join('; ') });
  });
  return finish(collector, errors, items.length, today);
}

/** JSON scalars as the text the field rules read; absent or null is empty. */
function jsonScalar(value: unknown, label: string, problems: string[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  problems.push(`${label} must be a string or a number`);
  return '';
}

function jsonObject(value: unknown, label: string, keys: ReadonlySet<string>, problems: string[]): Record<string, unknown> | undefined {
  if (!isRecord(value)) {
    problems.push(`${label} must be an object`);
    return undefined;
  }
  problems.push(...unknownKeys(value, keys, `${label}.`));
  return value;
}

function jsonArray(value: unknown, label: string, problems: string[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  problems.push(`${label} must be an array`);
  return [];
}

function jsonItemProblems(item: unknown, index: number, collector: ReportCollector, today: Today): string[] {
  if (!isRecord(item)) return ['item must be an object'];
  const problems = unknownKeys(item, REPORT_KEYS, '');
  const rawSubject = jsonObject(item.subject, 'subject', SUBJECT_KEYS, problems) ?? {};
  const name = jsonScalar(rawSubject.full_name, 'subject.full_name', problems);
  // A CSV subject may take its name from any of its rows; a JSON report has only this one.
  if (name.trim() === '') problems.push('subject.full_name is required');
  const subject = subjectFields(
    {
      taxId: jsonScalar(rawSubject.tax_id, 'subject.tax_id', problems),
      name,
      isIndividual: jsonScalar(rawSubject.is_individual, 'subject.is_individual', problems),
      taxIdType: jsonScalar(rawSubject.tax_id_type, 'subject.tax_id_type', problems),
      period: jsonScalar(item.period, 'period', problems),
    },
    today,
    problems,
    { taxId: 'subject.tax_id', name: 'subject.full_name', isIndividual: 'subject.is_individual', taxIdType: 'subject.tax_id_type', period: 'period' },
  );

  const where = `item ${index}`;
  const entries: Entry[] = [{ kind: 'subject', ref: where }];
  jsonArray(item.situations, 'situations', problems).forEach((raw, i) => {
    const entry = jsonSituation(raw, `situations[${i}]`, where, today, problems);
    if (entry) entries.push(entry);
  });
  jsonArray(item.bounced_checks, 'bounced_checks', problems).forEach((raw, i) => {
    const entry = jsonCheck(raw, `bounced_checks[${i}]`, where, today, problems);
    if (entry) entries.push(entry);
  });

  const earlier = subject === undefined ? undefined : collector.find(subject.taxId.taxId);
  if (subject !== undefined && earlier !== undefined) problems.push(`subject.tax_id ${subject.taxId.formatted} is already on item ${earlier.firstLine}`);
  if (problems.length > 0 || subject === undefined) {
    if (subject) collector.markInvalid(subject.taxId, index);
    return problems;
  }
  return collector.add(subject, entries, index);
}

function jsonInstitution(value: unknown, path: string, problems: string[]): { code: string; name: string } {
  const raw = jsonObject(value, `${path}.institution`, INSTITUTION_KEYS, problems);
  if (raw === undefined) return { code: '', name: '' };
  return { code: jsonScalar(raw.code, `${path}.institution.code`, problems), name: jsonScalar(raw.name, `${path}.institution.name`, problems) };
}

function jsonSituation(value: unknown, path: string, where: string, today: Today, problems: string[]): Entry | undefined {
  const raw = jsonObject(value, path, SITUATION_KEYS, problems);
  if (raw === undefined) return undefined;
  const before = problems.length;
  const institution = jsonInstitution(raw.institution ?? {}, path, problems);
  const period = parsePeriod(jsonScalar(raw.period, `${path}.period`, problems), `${path}.period`, today, problems);
  const situation = situationFields(
    {
      code: institution.code,
      name: institution.name,
      classification: jsonScalar(raw.classification, `${path}.classification`, problems),
      amount: jsonScalar(raw.amount, `${path}.amount`, problems),
      daysOverdue: jsonScalar(raw.days_overdue, `${path}.days_overdue`, problems),
    },
    {
      code: `${path}.institution.code`,
      name: `${path}.institution.name`,
      classification: `${path}.classification`,
      amount: `${path}.amount`,
      daysOverdue: `${path}.days_overdue`,
    },
    problems,
  );
  if (problems.length > before || situation === undefined || period === undefined) return undefined;
  return { kind: 'situation', ref: `${where} ${path}`, period, situation };
}

function jsonCheck(value: unknown, path: string, where: string, today: Today, problems: string[]): Entry | undefined {
  const raw = jsonObject(value, path, CHECK_KEYS, problems);
  if (raw === undefined) return undefined;
  const before = problems.length;
  const institution = jsonInstitution(raw.institution ?? {}, path, problems);
  const check = checkFields(
    {
      code: institution.code,
      name: institution.name,
      number: jsonScalar(raw.number, `${path}.number`, problems),
      date: jsonScalar(raw.date, `${path}.date`, problems),
      amount: jsonScalar(raw.amount, `${path}.amount`, problems),
      reason: jsonScalar(raw.reason, `${path}.reason`, problems),
      paid: jsonScalar(raw.paid, `${path}.paid`, problems),
    },
    {
      code: `${path}.institution.code`,
      name: `${path}.institution.name`,
      number: `${path}.number`,
      date: `${path}.date`,
      amount: `${path}.amount`,
      reason: `${path}.reason`,
      paid: `${path}.paid`,
    },
    today,
    problems,
  );
  if (problems.length > before || check === undefined) return undefined;
  return { kind: 'check', ref: `${where} ${path}`, check };
}


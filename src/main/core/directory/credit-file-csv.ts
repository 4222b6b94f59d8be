// A credit-record file as CSV: one row per fact, grouped by tax_id into one report per subject.
// `record` says what the row is: `subject` (the person or company, needed only for a clean record),
// `situation` (the debt at one institution in the report's period) or `check` (a bounced check).
// The README documents the columns.
import { parseRecordKind, type Today } from './credit-fields';
import { parseTaxId } from './field-rules';
import { CsvReader, detectSeparator, isBlank, stripBom, type CsvRecord } from './csv-reader';
import { MAX_DIRECTORY_ROWS, type DirectoryRowError } from './directory-file';
import { fileError, finish, ReportCollector, tooManyRows, type Entry, type ParsedCreditFile } from './credit-file-collector';
import { CHECK_CSV_LABELS, checkFields, SITUATION_CSV_LABELS, situationFields, subjectFields } from './credit-file-facts';

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

export function parseCsv(text: string, today: Today): ParsedCreditFile {
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

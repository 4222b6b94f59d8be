// A credit-record file as JSON: an array of whole reports in the API's shape (or {"reports": [...]}).
// `totals` may be present, as in an exported report, and is recomputed.
import { parsePeriod, type Today } from './credit-fields';
import { isRecord, unknownKeys } from './field-rules';
import { MAX_DIRECTORY_ROWS, type DirectoryRowError } from './directory-file';
import { fileError, finish, ReportCollector, tooManyRows, type Entry, type ParsedCreditFile } from './credit-file-collector';
import { checkFields, situationFields, subjectFields } from './credit-file-facts';


const REPORT_KEYS: ReadonlySet<string> = new Set(['subject', 'period', 'situations', 'bounced_checks', 'totals']);
const SUBJECT_KEYS: ReadonlySet<string> = new Set(['full_name', 'tax_id', 'tax_id_type', 'is_individual']);
const SITUATION_KEYS: ReadonlySet<string> = new Set(['institution', 'classification', 'amount', 'period', 'days_overdue']);
const CHECK_KEYS: ReadonlySet<string> = new Set(['number', 'date', 'amount', 'reason', 'institution', 'paid']);
const INSTITUTION_KEYS: ReadonlySet<string> = new Set(['code', 'name']);

export function parseJson(text: string, today: Today): ParsedCreditFile {
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


// Groups the rows of a credit-record file (CSV lines or JSON items) into one report per subject,
// and says what the file gave: the finished reports, the rows' errors and the subjects withheld.
// Subject-level values (name, type, period) must agree across a subject's rows; a subject with any
// invalid row is withheld whole (credit-file.ts says why). Totals are computed here, never read.
import type { CreditReport } from '../../../shared/api/credit';
import type { Today } from './credit-fields';
import type { ParsedTaxId } from './field-rules';
import { MAX_DIRECTORY_ROWS, type DirectoryRowError } from './directory-file';

export type DebtSituation = CreditReport['situations'][number];
export type BouncedCheck = CreditReport['bounced_checks'][number];

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

/** The subject-level values one row (or JSON item) states; null = not stated there. */
export interface SubjectFields {
  taxId: ParsedTaxId;
  name: string | null;
  isIndividual: boolean | null;
  taxIdType: 'CUIT' | 'CUIL' | null;
  period: string | null;
}

/** One fact of a report; `ref` names it in messages ("line 4", "item 2 situations[0]"). */
export type Entry =
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

export class ReportCollector {
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

export function finish(collector: ReportCollector, errors: DirectoryRowError[], rows: number, today: Today): ParsedCreditFile {
  const done = collector.finish(today);
  return { reports: done.reports, errors: [...errors, ...done.errors].sort(byLine), withheld: done.withheld, rows };
}

/** A whole-file problem (bad header, invalid JSON, too many rows): nothing is imported. */
export function fileError(line: number, reason: string, rows = 0): ParsedCreditFile {
  return { reports: [], errors: [{ line, reason }], withheld: [], rows, fileProblem: true };
}

export function tooManyRows(line: number, rows: number, unit: string): ParsedCreditFile {
  return fileError(line, `file has more than ${MAX_DIRECTORY_ROWS} ${unit} (the limit per import); split it into several files`, rows);
}

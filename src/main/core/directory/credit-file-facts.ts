// The facts of one row of a credit-record file — its subject, a debt situation, a bounced check —
// read from text by the field rules of credit-fields.ts. Shared by CSV and JSON, which name the
// fields differently: each reader passes its own labels, so a problem names the field as the file does.
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
  parseTaxIdType,
  parseText,
  type Today,
} from './credit-fields';
import { parseTaxId } from './field-rules';
import type { BouncedCheck, DebtSituation, SubjectFields } from './credit-file-collector';
export interface SubjectInput {
  taxId: string;
  name: string;
  isIndividual: string;
  taxIdType: string;
  period: string;
}

export function subjectFields(input: SubjectInput, today: Today, problems: string[], labels = SUBJECT_CSV_LABELS): SubjectFields | undefined {
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
export const SITUATION_CSV_LABELS: SituationLabels = {
  code: 'institution_code',
  name: 'institution_name',
  classification: 'classification',
  amount: 'amount',
  daysOverdue: 'days_overdue',
};

export function situationFields(input: SituationInput, labels: SituationLabels, problems: string[]): Omit<DebtSituation, 'period'> | undefined {
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
export const CHECK_CSV_LABELS: CheckLabels = {
  code: 'institution_code',
  name: 'institution_name',
  number: 'check_number',
  date: 'check_date',
  amount: 'check_amount',
  reason: 'check_reason',
  paid: 'check_paid',
};

export function checkFields(input: CheckInput, labels: CheckLabels, today: Today, problems: string[]): BouncedCheck | undefined {
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

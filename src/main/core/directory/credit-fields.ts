// Field rules of credit-record files (credit-file.ts), shared by the CSV and JSON readers. Each
// rule takes the text of one field; on a bad value it pushes one English message naming the field
// to `problems` and returns undefined, so a row reports all its bad fields at once. Optional
// fields return null when empty.
import { BCRA_ENTITIES } from '../../../shared/identifiers';
import { BOOLEANS, WHITESPACE_RUN, characterCount, enumKey, show } from './field-rules';

export const MAX_NAME_LENGTH = 200;
export const MAX_REASON_LENGTH = 200;
/** Debts are in thousands of ARS and checks in ARS: a trillion is a typo, not a debt. */
export const MAX_AMOUNT = 999_999_999_999.99;
export const MAX_DAYS_OVERDUE = 99_999;
/** The Central de Deudores starts in the 1990s; earlier dates are typos. */
const FIRST_YEAR = 1990;

// ---------------------------------------------------------------------------------------------
// The clock: periods and dates in the future are typos. Argentina keeps UTC−3 all year.

const ARGENTINA_OFFSET_MS = -3 * 60 * 60 * 1000;

export interface Today {
  /** YYYY-MM-DD in Argentina. */
  date: string;
  /** YYYY-MM in Argentina. */
  month: string;
}

export function todayInArgentina(now: number): Today {
  const date = new Date(now + ARGENTINA_OFFSET_MS).toISOString().slice(0, 10);
  return { date, month: date.slice(0, 7) };
}

// ---------------------------------------------------------------------------------------------
// Row kind

export type RecordKind = 'subject' | 'situation' | 'check';

const RECORD_KINDS: ReadonlyMap<string, RecordKind> = new Map<string, RecordKind>([
  ['subject', 'subject'],
  ['situation', 'situation'],
  ['check', 'check'],
  // Spanish, as a back office would type them.
  ['sujeto', 'subject'],
  ['situacion', 'situation'],
  ['situación', 'situation'],
  ['deuda', 'situation'],
  ['cheque', 'check'],
]);

export function parseRecordKind(raw: string, problems: string[]): RecordKind | undefined {
  const key = enumKey(raw);
  if (key === '') {
    problems.push('record is required (subject, situation or check)');
    return undefined;
  }
  const kind = RECORD_KINDS.get(key);
  if (kind === undefined) problems.push(`record ${show(raw)} is not valid (expected subject, situation or check)`);
  return kind;
}

// ---------------------------------------------------------------------------------------------
// The subject

/** Free text of one line: multi-line spreadsheet cells and double spaces are layout. */
export function parseText(raw: string, label: string, maxLength: number, problems: string[]): string | null | undefined {
  const text = raw.replace(WHITESPACE_RUN, ' ').trim();
  if (text === '') return null;
  if (text.length > maxLength && characterCount(text) > maxLength) {
    problems.push(`${label} is too long (${characterCount(text)} characters, at most ${maxLength})`);
    return undefined;
  }
  return text;
}

export function parseBoolean(raw: string, label: string, problems: string[]): boolean | null | undefined {
  const key = enumKey(raw);
  if (key === '') return null;
  const value = BOOLEANS.get(key);
  if (value === undefined) problems.push(`${label} ${show(raw)} is not valid (expected true/false, yes/no, sí/no or 1/0)`);
  return value;
}

export function parseTaxIdType(raw: string, label: string, problems: string[]): 'CUIT' | 'CUIL' | null | undefined {
  const key = enumKey(raw).toUpperCase();
  if (key === '') return null;
  if (key === 'CUIT' || key === 'CUIL') return key;
  problems.push(`${label} ${show(raw)} is not valid (expected CUIT or CUIL)`);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Periods and dates

const PERIOD_FORMATS: readonly { pattern: RegExp; year: number; month: number }[] = [
  { pattern: /^(\d{4})-(\d{1,2})$/, year: 1, month: 2 }, // 2026-10
  { pattern: /^(\d{4})(\d{2})$/, year: 1, month: 2 }, // 202610, as the BCRA writes periods
  { pattern: /^(\d{1,2})\/(\d{4})$/, year: 2, month: 1 }, // 10/2026
];

/** The reporting period, normalized to YYYY-MM; not before 1990 and not after this month. */
export function parsePeriod(raw: string, label: string, today: Today, problems: string[]): string | null | undefined {
  const value = raw.trim();
  if (value === '') return null;
  for (const format of PERIOD_FORMATS) {
    const match = format.pattern.exec(value);
    if (!match) continue;
    const year = Number(match[format.year]);
    const month = Number(match[format.month]);
    if (month < 1 || month > 12) break;
    const period = `${year}-${String(month).padStart(2, '0')}`;
    if (year < FIRST_YEAR) {
      problems.push(`${label} ${period} is before ${FIRST_YEAR}`);
      return undefined;
    }
    if (period > today.month) {
      problems.push(`${label} ${period} is in the future`);
      return undefined;
    }
    return period;
  }
  problems.push(`${label} ${show(raw)} is not valid (expected YYYY-MM, e.g. 2026-10)`);
  return undefined;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Day first, as Argentine spreadsheets show dates. Month-first dates are never accepted. */
const ARGENTINE_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/** A calendar date normalized to YYYY-MM-DD; not before 1990 and not after today. */
export function parseDate(raw: string, label: string, today: Today, problems: string[]): string | null | undefined {
  const value = raw.trim();
  if (value === '') return null;
  const iso = ISO_DATE.exec(value);
  const argentine = iso ? null : ARGENTINE_DATE.exec(value);
  const parts = iso ? [iso[1], iso[2], iso[3]] : argentine ? [argentine[3], argentine[2], argentine[1]] : null;
  if (parts) {
    const [year, month, day] = parts.map(Number) as [number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    // Date.UTC rolls 2026-02-30 over to March: a round trip catches days that do not exist.
    if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
      const text = date.toISOString().slice(0, 10);
      if (year < FIRST_YEAR) {
        problems.push(`${label} ${text} is before ${FIRST_YEAR}`);
        return undefined;
      }
      if (text > today.date) {
        problems.push(`${label} ${text} is in the future`);
        return undefined;
      }
      return text;
    }
  }
  problems.push(`${label} ${show(raw)} is not a valid date (expected YYYY-MM-DD or DD/MM/YYYY)`);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Numbers

const SPACES = /[\s\u00a0]/g;
const PLAIN_AMOUNT = /^(\d+)(?:[.,](\d{1,2}))?$/;
/**
 * Thousands grouped with one separator, then optionally 1–2 decimals after the other one:
 * "1.250.000", "1,250.50", "1.250,5". With at most 2 decimals, a separator followed by exactly
 * three digits can only be a thousands separator, so "1.250" is 1250 in any locale.
 */
const GROUPED_AMOUNT = /^(\d{1,3})([.,])(\d{3}(?:\2\d{3})*)(?:([.,])(\d{1,2}))?$/;

/** A non-negative amount with at most 2 decimals, written the Argentine or the English way. */
export function parseAmount(raw: string, label: string, problems: string[]): number | null | undefined {
  const value = raw.replace(SPACES, '').replace(/^\$/, '');
  if (value === '') return null;
  let amount: number | undefined;
  const plain = PLAIN_AMOUNT.exec(value);
  if (plain) amount = Number(`${plain[1]}.${plain[2] ?? '0'}`);
  const grouped = plain ? null : GROUPED_AMOUNT.exec(value);
  if (grouped && grouped[4] !== grouped[2]) {
    amount = Number(`${grouped[1]}${grouped[3]!.split(grouped[2]!).join('')}.${grouped[5] ?? '0'}`);
  }
  if (amount === undefined) {
    problems.push(
      value.startsWith('-')
        ? `${label} must not be negative`
        : `${label} ${show(raw)} is not a valid amount (digits with at most 2 decimals, e.g. 1250.5 or 1.250,50)`,
    );
    return undefined;
  }
  if (amount > MAX_AMOUNT) {
    problems.push(`${label} ${show(raw)} is too large`);
    return undefined;
  }
  return amount;
}

/** A whole number in [min, max]. */
export function parseInteger(raw: string, label: string, range: { min: number; max: number }, problems: string[]): number | null | undefined {
  const value = raw.trim();
  if (value === '') return null;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < range.min || n > range.max) {
    problems.push(`${label} ${show(raw)} is not valid (expected a whole number from ${range.min} to ${range.max})`);
    return undefined;
  }
  return n;
}

/** BCRA debtor classification: 1 normal … 6 irrecoverable by technical disposition. */
export function parseClassification(raw: string, label: string, problems: string[]): number | null | undefined {
  return parseInteger(raw, label, { min: 1, max: 6 }, problems);
}

// ---------------------------------------------------------------------------------------------
// Institutions and checks

export interface Institution {
  code: string;
  name: string;
}

/**
 * A bank by its 3-digit BCRA code (the same code as in its CBUs, named from the registry), or any
 * other lender of the Central de Deudores by its 5-digit entity code (then the name is required).
 * Spreadsheets drop leading zeros ("007" → 7), so shorter codes are padded; "00007" is bank 007.
 */
export function parseInstitution(
  rawCode: string,
  rawName: string,
  labels: { code: string; name: string },
  problems: string[],
): Institution | undefined {
  const before = problems.length;
  const name = parseText(rawName, labels.name, MAX_NAME_LENGTH, problems);
  const code = rawCode.replace(SPACES, '');
  if (code === '') {
    problems.push(`${labels.code} is required`);
    return undefined;
  }
  if (!/^\d{1,5}$/.test(code)) {
    problems.push(`${labels.code} ${show(rawCode)} is not valid (a 3-digit BCRA bank code or a 5-digit entity code)`);
    return undefined;
  }
  const padded = code.padStart(5, '0');
  const bank = padded.startsWith('00') ? padded.slice(2) : null;
  const registered = bank === null ? undefined : BCRA_ENTITIES.get(bank);
  if (registered !== undefined && bank !== null) {
    return name === undefined ? undefined : { code: bank, name: name ?? registered };
  }
  if (code.length < 5) {
    problems.push(`${labels.code} ${code} is not a known BCRA bank code (write the entity's 5-digit code)`);
    return undefined;
  }
  if (name === null) {
    problems.push(`${labels.name} is required for ${labels.code} ${code} (not in the bank registry)`);
    return undefined;
  }
  return problems.length > before || name === undefined ? undefined : { code, name };
}

export function parseCheckNumber(raw: string, label: string, problems: string[]): string | null | undefined {
  const value = raw.replace(SPACES, '');
  if (value === '') return null;
  if (!/^\d{1,15}$/.test(value)) {
    problems.push(`${label} ${show(raw)} is not valid (1 to 15 digits)`);
    return undefined;
  }
  return value;
}

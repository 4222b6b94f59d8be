// Field rules shared by the directory reader (directory-file.ts, directory-fields.ts) and the
// credit-record reader (credit-file.ts, credit-fields.ts): normalizing spreadsheet cells, quoting a
// bad value in a message, the words a person types for yes/no, tax ids, and the checks on JSON
// objects. A rule that finds a bad value pushes one message naming the field to `problems` and
// returns undefined.
import { analyzeTaxId } from '../../../shared/identifiers';

// Compiled once: these run for every row of files with up to 200,000 rows.
export const WHITESPACE_RUN = /\s+/g;

/** Lookup key for enumerated values: case- and spacing-insensitive ("Caja  de Ahorro"). */
export function enumKey(raw: string): string {
  return raw.replace(WHITESPACE_RUN, ' ').trim().toLowerCase();
}

/** A value quoted for a message, cut short so a pasted paragraph cannot flood the error list. */
export function show(raw: string): string {
  const value = raw.trim();
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** Code points, not UTF-16 units, so a name is not cut short by characters outside the BMP. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Yes/no as spreadsheets and people write it, keyed by enumKey. */
export const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['1', true],
  ['yes', true],
  ['si', true],
  ['sí', true],
  // "sí" typed with a combining accent (macOS keyboards and some PDF copies produce it).
  ['si\u0301', true],
  ['false', false],
  ['0', false],
  ['no', false],
]);

export interface ParsedTaxId {
  taxId: string;
  formatted: string;
  isIndividual: boolean;
  type: 'CUIT' | 'CUIL';
}

export function parseTaxId(raw: string, label: string, problems: string[]): ParsedTaxId | undefined {
  if (raw.trim() === '') {
    problems.push(`${label} is required`);
    return undefined;
  }
  const analysis = analyzeTaxId(raw);
  if (!analysis.ok) {
    problems.push(`${label}: ${analysis.message}`);
    return undefined;
  }
  return { taxId: analysis.taxId, formatted: analysis.formatted, isIndividual: analysis.isIndividual, type: analysis.defaultType };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Unknown keys are rejected, like unknown CSV columns: a typo ("acount_type") must not silently drop a value. */
export function unknownKeys(object: Record<string, unknown>, allowed: ReadonlySet<string>, prefix: string): string[] {
  return Object.keys(object)
    .filter((key) => !allowed.has(key))
    .map((key) => `unknown field ${prefix}${key}`);
}

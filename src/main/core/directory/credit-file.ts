// Parses a credit-record file (CSV rows or JSON reports) into the credit reports the directory
// answers live Informes lookups with. Pure and synchronous, like directory-file.ts: every bad row
// becomes one error naming its line, and the caller chooses all-or-nothing or skipping.
//
// CSV: one row per fact, grouped by tax_id into one report per subject. `record` says what the row
// is: `subject` (the person or company, needed only for a clean record), `situation` (the debt at
// one institution in the report's period) or `check` (a bounced check). The README documents the
// columns. Totals are computed here, never read from the file.
//
// The work is split by job: credit-file-csv.ts and credit-file-json.ts read the two formats,
// credit-file-facts.ts reads one row's facts for both, credit-file-collector.ts groups them into reports.
//
// A subject with any invalid row is withheld whole, even with --skip-invalid: a report missing one
// of its debts would look better than the truth.
import { todayInArgentina } from './credit-fields';
import { stripBom } from './csv-reader';
import type { ParsedCreditFile } from './credit-file-collector';
import { parseCsv } from './credit-file-csv';
import { parseJson } from './credit-file-json';

export { CREDIT_CSV_COLUMNS } from './credit-file-csv';
export { MAX_CHECKS_PER_REPORT, MAX_SITUATIONS_PER_REPORT, type ParsedCreditFile, type WithheldSubject } from './credit-file-collector';

export interface CreditFileOptions {
  /** The clock for "in the future" checks and for the period of a clean record (default: now). */
  now?: number;
}

export function parseCreditFile(content: string, format: 'csv' | 'json', options: CreditFileOptions = {}): ParsedCreditFile {
  const text = stripBom(content);
  const today = todayInArgentina(options.now ?? Date.now());
  return format === 'json' ? parseJson(text, today) : parseCsv(text, today);
}

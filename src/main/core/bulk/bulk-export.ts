// A bulk job's results as CSV: one row per input row, in file order, with the outcome of the lookup
// that answered it. A repeated identifier shows its first row's outcome and consumes nothing on its
// own (credit_consumed sums to what the job charged; duplicate_of_row points at the first row).
import { INTERCHANGE, type CsvColumn, type CsvDialect } from '../export/csv-dialect';
import type { BulkJobStore, ExportRow } from './bulk-jobs';
import type { DamagedAnswers } from '../history/stored-answer';
import { isDamaged, storedObject } from '../db/stored-json';
import type { BulkResultRow } from '../../../shared/api/bulk';

const COLUMNS: readonly CsvColumn[] = [
  { field: 'row', es: 'Fila', en: 'Row' },
  { field: 'input', es: 'Entrada', en: 'Input' },
  { field: 'identifier', es: 'Identificador', en: 'Identifier' },
  { field: 'type', es: 'Tipo', en: 'Type' },
  { field: 'status', es: 'Estado', en: 'Status' },
  { field: 'http_status', es: 'HTTP', en: 'HTTP' },
  { field: 'code', es: 'Código', en: 'Code' },
  { field: 'message', es: 'Mensaje', en: 'Message' },
  { field: 'credit_consumed', es: 'Créditos', en: 'Credits' },
  { field: 'duplicate_of_row', es: 'Repite la fila', en: 'Duplicate of row' },
  { field: 'holder_names', es: 'Titulares', en: 'Holders' },
  { field: 'holder_tax_ids', es: 'CUIT/CUIL', en: 'Tax IDs' },
  { field: 'bank', es: 'Banco', en: 'Bank' },
  { field: 'lookup_id', es: 'ID de consulta', en: 'Lookup ID' },
];

/** The interchange CSV's column names (`titular bulk export`). */
export const BULK_CSV_COLUMNS = COLUMNS.map((c) => c.field);

export type BulkRowStatus = 'SUCCESS' | 'ERROR' | 'INVALID' | 'PENDING';

const PAGE_SIZE = 5_000;

/**
 * The CSV in chunks (header first), read a page at a time so no statement stays open between chunks.
 * A row whose lookup's stored answer cannot be read is exported without its holders and bank, and
 * counted in `damaged` for the caller to say (history/stored-answer.ts).
 */
export function* bulkCsvChunks(store: BulkJobStore, jobId: string, dialect: CsvDialect = INTERCHANGE, damaged?: DamagedAnswers): Generator<string> {
  yield dialect.header(COLUMNS);
  let after = 0;
  for (;;) {
    const page = store.exportPage(jobId, after, PAGE_SIZE);
    if (page.length === 0) return;
    yield page.map((row) => bulkCsvRow(row, dialect, damaged)).join('');
    after = page.at(-1)!.row;
  }
}

export function rowStatus(row: ExportRow): BulkRowStatus {
  if (row.invalid !== null || row.key === null) return 'INVALID';
  if (row.completedAt === null) return 'PENDING';
  return row.httpStatus === 200 ? 'SUCCESS' : 'ERROR';
}

function bulkCsvRow(row: ExportRow, dialect: CsvDialect, damaged: DamagedAnswers | undefined): string {
  const result = resultRow(row);
  // Exported without its holders and bank, and counted for the caller to say (history/stored-answer.ts).
  if (result.damaged) damaged?.note(row.lookupId ?? '', row.row);
  return dialect.row([
    row.row,
    row.raw,
    row.identifier ?? '',
    row.key ? row.key.slice(0, row.key.indexOf(':')) : '',
    dialect.word(result.status),
    row.httpStatus ?? '',
    // Also a pending row's last code (a GE500 to retry), which the screen does not show.
    row.code ?? '',
    dialect.message(result.message ?? ''),
    result.creditConsumed,
    result.duplicateOfRow ?? '',
    result.holders.map((h) => h.name).join('; '),
    result.holders.map((h) => h.taxId).join('; '),
    result.bank ?? '',
    row.lookupId ?? '',
  ]);
}

/**
 * The rows after row `afterRow` (at most `limit`) as the desktop's results table shows them, and the
 * row to ask after for the next page (null at the end). The CSV's rows are made from the same facts.
 */
export function bulkResultPage(store: BulkJobStore, jobId: string, afterRow: number, limit: number): { rows: BulkResultRow[]; next: number | null } {
  const page = store.exportPage(jobId, afterRow, limit + 1);
  const rows = page.slice(0, limit).map(resultRow);
  return { rows, next: page.length > limit ? rows.at(-1)!.row : null };
}

/** What a row says: its outcome, its charge (the first of its identifier's rows pays), holders and bank. */
function resultRow(row: ExportRow): BulkResultRow {
  const status = rowStatus(row);
  const answer = row.responseData ? storedObject(row.responseData) : null;
  const damaged = answer !== null && isDamaged(answer);
  const data = damaged ? null : answer;
  const first = row.firstRow === row.row;
  const bank = bankOf(data);
  return {
    row: row.row,
    input: row.raw,
    identifier: status === 'INVALID' ? null : row.identifier,
    status,
    code: status === 'SUCCESS' || status === 'INVALID' || status === 'PENDING' ? null : row.code,
    message: status === 'INVALID' ? (row.invalid ?? '') : errorMessage(data) || null,
    creditConsumed: first && status !== 'PENDING' ? (row.creditConsumed ?? 0) : 0,
    duplicateOfRow: row.firstRow !== null && !first ? row.firstRow : null,
    holders: holdersOf(data),
    bank: bank || null,
    report: reportOf(data),
    damaged,
  };
}

/** A credit report's figures, read defensively from the stored answer (null for an account). */
function reportOf(data: Record<string, unknown> | null): BulkResultRow['report'] {
  const totals = object(data?.totals);
  if (!totals) return null;
  const worst = totals.worst_classification;
  const checks = data?.bounced_checks;
  return {
    worstClassification: typeof worst === 'number' && Number.isInteger(worst) ? worst : null,
    totalAmount: typeof totals.amount === 'number' ? totals.amount : 0,
    bouncedChecks: Array.isArray(checks) ? checks.length : 0,
  };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const object = (value: unknown): Record<string, unknown> | null =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** Account holders of a CBU lookup, or the subject of a credit report. */
function holdersOf(data: Record<string, unknown> | null): { name: string; taxId: string }[] {
  if (!data) return [];
  if (Array.isArray(data.holders)) {
    return data.holders.map((h) => object(h)).filter((h) => h !== null).map((h) => ({ name: text(h.full_name), taxId: text(h.tax_id) }));
  }
  const subject = object(data.subject);
  return subject ? [{ name: text(subject.full_name), taxId: text(subject.tax_id) }] : [];
}

function bankOf(data: Record<string, unknown> | null): string {
  return text(object(data?.bank)?.name);
}

function errorMessage(data: Record<string, unknown> | null): string {
  return text(object(data?.error)?.message);
}

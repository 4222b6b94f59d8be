// The input of a bulk job: a pasted list (one identifier per line) or a CSV file with an
// `identifier` column and an optional `type` column. Each row is normalized the way the Consulta
// screen does it (spaces and dashes stripped) and either becomes an item key or is invalid with a
// message. Rows that name the same item are one lookup.
import { createHash } from 'node:crypto';
import type { ProductSlug } from '../../../shared/api/common';
import { IDENTIFIER_HEADERS, TYPE_HEADERS, bulkCsvDelimiter } from '../../../shared/bulk-header';
import { analyzeAlias, analyzeCbu, analyzeTaxId, normalizeIdentifierInput } from '../../../shared/identifiers';
import type { InputType } from '../history/history';
import { maskKeys, maskKeysAndRandomParts } from '../keys/secrets';
import { CsvReader, UNTERMINATED_QUOTE } from '../directory/csv-reader';

export type BulkItemType = 'cbu' | 'alias' | 'cuit';

export interface BulkItemRef {
  /** "<inputType>:<normalized>": the same account or CUIT written differently is one item. */
  key: string;
  /** What is sent to the lookup: 22 digits, the alias as first written, or 11 digits. */
  identifier: string;
  type: BulkItemType;
  inputType: InputType;
}

export interface BulkInputRow {
  /** The line of the input the row starts on (1-based; a CSV header is line 1). */
  row: number;
  /** The identifier as written (bounded), for the export. */
  raw: string;
  item: BulkItemRef | null;
  /** Why the row is invalid; null when it has an item. */
  invalid: string | null;
}

export interface BulkInput {
  format: 'list' | 'csv';
  rows: BulkInputRow[];
  /** Distinct items in the order of their first row. */
  items: (BulkItemRef & { firstRow: number })[];
}

export const MAX_BULK_ROWS = 1_000_000;
const MAX_RAW = 200;

export class BulkInputError extends Error {
  override name = 'BulkInputError';
}

/** SHA-256 of product and content: running the same file again for the same product finds its job. */
export function bulkInputHash(product: ProductSlug, content: string): string {
  return createHash('sha256').update(product).update('\0').update(content).digest('hex');
}

export function parseBulkInput(content: string, product: ProductSlug): BulkInput {
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  // The first non-blank line decides: a header naming an identifier column makes a CSV (quoted
  // cells may span lines); anything else is a list, one identifier per physical line.
  const firstLine = /^[^\n]*\S[^\n]*$/m.exec(text)?.[0].replace(/\r$/, '') ?? '';
  const delimiter = bulkCsvDelimiter(firstLine);
  const header = (new CsvReader(firstLine, delimiter.charCodeAt(0)).next()?.fields ?? []).map((c) => c.trim().toLowerCase());
  const identifierColumn = header.findIndex((c) => IDENTIFIER_HEADERS.has(c));
  const csv = identifierColumn !== -1;
  // No identifier, CBU or alias holds a separator: a first line with one is a CSV header that names
  // no identifier column. Read as a list, each of its rows would be refused one by one, and the run
  // would "complete" having looked up nothing.
  if (!csv && /[,;\t]/.test(firstLine)) {
    throw new BulkInputError(`The CSV has no "identifier" column: its first line is ${JSON.stringify(maskKeys(firstLine).slice(0, 80))}; name the column of CBUs, CVUs or aliases "identifier" (or "identificador", "cbu", "alias", "cuit")`);
  }
  const typeColumn = csv ? header.findIndex((c) => TYPE_HEADERS.has(c)) : -1;
  const records = csv ? csvRecords(text, delimiter) : listRecords(text);

  const rows: BulkInputRow[] = [];
  const items = new Map<string, BulkItemRef & { firstRow: number }>();
  for (const record of records) {
    if (record.header || record.cells.every((c) => c.trim() === '')) continue;
    const raw = csv ? (record.cells[identifierColumn] ?? '') : unquote(record.cells[0]!.trim());
    const declared = typeColumn === -1 ? '' : (record.cells[typeColumn] ?? '').trim().toLowerCase();
    if (rows.length >= MAX_BULK_ROWS) throw new BulkInputError(`The input has more than ${MAX_BULK_ROWS.toLocaleString('en')} rows; split it into smaller files`);
    // A quote that never closes would make the rest of the file one cell: refuse the file (as the
    // directory import does) rather than lose those rows. Other broken quoting is an invalid row.
    if (record.error === UNTERMINATED_QUOTE) throw new BulkInputError(`Line ${record.line}: ${UNTERMINATED_QUOTE}`);
    const classified = record.error ? { invalid: `Malformed CSV row: ${record.error}` } : classifyIdentifier(raw, declared, product);
    // An API key pasted into the input must not land in the database (decisions "Keys"), nor its
    // random part alone: the row, and a message that quotes the type column, keep them masked as
    // single lookups do.
    const masked = maskKeysAndRandomParts(raw.trim());
    const stored = masked.length > MAX_RAW ? `${masked.slice(0, MAX_RAW)}…` : masked;
    if ('invalid' in classified) {
      rows.push({ row: record.line, raw: stored, item: null, invalid: maskKeysAndRandomParts(classified.invalid) });
      continue;
    }
    rows.push({ row: record.line, raw: stored, item: classified, invalid: null });
    if (!items.has(classified.key)) items.set(classified.key, { ...classified, firstRow: record.line });
  }
  return { format: csv ? 'csv' : 'list', rows, items: [...items.values()] };
}

interface InputRecord {
  line: number;
  cells: string[];
  /** The CSV's header (skipped). */
  header?: boolean;
  error?: string;
}

/**
 * CSV records, read as the directory import reads them (CsvReader): quoted cells may span lines, a
 * quote inside an unquoted cell is literal (`screen 15" monitor`), and broken quoting is reported.
 * The first non-blank record is the header.
 */
function* csvRecords(text: string, delimiter: string): Generator<InputRecord> {
  const reader = new CsvReader(text, delimiter.charCodeAt(0));
  let header = true;
  for (let record = reader.next(); record !== null; record = reader.next()) {
    const blank = record.error === undefined && record.fields.every((c) => c.trim() === '');
    yield { line: record.line, cells: record.fields, header: header && !blank, error: record.error };
    if (!blank) header = false;
  }
}

function listRecords(text: string): InputRecord[] {
  return text.split('\n').map((line, i) => ({ line: i + 1, cells: [line.replace(/\r$/, '')] }));
}

/**
 * One identifier of a `product` job. `declared` is the row's type column (empty = detect: digits
 * with separators are a CBU/CVU, anything else an alias).
 */
export function classifyIdentifier(raw: string, declared: string, product: ProductSlug): BulkItemRef | { invalid: string } {
  const trimmed = raw.trim();
  if (trimmed === '') return { invalid: 'The identifier is empty' };
  if (product === 'informes') {
    if (declared !== '' && declared !== 'cuit' && declared !== 'cuil') return { invalid: `type must be cuit or cuil in a credit report job (got "${declared}")` };
    const analysis = analyzeTaxId(trimmed);
    if (!analysis.ok) return { invalid: analysis.message };
    return { key: `CUIT:${analysis.taxId}`, identifier: analysis.taxId, type: 'cuit', inputType: 'CUIT' };
  }
  let type: 'cbu' | 'alias';
  if (declared === 'cbu' || declared === 'cvu') type = 'cbu';
  else if (declared === 'alias') type = 'alias';
  else if (declared === 'cuit' || declared === 'cuil') return { invalid: 'A CUIT/CUIL is looked up in a credit report (Informes) job' };
  else if (declared !== '') return { invalid: `type must be cbu, cvu or alias (got "${declared}")` };
  else type = /^\d+$/.test(normalizeIdentifierInput(trimmed)) ? 'cbu' : 'alias';

  if (type === 'cbu') {
    const analysis = analyzeCbu(trimmed);
    if (!analysis.ok) return { invalid: analysis.message };
    return { key: `${analysis.scheme}:${analysis.number}`, identifier: analysis.number, type: 'cbu', inputType: analysis.scheme };
  }
  const analysis = analyzeAlias(trimmed);
  if (!analysis.ok) return { invalid: analysis.message };
  return { key: `ALIAS:${analysis.key}`, identifier: analysis.alias, type: 'alias', inputType: 'ALIAS' };
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/""/g, '"') : value;
}

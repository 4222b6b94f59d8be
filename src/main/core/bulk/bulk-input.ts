// The input of a bulk job: a pasted list (one identifier per line) or a CSV file with an
// `identifier` column and an optional `type` column. Each row is normalized the way the Consulta
// screen does it (spaces and dashes stripped) and either becomes an item key or is invalid with a
// message. Rows that name the same item are one lookup.
import { createHash } from 'node:crypto';
import type { ProductSlug } from '../../../shared/api/common';
import { analyzeAlias, analyzeCbu, analyzeTaxId, normalizeIdentifierInput } from '../../../shared/identifiers';
import type { InputType } from '../history/history';
import { maskKeys } from '../keys/secrets';

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
const IDENTIFIER_HEADERS = new Set(['identifier', 'identificador']);
const TYPE_HEADERS = new Set(['type', 'tipo']);

export class BulkInputError extends Error {
  override name = 'BulkInputError';
}

/** SHA-256 of product and content: running the same file again for the same product finds its job. */
export function bulkInputHash(product: ProductSlug, content: string): string {
  return createHash('sha256').update(product).update('\0').update(content).digest('hex');
}

export function parseBulkInput(content: string, product: ProductSlug): BulkInput {
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  // The first non-blank line decides: a header naming an `identifier` column makes a CSV (quoted
  // cells may span lines); anything else is a list, one identifier per physical line.
  const firstLine = /^[^\n]*\S[^\n]*$/m.exec(text)?.[0].replace(/\r$/, '') ?? '';
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const header = splitCells(firstLine, delimiter).map((c) => c.trim().toLowerCase());
  const identifierColumn = header.findIndex((c) => IDENTIFIER_HEADERS.has(c));
  const csv = identifierColumn !== -1;
  const typeColumn = csv ? header.findIndex((c) => TYPE_HEADERS.has(c)) : -1;
  const records = csv ? splitRecords(text) : splitLines(text);
  const first = records.find((r) => r.text.trim() !== '');

  const rows: BulkInputRow[] = [];
  const items = new Map<string, BulkItemRef & { firstRow: number }>();
  for (const record of records) {
    if (record === first && csv) continue;
    if (record.text.trim() === '') continue;
    let raw: string;
    let declared = '';
    if (csv) {
      const cells = splitCells(record.text, delimiter);
      if (cells.every((c) => c.trim() === '')) continue;
      raw = cells[identifierColumn] ?? '';
      declared = typeColumn === -1 ? '' : (cells[typeColumn] ?? '').trim().toLowerCase();
    } else {
      raw = unquote(record.text.trim());
    }
    if (rows.length >= MAX_BULK_ROWS) throw new BulkInputError(`The input has more than ${MAX_BULK_ROWS.toLocaleString('en')} rows; split it into smaller files`);
    const classified = classifyIdentifier(raw, declared, product);
    // An API key pasted into the input must not land in the database (decisions "Keys"): the row,
    // and a message that quotes the type column, keep it masked as single lookups do.
    const masked = maskKeys(raw.trim());
    const stored = masked.length > MAX_RAW ? `${masked.slice(0, MAX_RAW)}…` : masked;
    if ('invalid' in classified) {
      rows.push({ row: record.line, raw: stored, item: null, invalid: maskKeys(classified.invalid) });
      continue;
    }
    rows.push({ row: record.line, raw: stored, item: classified, invalid: null });
    if (!items.has(classified.key)) items.set(classified.key, { ...classified, firstRow: record.line });
  }
  return { format: csv ? 'csv' : 'list', rows, items: [...items.values()] };
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

/** Splits text into records, keeping quoted line breaks inside their record (RFC 4180). */
function splitRecords(text: string): { line: number; text: string }[] {
  const records: { line: number; text: string }[] = [];
  let start = 0;
  let line = 1;
  let startLine = 1;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) quoted = !quoted;
    else if (ch === 10 /* \n */) {
      if (!quoted) {
        records.push({ line: startLine, text: text.slice(start, i).replace(/\r$/, '') });
        start = i + 1;
        startLine = line + 1;
      }
      line++;
    }
  }
  if (start < text.length) records.push({ line: startLine, text: text.slice(start).replace(/\r$/, '') });
  return records;
}

function splitLines(text: string): { line: number; text: string }[] {
  return text.split('\n').map((line, i) => ({ line: i + 1, text: line.replace(/\r$/, '') }));
}

function splitCells(record: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const ch = record[i]!;
    if (quoted) {
      if (ch === '"' && record[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/""/g, '"') : value;
}

// A history row (lookups) as the history reads it. Titular writes each column from a closed set — a
// status is SUCCESS or ERROR, a source WEB, API or BULK, credits 0 or 1, a date whole milliseconds —
// but the table's columns take any value (SQLite keeps what it is given), so a cell can still come
// back as something else: written by another tool, or a bit flipped on disk while SQLite's pages
// stayed valid. One such cell used to fail the desktop's whole Historial (its channel's output
// schema refused the page), to fail every export with "Invalid time value" (a date), and to reach
// `GET /api/v1/history` and the exports as a value outside the contract ("status": "PENDING").
//
// Such a field is read as null here and named in the entry's `damaged` list, with everything else
// the row holds as recorded, as an unreadable answer is read as `{ "damaged": true }`
// (stored-answer.ts). The desktop and the exports list the entry, marked; the HTTP API, whose shape
// has no null and no way to say "unknown", leaves it out rather than invent a status or a source
// (contractEntry), and the host's log names it.
import type { HistoryEntry, KeyedHistoryEntry, DamagedField } from '../../../shared/api/history';
import type { InputType } from './history';
import type { LookupSource, LookupStatus } from '../../../shared/api/common';
import { DAMAGED, isDamaged, storedObject } from '../db/stored-json';

/** A row as the history's statements select it: each column as SQLite gives it back, whatever Titular wrote. */
export interface Row {
  id: string;
  input_identifier: unknown;
  input_type: unknown;
  status: unknown;
  source: unknown;
  response_data: unknown;
  upstream_latency_ms: unknown;
  credit_consumed: unknown;
  created_at: unknown;
  user_id: string;
  user_name: string | null;
  user_email: string | null;
  api_key_id: string | null;
  key_name: string | null;
  key_prefix: string | null;
}

const INPUT_TYPES: ReadonlySet<unknown> = new Set<InputType>(['CBU', 'CVU', 'ALIAS', 'CUIT']);
const STATUSES: ReadonlySet<unknown> = new Set<LookupStatus>(['SUCCESS', 'ERROR']);
const SOURCES: ReadonlySet<unknown> = new Set<LookupSource>(['WEB', 'API', 'BULK']);
/** The range of a JavaScript Date: a time outside it has no ISO form. */
const MAX_TIME_MS = 8.64e15;

const oneOf = <T>(values: ReadonlySet<unknown>, value: unknown): T | null => (values.has(value) ? (value as T) : null);
const wholeAtLeastZero = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);

export function toEntry(row: Row): KeyedHistoryEntry {
  const damaged: DamagedField[] = [];
  /** The value, or null with its field named as damaged. */
  const read = <T>(field: DamagedField, value: T | null): T | null => {
    if (value === null) damaged.push(field);
    return value;
  };
  const inputIdentifier = read('inputIdentifier', typeof row.input_identifier === 'string' ? row.input_identifier : null);
  const inputType = read('inputType', oneOf<InputType>(INPUT_TYPES, row.input_type));
  const status = read('status', oneOf<LookupStatus>(STATUSES, row.status));
  const source = read('source', oneOf<LookupSource>(SOURCES, row.source));
  // A row whose stored answer is not readable JSON is still listed, marked (db/stored-json.ts).
  const responseData = typeof row.response_data === 'string' ? storedObject(row.response_data) : DAMAGED;
  if (isDamaged(responseData)) damaged.push('responseData');
  const upstreamLatencyMs = read('upstreamLatencyMs', wholeAtLeastZero(row.upstream_latency_ms));
  // A lookup is charged one credit or none.
  const creditConsumed = read('creditConsumed', row.credit_consumed === 0 || row.credit_consumed === 1 ? row.credit_consumed : null);
  const createdAt = read(
    'createdAt',
    typeof row.created_at === 'number' && Number.isSafeInteger(row.created_at) && Math.abs(row.created_at) <= MAX_TIME_MS ? new Date(row.created_at).toISOString() : null,
  );
  return {
    id: row.id,
    inputIdentifier,
    inputType,
    status,
    source,
    responseData,
    upstreamLatencyMs,
    creditConsumed,
    createdAt,
    user: { id: row.user_id, name: row.user_name ?? '', email: row.user_email ?? '' },
    apiKey: row.api_key_id === null ? null : { id: row.api_key_id, name: row.key_name, prefix: row.key_prefix ?? '' },
    ...(damaged.length > 0 ? { damaged } : {}),
  };
}

/**
 * The entry in the contract's shape (spec 2.3: its fields only, each within its set), or null when one
 * of them cannot be read: the contract has no null and no "unknown" status or source, and any value in
 * its place would be invented. An unreadable answer alone keeps the entry, as `{ "damaged": true }`.
 */
export function contractEntry(entry: KeyedHistoryEntry): HistoryEntry | null {
  const { id, inputIdentifier, inputType, status, source, responseData, upstreamLatencyMs, creditConsumed, createdAt, user } = entry;
  if (inputIdentifier === null || inputType === null || status === null || source === null) return null;
  if (upstreamLatencyMs === null || creditConsumed === null || createdAt === null) return null;
  return { id, inputIdentifier, inputType, status, source, responseData, upstreamLatencyMs, creditConsumed, createdAt, user };
}

/** The damaged fields in words ("status and source"), for the CLI's warnings and the host's log. */
export function fieldWords(fields: readonly DamagedField[]): string {
  const words = fields.map((field) => FIELD_WORDS[field]);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const FIELD_WORDS: Record<DamagedField, string> = {
  inputIdentifier: 'identifier',
  inputType: 'type',
  status: 'status',
  source: 'source',
  responseData: 'stored answer',
  upstreamLatencyMs: 'source latency',
  creditConsumed: 'credits',
  createdAt: 'date',
};

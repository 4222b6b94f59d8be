// The history as CSV: one row per entry, the columns an operator needs in a spreadsheet. Shared by
// `titular history export` (the interchange form) and the desktop's "Exportar CSV" (in the screen's
// language): see export/csv-dialect.ts.
import type { KeyedHistoryEntry } from '../../../shared/api/history';
import { INTERCHANGE, type CsvColumn, type CsvDialect } from '../export/csv-dialect';

export const HISTORY_CSV_COLUMNS: readonly CsvColumn[] = [
  { field: 'id', es: 'ID de consulta', en: 'Lookup ID' },
  { field: 'createdAt', es: 'Fecha', en: 'Date' },
  { field: 'inputIdentifier', es: 'Identificador', en: 'Identifier' },
  { field: 'inputType', es: 'Tipo', en: 'Type' },
  { field: 'status', es: 'Estado', en: 'Status' },
  { field: 'source', es: 'Origen', en: 'Source' },
  { field: 'creditConsumed', es: 'Créditos', en: 'Credits' },
  { field: 'upstreamLatencyMs', es: 'Demora de la fuente (ms)', en: 'Source latency (ms)' },
  { field: 'userEmail', es: 'Usuario', en: 'User' },
  { field: 'apiKey', es: 'Clave de API', en: 'API key' },
  { field: 'holderNames', es: 'Titulares', en: 'Holders' },
  { field: 'errorCode', es: 'Código de error', en: 'Error code' },
];

/** The interchange CSV's column names (`titular history export`). */
export const CSV_COLUMNS = HISTORY_CSV_COLUMNS.map((c) => c.field);

export function historyCsvHeader(dialect: CsvDialect = INTERCHANGE): string {
  return dialect.header(HISTORY_CSV_COLUMNS);
}

/** The account's holders, or a credit report's subject (as the bulk export's Titulares has them). */
function holderNames(entry: KeyedHistoryEntry): string {
  const holders = entry.responseData.holders;
  if (!Array.isArray(holders)) {
    const subject = entry.responseData.subject;
    const name = subject && typeof subject === 'object' ? (subject as { full_name?: unknown }).full_name : undefined;
    return typeof name === 'string' ? name : '';
  }
  return holders
    .map((h: unknown) => (h && typeof h === 'object' && typeof (h as { full_name?: unknown }).full_name === 'string' ? (h as { full_name: string }).full_name : ''))
    .filter(Boolean)
    .join('; ');
}

function errorCode(entry: KeyedHistoryEntry): string {
  const error = entry.responseData.error;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
  return '';
}

/** The key a lookup came through, as Claves shows it: its name and prefix, or the prefix alone; empty for the desktop's. */
function apiKey(entry: KeyedHistoryEntry): string {
  if (!entry.apiKey) return '';
  return entry.apiKey.name ? `${entry.apiKey.name} (${entry.apiKey.prefix})` : entry.apiKey.prefix;
}

/** A field whose stored cell cannot be read (null: history/stored-entry.ts) is an empty cell. */
export function historyCsvRow(entry: KeyedHistoryEntry, dialect: CsvDialect = INTERCHANGE): string {
  return dialect.row([
    entry.id,
    entry.createdAt === null ? '' : dialect.time(Date.parse(entry.createdAt)),
    entry.inputIdentifier ?? '',
    entry.inputType ?? '',
    entry.status === null ? '' : dialect.word(entry.status),
    entry.source === null ? '' : dialect.word(entry.source),
    entry.creditConsumed ?? '',
    entry.upstreamLatencyMs ?? '',
    entry.user.email,
    apiKey(entry),
    holderNames(entry),
    errorCode(entry),
  ]);
}

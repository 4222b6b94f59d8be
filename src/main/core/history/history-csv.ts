// The history as CSV: one row per entry, the columns an operator needs in a spreadsheet. Shared by
// `titular history export` and the desktop's "Exportar CSV".
import type { HistoryEntry } from '../../../shared/api/history';

export const CSV_COLUMNS = [
  'id',
  'createdAt',
  'inputIdentifier',
  'inputType',
  'status',
  'source',
  'creditConsumed',
  'upstreamLatencyMs',
  'userEmail',
  'holderNames',
  'errorCode',
] as const;

/**
 * One CSV cell (RFC 4180). A cell a spreadsheet would read as a formula (= + - @, or a leading
 * tab/CR) gets a leading apostrophe so opening the export cannot run anything.
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: readonly (string | number)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function holderNames(entry: HistoryEntry): string {
  const holders = entry.responseData.holders;
  if (!Array.isArray(holders)) return '';
  return holders
    .map((h: unknown) => (h && typeof h === 'object' && typeof (h as { full_name?: unknown }).full_name === 'string' ? (h as { full_name: string }).full_name : ''))
    .filter(Boolean)
    .join('; ');
}

function errorCode(entry: HistoryEntry): string {
  const error = entry.responseData.error;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string') return (error as { code: string }).code;
  return '';
}

export function historyCsvRow(entry: HistoryEntry): string {
  return csvRow([
    entry.id,
    entry.createdAt,
    entry.inputIdentifier,
    entry.inputType,
    entry.status,
    entry.source,
    entry.creditConsumed,
    entry.upstreamLatencyMs,
    entry.user.email,
    holderNames(entry),
    errorCode(entry),
  ]);
}

// How an export says things. The CLI's `history export` and `bulk export` write the interchange form
// that tools read: the field names, the stored values, ISO times in UTC, commas. The desktop's
// "Exportar CSV" buttons write a file for the person who pressed them, who opens it in a spreadsheet
// in the screen's language:
// - Spanish: cells split at ";" (Excel set to es-AR, as these back offices run it, splits a CSV at
//   its list separator, ";", and shows a comma-separated file as one column), times as
//   dd/mm/aaaa hh:mm:ss (which that Excel reads as a date), statuses and sources in Spanish, and the
//   core's English messages in Spanish wherever src/shared/messages-es.ts knows them.
// - English: commas, yyyy-mm-dd hh:mm:ss, the screen's English words.
// Times are the machine's local time, as the screens show them.
import type { Language } from '../../../shared/language';
import { serverMessageInSpanish } from '../../../shared/messages-es';
import { csvRow, type CsvSeparator } from './csv';

/** A column of an export: its interchange name and its header in each language. */
export interface CsvColumn {
  field: string;
  es: string;
  en: string;
}

export type CsvForm = 'interchange' | Language;

export interface CsvDialect {
  readonly form: CsvForm;
  readonly separator: CsvSeparator;
  /** The header row of these columns. */
  header(columns: readonly CsvColumn[]): string;
  row(cells: readonly (string | number)[]): string;
  /** An instant (epoch ms). */
  time(at: number): string;
  /** A stored word (a status, a source) as the reader says it. */
  word(value: string): string;
  /** A message of the core (stored in English). */
  message(text: string): string;
}

const WORDS: Record<Language, Record<string, string>> = {
  es: { SUCCESS: 'Exitosa', ERROR: 'Error', INVALID: 'Inválida', PENDING: 'Pendiente', WEB: 'Escritorio', API: 'API', BULK: 'Lote' },
  en: { SUCCESS: 'Success', ERROR: 'Error', INVALID: 'Invalid', PENDING: 'Pending', WEB: 'Desktop', API: 'API', BULK: 'Batch' },
};

const two = (n: number): string => String(n).padStart(2, '0');

/** The local calendar day of an instant, yyyy-mm-dd (the exports' file names). */
export function localDay(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

function localTime(at: number): string {
  const d = new Date(at);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export const INTERCHANGE: CsvDialect = {
  form: 'interchange',
  separator: ',',
  header: (columns) => csvRow(columns.map((c) => c.field)),
  row: (cells) => csvRow(cells),
  time: (at) => new Date(at).toISOString(),
  word: (value) => value,
  message: (text) => text,
};

const SPREADSHEET: Record<Language, CsvDialect> = {
  es: {
    form: 'es',
    separator: ';',
    header: (columns) => csvRow(columns.map((c) => c.es), ';'),
    row: (cells) => csvRow(cells, ';'),
    time: (at) => {
      const [year, month, day] = localDay(at).split('-');
      return `${day}/${month}/${year} ${localTime(at)}`;
    },
    word: (value) => WORDS.es[value] ?? value,
    message: (text) => serverMessageInSpanish(text) ?? text,
  },
  en: {
    form: 'en',
    separator: ',',
    header: (columns) => csvRow(columns.map((c) => c.en)),
    row: (cells) => csvRow(cells),
    time: (at) => `${localDay(at)} ${localTime(at)}`,
    word: (value) => WORDS.en[value] ?? value,
    message: (text) => text,
  },
};

export function csvDialect(form: CsvForm): CsvDialect {
  return form === 'interchange' ? INTERCHANGE : SPREADSHEET[form];
}

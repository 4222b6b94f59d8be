// How an export says things. The CLI's `history export` and `bulk export` write the interchange form
// that tools read: the field names, the stored values, ISO times in UTC, commas. The desktop's
// "Exportar CSV" buttons write a file for the person who pressed them, who opens it in a spreadsheet
// in the screen's language:
// - Spanish: cells split at ";" (Excel set to es-AR, as these back offices run it, splits a CSV at
//   its list separator, ";", and shows a comma-separated file as one column), times as
//   dd/mm/aaaa hh:mm:ss (which that Excel reads as a date), statuses and sources in Spanish, and the
//   core's English messages in Spanish wherever src/shared/messages-es.ts knows them.
// - English: commas, yyyy-mm-dd hh:mm:ss, the screens' English words (src/shared/stored-words.ts).
// In both, times are in the screen's time zone (the browser's, in browser mode; this process's when
// none is given), as the table shows them, a CBU stays 22 digits (csvDigitsAsText), and the file
// starts with a BOM so Excel reads it as UTF-8 (accents, ñ).
import type { Language } from '../../../shared/language';
import { serverMessageInSpanish } from '../../../shared/messages-es';
import { STORED_WORDS } from '../../../shared/stored-words';
import { calendarDay, wallClock } from '../time/wall-clock';
import { csvCell, csvDigitsAsText, csvRow, type CsvSeparator } from './csv';

/** A column of an export: its interchange name and its header in each language. */
export interface CsvColumn {
  field: string;
  es: string;
  en: string;
}

export type CsvForm = 'interchange' | Language;

export interface CsvDialect {
  readonly form: CsvForm;
  /** The file's first line: the header row of these columns (after a BOM in the spreadsheet forms). */
  header(columns: readonly CsvColumn[]): string;
  row(cells: readonly (string | number)[]): string;
  /** An instant (epoch ms). */
  time(at: number): string;
  /** The calendar day of an instant, yyyy-mm-dd (the file names). */
  day(at: number): string;
  /** A stored word (a status, a source) as the reader says it. */
  word(value: string): string;
  /** A message of the core (stored in English). */
  message(text: string): string;
}

/** Digits a spreadsheet would mangle as a number: more than 15 of them, or a leading zero. */
const MANGLED_AS_NUMBER = /^(?:0\d+|\d{16,})$/;

export const INTERCHANGE: CsvDialect = {
  form: 'interchange',
  header: (columns) => csvRow(columns.map((c) => c.field)),
  row: (cells) => csvRow(cells),
  time: (at) => new Date(at).toISOString(),
  day: (at) => new Date(at).toISOString().slice(0, 10),
  word: (value) => value,
  message: (text) => text,
};

function spreadsheet(language: Language, timeZone: string | undefined): CsvDialect {
  const separator: CsvSeparator = language === 'es' ? ';' : ',';
  const clock = wallClock(timeZone);
  const words: Record<string, string> = { ...STORED_WORDS[language].statuses, ...STORED_WORDS[language].sources };
  const cell = (value: string | number) => (typeof value === 'string' && MANGLED_AS_NUMBER.test(value) ? csvDigitsAsText(value) : csvCell(value));
  return {
    form: language,
    header: (columns) => `\uFEFF${csvRow(columns.map((c) => c[language]), separator)}`,
    row: (cells) => csvRow(cells, separator, cell),
    time: (at) => {
      const t = clock(at);
      const date = language === 'es' ? `${t.day}/${t.month}/${t.year}` : `${t.year}-${t.month}-${t.day}`;
      return `${date} ${t.hour}:${t.minute}:${t.second}`;
    },
    day: calendarDay(timeZone),
    word: (value) => words[value] ?? value,
    message: (text) => (language === 'es' ? (serverMessageInSpanish(text) ?? text) : text),
  };
}

/** The dialect of an export; `timeZone` (an IANA name, checked by the caller) for the spreadsheet forms. */
export function csvDialect(form: CsvForm, timeZone?: string): CsvDialect {
  return form === 'interchange' ? INTERCHANGE : spreadsheet(form, timeZone);
}

// CSV cells and rows (RFC 4180 quoting) for every export: the CLI's interchange CSV (comma) and the
// desktop's spreadsheet CSV (semicolon in Spanish, see csv-dialect.ts).

export type CsvSeparator = ',' | ';';

/**
 * One CSV cell. A cell a spreadsheet would read as a formula (= + - @, or a leading tab/CR) gets a
 * leading apostrophe so opening the export cannot run anything. A cell holding either separator, a
 * tab, a quote or a line break is quoted, whatever the file's own separator: a spreadsheet may split
 * the file at the other one (Excel set to es-AR splits at ";", a comma file included), and an
 * unquoted "x;=cmd…" would then put a formula in a cell of its own.
 */
export function csvCell(value: string | number): string {
  let text = withoutControls(String(value));
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[,;\t"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

// Control characters other than tab and line breaks: C0, DEL and C1. An API client's invalid
// identifier is recorded as sent (the history keeps what was asked), and an escape sequence in it
// would act on the terminal a CSV is written to (`titular history export --format csv` without
// --output): retitle it, clear it, or hide what follows. No cell means one, so each is shown as U+FFFD.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

function withoutControls(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, '\ufffd') : text;
}

/**
 * Digits a spreadsheet would read as a number, kept as text: a CBU's 22 digits would lose all but 15
 * of them, and a leading zero would go. Written as the formula ="…" (the cell holds only digits, so
 * it can do nothing else), which Excel, LibreOffice and Google Sheets show as the digits.
 */
export function csvDigitsAsText(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new Error('csvDigitsAsText takes digits only');
  return `"=""${digits}"""`;
}

/** One CSV line; `encode` turns a value into its cell (default csvCell). */
export function csvRow(
  cells: readonly (string | number)[],
  separator: CsvSeparator = ',',
  encode: (value: string | number) => string = csvCell,
): string {
  return `${cells.map(encode).join(separator)}\r\n`;
}

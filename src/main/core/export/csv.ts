// CSV cells and rows (RFC 4180 quoting) for every export: the CLI's interchange CSV (comma) and the
// desktop's spreadsheet CSV (semicolon in Spanish, see csv-dialect.ts).

export type CsvSeparator = ',' | ';';

/**
 * One CSV cell. A cell a spreadsheet would read as a formula (= + - @, or a leading tab/CR) gets a
 * leading apostrophe so opening the export cannot run anything; a cell holding the separator, a
 * quote or a line break is quoted.
 */
export function csvCell(value: string | number, separator: CsvSeparator = ','): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  const quote = text.includes(separator) || /["\r\n]/.test(text);
  return quote ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: readonly (string | number)[], separator: CsvSeparator = ','): string {
  return `${cells.map((cell) => csvCell(cell, separator)).join(separator)}\r\n`;
}

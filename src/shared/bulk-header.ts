// How a bulk input says it is a CSV: its first non-blank line names an identifier column. The core
// parses by these rules (src/main/core/bulk/bulk-input.ts); the Lotes screen counts the rows it is
// about to send by them, so its count and the review's agree.

/** Header names of the identifier column, and of the optional type column (lower case). */
export const IDENTIFIER_HEADERS: ReadonlySet<string> = new Set(['identifier', 'identificador']);
export const TYPE_HEADERS: ReadonlySet<string> = new Set(['type', 'tipo']);

/** The CSV's separator, from its first line: ";" when it has semicolons and no comma (Excel in es-AR), else ",". */
export function bulkCsvDelimiter(firstLine: string): ',' | ';' {
  return firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
}

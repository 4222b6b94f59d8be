// How a bulk input says it is a CSV: its first non-blank line names an identifier column. The core
// parses by these rules (src/main/core/bulk/bulk-input.ts); the Lotes screen counts the rows it is
// about to send by them, so its count and the review's agree.

/**
 * Header names of the identifier column, and of the optional type column (lower case). A column a
 * spreadsheet calls by what it holds (CBU, Alias, CUIT) is one too: none of those words is itself a
 * CBU, an alias (6 to 20 characters) or a CUIT, so a list's first line is never mistaken for it.
 */
export const IDENTIFIER_HEADERS: ReadonlySet<string> = new Set(['identifier', 'identificador', 'cbu', 'cvu', 'cbu/cvu', 'alias', 'cuit', 'cuil', 'cuit/cuil']);
export const TYPE_HEADERS: ReadonlySet<string> = new Set(['type', 'tipo']);

/** The CSV's separator, from its first line: ";" when it has semicolons and no comma (Excel in es-AR), else ",". */
export function bulkCsvDelimiter(firstLine: string): ',' | ';' {
  return firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
}

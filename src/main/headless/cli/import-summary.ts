// What the two import commands (`directory import`, `directory import-credit`) say when they import
// nothing: after the row errors they printed, why nothing was kept and what would help.

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The last line of an import that kept nothing. A file refused whole (a bad header, invalid JSON,
 * too many rows) and a file without data rows are not helped by --skip-invalid, so it is suggested
 * only when some rows were invalid and others could have been imported.
 */
export function nothingImported(
  file: string,
  parsed: { errors: readonly unknown[]; rows: number; fileProblem?: true },
  skipInvalid: boolean,
  kept: 'rows' | 'subjects',
): string {
  const invalid = parsed.errors.length;
  if (parsed.fileProblem) return `Nothing was imported: ${file} was refused as a whole (above); --skip-invalid does not apply to that.`;
  if (parsed.rows === 0) return `Nothing was imported: ${file} has no data rows.`;
  if (skipInvalid || invalid === 0) return `Nothing was imported: ${file} has nothing valid to import${invalid > 0 ? ` (${plural(invalid, 'problem')})` : ''}.`;
  return `Nothing was imported: ${plural(invalid, 'invalid row')} in ${file}. Fix ${invalid === 1 ? 'it' : 'them'}, or pass --skip-invalid to import the valid ${kept} only.`;
}

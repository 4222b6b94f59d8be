// Generated directory accounts and bulk inputs for the bulk tests: valid check digits, fictitious
// holders, repeated identifiers written differently (dashes, spaces, alias case) and invalid rows.
import { withCheckDigits, withCuitCheckDigit } from '../../src/shared/identifiers';

export interface GeneratedDirectory {
  /** Directory CSV (the `titular directory import` format). */
  csv: string;
  numbers: string[];
  aliases: string[];
}

export function generateDirectory(count: number, offset = 0): GeneratedDirectory {
  const rows = ['cbu,alias,account_type,currency,active,holder_name,holder_tax_id'];
  const numbers: string[] = [];
  const aliases: string[] = [];
  let dni = 30_000_000 + offset * 3;
  for (let i = 0; i < count; i++) {
    const number = withCheckDigits('072', '0210', String(5_000_000 + offset + i).padStart(13, '0'));
    let taxId: string | null = null;
    while (!taxId) taxId = withCuitCheckDigit(`27${String(dni++).padStart(8, '0')}`);
    const alias = `lote.cuenta.${offset + i}`;
    numbers.push(number);
    aliases.push(alias);
    rows.push(`${number},${alias},CA,ARS,true,Titular Lote ${offset + i},${taxId}`);
  }
  return { csv: rows.join('\n'), numbers, aliases };
}

/** "0720210 2-00000050…" style: the same CBU as a person would paste it. */
export function spaced(number: string): string {
  return `${number.slice(0, 4)} ${number.slice(4, 8)}-${number.slice(8, 15)} ${number.slice(15)}`;
}

/**
 * A pasted list: every number once, every `repeatEvery`-th one again written with separators, and
 * `invalid` bad rows at the end. Returns the text and what it must count to.
 */
export function bulkList(numbers: readonly string[], options: { repeatEvery?: number; invalid?: readonly string[] } = {}) {
  const lines: string[] = [];
  let repeats = 0;
  numbers.forEach((number, i) => {
    lines.push(number);
    if (options.repeatEvery && i % options.repeatEvery === 0) {
      lines.push(spaced(number));
      repeats++;
    }
  });
  lines.push(...(options.invalid ?? []));
  return { text: `${lines.join('\n')}\n`, rows: lines.length, distinct: numbers.length, repeats, invalid: options.invalid?.length ?? 0 };
}

/** The cells of one CSV line (RFC 4180 quoting; no line breaks inside cells), split at `separator`. */
export function csvCells(line: string, separator = ','): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}

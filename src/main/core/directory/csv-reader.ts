// The CSV tokenizer the file readers share (the directory, credit records, bulk input): records
// with the line they start on, the separator Excel chose, and the BOM it writes.

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;

export interface CsvRecord {
  /** Physical line where the record starts. */
  line: number;
  fields: string[];
  /** Set when the quoting is broken; the fields are then unreliable. */
  error?: string;
}

/**
 * Excel in a Spanish locale writes ";" because "," is the decimal separator there. The header
 * has no quoted commas or semicolons, so counting them on its line is unambiguous.
 */
export function detectSeparator(text: string): number {
  let commas = 0;
  let semicolons = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) break;
    if (c === COMMA) commas++;
    else if (c === SEMICOLON) semicolons++;
  }
  return semicolons > commas ? SEMICOLON : COMMA;
}

/** Line breaks in text[from, to): CRLF, LF or a lone CR each count once. */
function countLineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) count++;
  }
  return count;
}

/** A record's error when a quoted field never closes: the rest of the text would be that one field. */
export const UNTERMINATED_QUOTE = 'unterminated quoted field (a " is never closed)';

/**
 * RFC 4180 tokenizer: one pass over the text with indexOf/charCodeAt, no per-row regexes.
 * Lenient where Excel is: a quote inside an unquoted field is literal, and lone CR ends a line.
 */
export class CsvReader {
  #pos = 0;
  #line = 1;

  constructor(
    private readonly text: string,
    private readonly separator: number,
  ) {}

  /** Next record, or null at end of text. */
  next(): CsvRecord | null {
    if (this.#pos >= this.text.length) return null;
    const record: CsvRecord = { line: this.#line, fields: [] };
    for (;;) {
      const field = this.#startsQuoted() ? this.#quotedField(record) : this.#plainField();
      record.fields.push(field);
      if (this.#pos >= this.text.length) return record;
      if (this.text.charCodeAt(this.#pos) === this.separator) {
        this.#pos++;
        continue;
      }
      this.#skipLineBreak();
      return record;
    }
  }

  /**
   * True when the field is quoted, allowing spaces before the quote (`a, "b, c"` from hand-edited
   * files); moves past those spaces. An unquoted field keeps them: values are trimmed later anyway.
   */
  #startsQuoted(): boolean {
    const text = this.text;
    let i = this.#pos;
    while (isInlineSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== QUOTE) return false;
    this.#pos = i;
    return true;
  }

  #plainField(): string {
    const { text, separator } = this;
    const start = this.#pos;
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === separator || c === LF || c === CR) break;
      i++;
    }
    this.#pos = i;
    return text.slice(start, i);
  }

  #quotedField(record: CsvRecord): string {
    const text = this.text;
    const open = this.#pos;
    let value = '';
    let segment = open + 1;
    for (;;) {
      const quote = text.indexOf('"', segment);
      if (quote === -1) {
        // Everything after an unclosed quote would be one field: stop instead of guessing.
        record.error = UNTERMINATED_QUOTE;
        this.#pos = text.length;
        return value + text.slice(segment);
      }
      value += text.slice(segment, quote);
      if (text.charCodeAt(quote + 1) === QUOTE) {
        value += '"';
        segment = quote + 2;
        continue;
      }
      this.#line += countLineBreaks(text, open, quote);
      this.#pos = quote + 1;
      break;
    }
    this.#skipGarbageAfterQuote(record);
    return value;
  }

  /**
   * `"abc"x,` is not valid CSV; report it and resynchronize at the next separator or line end.
   * Spaces alone after the closing quote are tolerated, like spaces before the opening one.
   */
  #skipGarbageAfterQuote(record: CsvRecord): void {
    const { text, separator } = this;
    let i = this.#pos;
    let garbage = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === separator || c === LF || c === CR) break;
      if (!isInlineSpace(c)) garbage = true;
      i++;
    }
    if (garbage) record.error ??= `field ${record.fields.length + 1} has text after its closing quote`;
    this.#pos = i;
  }

  #skipLineBreak(): void {
    const c = this.text.charCodeAt(this.#pos);
    this.#pos += c === CR && this.text.charCodeAt(this.#pos + 1) === LF ? 2 : 1;
    this.#line++;
  }
}

function isInlineSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

export function isBlank(fields: readonly string[]): boolean {
  return fields.every((field) => field.trim() === '');
}

// Output of the CLI: human text (aligned tables, colors only on a terminal) or JSON on stdout;
// diagnostics on stderr.

export interface OutputStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

type Style = 'bold' | 'dim' | 'yellow' | 'red' | 'green';
const CODES: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  yellow: [33, 39],
  red: [31, 39],
  green: [32, 39],
};

export class Output {
  readonly json: boolean;
  readonly #colorOut: boolean;
  readonly #colorErr: boolean;

  constructor(
    readonly streams: OutputStreams,
    options: { json: boolean },
  ) {
    this.json = options.json;
    const allowed = !('NO_COLOR' in streams.env) && streams.env.TERM !== 'dumb';
    this.#colorOut = allowed && streams.stdout.isTTY === true;
    this.#colorErr = allowed && streams.stderr.isTTY === true;
  }

  /** One line of human output on stdout. */
  line(text = ''): void {
    this.streams.stdout.write(`${text}\n`);
  }

  /** A JSON document on stdout (the whole machine-readable result of a command). */
  data(value: unknown): void {
    this.streams.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A diagnostic line on stderr. */
  error(text: string): void {
    this.streams.stderr.write(`${text}\n`);
  }

  warn(text: string): void {
    this.streams.stderr.write(`${this.#paint(this.#colorErr, 'yellow', text)}\n`);
  }

  style(style: Style, text: string): string {
    return this.#paint(this.#colorOut, style, text);
  }

  errStyle(style: Style, text: string): string {
    return this.#paint(this.#colorErr, style, text);
  }

  /** `label: value` lines with the values aligned. */
  fields(rows: readonly (readonly [string, string])[]): void {
    const width = Math.max(0, ...rows.map(([label]) => displayWidth(label) + 1));
    for (const [label, value] of rows) this.line(`${pad(`${label}:`, width)}  ${sanitize(value)}`);
  }

  /** An aligned table; the header is bold on a terminal. */
  table(headers: readonly string[], rows: readonly (readonly string[])[], empty = '(none)'): void {
    if (rows.length === 0) {
      this.line(empty);
      return;
    }
    const widths = headers.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
    const render = (cells: readonly string[]) =>
      cells
        .map((cell, i) => (i === cells.length - 1 ? cell : pad(cell, widths[i] ?? 0)))
        .join('  ')
        .trimEnd();
    this.line(this.style('bold', render(headers)));
    for (const row of rows) this.line(render(row.map(sanitize)));
  }

  #paint(enabled: boolean, style: Style, text: string): string {
    if (!enabled) return text;
    const [on, off] = CODES[style];
    return `\u001b[${on}m${text}\u001b[${off}m`;
  }
}

/** Control characters from stored data (names, labels) must not reach the terminal. */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

function displayWidth(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * "2026-11-23 09:14:03 -03:00": an instant in the machine's local time, with its offset from UTC, or
 * "-" for null. Every time the CLI prints for a person goes through here (--json keeps the ISO UTC
 * instants): in UTC, a Buenos Aires back office read its evening lookups under the next day.
 */
export function formatInstant(iso: string | null): string {
  if (iso === null) return '-';
  const d = new Date(iso);
  const offset = -d.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zone}`;
}

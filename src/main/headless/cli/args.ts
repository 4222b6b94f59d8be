// Argument handling of the CLI: finding the command in argv, strict option parsing per command,
// and the checks that turn a bad flag into a UsageError (exit code 2).
import { parseArgs } from 'node:util';
import { parseHistoryBound } from '../../../shared/api/history';
import { StateRefusal, TitularError } from '../../core/errors';
import { readWholeNumber, type WholeNumberRange } from '../../core/whole-number';
import { formatInstant } from './output';

/** A bad command line: unknown command, unknown/missing option, malformed value. Exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    /** The command whose help the user should read (`titular help <command>`), if known. */
    readonly command?: string,
  ) {
    super(message);
  }
}

export type OptionSpec = { type: 'string'; multiple?: boolean; short?: string } | { type: 'boolean'; short?: string };
export type OptionSpecs = Record<string, OptionSpec>;

/** Options every command accepts. */
export const GLOBAL_OPTIONS = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  as: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedCommandLine {
  values: OptionValues;
  /** Positionals after the command words. */
  args: string[];
}

/**
 * The command words of argv (up to `depth` of them), skipping options and the values of options
 * that take one (`valueFlags` holds every command's, as written: "--org", "-o"), so
 * `--data-dir X keys list` and `--org X init` find their commands.
 */
export function commandWords(argv: readonly string[], valueFlags: ReadonlySet<string>, depth = 2): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < depth; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-') && arg !== '-') {
      if (valueFlags.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/** The flags (as written) of options that take a value. */
export function valueFlagsOf(options: OptionSpecs): string[] {
  return Object.entries(options).flatMap(([name, spec]) =>
    spec.type === 'string' ? [`--${name}`, ...(spec.short ? [`-${spec.short}`] : [])] : [],
  );
}

/** True when argv asks for help (before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/** Strict parse of argv for one command; returns the positionals that follow its command words. */
export function parseCommandLine(argv: readonly string[], command: string, options: OptionSpecs, maxArgs: number): ParsedCommandLine {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error, command), command);
  }
  // parseArgs keeps the last of a repeated option: `--amount 5 --amount 7` would add 7 credits, and
  // `--product cbu --product informes` charge the other product. An option that takes one value is
  // refused when given twice, as --out with --output is.
  const specs: OptionSpecs = { ...GLOBAL_OPTIONS, ...options };
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    const spec = token.kind === 'option' ? specs[token.name] : undefined;
    if (token.kind !== 'option' || spec?.type !== 'string' || spec.multiple) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} was given more than once: give it once`, command);
    seen.add(token.name);
  }
  const words = command.split(' ');
  const positionals = [...parsed.positionals];
  for (const word of words) {
    if (positionals[0] === word) positionals.shift();
    else throw new UsageError(`Expected "${command}"`, command);
  }
  if (positionals.length > maxArgs) {
    throw new UsageError(`Unexpected argument for ${command}: ${positionals[maxArgs]}`, command);
  }
  return { values: parsed.values as OptionValues, args: positionals };
}

/**
 * parseArgs's refusal in the CLI's words ("Unknown option --bogus for keys list", "Option --port needs
 * a value"); `titular serve`, whose messages open with "titular serve:", says its own the same way
 * without a command.
 */
export function describeParseError(error: unknown, command?: string): string {
  const forCommand = command === undefined ? '' : ` for ${command}`;
  const err = error as { code?: string; message?: string };
  const message = String(err.message ?? error);
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const argument = /'([^']*)'/.exec(message)?.[1];
      return argument !== undefined ? `Unexpected argument${forCommand}: ${argument}` : firstSentence(message);
    }
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const option = /'([^']+)'/.exec(message)?.[1];
      return option ? `Unknown option ${option}${forCommand}` : firstSentence(message);
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const option = /'(--?[\w-]+)/.exec(message)?.[1];
      if (option && /argument missing/.test(message)) return `Option ${option} needs a value`;
      if (option && /ambiguous/.test(message)) return `Option ${option} needs a value (to pass a value starting with "-", write ${option}=VALUE)`;
      if (option && /does not take an argument/.test(message)) return `Option ${option} does not take a value`;
      return firstSentence(message);
    }
    default:
      return firstSentence(message);
  }
}

function firstSentence(message: string): string {
  const end = message.search(/\.\s/);
  return end === -1 ? message.replace(/\.$/, '') : message.slice(0, end);
}

// ---------------------------------------------------------------------------------------------
// Value checks. Each throws a UsageError naming the flag.

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The exports' file option, under either name: `history export` documents `--output`, `bulk export`
 * `--out`, and each takes the other's too (and `-o`), since people type the one they used last.
 * Both at once is a usage error rather than a guess.
 */
export function outputFileOption(values: OptionValues, command: string): string | undefined {
  const out = stringOption(values, 'out');
  const output = stringOption(values, 'output');
  if (out !== undefined && output !== undefined) throw new UsageError('--out and --output are the same option: give it once', command);
  return out ?? output;
}

/** The option specs behind outputFileOption (`-o` is the short form of the documented name). */
export function outputFileOptions(documented: 'out' | 'output'): OptionSpecs {
  return documented === 'out' ? { out: { type: 'string', short: 'o' }, output: { type: 'string' } } : { output: { type: 'string', short: 'o' }, out: { type: 'string' } };
}

export function requiredString(values: OptionValues, name: string, command: string): string {
  const value = stringOption(values, name);
  if (value === undefined || value.trim() === '') throw new UsageError(`Missing required option --${name} for ${command}`, command);
  return value;
}

export function listOption(values: OptionValues, name: string): string[] {
  const value = values[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [String(value)]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

export function booleanOption(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string, command: string, caseInsensitive = true): T {
  const found = allowed.find((a) => (caseInsensitive ? a.toLowerCase() === value.trim().toLowerCase() : a === value));
  if (found === undefined) throw new UsageError(`${flag} must be ${formatChoices(allowed)} (got "${value}")`, command);
  return found;
}

function formatChoices(allowed: readonly string[]): string {
  return allowed.length <= 2 ? allowed.join(' or ') : `one of ${allowed.join(', ')}`;
}

/**
 * A whole number from `range.min` to `range.max`, refused as every number a person gives is
 * (core/whole-number.ts): "--limit must be a whole number (got "abc")", "--limit must be from 1 to
 * 10,000 (got 0)". A value the core checks again (`--amount`, `--rate-limit`) is checked here against
 * the core's own bounds, so it is said in these words rather than the API's.
 */
export function wholeNumber(value: string, flag: string, command: string, range: WholeNumberRange): number {
  const reading = readWholeNumber(value, flag, range);
  if (!reading.ok) throw new UsageError(reading.message, command);
  return reading.value;
}

/**
 * An expiration given as an ISO 8601 date (the key works through the end of that day, UTC) or an
 * instant with a zone. Must be in the future.
 */
export function futureInstant(value: string, flag: string, command: string, now = Date.now()): number {
  const ms = parseHistoryBound(value.trim(), 'to');
  if (ms === null) {
    throw new UsageError(`${flag} must be an ISO 8601 date or instant, e.g. 2027-01-31 or 2027-01-31T18:00:00Z (got "${value}")`, command);
  }
  if (ms <= now) throw new UsageError(`${flag} is in the past (${formatInstant(new Date(ms).toISOString())}); give a future date`, command);
  return ms;
}

/** The core's name for a value ("rate limit"), the flag that gives it, and what was typed (or undefined). */
export type FlagSubject = readonly [subject: string, flag: string, value: string | undefined];

/**
 * The core refusing a value it was given (INVALID_PARAMETER: a --reference too long, an email without @, a
 * file with no identifier column), as opposed to a refusal because of what is already recorded
 * (StateRefusal: a used reference, a finished job), which is an operation that failed.
 */
export function isValueRefusal(error: unknown): error is TitularError {
  return error instanceof TitularError && error.code === 'INVALID_PARAMETER' && !(error instanceof StateRefusal);
}

/**
 * Runs `fn`, a call into the core, naming the flag in the core's refusal of a value. The core's words
 * are shared with the HTTP API and the desktop ("expiration must be a future date"), so they do not
 * name CLI flags; here a message opening with one of `subjects` opens with its flag instead
 * ("--expires must be …"), and says what was typed. Other errors pass through as they are.
 */
export function namingFlags<T>(command: string, subjects: readonly FlagSubject[], fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isValueRefusal(error)) {
      for (const [subject, flag, value] of subjects) {
        if (error.message.startsWith(`${subject} `)) {
          const got = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
          throw new UsageError(`${flag}${error.message.slice(subject.length)}${got}`, command);
        }
      }
    }
    throw error;
  }
}

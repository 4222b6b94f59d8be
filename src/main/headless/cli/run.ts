// Runs one CLI invocation: finds the command, parses its options strictly, opens the data
// directory, runs it, closes the core, and maps failures to exit codes
// (0 success, 1 operation failed, 2 invalid command line).
import { saidPlainly } from '../../core/db/plain-faults';
import { TitularError } from '../../core/errors';
import { VaultUnlockError } from '../../core/vault/master-key-provider';
import { VaultLockedError } from '../../core/vault/vault';
import { parseSynchronous, resolveDataDir } from '../../core/data-dir';
import { PassphraseEnvironmentError, passphraseFromEnvironment } from '../../core/vault/passphrase-environment';
import { GLOBAL_OPTIONS, UsageError, commandWords, isValueRefusal, parseCommandLine, stringOption, valueFlagsOf, wantsHelp } from './args';
import { COMMANDS, commandUsage, findCommand, groupUsage, mainUsage, subcommandsOf, takesAs, versionUsage } from './commands';
import { CliError, openSession, type BaseContext, type CommandSpec } from './context';
import { Output, type OutputStreams } from './output';
import { TITULAR_VERSION } from '../../../shared/version';
import { SERVE_USAGE } from '../serve-usage';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

const VALUE_FLAGS: ReadonlySet<string> = new Set([valueFlagsOf(GLOBAL_OPTIONS), ...COMMANDS.map((c) => valueFlagsOf(c.options))].flat());

type Resolved =
  | { kind: 'help'; text: string }
  // argv with the word `version` first, also where the flag spelling (--version, -V) named none.
  | { kind: 'version'; argv: readonly string[] }
  | { kind: 'command'; spec: CommandSpec };

/** `titular --version` and `-V`: `titular version` as a flag, where no command is named. */
const VERSION_FLAGS: ReadonlySet<string> = new Set(['--version', '-V']);
/** The options of `version`: the global ones, and its flag spellings (`titular --version --json`). */
const VERSION_OPTIONS = { version: { type: 'boolean', short: 'V' } } as const;

/** Which command argv names, or the help text it asks for. Throws UsageError. */
function resolve(argv: readonly string[]): Resolved {
  const words = commandWords(argv, VALUE_FLAGS, 3);
  const help = wantsHelp(argv);
  const [first, second] = words;
  // Not a command of the table (it opens no data directory), but it takes the global options as
  // one does: --json, and --data-dir and --as, which it has no use for.
  if (first === 'version' || (first === undefined && beforeDashes(argv).some((arg) => VERSION_FLAGS.has(arg)))) {
    return help ? { kind: 'help', text: versionUsage() } : { kind: 'version', argv: first === 'version' ? argv : ['version', ...argv] };
  }
  if (first === undefined) {
    if (help || argv.length === 0) return { kind: 'help', text: mainUsage() };
    // `titular --data-dir`: the flag is what is missing its value, not the command (said as parseArgs is).
    const dangling = beforeDashes(argv).at(-1);
    if (dangling !== undefined && VALUE_FLAGS.has(dangling)) throw new UsageError(`Option ${dangling} needs a value`);
    throw new UsageError('Missing command');
  }
  if (first === 'help') return { kind: 'help', text: helpFor(words.slice(1)) };

  const single = findCommand(first);
  if (single) return help ? { kind: 'help', text: commandUsage(single) } : { kind: 'command', spec: single };
  const subcommands = subcommandsOf(first);
  // `titular serve` is the server's entry, which bin/titular.js starts; this CLI entry alone (`npm run cli`) has no server.
  if (first === 'serve' && help) return { kind: 'help', text: SERVE_USAGE };
  if (first === 'serve') throw new UsageError('serve is started by the titular command (bin/titular.js serve) or `npm run serve`, not by this entry');
  if (subcommands.length === 0) throw new UsageError(`Unknown command: ${first}`);
  if (second === undefined) {
    if (help) return { kind: 'help', text: groupUsage(first) };
    throw new UsageError(`Missing subcommand: titular ${first} <${subcommands.map((c) => c.name.slice(first.length + 1)).join('|')}>`, first);
  }
  const spec = findCommand(`${first} ${second}`);
  if (!spec) throw new UsageError(`Unknown command: ${first} ${second}`, first);
  return help ? { kind: 'help', text: commandUsage(spec) } : { kind: 'command', spec };
}

function helpFor(topic: readonly string[]): string {
  if (topic.length === 0) return mainUsage();
  const [first = '', second] = topic;
  // Listed in the main help beside the commands, though not commands of this entry.
  if (first === 'serve') return SERVE_USAGE;
  if (first === 'version') return versionUsage();
  const single = findCommand(first);
  if (single) return commandUsage(single);
  if (subcommandsOf(first).length === 0) throw new UsageError(`No help for unknown command: ${first}`);
  if (second === undefined) return groupUsage(first);
  const spec = findCommand(`${first} ${second}`);
  if (!spec) throw new UsageError(`No help for unknown command: ${first} ${second}`, first);
  return commandUsage(spec);
}

/** The arguments before a `--` (after it, none is an option). */
function beforeDashes(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

/**
 * `titular version` (or --version, -V): "titular 0.1.0", or with --json {"name": "titular",
 * "version": "0.1.0"}. Its options are parsed as strictly as a command's: an unknown one, or an
 * argument after it, is exit 2.
 */
function printVersion(argv: readonly string[], io: OutputStreams): number {
  const { values } = parseCommandLine(argv, 'version', VERSION_OPTIONS, 0);
  const out = new Output(io, { json: values.json === true });
  if (out.json) out.data({ name: 'titular', version: TITULAR_VERSION });
  else out.line(`titular ${TITULAR_VERSION}`);
  return EXIT_OK;
}

export interface RunOptions extends OutputStreams {
  /** For an `interruptible` command: starts catching SIGINT/SIGTERM and answers the signal they abort. */
  interruptSignal?: () => AbortSignal;
}

export async function runCli(argv: readonly string[], io: RunOptions): Promise<number> {
  // Until --json is known, diagnostics are plain text on stderr.
  let out = new Output(io, { json: false });
  let commandName: string | undefined;
  let dataDir: string | undefined;
  try {
    const resolved = resolve(argv);
    if (resolved.kind === 'help') {
      out.line(resolved.text);
      return EXIT_OK;
    }
    if (resolved.kind === 'version') {
      commandName = 'version';
      return printVersion(resolved.argv, io);
    }
    const { spec } = resolved;
    commandName = spec.name;
    const { values, args } = parseCommandLine(argv, spec.name, spec.options, spec.maxArgs ?? 0);
    out = new Output(io, { json: values.json === true });
    const dataDirFlag = stringOption(values, 'data-dir');
    if (dataDirFlag !== undefined && dataDirFlag.trim() === '') throw new UsageError('--data-dir needs a directory', spec.name);
    // Read as `serve` reads it; a value it does not know is refused before anything is opened, not ignored.
    if (parseSynchronous(io.env.TITULAR_SYNCHRONOUS) === null) {
      throw new UsageError(`TITULAR_SYNCHRONOUS must be NORMAL or FULL (got ${JSON.stringify(io.env.TITULAR_SYNCHRONOUS)})`, spec.name);
    }
    // Both passphrase variables set, or a passphrase file that cannot be read: refused before anything is opened.
    try {
      passphraseFromEnvironment(io.env);
    } catch (error) {
      if (error instanceof PassphraseEnvironmentError) throw new UsageError(error.message, spec.name);
      throw error;
    }
    const asEmail = stringOption(values, 'as');
    // `setup` commands (init, restore) run before there is a user to act as: see takesAs.
    if (asEmail !== undefined && !takesAs(spec)) throw new UsageError(`--as cannot be used with ${spec.name}`, spec.name);
    if (asEmail !== undefined && asEmail.trim() === '') throw new UsageError('--as needs an email', spec.name);
    dataDir = resolveDataDir(dataDirFlag, io.env);

    const base: BaseContext = {
      command: spec.name,
      values,
      args,
      out,
      dataDir,
      env: io.env,
      signal: (spec.interruptible ? io.interruptSignal?.() : undefined) ?? new AbortController().signal,
    };
    if (spec.access === 'setup') return (await spec.run(base)) ?? EXIT_OK;
    const session = openSession(base, spec.access, asEmail, spec.vault === 'locked');
    try {
      return (await spec.run(session)) ?? EXIT_OK;
    } finally {
      session.titular.close();
    }
  } catch (error) {
    return report(out, error, commandName, io.env, dataDir);
  }
}

function report(out: Output, error: unknown, command: string | undefined, env: NodeJS.ProcessEnv, dataDir: string | undefined): number {
  const prefix = out.errStyle('red', 'titular:');
  // The core's INVALID_PARAMETER is a value of the command line it refused (`--amount 0`, an email
  // without @): a bad argument, like the ones the CLI checks itself. A refusal because of what is
  // already recorded (StateRefusal: a used reference, a finished job) is an operation that failed, and
  // so is one of what an input file holds: the commands that hand a file's content to the core turn
  // those into CliErrors first (input-file.ts withFileContent).
  if (error instanceof UsageError || isValueRefusal(error)) {
    const topic = (error instanceof UsageError ? error.command : undefined) ?? command;
    out.error(`${prefix} ${error.message}`);
    out.error(`Run "titular help${topic ? ` ${topic}` : ''}" for usage.`);
    return EXIT_USAGE;
  }
  if (error instanceof TitularError || error instanceof CliError || error instanceof VaultUnlockError || error instanceof VaultLockedError) {
    out.error(`${prefix} ${error.message}`);
    return EXIT_FAILED;
  }
  // The database faults its user can act on (a full disk, another process's lock, a damaged or
  // unwritable database), in the same words as the API and the desktop (db/plain-faults.ts), exit 1.
  const said = saidPlainly(error, dataDir);
  if (said instanceof TitularError) {
    out.error(`${prefix} ${said.message}`);
    return EXIT_FAILED;
  }
  const err = error as { name?: string; code?: string; message?: string; stack?: string };
  if (err?.name === 'SqliteError') {
    out.error(`${prefix} database error: ${err.message} (${err.code})`);
    if (env.TITULAR_DEBUG && err.stack) out.error(`${err.code}: ${err.stack}`);
    return EXIT_FAILED;
  }
  out.error(`${prefix} unexpected error: ${err?.message ?? String(error)}`);
  if (env.TITULAR_DEBUG && err?.stack) out.error(err.stack);
  else out.error('(set TITULAR_DEBUG=1 to see the details)');
  return EXIT_FAILED;
}

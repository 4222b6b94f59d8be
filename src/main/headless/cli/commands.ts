// The command table and the help texts built from it.
import { initCommands } from './init';
import { userCommands } from './users';
import { keyCommands } from './keys';
import { creditCommands } from './credits';
import { directoryCommands } from './directory';
import { creditImportCommands } from './directory-credit';
import { historyCommands } from './history';
import { bulkCommands } from './bulk';
import { remoteCommands } from './remote';
import { backupCommands } from './backup';
import { auditCommands } from './audit';
import type { CommandSpec } from './context';
import { TITULAR_VERSION } from '../../../shared/version';

export const COMMANDS: readonly CommandSpec[] = [
  ...initCommands,
  ...userCommands,
  ...keyCommands,
  ...creditCommands,
  ...directoryCommands,
  ...creditImportCommands,
  ...historyCommands,
  ...bulkCommands,
  ...remoteCommands,
  ...backupCommands,
  ...auditCommands,
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** Subcommands of a group ("keys" → create, list, ...); empty when `group` is not a group. */
export function subcommandsOf(group: string): CommandSpec[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${group} `));
}

/**
 * Whether a command takes `--as`: not the `setup` ones (init, restore), which run before there is a
 * user to act as (init makes the first; restore records as the restored data's first admin).
 */
export function takesAs(spec: CommandSpec): boolean {
  return spec.access !== 'setup';
}

const WITHOUT_AS = COMMANDS.filter((c) => !takesAs(c)).map((c) => c.name);

function globalHelp(withAs: boolean, main = false): string[] {
  return [
    '  --data-dir DIR   the data directory (default: $TITULAR_DATA_DIR, else the platform data folder)',
    '  --json           machine-readable JSON on stdout',
    ...(withAs
      ? [`  --as EMAIL       act as this user in the audit log (default: the first admin)${main ? `; every command but ${WITHOUT_AS.join(' and ')}` : ''}`]
      : []),
    '  -h, --help       show help',
  ];
}

const line = (c: CommandSpec) => `titular ${c.name}${c.synopsis ? ` ${c.synopsis}` : ''}`;

export function mainUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Titular: API keys, credits, users, the account directory and the lookup history of a data directory.',
    '',
    'Usage: titular <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    // Run by bin/titular.js (the `titular` command), which starts the server's own entry for it.
    `  ${'serve'.padEnd(width)}  Start the HTTP API on 127.0.0.1 (titular serve --help)`,
    `  ${'help'.padEnd(width)}  Show help for a command: titular help keys create`,
    `  ${'version'.padEnd(width)}  Print the version (also --version, -V)`,
    '',
    'Global options:',
    ...globalHelp(true, true),
    '',
    'Environment:',
    '  TITULAR_DATA_DIR         data directory, when --data-dir is not given',
    '  TITULAR_PASSPHRASE       unlocks a passphrase-protected vault (set at init to create one)',
    '  TITULAR_PASSPHRASE_FILE  a file holding that passphrase, instead of the variable (not both);',
    '                           kept out of the environment, which other processes of your user can read',
    '  TITULAR_SYNCHRONOUS      NORMAL (default) or FULL: FULL also survives power loss; another value: exit 2',
    '  TITULAR_DEBUG            1: an unexpected error prints its stack trace too',
    '',
    'Exit status:',
    '  0          done',
    '  1          the operation failed (an error, a refusal because of what is recorded, a bad input file,',
    '             a locked or wrong vault)',
    '  2          invalid command line (unknown command or option, a bad value, --json where the answer is a CSV)',
    '  3          bulk run/resume: stopped out of credits (the rest waits for the next purchase)',
    '  4          bulk run/resume: stopped before the end (Ctrl-C, or identifiers answered GE500)',
    '  130, 143   Ctrl-C / SIGTERM stopped it (bulk run/resume: a second one, at once)',
  ].join('\n');
}

/** `titular help version`, `titular version --help`. */
export function versionUsage(): string {
  return [
    'Usage: titular version (also --version, -V)',
    '',
    `Prints the version of Titular: titular ${TITULAR_VERSION}.`,
    '',
    'Global options:',
    `  --json           {"name": "titular", "version": "${TITULAR_VERSION}"} on stdout`,
    '  --data-dir DIR   accepted, and ignored: the version is the program\'s, not the data directory\'s',
    '  --as EMAIL       accepted, and ignored',
    '  -h, --help       show help',
  ].join('\n');
}

export function groupUsage(group: string): string {
  const commands = subcommandsOf(group);
  return [
    `Usage: titular ${group} <${commands.map((c) => c.name.slice(group.length + 1)).join('|')}> [options]`,
    '',
    ...commands.flatMap((c) => [`  ${line(c)}`, `      ${c.summary}`]),
    '',
    `Run "titular help ${group} <command>" for a command's options.`,
  ].join('\n');
}

export function commandUsage(command: CommandSpec): string {
  return [
    `Usage: ${line(command)}`,
    '',
    command.summary,
    ...(command.details && command.details.length > 0 ? ['', 'Options:', ...command.details.map((d) => (d ? `  ${d}` : ''))] : []),
    '',
    'Global options:',
    ...globalHelp(takesAs(command)),
  ].join('\n');
}

// What a command runs with: its parsed options, the output, and (for every command but `init`)
// the opened core, the organization and the acting user. Also the CLI's own error type.
import path from 'node:path';
import { DATABASE_FILE, openTitular, type Titular } from '../../core/titular';
import type { Organization, User } from '../../core/users/users';
import { headlessKeyProvider } from '../config';
import { peekDataDir } from '../../core/startup/peek-data-dir';
import { keyFileWithoutDatabase, refuseUnwritableDataDir } from '../../core/db/storage-errors';
import { parseSynchronous } from '../../core/data-dir';
import { folderProblem } from '../../core/folders';
import { vaultProviderKind } from '../../core/vault/vault';
import { VaultUnlockError } from '../../core/vault/master-key-provider';
import { passphraseFromEnvironment } from '../../core/vault/passphrase-environment';
import type { OptionSpecs, OptionValues } from './args';
import type { Output } from './output';

/** An expected failure of a command (exit code 1): the message is printed as is, no stack. */
export class CliError extends Error {
  override name = 'CliError';
}

export interface BaseContext {
  command: string;
  values: OptionValues;
  /** Positionals after the command words. */
  args: string[];
  out: Output;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Set when an `interruptible` command should stop early (the first SIGINT/SIGTERM). */
  signal: AbortSignal;
}

export interface SessionContext extends BaseContext {
  titular: Titular;
  org: Organization;
  /** The user the audit log names: `--as EMAIL`, else the first admin. */
  actor: User;
}

interface CommandInfo {
  /** Command words, e.g. "keys create". */
  name: string;
  /** Arguments and options after the command words, for the usage line. */
  synopsis: string;
  summary: string;
  /** Option descriptions for `titular help <command>`. */
  details?: string[];
  options: OptionSpecs;
  /** How many positionals may follow the command words. */
  maxArgs?: number;
  /**
   * Watches `ctx.signal`: the first Ctrl-C asks it to stop cleanly, a second ends the process. Other
   * commands keep the default: Ctrl-C ends them at once, and their open transaction rolls back.
   */
  interruptible?: boolean;
}

/** `setup` commands open the data directory themselves (init); the others get a session. */
export type CommandSpec =
  | (CommandInfo & { access: 'setup'; run(ctx: BaseContext): Promise<number | void> | number | void })
  | (CommandInfo & {
      access: 'user' | 'admin';
      /**
       * 'locked': the command seals and opens no secret, so the vault is opened still sealed and asks
       * for no passphrase (nor key file, nor keychain); a secret asked of it fails (VaultLockedError).
       * 'unlocked': it seals or opens one (an API key's secret, the upstream key). Required, so that
       * each new command says which: asking for a passphrase a command does not need is a defect.
       */
      vault: 'locked' | 'unlocked';
      run(ctx: SessionContext): Promise<number | void> | number | void;
    });

export function databaseFile(dataDir: string): string {
  return path.join(dataDir, DATABASE_FILE);
}

export function openCore(dataDir: string, env: NodeJS.ProcessEnv, vaultLocked = false): Titular {
  return openTitular({
    vaultLocked,
    dataDir,
    keyProvider: headlessKeyProvider(dataDir, env),
    // Checked before any command runs (run.ts): a value other than NORMAL or FULL never gets here.
    synchronous: parseSynchronous(env.TITULAR_SYNCHRONOUS) ?? 'NORMAL',
    // A long command (a bulk run) lives through housekeeping ticks: what fails there goes to stderr.
    onFault: (line) => process.stderr.write(`titular: ${line}\n`),
  });
}

/**
 * Opens an initialized data directory and resolves who is acting. Never creates a database: a
 * command other than `init` on an empty directory fails without writing anything.
 */
export function openSession(base: BaseContext, access: 'user' | 'admin', asEmail: string | undefined, vaultLocked = false): SessionContext {
  // A file where the data directory should be is said by name (shared with the core, which refuses it
  // the same way for `init` and `restore`), not as "run titular init first", which would fail on it.
  const problem = folderProblem(base.dataDir, 'The data directory');
  if (problem) throw new CliError(problem);
  // Another user's files or a read-only disk: said before anything reads them (core/db/storage-errors.ts).
  refuseUnwritableDataDir(base.dataDir);
  // No organization yet (no database, or one a failed first run left): opening it would create its
  // vault, fixing its protection before `init` chose it.
  if (peekDataDir(base.dataDir).organization === null) {
    const earlierSetup = keyFileWithoutDatabase(base.dataDir);
    if (earlierSetup) throw new CliError(`${earlierSetup}; to start a new organization here instead, run \`titular init --new-organization\``);
    throw new CliError(`No Titular data in ${base.dataDir}: run \`titular init\` first, or pass --data-dir`);
  }
  const titular = openCore(base.dataDir, base.env, vaultLocked);
  try {
    if (vaultLocked) checkGivenPassphrase(titular, base.dataDir, base.env);
    const org = titular.users.requireOrganization();
    const actor = resolveActor(titular, org, asEmail);
    if (access === 'admin' && actor.role !== 'admin') {
      throw new CliError(`${actor.email} is an operator; only admins can run "titular ${base.command}"`);
    }
    return { ...base, titular, org, actor };
  } catch (error) {
    titular.close();
    throw error;
  }
}

/**
 * A session opened locked asks for no secret, but a passphrase that is given is still checked: a
 * wrong TITULAR_PASSPHRASE (or _FILE) is said at once, exit 1, as by the commands that unlock, not
 * first by whichever later command needs the vault. The vault is locked again at once.
 */
function checkGivenPassphrase(titular: Titular, dataDir: string, env: NodeJS.ProcessEnv): void {
  if (vaultProviderKind(titular.db) !== 'passphrase' || passphraseFromEnvironment(env) === undefined) return;
  titular.unlockVault(headlessKeyProvider(dataDir, env)('passphrase'));
  titular.lockVault();
}

/**
 * Unlocks the vault of a session opened locked, for a command that needs a secret only sometimes
 * (a bulk run whose lookups go to the remote API, which needs the upstream key). `why` opens the
 * message when the vault cannot be unlocked (no passphrase, a wrong one, a keychain vault).
 */
export function unlockSessionVault(ctx: SessionContext, why: string): void {
  if (!ctx.titular.vault.locked) return;
  try {
    ctx.titular.unlockVault(headlessKeyProvider(ctx.dataDir, ctx.env)(vaultProviderKind(ctx.titular.db)));
  } catch (error) {
    if (error instanceof VaultUnlockError) throw new CliError(`${why}: ${error.message}`);
    throw error;
  }
}

function resolveActor(titular: Titular, org: Organization, asEmail: string | undefined): User {
  if (asEmail !== undefined) {
    const user = titular.users.byEmail(org.id, asEmail);
    if (!user) throw new CliError(`--as: no user with email ${asEmail.trim()} in ${org.name}`);
    return user;
  }
  const admin = firstAdmin(titular.users.list(org.id));
  if (!admin) throw new CliError(`${org.name} has no admin user`);
  return admin;
}

/** The CLI acts as the machine's administrator: the earliest-created admin. */
export function firstAdmin(users: readonly User[]): User | undefined {
  return users
    .filter((u) => u.role === 'admin')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))[0];
}

/** The user named by an email, for options like `keys create --owner`. */
export function userByEmail(ctx: SessionContext, email: string, flag: string): User {
  const user = ctx.titular.users.byEmail(ctx.org.id, email);
  if (!user) throw new CliError(`${flag}: no user with email ${email.trim()} in ${ctx.org.name}`);
  return user;
}

// Before the app can serve anything, its data directory must exist and its vault be unlocked.
// The gate holds that first moment for the desktop (Electron) and the headless browser mode:
//   setup   no organization yet: create it, its first admin and the vault (a passphrase, or the
//           host's own protection: the OS keychain in Electron, a key file headless); a folder
//           holding an earlier setup's key file but no database is set up only when the user
//           confirms a new organization (as `titular init --new-organization`);
//   locked  a passphrase vault and no passphrase given: the user types it; or a vault the host
//           protects (keychain, key file) whose protection cannot be used now: the screen says what
//           to restore, and asks for nothing;
//   ready   the core is open.
// The state is read without migrating or writing anything, so a wrong passphrase changes nothing.
import { openTitular, type Titular, type TitularOptions } from '../titular';
import { peekDataDir, type DataDirPeek } from './peek-data-dir';
import { keyFileWithoutDatabase, refuseUnwritableDataDir } from '../db/storage-errors';
import { TitularError, invalidParameter } from '../errors';
import { checkInitialization } from '../users/users';
import { passphraseProvider, MIN_PASSPHRASE_LENGTH } from '../vault/passphrase-provider';
import { VaultUnlockError, type MasterKeyProvider, type MasterKeyProviderKind } from '../vault/master-key-provider';
import { PassphraseAttempts } from '../vault/passphrase-attempts';

export type StartupPhase = 'setup' | 'locked' | 'ready';

export interface StartupStatus {
  phase: StartupPhase;
  /** How the vault is (or will be) protected; null while setup has not chosen yet. */
  protection: MasterKeyProviderKind | null;
  /** Setup: whether the host has no protection of its own, so a passphrase must be chosen. */
  passphraseRequired: boolean;
  organization: string | null;
  /** The data directory (what a missing key file is restored into). */
  dataDir: string;
  /**
   * Setup: the folder holds the key file (master.key) of an earlier setup but no database. Its data,
   * if it had any, is in a backup (`titular restore`); setup asks for `newOrganization` before it
   * starts over there, as `titular init` asks for --new-organization.
   */
  earlierSetup: boolean;
}

export interface StartupGateOptions extends Omit<TitularOptions, 'keyProvider'> {
  /** The provider of an existing vault that needs no user input (OS keychain, key file), else null. */
  automaticProvider: (kind: MasterKeyProviderKind) => MasterKeyProvider | null;
  /** The host's own protection for a new vault when no passphrase is chosen; null when there is none. */
  newVaultProvider: () => MasterKeyProvider | null;
  /** A passphrase given outside the UI (TITULAR_PASSPHRASE), tried once at start. */
  passphrase?: string;
}

export interface SetupInput {
  organization: string;
  adminName: string;
  adminEmail: string;
  passphrase?: string;
  /** Set up a folder that holds an earlier setup's key file anyway (`titular init --new-organization`). */
  newOrganization?: boolean;
}

export class StartupGate {
  #titular: Titular | null = null;
  /** Wrong passphrases at the unlock screen slow down as they do at the Claves screen's (vault/passphrase-attempts.ts). */
  readonly #attempts = new PassphraseAttempts();
  readonly #listeners: ((titular: Titular) => void)[] = [];
  /** TITULAR_PASSPHRASE: tried once at start (tryAutomatic), then forgotten, like a typed one. */
  #startPassphrase: string | undefined;

  private readonly options: Omit<StartupGateOptions, 'passphrase'>;

  constructor(options: StartupGateOptions) {
    const { passphrase, ...rest } = options;
    this.options = rest;
    this.#startPassphrase = passphrase;
  }

  get titular(): Titular | null {
    return this.#titular;
  }

  /** Calls `listener` once the core is open (at once when it already is). */
  onReady(listener: (titular: Titular) => void): void {
    if (this.#titular) listener(this.#titular);
    else this.#listeners.push(listener);
  }

  status(): StartupStatus {
    if (this.#titular) {
      const org = this.#titular.users.organization();
      return { phase: 'ready', protection: this.#peek().vault, passphraseRequired: false, organization: org?.name ?? null, dataDir: this.options.dataDir, earlierSetup: false };
    }
    const peek = this.#peek();
    if (!peek.vault || !peek.organization) {
      return {
        phase: 'setup',
        protection: peek.vault,
        passphraseRequired: peek.vault ? peek.vault === 'passphrase' : this.options.newVaultProvider() === null,
        organization: peek.organization,
        dataDir: this.options.dataDir,
        earlierSetup: keyFileWithoutDatabase(this.options.dataDir) !== null,
      };
    }
    // Locked with a host's protection (the keychain, a key file) that cannot be used now: no passphrase
    // opens it, and the screen says so instead of asking for one.
    return { phase: 'locked', protection: peek.vault, passphraseRequired: peek.vault === 'passphrase', organization: peek.organization, dataDir: this.options.dataDir, earlierSetup: false };
  }

  /**
   * Opens the core without asking anyone when it can: an initialized directory whose vault is
   * unlocked by the host (OS keychain, key file) or by the passphrase given at start.
   */
  tryAutomatic(): Titular | null {
    if (this.#titular) return this.#titular;
    const passphrase = this.#startPassphrase;
    this.#startPassphrase = undefined;
    // The start (the desktop's error box, serve --ui) refuses another user's files or a read-only disk
    // in words, before the first read makes a -wal and -shm there.
    refuseUnwritableDataDir(this.options.dataDir);
    const peek = this.#peek();
    if (!peek.vault || !peek.organization) return null;
    const provider =
      peek.vault === 'passphrase' ? (passphrase ? passphraseProvider(passphrase) : null) : this.options.automaticProvider(peek.vault);
    if (!provider) return null;
    try {
      return this.#open(provider);
    } catch (error) {
      // A wrong TITULAR_PASSPHRASE leaves the gate locked: the user can still type the right one. A
      // key file that is missing, damaged or another vault's leaves it locked too, and the screen says
      // what to restore (status: protection 'keyfile', no passphrase asked) instead of the app dying.
      if (error instanceof VaultUnlockError) return null;
      throw error;
    }
  }

  /**
   * Unlocks a passphrase vault. A wrong passphrase throws 401 and writes nothing; after three in a row
   * each next attempt waits (429 `RATE_LIMITED` meanwhile), so guesses cannot go as fast as scrypt allows.
   */
  unlock(passphrase: string): Titular {
    const status = this.status();
    if (status.phase !== 'locked') throw new TitularError(409, 'INVALID_PARAMETER', 'There is nothing to unlock: Titular is not locked');
    if (status.protection !== 'passphrase') {
      const by = status.protection === 'os' ? "the computer's keychain, which is not available now" : 'a key file (master.key) that could not be read';
      throw new TitularError(409, 'INVALID_PARAMETER', `This vault is not protected by a passphrase but by ${by}`);
    }
    this.#attempts.admit();
    let titular: Titular;
    try {
      titular = this.#open(passphraseProvider(passphrase));
    } catch (error) {
      if (!(error instanceof VaultUnlockError)) throw error;
      this.#attempts.failed();
      throw new TitularError(401, 'UNAUTHORIZED', 'Wrong passphrase');
    }
    this.#attempts.succeeded();
    return titular;
  }

  /** First run: the vault, the organization and its first admin. */
  setup(input: SetupInput): Titular {
    const status = this.status();
    if (status.phase !== 'setup') throw new TitularError(409, 'INVALID_PARAMETER', 'Titular is already set up');
    // The form first: a vault created for a form that then fails would fix the protection (key file,
    // or the passphrase of that attempt) for every later attempt.
    checkInitialization({ orgName: input.organization, adminName: input.adminName, adminEmail: input.adminEmail });
    // Read again, not taken from the status the screen showed: a new organization beside an earlier
    // setup's key file starts from nothing where that setup's data is missed, so only on request.
    const earlierSetup = keyFileWithoutDatabase(this.options.dataDir);
    if (earlierSetup && input.newOrganization !== true) {
      throw new TitularError(409, 'INVALID_PARAMETER', `${earlierSetup}. To set up a new organization here anyway, confirm that you start a new one; nothing was changed`);
    }
    const passphrase = input.passphrase?.length ? input.passphrase : undefined;
    if (passphrase !== undefined && passphrase.length < MIN_PASSPHRASE_LENGTH) {
      throw invalidParameter(`passphrase: at least ${MIN_PASSPHRASE_LENGTH} characters`);
    }
    let provider: MasterKeyProvider | null;
    if (status.protection === 'passphrase' || (status.protection === null && passphrase)) {
      if (!passphrase) throw invalidParameter('passphrase: required to open this vault');
      provider = passphraseProvider(passphrase);
    } else if (status.protection) {
      provider = this.options.automaticProvider(status.protection);
    } else {
      provider = this.options.newVaultProvider();
    }
    if (!provider) throw invalidParameter('passphrase: this computer has no keychain; choose a passphrase');
    let titular: Titular;
    try {
      titular = this.#open(provider, false);
    } catch (error) {
      if (error instanceof VaultUnlockError) throw new TitularError(401, 'UNAUTHORIZED', 'Wrong passphrase');
      throw error;
    }
    try {
      titular.users.initialize({ orgName: input.organization, adminName: input.adminName, adminEmail: input.adminEmail });
    } catch (error) {
      // Keep the gate in setup so the user can fix the form.
      titular.close();
      throw error;
    }
    this.#ready(titular);
    return titular;
  }

  #open(provider: MasterKeyProvider, announce = true): Titular {
    const { automaticProvider: _a, newVaultProvider: _n, ...rest } = this.options;
    const titular = openTitular({ ...rest, keyProvider: () => provider });
    if (announce) this.#ready(titular);
    return titular;
  }

  #ready(titular: Titular): void {
    this.#titular = titular;
    for (const listener of this.#listeners.splice(0)) listener(titular);
  }

  #peek(): DataDirPeek {
    return peekDataDir(this.options.dataDir);
  }
}

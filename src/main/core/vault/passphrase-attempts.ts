// Passphrases typed while Titular runs (revealing a key, unlocking the vault from the Claves screen),
// and at the start-up unlock screen (startup-gate.ts, through `admit`).
// scrypt's 0.4 s runs on the thread pool, not on the event loop that answers every API client; and
// wrong guesses in a row are slowed down, so someone at an unlocked desktop (or holding a
// browser-mode session) cannot try passphrases as fast as scrypt allows. One counter per Titular: a
// guesser gains nothing from opening more sessions, nor from sending guesses at once (each attempt
// is counted before its scrypt runs, as if wrong, and forgiven only if it was right).
import { TitularError } from '../errors';
import type { Db } from '../db/open';
import { VaultUnlockError, type MasterKeyProvider } from './master-key-provider';
import { derivedPassphraseProvider, passphraseProvider } from './passphrase-provider';
import { vaultKdf } from './vault';

/** Wrong passphrases allowed in a row before each next one waits; then 1 s, doubling, up to a minute. */
const FREE_FAILURES = 3;
const MAX_WAIT_MS = 60_000;
/** A quarter of an hour without a wrong passphrase starts the count again: one typo later is not punished. */
const FORGET_AFTER_MS = 15 * 60_000;

export class PassphraseAttempts {
  #failures = 0;
  /** Monotonic (performance.now()): a wall clock set back would otherwise extend a wait. */
  #retryAt = 0;
  #lastFailureAt = -Infinity;

  /**
   * Checks a typed passphrase with `check` (which answers false when it does not open the vault)
   * and returns check's result when it does. Throws 429 while wrong guesses are slowed down, 401 for a wrong one.
   */
  async verify<T>(db: Db, passphrase: string, check: (provider: MasterKeyProvider) => T | false): Promise<T> {
    this.admit();
    let result: T | false = false;
    try {
      const kdf = vaultKdf(db);
      result = check(kdf ? await derivedPassphraseProvider(passphrase, kdf) : passphraseProvider(passphrase));
    } catch (error) {
      // A passphrase too short to be the vault's is a wrong one like any other.
      if (!(error instanceof VaultUnlockError)) throw error;
    }
    if (result === false) {
      this.failed();
      throw new TitularError(401, 'UNAUTHORIZED', 'Wrong passphrase');
    }
    this.succeeded();
    return result;
  }

  /**
   * Lets one attempt through, counted as wrong until `succeeded` says otherwise, or throws 429 while
   * wrong guesses are slowed down. For checks made elsewhere (the start-up unlock opens the database).
   */
  admit(now = performance.now()): void {
    if (now - this.#lastFailureAt > FORGET_AFTER_MS) this.#failures = 0;
    if (now < this.#retryAt) {
      const seconds = Math.ceil((this.#retryAt - now) / 1000);
      throw new TitularError(429, 'RATE_LIMITED', `Too many wrong passphrases; try again in ${seconds} s`, { headers: { 'Retry-After': String(seconds) } });
    }
    // Counted before scrypt runs: attempts sent together meet the wait like attempts in a row.
    this.#failures++;
    this.#lastFailureAt = now;
    this.#waitFrom(now);
  }

  /**
   * The attempt let through was wrong: the wait runs again from now, when the guesser learns it. Counted
   * from `admit` alone, a check slower than the wait (scrypt on a busy machine) left no wait at all.
   */
  failed(now = performance.now()): void {
    this.#lastFailureAt = now;
    this.#waitFrom(now);
  }

  #waitFrom(now: number): void {
    if (this.#failures >= FREE_FAILURES) this.#retryAt = Math.max(this.#retryAt, now + Math.min(MAX_WAIT_MS, 1000 * 2 ** (this.#failures - FREE_FAILURES)));
  }

  /** The attempt let through was right: the count starts again. */
  succeeded(): void {
    this.#failures = 0;
    this.#retryAt = 0;
    this.#lastFailureAt = -Infinity;
  }
}

// How the headless entries unlock the vault (where the data directory is: core/data-dir.ts).
import path from 'node:path';
import { keyFileOf } from '../core/data-dir';
import { keyfileProvider } from '../core/vault/keyfile-provider';
import { MIN_PASSPHRASE_LENGTH, passphraseProvider } from '../core/vault/passphrase-provider';
import { passphraseFromEnvironment } from '../core/vault/passphrase-environment';
import { VaultUnlockError, type MasterKeyProvider, type MasterKeyProviderKind } from '../core/vault/master-key-provider';

/**
 * Headless unlock: the passphrase of TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE (scrypt) when set, otherwise a random key file created with
 * 0600 permissions on first run. An existing vault keeps the protection it was created with.
 */
export function headlessKeyProvider(dataDir: string, env: NodeJS.ProcessEnv = process.env) {
  return (kind: MasterKeyProviderKind | null): MasterKeyProvider => {
    const passphrase = passphraseFromEnvironment(env);
    const wanted = kind ?? (passphrase ? 'passphrase' : 'keyfile');
    if (wanted === 'passphrase') {
      if (!passphrase) throw new VaultUnlockError('This vault is protected by a passphrase: set TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE');
      // Said here, naming where it came from: the provider's own words ("The passphrase must have…")
      // left an admin whose passphrase was typed nowhere to guess which variable gave it.
      if (passphrase.length < MIN_PASSPHRASE_LENGTH) {
        throw new VaultUnlockError(`The passphrase in ${passphraseSource(env)} must have at least ${MIN_PASSPHRASE_LENGTH} characters`);
      }
      return passphraseProvider(passphrase);
    }
    if (wanted === 'keyfile') return keyfileProvider(keyFileOf(dataDir));
    throw new VaultUnlockError("This vault is protected by the desktop app's OS keychain; open it with the desktop app");
  };
}

/** Where the environment's passphrase came from: `TITULAR_PASSPHRASE`, or the file TITULAR_PASSPHRASE_FILE names. */
function passphraseSource(env: NodeJS.ProcessEnv): string {
  return env.TITULAR_PASSPHRASE ? 'TITULAR_PASSPHRASE' : `TITULAR_PASSPHRASE_FILE (${path.resolve(env.TITULAR_PASSPHRASE_FILE ?? '')})`;
}

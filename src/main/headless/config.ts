// Where the headless entries keep their data and how they unlock the vault.
import os from 'node:os';
import path from 'node:path';
import { keyfileProvider } from '../core/vault/keyfile-provider';
import { passphraseProvider } from '../core/vault/passphrase-provider';
import { VaultUnlockError, type MasterKeyProvider, type MasterKeyProviderKind } from '../core/vault/master-key-provider';

/** `--data-dir`, else TITULAR_DATA_DIR, else the user's data folder for this platform. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return path.resolve(flag);
  if (env.TITULAR_DATA_DIR) return path.resolve(env.TITULAR_DATA_DIR);
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Titular');
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Titular');
    default:
      return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'titular');
  }
}

/**
 * Headless unlock: TITULAR_PASSPHRASE (scrypt) when set, otherwise a random key file created with
 * 0600 permissions on first run. An existing vault keeps the protection it was created with.
 */
export function headlessKeyProvider(dataDir: string, env: NodeJS.ProcessEnv = process.env) {
  return (kind: MasterKeyProviderKind | null): MasterKeyProvider => {
    const passphrase = env.TITULAR_PASSPHRASE;
    const wanted = kind ?? (passphrase ? 'passphrase' : 'keyfile');
    if (wanted === 'passphrase') {
      if (!passphrase) throw new VaultUnlockError('This vault is protected by a passphrase: set TITULAR_PASSPHRASE');
      return passphraseProvider(passphrase);
    }
    if (wanted === 'keyfile') return keyfileProvider(path.join(dataDir, 'master.key'));
    throw new VaultUnlockError("This vault is protected by the desktop app's OS keychain; open it with the desktop app");
  };
}

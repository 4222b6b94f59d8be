// Wraps the data key with a random 256-bit key kept in a 0600 file next to the database. It keeps
// secrets out of the database file (a copied .db alone reveals nothing); a passphrase or the OS
// keychain is stronger, since anyone who can read the data directory can read this file.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { open, seal } from './aes-gcm';
import { VaultUnlockError, type MasterKeyProvider, type WrappedDataKey } from './master-key-provider';

const AAD = Buffer.from('titular/vault/data-key/v1');

export function keyfileProvider(file: string): MasterKeyProvider {
  function readKey(): Buffer {
    if (!existsSync(file)) {
      throw new VaultUnlockError(`The vault's key file is missing (${file}); restore it from your backup`);
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new VaultUnlockError(`The vault's key file is damaged (${file})`);
    return key;
  }
  return {
    kind: 'keyfile',
    wrap(dataKey: Buffer): WrappedDataKey {
      if (!existsSync(file)) {
        // 'wx' fails instead of overwriting a key file that appeared meanwhile.
        writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
        chmodSync(file, 0o600);
      }
      const kek = readKey();
      try {
        return { wrapped: seal(kek, dataKey, AAD), kdf: null };
      } finally {
        kek.fill(0);
      }
    },
    unwrap(stored: WrappedDataKey): Buffer {
      const kek = readKey();
      try {
        return open(kek, stored.wrapped, AAD);
      } catch {
        throw new VaultUnlockError(`The vault's key file (${file}) does not match this database`);
      } finally {
        kek.fill(0);
      }
    },
  };
}

// Wraps the data key with a random 256-bit key kept in a 0600 file next to the database. It keeps
// secrets out of the database file (a copied .db alone reveals nothing); a passphrase or the OS
// keychain is stronger, since anyone who can read the data directory can read this file.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
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
      if (!existsSync(file)) createKeyFile(file);
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

/**
 * Writes a new key file whole, on disk, under a temporary name, then links it into place: a
 * process reading the key never sees a half-written file, and of two first runs at once the first
 * link wins and the other uses it (the vault is created once either way, vault.ts).
 */
function createKeyFile(file: string): void {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      writeSync(fd, randomBytes(32).toString('base64') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

// Wraps the data key with a random 256-bit key kept in a 0600 file next to the database. It keeps
// secrets out of the database file (a copied .db alone reveals nothing); a passphrase or the OS
// keychain is stronger, since anyone who can read the data directory can read this file.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { accessProblem } from '../access-problem';
import { open, seal } from './aes-gcm';
import { VaultUnlockError, type MasterKeyProvider, type WrappedDataKey } from './master-key-provider';

const AAD = Buffer.from('titular/vault/data-key/v1');

export function keyfileProvider(file: string): MasterKeyProvider {
  function readKey(): Buffer {
    if (!existsSync(file)) {
      throw new VaultUnlockError(`The vault's key file is missing (${file}); restore it from your backup`);
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new VaultUnlockError(unreadable(file, error));
    }
    // It unwraps every stored secret: owner-only, as the database is narrowed at every open (db/open.ts).
    narrowToOwner(file);
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== 32) throw new VaultUnlockError(`The vault's key file is damaged (${file}); restore it from your backup`);
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

/** Why the key file could not be read, in words: another user's file (its owner and mode), not EACCES. */
function unreadable(file: string, error: unknown): string {
  const problem = accessProblem(file, { need: 'read', dataDir: path.dirname(file), label: "The vault's key file" });
  return problem ?? `The vault's key file ${file} cannot be read (${(error as Error).message})`;
}

/** 0600 where this process owns it; another user's file is left as it is (reading it was enough). */
function narrowToOwner(file: string): void {
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch {
    // Another user's file (chmod is the owner's), or a read-only disk.
  }
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

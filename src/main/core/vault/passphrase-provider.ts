// Wraps the data key with a key derived from a passphrase by scrypt.
import { randomBytes, scryptSync } from 'node:crypto';
import { open, seal } from './aes-gcm';
import { VaultUnlockError, type MasterKeyProvider, type WrappedDataKey } from './master-key-provider';

interface ScryptParams {
  alg: 'scrypt';
  salt: string; // base64
  N: number;
  r: number;
  p: number;
}

// N = 2^17, r = 8, p = 1 (OWASP's recommendation for scrypt): 128 MiB and ~0.4 s per derivation on
// this class of machine. The salt and the wrapped key sit in the database, so a copied file is
// attacked offline at this cost per guess; an unlock happens once per session and affords it.
// Vaults created earlier keep the parameters stored with them (N = 2^15).
const DEFAULT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const AAD = Buffer.from('titular/vault/data-key/v1');

function deriveKey(passphrase: string, params: ScryptParams): Buffer {
  return scryptSync(passphrase.normalize('NFC'), Buffer.from(params.salt, 'base64'), 32, {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 256 * params.N * params.r,
  });
}

export const MIN_PASSPHRASE_LENGTH = 8;

export function passphraseProvider(passphrase: string): MasterKeyProvider {
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) throw new VaultUnlockError(`The passphrase must have at least ${MIN_PASSPHRASE_LENGTH} characters`);
  return {
    kind: 'passphrase',
    wrap(dataKey: Buffer): WrappedDataKey {
      const params: ScryptParams = { alg: 'scrypt', salt: randomBytes(16).toString('base64'), ...DEFAULT_PARAMS };
      const kek = deriveKey(passphrase, params);
      try {
        return { wrapped: seal(kek, dataKey, AAD), kdf: JSON.stringify(params) };
      } finally {
        kek.fill(0);
      }
    },
    unwrap(stored: WrappedDataKey): Buffer {
      if (!stored.kdf) throw new VaultUnlockError('The vault has no key-derivation parameters');
      const kek = deriveKey(passphrase, JSON.parse(stored.kdf) as ScryptParams);
      try {
        return open(kek, stored.wrapped, AAD);
      } catch {
        throw new VaultUnlockError('Wrong passphrase: the vault could not be unlocked');
      } finally {
        kek.fill(0);
      }
    },
  };
}

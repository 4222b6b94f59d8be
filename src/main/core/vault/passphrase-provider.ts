// Wraps the data key with a key derived from a passphrase by scrypt.
import { randomBytes, scrypt, scryptSync } from 'node:crypto';
import { open, seal } from './aes-gcm';
import { VaultUnlockError, type MasterKeyProvider, type WrappedDataKey } from './master-key-provider';
import { UNREADABLE, storedJson } from '../db/stored-json';

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

function scryptOptions(params: ScryptParams) {
  return { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
}

function deriveKey(passphrase: string, params: ScryptParams): Buffer {
  return scryptSync(passphrase.normalize('NFC'), Buffer.from(params.salt, 'base64'), 32, scryptOptions(params));
}

/**
 * The scrypt parameters stored with the vault (vault_meta.kdf), checked: a damaged cell (stored-json.ts)
 * is refused in words instead of a SyntaxError, and parameters outside what Titular ever wrote (a cost
 * that would ask scrypt for gigabytes) are refused before any derivation.
 */
function storedParams(text: string): ScryptParams {
  const value = storedJson(text) as Partial<ScryptParams> | typeof UNREADABLE | null;
  const valid =
    value !== UNREADABLE &&
    value !== null &&
    typeof value === 'object' &&
    value.alg === 'scrypt' &&
    typeof value.salt === 'string' &&
    value.salt.length > 0 &&
    Number.isInteger(value.N) &&
    value.N! >= 2 ** 10 &&
    value.N! <= 2 ** 20 &&
    (value.N! & (value.N! - 1)) === 0 &&
    Number.isInteger(value.r) &&
    value.r! >= 1 &&
    value.r! <= 32 &&
    Number.isInteger(value.p) &&
    value.p! >= 1 &&
    value.p! <= 16;
  if (!valid) throw new VaultUnlockError(DAMAGED_KDF_MESSAGE);
  return value as ScryptParams;
}

export const DAMAGED_KDF_MESSAGE =
  "The vault's key-derivation parameters are damaged in Titular's database, so no passphrase can unlock it; restore a backup (titular restore)";

/** deriveKey on libuv's thread pool: the event loop keeps answering the API meanwhile. */
function deriveKeyOffThread(passphrase: string, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), Buffer.from(params.salt, 'base64'), 32, scryptOptions(params), (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export const MIN_PASSPHRASE_LENGTH = 8;

/**
 * A passphrase typed while the server runs (a reveal, an unlock): the key for the vault's stored
 * parameters (`storedKdf`) is derived beforehand off the event loop, where scrypt's 0.4 s would stall
 * every API client, and its unwrap then only decrypts. Used once: the derived key is zero-filled after.
 */
export async function derivedPassphraseProvider(passphrase: string, storedKdf: string): Promise<MasterKeyProvider> {
  const provider = passphraseProvider(passphrase);
  let derived: Buffer | null = await deriveKeyOffThread(passphrase, storedParams(storedKdf));
  return {
    kind: provider.kind,
    wrap: (dataKey) => provider.wrap(dataKey),
    unwrap(stored) {
      if (!derived || stored.kdf !== storedKdf) return provider.unwrap(stored);
      const kek = derived;
      derived = null;
      return openDataKey(kek, stored);
    },
  };
}

/** The data key opened with a key-encryption key, which is zero-filled after, whatever happens. */
function openDataKey(kek: Buffer, stored: WrappedDataKey): Buffer {
  try {
    return open(kek, stored.wrapped, AAD);
  } catch {
    throw new VaultUnlockError('Wrong passphrase: the vault could not be unlocked');
  } finally {
    kek.fill(0);
  }
}

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
      return openDataKey(deriveKey(passphrase, storedParams(stored.kdf)), stored);
    },
  };
}

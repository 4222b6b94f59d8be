// How the vault's data key is protected at rest. The data key encrypts secrets (API keys, upstream
// keys); a provider wraps it with a key that never touches the database: the OS keychain
// (Electron safeStorage, in src/main), a passphrase (scrypt), or a 0600 key file (headless default).
export type MasterKeyProviderKind = 'passphrase' | 'keyfile' | 'os';

export interface WrappedDataKey {
  wrapped: Buffer;
  /** Provider parameters stored beside the wrapped key (scrypt salt and cost); no secret. */
  kdf: string | null;
}

export interface MasterKeyProvider {
  readonly kind: MasterKeyProviderKind;
  wrap(dataKey: Buffer): WrappedDataKey;
  /** Throws VaultUnlockError when the wrapping secret is wrong or missing. */
  unwrap(stored: WrappedDataKey): Buffer;
}

export class VaultUnlockError extends Error {
  override name = 'VaultUnlockError';
}

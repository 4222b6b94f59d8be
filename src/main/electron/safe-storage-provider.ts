// Master-key provider backed by the OS keychain through Electron's safeStorage. On Linux the
// `basic_text` backend is a hard-coded key, not a keychain: it is refused so the caller falls back
// to a passphrase.
import { safeStorage } from 'electron';
import { VaultUnlockError, type MasterKeyProvider, type WrappedDataKey } from '../core/vault/master-key-provider';

export function osKeychainAvailable(): boolean {
  if (!safeStorage.isEncryptionAvailable()) return false;
  return process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
}

export function safeStorageProvider(): MasterKeyProvider {
  if (!osKeychainAvailable()) throw new VaultUnlockError('The OS keychain is not available; use a passphrase');
  return {
    kind: 'os',
    wrap(dataKey: Buffer): WrappedDataKey {
      return { wrapped: safeStorage.encryptString(dataKey.toString('base64')), kdf: null };
    },
    unwrap(stored: WrappedDataKey): Buffer {
      try {
        return Buffer.from(safeStorage.decryptString(stored.wrapped), 'base64');
      } catch {
        throw new VaultUnlockError('The OS keychain could not unlock the vault');
      }
    },
  };
}

// Secrets other than API keys, sealed by the vault's data key (AES-256-GCM, the secret's name as
// AAD so a ciphertext cannot be moved to another name). Today: the remote resolver's upstream key.
// Reading one needs an unlocked vault; after auto-lock `get` throws VaultLockedError.
import { eq } from 'drizzle-orm';
import type { Db } from '../db/open';
import { vaultSecrets } from '../db/schema';
import type { Vault } from './vault';

export type VaultSecretName = 'remote.upstreamKey';

export class VaultSecrets {
  constructor(
    private readonly db: Db,
    private readonly vault: () => Vault,
  ) {}

  set(name: VaultSecretName, value: string): void {
    const ciphertext = this.vault().seal(value, name);
    const updatedAt = Date.now();
    this.db
      .insert(vaultSecrets)
      .values({ name, ciphertext, updatedAt })
      .onConflictDoUpdate({ target: vaultSecrets.name, set: { ciphertext, updatedAt } })
      .run();
  }

  has(name: VaultSecretName): boolean {
    return this.db.select({ name: vaultSecrets.name }).from(vaultSecrets).where(eq(vaultSecrets.name, name)).get() !== undefined;
  }

  /** The plaintext, or null when not set. Throws VaultLockedError while the vault is locked. */
  get(name: VaultSecretName): string | null {
    const row = this.db.select().from(vaultSecrets).where(eq(vaultSecrets.name, name)).get();
    return row ? this.vault().open(row.ciphertext, name) : null;
  }

  delete(name: VaultSecretName): void {
    this.db.delete(vaultSecrets).where(eq(vaultSecrets.name, name)).run();
  }
}

// The unlocked vault: a 256-bit data key in memory that seals and opens secrets. Locking zero-fills
// the key, so nothing opens a secret after it. A secret already opened (a key revealed on screen)
// is a JavaScript string, which cannot be wiped: it stays in the heap until the garbage collector
// reuses its memory, so secrets are opened only when someone asks to see one.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/open';
import { vaultMeta } from '../db/schema';
import { open, seal } from './aes-gcm';
import { TitularError } from '../errors';
import { VaultUnlockError, type MasterKeyProvider, type MasterKeyProviderKind } from './master-key-provider';

/** Raised by any operation that needs a secret while the vault is locked (after auto-lock). */
export class VaultLockedError extends TitularError {
  override name = 'VaultLockedError';
  constructor() {
    super(401, 'UNAUTHORIZED', 'The vault is locked: unlock it to manage keys');
  }
}

export class Vault {
  #dataKey: Buffer | null;

  /** `null`: a vault opened locked, for work that needs no secret (a backup copies it still sealed). */
  constructor(dataKey: Buffer | null) {
    this.#dataKey = dataKey;
  }

  get locked(): boolean {
    return this.#dataKey === null;
  }

  seal(plaintext: string, aad: string): Buffer {
    return seal(this.#key(), Buffer.from(plaintext, 'utf8'), Buffer.from(aad, 'utf8'));
  }

  open(box: Buffer, aad: string): string {
    const bytes = open(this.#key(), box, Buffer.from(aad, 'utf8'));
    try {
      return bytes.toString('utf8');
    } finally {
      bytes.fill(0);
    }
  }

  lock(): void {
    this.#dataKey?.fill(0);
    this.#dataKey = null;
  }

  #key(): Buffer {
    if (!this.#dataKey) throw new VaultLockedError();
    return this.#dataKey;
  }
}

/** Which provider protects the vault of this database, or null for a database without a vault yet. */
export function vaultProviderKind(db: Db): MasterKeyProviderKind | null {
  return db.select({ provider: vaultMeta.provider }).from(vaultMeta).where(eq(vaultMeta.id, 1)).get()?.provider ?? null;
}

/** The key-derivation parameters stored with the vault (a passphrase vault's scrypt salt and cost), or null. */
export function vaultKdf(db: Db): string | null {
  return db.select({ kdf: vaultMeta.kdf }).from(vaultMeta).where(eq(vaultMeta.id, 1)).get()?.kdf ?? null;
}

/**
 * Unlocks the vault, creating it on first use. A wrong secret throws VaultUnlockError before
 * anything is written.
 */
export function unlockVault(db: Db, provider: MasterKeyProvider): Vault {
  const row = db.select().from(vaultMeta).where(eq(vaultMeta.id, 1)).get();
  if (row) {
    if (row.provider !== provider.kind) {
      throw new VaultUnlockError(
        `This vault is protected by ${describe(row.provider)}, not by ${describe(provider.kind)}`,
      );
    }
    return new Vault(provider.unwrap({ wrapped: row.wrappedDataKey, kdf: row.kdf }));
  }
  const dataKey = randomBytes(32);
  const { wrapped, kdf } = provider.wrap(dataKey);
  const created = db
    .insert(vaultMeta)
    .values({ id: 1, provider: provider.kind, kdf, wrappedDataKey: wrapped, createdAt: Date.now() })
    .onConflictDoNothing()
    .run();
  if (created.changes === 0) {
    // Another process created the vault since the read above (two first runs at once): there is
    // one vault, theirs, and it opens with this provider or refuses it like any existing vault.
    dataKey.fill(0);
    return unlockVault(db, provider);
  }
  return new Vault(dataKey);
}

/** Re-wraps the data key with another provider (changing the passphrase, moving to the OS keychain). */
export function rewrapVault(db: Db, vault: Vault, current: MasterKeyProvider, next: MasterKeyProvider): void {
  const row = db.select().from(vaultMeta).where(eq(vaultMeta.id, 1)).get();
  if (!row || vault.locked) throw new VaultLockedError();
  const dataKey = current.unwrap({ wrapped: row.wrappedDataKey, kdf: row.kdf });
  try {
    const { wrapped, kdf } = next.wrap(dataKey);
    db.update(vaultMeta).set({ provider: next.kind, kdf, wrappedDataKey: wrapped }).where(eq(vaultMeta.id, 1)).run();
  } finally {
    dataKey.fill(0);
  }
}

function describe(kind: MasterKeyProviderKind): string {
  switch (kind) {
    case 'passphrase':
      return 'a passphrase (set TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE)';
    case 'keyfile':
      return 'a key file (master.key in the data directory)';
    case 'os':
      return "the operating system's keychain (the desktop app)";
  }
}

/** Checks a secret against the vault without changing anything (re-authentication before a reveal). */
export function vaultSecretMatches(db: Db, provider: MasterKeyProvider): boolean {
  const row = db.select().from(vaultMeta).where(eq(vaultMeta.id, 1)).get();
  if (!row || row.provider !== provider.kind) return false;
  try {
    provider.unwrap({ wrapped: row.wrappedDataKey, kdf: row.kdf }).fill(0);
    return true;
  } catch {
    return false;
  }
}

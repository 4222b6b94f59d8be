// Data directories prepared through the core and closed again, so that a server or CLI process can
// open them; and the API key most tests ask for.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openTitular } from '../../src/main/core/titular';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { parseDirectoryFile } from '../../src/main/core/directory/directory-file';
import type { CreateKeyInput } from '../../src/main/core/keys/api-keys';
import type { ProductSlug } from '../../src/shared/api/common';

/** A live cbu key for lookup, balance and history, owned and created by `adminId`, with `overrides`. */
export function liveKeyInput(orgId: string, adminId: string, overrides: Partial<Omit<CreateKeyInput, 'orgId'>> = {}): CreateKeyInput {
  return {
    orgId,
    ownerUserId: adminId,
    actorUserId: adminId,
    product: 'cbu',
    scopes: ['lookup', 'balance', 'history'],
    environment: 'live',
    ...overrides,
  };
}

export interface PreparedKey {
  id: string;
  secret: string;
}

export interface Prepared<K extends string> {
  dataDir: string;
  orgId: string;
  adminId: string;
  keys: Record<K, PreparedKey>;
}

/**
 * A data directory with an organization, its keys (live cbu keys limited to 10,000 requests a
 * second unless given otherwise), credits and directory, written through the core and closed again,
 * so that a server process can open it.
 */
export function prepareDataDir<K extends string>(options: {
  keys: Record<K, Partial<Omit<CreateKeyInput, 'orgId' | 'ownerUserId' | 'actorUserId'>>>;
  credits?: Partial<Record<ProductSlug, number>>;
  directoryCsv?: string;
  /** Prefix of the temporary directory's name. */
  tmpPrefix?: string;
  /** A vault protected by this passphrase instead of a key file. */
  passphrase?: string;
}): Prepared<K> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), options.tmpPrefix ?? 'titular-reliability-'));
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, options.passphrase ? { TITULAR_PASSPHRASE: options.passphrase } : {}) });
  try {
    const { org, admin } = titular.users.initialize({ orgName: 'Acme Cobranzas', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' });
    const keys = {} as Record<K, PreparedKey>;
    for (const [name, input] of Object.entries(options.keys) as [K, Partial<CreateKeyInput>][]) {
      const { key, secret } = titular.keys.create(liveKeyInput(org.id, admin.id, { rateLimitPerSecond: 10_000, ...input }));
      keys[name] = { id: key.id, secret };
    }
    for (const [product, amount] of Object.entries(options.credits ?? {}) as [ProductSlug, number][]) {
      if (amount) titular.ledger.addPurchase({ orgId: org.id, product, amount, userId: admin.id });
    }
    if (options.directoryCsv) {
      const parsed = parseDirectoryFile(options.directoryCsv, 'csv');
      if (parsed.errors.length > 0) throw new Error(`directory invalid: ${JSON.stringify(parsed.errors.slice(0, 3))}`);
      titular.directory.import(org.id, parsed, { skipInvalid: false, actorUserId: admin.id });
    }
    return { dataDir, orgId: org.id, adminId: admin.id, keys };
  } finally {
    titular.close();
  }
}

// Small typed settings kept in the database (so the desktop and the headless server agree).
import { WriteInvalidatedCache } from '../db/write-invalidated-cache';
import type Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/open';
import { settings } from '../db/schema';
import { UNREADABLE, storedJson } from '../db/stored-json';

const SETTINGS = {
  /** Port of the localhost API in the desktop app. */
  'api.port': z.number().int().min(1024).max(65535).default(8787),
  /** Minutes of inactivity after which the desktop locks the vault (0 = never). */
  'vault.autoLockMinutes': z.number().int().min(0).max(24 * 60).default(15),
  /** The user the desktop signs in as (defaults to the first admin). */
  'desktop.userId': z.string().nullable().default(null),
  /** Where live account lookups are answered (sandbox keys always use the sample data). */
  'resolver.cbu': z.enum(['directory', 'remote']).default('directory'),
  /** Where live credit reports are answered. */
  'resolver.informes': z.enum(['directory', 'remote']).default('directory'),
  /**
   * Base URL of the compatible remote Account Lookup API (the `remote` resolver), e.g.
   * https://api.example.com; its upstream key is a vault secret (vault/vault-secrets.ts).
   */
  'remote.baseUrl': z.string().url().max(500).nullable().default(null),
  /** Per-attempt timeout of a remote call, in milliseconds. */
  'remote.timeoutMs': z.number().int().min(100).max(60_000).default(5_000),
} as const;

export const SETTING_SCHEMAS = SETTINGS;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<K extends SettingKey> = z.output<(typeof SETTINGS)[K]>;

export class Settings {
  // Read on every lookup (the resolver choice), so values are cached until this object or another
  // process (the CLI) writes.
  readonly #cache: WriteInvalidatedCache<SettingKey, unknown>;

  constructor(
    private readonly db: Db,
    sqlite: Database.Database,
  ) {
    this.#cache = new WriteInvalidatedCache(sqlite);
  }

  get<K extends SettingKey>(key: K): SettingValue<K> {
    return this.#cache.get(key, () => this.#read(key)) as SettingValue<K>;
  }

  /**
   * As `get`, but a value read before is trusted without reading data_version: for a lookup, which
   * confirms it with `get` inside the transaction that records it (write-invalidated-cache.ts).
   */
  peek<K extends SettingKey>(key: K): SettingValue<K> {
    return (this.#cache.peek(key) ?? this.get(key)) as SettingValue<K>;
  }

  #read<K extends SettingKey>(key: K): SettingValue<K> {
    const row = this.db.select().from(settings).where(eq(settings.key, key)).get();
    // A value that is not valid for its setting, or not JSON at all (a damaged cell, stored-json.ts),
    // reads as the default, as no value does: one bad cell must not stop every lookup.
    const raw = row ? storedJson(row.value) : undefined;
    const parsed = SETTINGS[key].safeParse(raw === UNREADABLE ? undefined : raw);
    return (parsed.success ? parsed.data : SETTINGS[key].parse(undefined)) as SettingValue<K>;
  }

  set<K extends SettingKey>(key: K, value: SettingValue<K>): void {
    const valid = SETTINGS[key].parse(value);
    this.db
      .insert(settings)
      .values({ key, value: JSON.stringify(valid) })
      .onConflictDoUpdate({ target: settings.key, set: { value: JSON.stringify(valid) } })
      .run();
    this.#cache.clear();
  }
}

// Caches read on every request (API keys, settings) may be trusted only while no other connection
// (the CLI next to a running server) has committed: SQLite's PRAGMA data_version changes exactly
// then. Changes made through this connection are the cache owner's to drop (`clear`).
import type Database from 'better-sqlite3';

export class WriteInvalidatedCache<K, V> {
  readonly #dataVersion: Database.Statement<[], number>;
  readonly #entries = new Map<K, V>();
  #seenVersion = -1;

  constructor(
    sqlite: Database.Database,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {
    this.#dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** The cached value, or `load()`'s (cached unless undefined), after dropping what another connection may have made stale. */
  get(key: K, load: () => V | undefined): V | undefined {
    const version = this.#dataVersion.get() as number;
    if (version !== this.#seenVersion) {
      this.#entries.clear();
      this.#seenVersion = version;
    }
    if (this.#entries.has(key)) return this.#entries.get(key);
    const value = load();
    if (value === undefined) return undefined;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

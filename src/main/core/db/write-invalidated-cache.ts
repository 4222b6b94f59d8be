// Caches read on every request (API keys, settings) may be trusted only while no other connection
// (the CLI next to a running server) has committed: SQLite's PRAGMA data_version changes exactly
// then. Changes made through this connection are the cache owner's to drop (`clear`).
//
// Reading data_version opens a read transaction (file locks: a few µs), and one request checks
// several caches (its key, then the resolver setting). The version is therefore read once per
// synchronous run of JavaScript and shared by every cache of the connection: one request's checks
// all see the database as it was when its handling began, and the next request (a later callback,
// after a microtask checkpoint) reads it afresh.
import type Database from 'better-sqlite3';

const probes = new WeakMap<Database.Database, () => number>();

/** PRAGMA data_version of this connection, read at most once per synchronous run. */
function dataVersionProbe(sqlite: Database.Database): () => number {
  let probe = probes.get(sqlite);
  if (!probe) {
    const statement = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
    let version = -1;
    let fresh = false;
    const expire = () => {
      fresh = false;
    };
    probe = () => {
      if (!fresh) {
        version = statement.get() as number;
        fresh = true;
        queueMicrotask(expire);
      }
      return version;
    };
    probes.set(sqlite, probe);
  }
  return probe;
}

export class WriteInvalidatedCache<K, V> {
  readonly #dataVersion: () => number;
  readonly #entries = new Map<K, V>();
  #seenVersion = -1;

  constructor(
    sqlite: Database.Database,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {
    this.#dataVersion = dataVersionProbe(sqlite);
  }

  /** The cached value, or `load()`'s (cached unless undefined), after dropping what another connection may have made stale. */
  get(key: K, load: () => V | undefined): V | undefined {
    const version = this.#dataVersion();
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

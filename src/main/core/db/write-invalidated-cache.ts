// Caches read on every request (API keys, settings) may be trusted only while no other connection
// (the CLI next to a running server) has committed: SQLite's PRAGMA data_version changes exactly
// then. Changes made through this connection are the cache owner's to drop (`clear`).
//
// Reading data_version opens a read transaction (file locks: under load about 9 µs, a tenth of a
// lookup), and one request checks several caches (its key, then the resolver setting). The version
// is therefore read once per synchronous run of JavaScript and shared by every cache of the
// connection: one request's checks all see the database as it was when its handling began, and the
// next request (a later callback, after a microtask checkpoint) reads it afresh.
//
// Lookups skip even that read: they `peek` (trust the cache as it is) and confirm what they trusted
// inside the group transaction that records them, where the version is read again at the start of
// every batch (`refreshDataVersion`, called by CommitQueue) at no lock cost. A lookup that trusted
// a stale entry then fails or starts over before anything is written (lookup/lookup-record.ts).
import type Database from 'better-sqlite3';

interface DataVersionProbe {
  /** PRAGMA data_version, read at most once per synchronous run. */
  current(): number;
  /** Reads it now, whatever this run read before (the start of a write transaction). */
  refresh(): void;
}

const probes = new WeakMap<Database.Database, DataVersionProbe>();

function dataVersionProbe(sqlite: Database.Database): DataVersionProbe {
  let probe = probes.get(sqlite);
  if (!probe) {
    const statement = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
    let version = -1;
    let fresh = false;
    const expire = () => {
      fresh = false;
    };
    const read = () => {
      version = statement.get() as number;
      if (!fresh) queueMicrotask(expire);
      fresh = true;
    };
    probe = {
      current: () => {
        if (!fresh) read();
        return version;
      },
      refresh: read,
    };
    probes.set(sqlite, probe);
  }
  return probe;
}

/**
 * Called at the start of every group transaction: the caches consulted inside it are then checked
 * against the database as that transaction sees it, which no other connection can change until it
 * commits (CommitQueue takes the write lock first).
 */
export function refreshDataVersion(sqlite: Database.Database): void {
  dataVersionProbe(sqlite).refresh();
}

export class WriteInvalidatedCache<K, V> {
  readonly #dataVersion: DataVersionProbe;
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
    const version = this.#dataVersion.current();
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

  /**
   * The cached value as it is, without reading data_version: only for a caller that confirms it
   * with `get` before it acts on it (inside the group transaction). Undefined when not cached.
   */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  clear(): void {
    // Map.clear() allocates a new table even when empty, and lookups clear the balances' cache on
    // every charge: with this check, none (18 MB more RSS under load without it).
    if (this.#entries.size > 0) this.#entries.clear();
  }
}

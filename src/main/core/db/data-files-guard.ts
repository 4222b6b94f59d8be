// Whether the database this connection has open is still the one at its path. A cleanup script, a
// sync tool or a person may delete the data directory, or its `-shm` file, while Titular runs. SQLite
// goes on writing into the open files either way: into files nobody will find again (every lookup
// charged from then on is lost at shutdown), or beside a new `-shm` another process made, which has
// locks of its own, so both write the WAL at once and the database is corrupted (measured by the
// reliability review). Checked before each group commit: a `stat` of three paths, a few µs a batch.
import { statSync, type Stats } from 'node:fs';
import { TitularError } from '../errors';

interface Identity {
  dev: number;
  ino: number;
}

const identityOf = (stats: Stats | undefined): Identity | null => (stats ? { dev: stats.dev, ino: stats.ino } : null);

export class DataFilesGuard {
  readonly #paths: readonly string[];
  readonly #identities: readonly (Identity | null)[];

  /** Takes the identity of the database file, its `-wal` and its `-shm` as they are now (right after opening). */
  constructor(readonly databaseFile: string) {
    this.#paths = [databaseFile, `${databaseFile}-wal`, `${databaseFile}-shm`];
    this.#identities = this.#paths.map((file) => identityOf(statSync(file, { throwIfNoEntry: false })));
  }

  /**
   * The path that no longer names the file this process has open, or null while all is as it was. A
   * path that cannot be looked at any more (its folder replaced by a file, its mode changed, a disk
   * failing) counts as moved: what cannot be checked is not written to. Never throws.
   */
  moved(): string | null {
    for (let i = 0; i < this.#paths.length; i++) {
      const was = this.#identities[i];
      if (!was) continue;
      let now: Stats | undefined;
      try {
        now = statSync(this.#paths[i]!, { throwIfNoEntry: false });
      } catch {
        return this.#paths[i]!;
      }
      if (!now || now.ino !== was.ino || now.dev !== was.dev) return this.#paths[i]!;
    }
    return null;
  }
}

/** The refusal of every write once the files are gone: nothing more is recorded until a restart. */
export function dataFilesMovedError(file: string): TitularError {
  return new TitularError(
    500,
    'GE500',
    `Titular's data files were deleted, replaced or made unreachable while it ran (${file}): nothing more is recorded or charged. Stop Titular, check its data directory (restore a backup if it is gone), then start it again`,
  );
}

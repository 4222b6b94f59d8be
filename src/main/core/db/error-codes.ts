// The codes a database fault carries, where they sit: on the error itself, or on the errors it wraps
// (`cause`): a batch's failed write wraps SQLite's. One walk for every classifier of db/ (a full
// disk, a busy database, a damaged or unwritable one).

/** The error, then each error it wraps, a few deep (a cycle of causes ends there too). */
export function* causeChain(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    yield e as { code?: unknown; message?: unknown };
  }
}

/** Whether any error in the chain has a code `matches` accepts (SQLITE_FULL, ENOSPC, SQLITE_BUSY_RECOVERY…). */
export function hasCode(error: unknown, matches: (code: string) => boolean): boolean {
  for (const e of causeChain(error)) if (typeof e.code === 'string' && matches(e.code)) return true;
  return false;
}

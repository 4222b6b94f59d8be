// Another process (a CLI command, a second server, the desktop) held the database's write lock for
// longer than the busy timeout (db/open.ts, 5 s). Nothing was written, and the same request succeeds
// once it lets go: a client is told to retry (503 with Retry-After), not that Titular is broken.
import type Database from 'better-sqlite3';
import { TitularError } from '../errors';
import { hasCode } from './error-codes';

/** SQLite's SQLITE_BUSY or SQLITE_LOCKED (and their extended codes), also as the cause of a wrapping error. */
export function isDatabaseBusy(error: unknown): boolean {
  return hasCode(error, (code) => code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export const DATABASE_BUSY_MESSAGE = "Titular's database is busy: another Titular process holds it. Nothing was recorded or charged; retry shortly";

/** Seconds a client is asked to wait before it tries again. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/** The GE500 of a busy database: 503 with Retry-After, as a data source that is down (decisions 6). */
export function databaseBusyError(): TitularError {
  return new TitularError(503, 'GE500', DATABASE_BUSY_MESSAGE, { headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) } });
}

/**
 * Runs `task` with no wait on a write lock another process holds: it fails at once with SQLITE_BUSY
 * instead of sleeping up to the busy timeout on the event loop. For bookkeeping writes that are tried
 * again later anyway (the housekeeping: keys' last use, expired idempotency records).
 */
export function withoutBusyWait<T>(sqlite: Database.Database, task: () => T): T {
  const timeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma('busy_timeout = 0');
  try {
    return task();
  } finally {
    if (sqlite.open) sqlite.pragma(`busy_timeout = ${timeout}`);
  }
}

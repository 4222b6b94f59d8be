// A core write of one synchronous transaction (a directory import) that Ctrl-C or SIGTERM undoes,
// and says so. A signal's handler cannot run during synchronous work: without one, the signal ended
// the process at once (the transaction rolled back) with nothing said; with one alone, it would be
// seen only after the transaction had committed. So the write runs inside an outer transaction of
// the CLI's own (the core's transaction becomes a savepoint in it), the signal is let in before the
// commit, and an interrupted write is rolled back whole.
import { interruptedExitCode, letSignalsIn, sayStopped } from './interrupt';
import type { SessionContext } from './context';

export type Interrupted = { interrupted: true; exitCode: number };

/**
 * Runs `write` on the session's connection and commits it unless the command's signal was aborted
 * before the commit; then nothing is kept and `what` ("nothing was imported") is said. The command
 * must be `interruptible` (else its signal is never aborted and Ctrl-C keeps its default).
 */
export async function writeUnlessInterrupted<T>(ctx: SessionContext, what: string, write: () => T): Promise<T | Interrupted> {
  const sqlite = ctx.titular.database.sqlite;
  // Said as the signal is handled: a second Ctrl-C right behind the first ends the process at once
  // (cli.ts), before this function could say it; the open transaction is not committed then either.
  const say = () => sayStopped(ctx.out, what);
  ctx.signal.addEventListener('abort', say, { once: true });
  try {
    // A Ctrl-C while the file was read: nothing is written at all.
    await letSignalsIn();
    if (ctx.signal.aborted) return { interrupted: true, exitCode: interruptedExitCode(ctx.signal) };
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const result = write();
      await letSignalsIn();
      if (ctx.signal.aborted) {
        sqlite.exec('ROLLBACK');
        return { interrupted: true, exitCode: interruptedExitCode(ctx.signal) };
      }
      sqlite.exec('COMMIT');
      return result;
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    }
  } finally {
    ctx.signal.removeEventListener('abort', say);
  }
}

export function wasInterrupted(value: unknown): value is Interrupted {
  return typeof value === 'object' && value !== null && (value as Partial<Interrupted>).interrupted === true;
}

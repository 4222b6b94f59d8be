// Watching a CLI process from outside (Linux /proc, file sizes) to signal it in the phase a test
// names, not after a delay that holds on one machine only. Every wait is bounded.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Whether /proc tells what a process reads and holds open (Linux). */
export const canWatchProcesses = process.platform === 'linux' && existsSync('/proc/self/io');

const POLL_MS = 20;
const DEADLINE_MS = 60_000;

/** The phase a test waits for did not come, or came and went unseen: the attempt proves nothing. */
export class PhaseMissed extends Error {}

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Whether the process has ended (exited, or a zombie not reaped yet). */
export function ended(child: ChildProcess): boolean {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  if (!canWatchProcesses) return false;
  try {
    return statFields(child.pid!)[0] === 'Z';
  } catch {
    return true;
  }
}

/**
 * Resolves once `test` holds, checked every 20 ms. Rejects with PhaseMissed when the process ends
 * first, and with an Error naming `what` after 60 s.
 */
export async function waitUntil(child: ChildProcess, what: string, test: () => boolean, timeoutMs = DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ended(child)) throw new PhaseMissed(`the process ended before ${what}`);
    try {
      if (test()) return;
    } catch (error) {
      // /proc reads fail once the process is gone: said on the next turn.
      if (!ended(child)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Bytes the process has read so far, from any file and thread (/proc/PID/io `rchar`). */
export function bytesRead(pid: number): number {
  const match = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  if (!match) throw new Error(`no rchar in /proc/${pid}/io`);
  return Number(match[1]);
}

/** Whether one of the process's open file descriptors is `file`. */
export function holdsOpen(pid: number, file: string): boolean {
  const target = realpathSync(file);
  return readdirSync(`/proc/${pid}/fd`).some((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
    } catch {
      return false; // closed meanwhile
    }
  });
}

/** A file's size; 0 when it is not there (a WAL before the database is opened). */
export function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The process's descendants, nearest first (from each process's parent in /proc/PID/stat). */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      parents.set(Number(name), Number(statFields(name)[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  for (let i = -1; i < found.length; i++) {
    const parent = i < 0 ? pid : found[i]!;
    for (const [child, ppid] of parents) if (ppid === parent) found.push(child);
  }
  return found;
}

/** The terminal on the stdin of `pid` or of one of its descendants (the CLI `script` runs), or null. */
export function terminalUnder(pid: number): string | null {
  for (const p of [pid, ...descendantsOf(pid)]) {
    try {
      const stdin = readlinkSync(`/proc/${p}/fd/0`);
      if (stdin.startsWith('/dev/pts/')) return stdin;
    } catch {
      // ended meanwhile
    }
  }
  return null;
}

/** Whether `tty` is in raw mode (no line editing, Ctrl-C a character), as `stty` reads it. */
export function isRaw(tty: string): boolean {
  const flags = execFileSync('stty', ['-F', tty, '-a'], { encoding: 'utf8' }).split(/\s+/);
  return flags.includes('-icanon') && flags.includes('-isig');
}

/** The database file of a data directory and its write-ahead log, which grows as a transaction writes. */
export function databaseFiles(dataDir: string): { db: string; wal: string } {
  const db = path.join(dataDir, 'titular.db');
  return { db, wal: `${db}-wal` };
}

/**
 * Resolves once the CLI holds its data directory's database open. An interruptible command listens
 * for SIGINT and SIGTERM from just before it opens it (cli/run.ts), so from then on a signal is
 * caught. (SigCgt in /proc/PID/status cannot tell: Node catches both from its start, to reset the
 * terminal.) Answers what the process had read before the open, to tell its input file's read after.
 */
export async function databaseOpened(child: ChildProcess, dataDir: string): Promise<{ readBefore: number }> {
  const { db } = databaseFiles(dataDir);
  let readBefore = 0;
  await waitUntil(child, 'the CLI opened its database', () => {
    // Read first: when the database is not open yet, this count is from before it was.
    const read = bytesRead(child.pid!);
    if (holdsOpen(child.pid!, db)) return true;
    readBefore = read;
    return false;
  });
  return { readBefore };
}

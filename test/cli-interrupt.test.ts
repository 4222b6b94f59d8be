// Ctrl-C (SIGINT) and SIGTERM during the commands that catch them, run as a process: each says what
// it kept or did not, on stderr in the words `bulk run` uses ("Stopped before the end: ..."), and
// exits with the status a shell gives a process killed by the signal (130, 143).
// - `directory import` is one synchronous transaction: it used to end at once, silently; now
//   nothing is imported and it says so, also for a second Ctrl-C right behind the first.
// - `history export` used to exit 1; it leaves no file, not even a partial one, at its target.
// - `remote set-key`'s hidden prompt (raw mode: Ctrl-C is a character there) used to exit 1.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { entryCommand, runCli, type CliRun } from './support/processes';
import { generateDirectory } from './bulk/bulk-data';
import { uuidv7 } from '../src/main/core/db/ids';
import { tempDirsOf } from './support/temp-dirs';
import { PhaseMissed, bytesRead, canWatchProcesses, databaseFiles, databaseOpened, isRaw, sizeOf, terminalUnder, waitUntil } from './support/process-phase';

const TIMEOUT_MS = 180_000;
const STOPPED = /^Stopped before the end: (.+)\.$/m;

const tempDir = tempDirsOf('titular-cli-interrupt-');

async function initialized(): Promise<string> {
  const dataDir = path.join(tempDir(), 'data');
  const init = await runCli(['init', '--org', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test', '--data-dir', dataDir]);
  expect(init.code, init.stderr).toBe(0);
  return dataDir;
}

/** Reads the data directory with SQL (no CLI runs on it meanwhile). */
function query<T>(dataDir: string, sql: string): T {
  const db = new Database(path.join(dataDir, 'titular.db'), { readonly: true });
  try {
    return db.prepare(sql).get() as T;
  } finally {
    db.close();
  }
}

/**
 * Runs the CLI on a fresh data directory while `drive` watches it and signals it. When `drive` finds
 * that the phase it waits for came and went unseen (PhaseMissed), the attempt proves nothing: tried
 * again, up to 3 times. Any other failure of `drive` (a phase not seen in 60 s) fails the test.
 */
async function interrupted(
  args: (dataDir: string) => string[],
  drive: (child: ChildProcess, dataDir: string) => Promise<void>,
): Promise<{ run: CliRun; dataDir: string }> {
  for (let attempt = 1; ; attempt++) {
    const dataDir = await initialized();
    let driving: Promise<void> = Promise.resolve();
    const run = await runCli(args(dataDir), {
      timeoutMs: 120_000,
      onSpawn: (child) => {
        driving = drive(child, dataDir).catch((error: unknown) => {
          child.kill('SIGKILL');
          throw error;
        });
        driving.catch(() => {}); // awaited below, once the process has ended
      },
    });
    try {
      await driving;
      return { run, dataDir };
    } catch (error) {
      if (!(error instanceof PhaseMissed) || attempt === 3) throw new Error(`${(error as Error).message}\n${run.stdout}${run.stderr}`);
    }
  }
}

describe.skipIf(!canWatchProcesses)('Ctrl-C or SIGTERM during a directory import', () => {
  // 200,000 accounts (the most one import takes): here about 2 s to read and parse, then 1 s to write
  // in one transaction. Each signal is sent once /proc and the WAL show the CLI in the phase named.
  const file = path.join(tempDir(), 'directorio.csv');
  writeFileSync(file, generateDirectory(200_000).csv);
  const fileBytes = statSync(file).size;

  /** Resolves once the transaction writes: the WAL grows as SQLite spills its page cache into it. */
  async function writing(child: ChildProcess, dataDir: string): Promise<void> {
    await databaseOpened(child, dataDir);
    const { wal } = databaseFiles(dataDir);
    const before = sizeOf(wal);
    await waitUntil(child, 'the accounts being written (the WAL growing)', () => sizeOf(wal) > before);
  }

  const cases: [string, (child: ChildProcess, dataDir: string) => Promise<void>, number][] = [
    [
      'SIGINT while the file is read',
      async (child, dataDir) => {
        const { readBefore } = await databaseOpened(child, dataDir);
        const { wal } = databaseFiles(dataDir);
        const walBefore = sizeOf(wal);
        await waitUntil(child, 'the file read', () => bytesRead(child.pid!) - readBefore >= fileBytes);
        if (sizeOf(wal) > walBefore) throw new PhaseMissed('the accounts were being written already');
        child.kill('SIGINT');
      },
      130,
    ],
    [
      'SIGTERM while the accounts are written',
      async (child, dataDir) => {
        await writing(child, dataDir);
        child.kill('SIGTERM');
      },
      143,
    ],
    [
      'two Ctrl-C in a row',
      async (child, dataDir) => {
        await writing(child, dataDir);
        child.kill('SIGINT');
        // The WAL still growing after it shows the first one waiting behind the synchronous
        // transaction (a handled one rolls back, which writes nothing): the second comes right behind.
        const { wal } = databaseFiles(dataDir);
        const atFirst = sizeOf(wal);
        await waitUntil(child, 'more accounts written after the first Ctrl-C', () => sizeOf(wal) > atFirst);
        child.kill('SIGINT');
      },
      130,
    ],
  ];
  it.each(cases)('%s: nothing is imported, and it says so (exit 128 + the signal)', async (_name, drive, code) => {
    const { run, dataDir } = await interrupted((dataDir) => ['directory', 'import', file, '--data-dir', dataDir], drive);
    expect(run.code, run.stdout + run.stderr).toBe(code);
    expect(STOPPED.exec(run.stderr)?.[1], run.stderr).toBe('nothing was imported');
    expect(run.stdout).toBe('');
    expect(query<{ n: number }>(dataDir, 'SELECT COUNT(*) AS n FROM directory_accounts').n).toBe(0);
    expect(query<{ n: number }>(dataDir, "SELECT COUNT(*) AS n FROM audit_log WHERE action = 'directory.imported'").n).toBe(0);
  }, TIMEOUT_MS);
});

describe('Ctrl-C or SIGTERM during a history export', () => {
  /** A history of `rows` live cbu lookups, written with SQL. */
  async function withHistory(rows: number): Promise<string> {
    const dataDir = await initialized();
    const db = new Database(path.join(dataDir, 'titular.db'));
    try {
      const { org, user } = db.prepare('SELECT org_id AS org, id AS user FROM users LIMIT 1').get() as { org: string; user: string };
      const insert = db.prepare(
        `INSERT INTO lookups (id, org_id, environment, product, input_identifier, input_type, status, error_code, http_status,
           source, response_data, upstream_latency_ms, credit_consumed, user_id, api_key_id, request_id, created_at)
         VALUES (?, ?, 'live', 'cbu', '0290001800000000007773', 'CBU', 'SUCCESS', NULL, 200, 'WEB', ?, 12, 0, ?, NULL, ?, ?)`,
      );
      const start = Date.parse('2026-10-01T00:00:00Z');
      const data = JSON.stringify({ holders: [{ name: 'Lucía Luna', tax_id: '27301112225' }], account_type: 'CA', currency: 'ARS' });
      db.transaction(() => {
        for (let i = 0; i < rows; i++) {
          const id = uuidv7(start + i);
          insert.run(id, org, data, user, `req_${id.replaceAll('-', '')}`, start + i);
        }
      })();
    } finally {
      db.close();
    }
    return dataDir;
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i, the target is not written, no temporary file is left', async (signal, code) => {
    const dataDir = await withHistory(400_000);
    const folder = tempDir();
    const target = path.join(folder, 'historial.csv');
    // Sent once its temporary file is there: the export is under way (and listens for the signal).
    let sent = false;
    let watching: Promise<void> = Promise.resolve();
    const run = await runCli(['history', 'export', '--format', 'csv', '--output', target, '--data-dir', dataDir], {
      timeoutMs: 120_000,
      onSpawn: (child) => {
        watching = waitUntil(child, 'the temporary file of the export', () => readdirSync(folder).some((name) => name.endsWith('.tmp'))).then(
          () => {
            sent = true;
            child.kill(signal);
          },
          (error: unknown) => {
            if (!(error instanceof PhaseMissed)) child.kill('SIGKILL');
            throw error;
          },
        );
        watching.catch(() => {}); // awaited below
      },
    });
    await watching.catch((error: unknown) => {
      if (!(error instanceof PhaseMissed)) throw error;
    });
    expect(sent, 'the export ended before it could be interrupted').toBe(true);
    expect(run.code, run.stdout + run.stderr).toBe(code);
    expect(STOPPED.exec(run.stderr)?.[1], run.stderr).toBe(`${target} was not written`);
    expect(run.stderr).not.toMatch(/^titular:/m);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
  }, TIMEOUT_MS);
});

/** Whether util-linux's `script` is here, to give the CLI a terminal, and `stty` and /proc to watch its mode. */
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    execFileSync('stty', ['--version'], { stdio: 'ignore' });
    return canWatchProcesses;
  } catch {
    return false;
  }
})();

describe('Ctrl-C at the hidden prompt of remote set-key', () => {
  it.skipIf(!hasScript)('exits 130, says that the upstream key was not changed, and stores nothing', async () => {
    const dataDir = await initialized();
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
    const command = [process.execPath, ...entryCommand('cli'), 'remote', 'set-key', '--data-dir', dataDir].map(quote).join(' ');
    // `script` runs it on a terminal of its own: the prompt, raw mode, and Ctrl-C typed as a character.
    const child: ChildProcess = spawn('script', ['-qefc', command, '/dev/null'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let typing: Promise<void> | null = null;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!typing && output.includes('Upstream key (input hidden): ')) {
        // Typed once the CLI's terminal is in raw mode (set just after the prompt is written): before,
        // Ctrl-C would be the terminal's SIGINT and the key would be echoed.
        typing = waitUntil(child, 'the terminal in raw mode', () => {
          const tty = terminalUnder(child.pid!);
          return tty !== null && isRaw(tty);
        }).then(
          () => void child.stdin!.write('sk_live_half\u0003'),
          (error: unknown) => {
            child.kill('SIGKILL');
            throw error;
          },
        );
        typing.catch(() => {}); // awaited below
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(typing, output).not.toBeNull();
    await typing;
    expect(code, output).toBe(130);
    expect(STOPPED.exec(output.replaceAll('\r', ''))?.[1], output).toBe('the upstream key was not changed');
    const status = await runCli(['remote', 'status', '--json', '--data-dir', dataDir]);
    expect(JSON.parse(status.stdout)).toMatchObject({ keySet: false });
  }, TIMEOUT_MS);
});

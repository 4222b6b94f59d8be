// Three README claims of the CLI, checked as a process:
// - "Every command takes --data-dir DIR and --json", `version` among them: it used to work only alone
//   on the command line (`titular version --json`, `version --help`, `--data-dir X version`: "Unknown
//   command: version", exit 2).
// - `bulk run` ends at once on a second Ctrl-C, exit 130 (143 for a second SIGTERM): one pressed
//   while the clean stop counted the job and closed the database (synchronous work, up to a second
//   on a large job) was never handled, and the run ended with the clean stop's 4.
// - `titular help remote set` names the plain-http hosts the remote URL check accepts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { version as packageVersion } from '../package.json';
import { remoteBaseUrlProblem } from '../src/main/core/resolvers/remote-config';
import { withCheckDigits } from '../src/shared/identifiers';
import { signalExitCode } from '../src/main/headless/cli/interrupt';
import { runCli, type CliRun } from './support/processes';
import { tempDirsOf } from './support/temp-dirs';
import { PhaseMissed, ended, waitUntil } from './support/process-phase';

const TIMEOUT_MS = 60_000;

const tempDir = tempDirsOf('titular-cli-signals-version-');

async function ok(args: string[]): Promise<string> {
  const run = await runCli(args);
  expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

describe('titular version', () => {
  it('takes the global options: --json, --data-dir (ignored), --help; --version and -V still print it', async () => {
    const plain = `titular ${packageVersion}\n`;
    for (const args of [['version'], ['--version'], ['-V'], ['--data-dir', '/tmp', 'version'], ['version', '--data-dir', tempDir()], ['version', '--as', 'ada@acme.test']]) {
      expect(await ok(args), args.join(' ')).toBe(plain);
    }
    for (const args of [['version', '--json'], ['--json', 'version'], ['--data-dir', '/tmp', 'version', '--json'], ['--version', '--json'], ['-V', '--json']]) {
      const stdout = await ok(args);
      expect(JSON.parse(stdout), args.join(' ')).toEqual({ name: 'titular', version: packageVersion });
      // Printed as every other --json answer is.
      expect(stdout).toBe(`${JSON.stringify({ name: 'titular', version: packageVersion }, null, 2)}\n`);
    }
    const help = await ok(['help', 'version']);
    expect(help).toMatch(/^Usage: titular version \(also --version, -V\)/);
    expect(help).toMatch(/^ {2}--json /m);
    for (const args of [['version', '--help'], ['version', '-h'], ['--data-dir', '/tmp', 'version', '--help'], ['--version', '--help']]) {
      expect(await ok(args), args.join(' ')).toBe(help);
    }
  }, TIMEOUT_MS);

  it('refuses what is not an option of it, as a command does (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['version', '--bogus'], /^titular: Unknown option --bogus for version$/m],
      [['version', 'extra'], /^titular: Unexpected argument for version: extra$/m],
      [['--version', 'extra'], /^titular: Unknown command: extra$/m],
      // --version after a command is still an unknown flag of that command.
      [['users', 'list', '--version'], /^titular: Unknown option --version for users list$/m],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stdout).toBe('');
    }
  }, TIMEOUT_MS);
});

describe('titular help remote set', () => {
  it('names every plain-http host the URL check accepts', async () => {
    const help = await ok(['help', 'remote', 'set']);
    expect(help.replace(/\s+/g, ' ')).toContain('plain http only to this machine: localhost, 127.x.x.x or [::1]');
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://127.4.5.6', 'http://[::1]:8080']) expect(remoteBaseUrlProblem(url), url).toBeNull();
    for (const url of ['http://192.168.0.10', 'http://api.example.com']) expect(remoteBaseUrlProblem(url), url).toMatch(/must use https/);
  }, TIMEOUT_MS);
});

describe('a second signal during the clean stop of a bulk run', () => {
  // 300,000 identifiers, none in the (empty) directory: each lookup answers "not found" and is
  // charged. After a Ctrl-C the run counts the job and closes the database, synchronously.
  let dataDir = '';
  let list = '';
  beforeAll(async () => {
    const root = tempDir();
    dataDir = path.join(root, 'data');
    await ok(['init', '--org', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test', '--data-dir', dataDir]);
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '10000000', '--data-dir', dataDir]);
    list = path.join(root, 'grande.txt');
    writeFileSync(list, Array.from({ length: 300_000 }, (_, i) => withCheckDigits('011', '0002', String(i).padStart(13, '0'))).join('\n'));
  }, TIMEOUT_MS);

  /** The status a shell reports: the exit code, or 128 + the signal that killed the process. */
  const shellStatus = (run: CliRun) => run.code ?? signalExitCode(run.signal!);

  /** The job's status, read with SQL beside the running CLI (WAL: a reader does not block it). */
  function jobStatus(jobId: string): string | undefined {
    const db = new Database(path.join(dataDir, 'titular.db'), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT status FROM bulk_jobs WHERE id = ?').get(jobId) as { status: string } | undefined)?.status;
    } finally {
      db.close();
    }
  }

  /**
   * Runs the list and, once the progress line shows the run under way, sends `signal`; then, once
   * the job reads paused (the first signal was handled: the clean stop counts the job and closes the
   * database, synchronous work), the same signal again. `second`: whether that one was sent while the
   * process was still there (its clean stop is short, a tenth of a second here: it can end unseen).
   */
  async function twoSignals(signal: NodeJS.Signals): Promise<{ run: CliRun; second: boolean }> {
    let first = false;
    let second = false;
    let watching: Promise<void> = Promise.resolve();
    let stdout = '';
    const run = await runCli(['bulk', 'run', list, '--again', '--data-dir', dataDir], {
      timeoutMs: 150_000,
      onStderr: (stderr, child) => {
        if (first || !/^progress/m.test(stderr)) return;
        first = true;
        child.kill(signal);
        const jobId = /job ([0-9a-f-]{36})/.exec(stdout)?.[1];
        watching = (async () => {
          if (!jobId) throw new Error('no job id before the progress line');
          await waitUntil(child, 'the job paused', () => jobStatus(jobId) !== 'running');
          if (ended(child)) return;
          second = true;
          child.kill(signal);
        })().catch((error: unknown) => {
          if (error instanceof PhaseMissed) return;
          child.kill('SIGKILL');
          throw error;
        });
        watching.catch(() => {}); // awaited below
      },
      onSpawn: (child) => child.stdout!.on('data', (chunk: string | Buffer) => (stdout += String(chunk))),
    });
    await watching;
    expect(first, `the run ended before its progress line:\n${run.stdout}${run.stderr}`).toBe(true);
    // Whatever it ended with, its job is cancelled: the next run makes a new one.
    const jobId = /job ([0-9a-f-]{36})/.exec(run.stdout)?.[1];
    expect(jobId, run.stdout).toBeDefined();
    await ok(['bulk', 'cancel', jobId!, '--data-dir', dataDir]);
    return { run, second };
  }

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s twice: the second ends it at once, %i (not 4, the clean stop\'s)', async (signal, status) => {
    // Should the clean stop end before the second signal is sent, the run proves nothing: run again.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const { run, second } = await twoSignals(signal);
      if (!second) continue;
      expect(shellStatus(run), `${run.stdout}${run.stderr}`).toBe(status);
      return;
    }
    throw new Error('the clean stop always ended before the second signal was sent');
  }, 480_000);
});

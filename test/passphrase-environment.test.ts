// TITULAR_PASSPHRASE leaves the environment of the headless processes once they have read it, as it
// leaves the desktop's (src/main/index.ts): `serve` (with and without --ui) and the CLI keep the
// passphrase only where they use it, so the processes they would start, and their diagnostic reports,
// do not get it. (Linux's /proc/PID/environ keeps the environment a process started with, whatever it
// does, so it is not what is looked at.) Observed from outside as an operator would: Node's diagnostic
// report (`--report-on-signal`, SIGUSR2), which lists the environment the process has when it is
// written; a variable set beside the passphrase shows the report does list it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryCommand, runCli, startServer } from './support/processes';
import { canWatchProcesses, databaseOpened } from './support/process-phase';
import { tempDirsOf } from './support/temp-dirs';

const ROOT = path.resolve(__dirname, '..');
const PASSPHRASE = 'frase que no queda en el entorno';
const MARKER = { TITULAR_TEST_MARKER: 'this variable is in the report' };
const tempDir = tempDirsOf('titular-passphrase-env-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function passphraseDataDir(): Promise<string> {
  const dataDir = path.join(tempDir(), 'data');
  const init = await runCli(['init', '--org', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test', '--data-dir', dataDir], {
    env: { TITULAR_PASSPHRASE: PASSPHRASE },
  });
  expect(init.code, init.stderr).toBe(0);
  return dataDir;
}

/** NODE_OPTIONS that make the process write a diagnostic report into `dir` on SIGUSR2. */
function reportOnSignal(dir: string): { NODE_OPTIONS: string } {
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --report-on-signal --report-directory=${dir}`.trim() };
}

/** Signals `pid` for a diagnostic report and reads it from `dir` once it is whole. */
async function diagnosticReport(pid: number, dir: string): Promise<{ text: string; environment: Record<string, string> }> {
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const file = readdirSync(dir).find((name) => name.startsWith('report.') && name.endsWith('.json'));
    if (file) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      try {
        const report = JSON.parse(text) as { environmentVariables: Record<string, string> };
        return { text, environment: report.environmentVariables };
      } catch {
        // Still being written.
      }
    }
    if (Date.now() > deadline) throw new Error('no diagnostic report within 15 s');
    await sleep(20);
  }
}

function expectNoPassphrase(report: { text: string; environment: Record<string, string> }): void {
  expect(report.environment.TITULAR_TEST_MARKER).toBe(MARKER.TITULAR_TEST_MARKER);
  expect(Object.keys(report.environment)).not.toContain('TITULAR_PASSPHRASE');
  expect(report.text).not.toContain(PASSPHRASE);
}

describe.skipIf(process.platform === 'win32')('TITULAR_PASSPHRASE is not kept in the environment once read', { timeout: 60_000 }, () => {
  for (const ui of [false, true]) {
    it(`serve${ui ? ' --ui' : ''}: opened with it, the running server's environment no longer has it`, async () => {
      const dataDir = await passphraseDataDir();
      const reports = tempDir();
      const server = await startServer([...(ui ? ['--ui'] : []), '--port', '0', '--data-dir', dataDir], {
        TITULAR_PASSPHRASE: PASSPHRASE,
        ...MARKER,
        ...reportOnSignal(reports),
      });
      try {
        // Opened with the passphrase: not the start-up screen, and the API answers.
        expect(server.output()).not.toContain('Titular is locked');
        const response = await fetch(`${server.url}/api/v1/openapi.json`);
        expect(response.status).toBe(200);
        expectNoPassphrase(await diagnosticReport(server.child.pid!, reports));
      } finally {
        expect(await server.stop()).toBe(0);
      }
    });
  }

  it.skipIf(!canWatchProcesses)('the CLI: a command that unlocked the vault with it runs on without it in its environment', async () => {
    const dataDir = await passphraseDataDir();
    const reports = tempDir();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TITULAR_PASSPHRASE: PASSPHRASE, ...MARKER, ...reportOnSignal(reports) };
    delete env.TITULAR_PASSPHRASE_FILE;
    delete env.TITULAR_DATA_DIR;
    // `remote set-key` opens the vault with the passphrase, then waits for the key on stdin.
    const child = spawn(process.execPath, [...entryCommand('cli'), 'remote', 'set-key', '--data-dir', dataDir], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      await databaseOpened(child, dataDir);
      expectNoPassphrase(await diagnosticReport(child.pid!, reports));
      // The command still has what it read: the key is sealed with the vault the passphrase opened.
      child.stdin.end('sk_live_UpstreamKeyKeptOutOfTheEnvironment1\n');
      expect(await exited, output).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const status = await runCli(['remote', 'status', '--json', '--data-dir', dataDir]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ keySet: true });
  });
});

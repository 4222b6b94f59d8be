// Starting Titular's headless entries as real processes: the built bundle when it is up to date with
// the sources (`npm test` builds it first: what ships, and a third of tsx's start time), else the
// TypeScript source through tsx, as the `titular` command does (bin/build-freshness.js), so that a
// test run after an edit without a build tests the edit.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const { upToDateBuild } = createRequire(__filename)('../../bin/build-freshness.js') as {
  upToDateBuild: (root: string, entry: string) => string | null;
};

/** TITULAR_TEST_SOURCE=1: the TypeScript source even where an up-to-date bundle is built. */
export function entryCommand(entry: 'serve' | 'cli'): string[] {
  const built = process.env.TITULAR_TEST_SOURCE === '1' ? null : upToDateBuild(ROOT, entry);
  if (built) return [built];
  // `--import tsx` runs in this one process (the tsx CLI would wrap it and not relay SIGTERM gracefully).
  return ['--import', 'tsx', path.join(ROOT, 'src/main/headless', `${entry}.ts`)];
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Sends a signal and resolves with the exit code once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...entryCommand('serve'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TITULAR_PASSPHRASE: '', TITULAR_PASSPHRASE_FILE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // 'close', not 'exit': the process's last output (e.g. "Titular stopped") has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1],
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Variables over a clean environment: TITULAR_PASSPHRASE(_FILE), TITULAR_DATA_DIR and TITULAR_DEBUG are unset unless given here. */
  env?: Record<string, string>;
  /** Written to stdin, which is otherwise closed. */
  input?: string;
  /** Killed after this long (default 20 s). */
  timeoutMs?: number;
  /** Sees stderr so far as it arrives (to signal the process mid-run). */
  onStderr?: (text: string, child: ChildProcess) => void;
  /** Sees the process as soon as it is spawned (to signal it after a while). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Runs the `titular` CLI as a process, the way an admin runs it, and resolves once it has exited. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.TITULAR_PASSPHRASE;
  delete env.TITULAR_PASSPHRASE_FILE;
  delete env.TITULAR_DATA_DIR;
  delete env.TITULAR_DEBUG;
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entryCommand('cli'), ...args], {
      cwd: ROOT,
      env,
      timeout: options.timeoutMs ?? 20_000,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      options.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
    options.onSpawn?.(child);
  });
}

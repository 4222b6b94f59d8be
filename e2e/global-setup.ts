// Seeds a temporary data directory with the CLI and starts two headless servers with the UI on it:
// one whose browser session is the first admin (Ada), one whose session is the operator (Oscar).
// Their URLs go to a JSON state file in os.tmpdir(), named by TITULAR_E2E_STATE for the workers.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STATE_ENV, stateFileFor, stopServer, type E2eState, type ServerInfo } from './state';
import { ADMIN, CREDIT_RECORDS_CSV, DIRECTORY_CSV, OPERATOR, ORG } from './data';

const REPO = path.resolve(__dirname, '..');
const OUT_MAIN = path.join(REPO, 'out', 'main');
const CLI_TIMEOUT_MS = 30_000;
const BUILD_TIMEOUT_MS = 240_000;
const SERVER_START_TIMEOUT_MS = 20_000;

/** The children's environment: no passphrase (a key-file vault), no inherited data dir or port. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TITULAR_PASSPHRASE;
  delete env.TITULAR_DATA_DIR;
  delete env.TITULAR_PORT;
  delete env.TITULAR_SYNCHRONOUS;
  env.NO_COLOR = '1';
  return env;
}

function ensureBuilt(): void {
  if (existsSync(path.join(REPO, 'out', 'renderer', 'index.html')) && existsSync(path.join(OUT_MAIN, 'serve.js')) && existsSync(path.join(OUT_MAIN, 'cli.js'))) return;
  process.stdout.write('[e2e] out/ is missing: running `npx electron-vite build`\n');
  execFileSync('npx', ['electron-vite', 'build'], { cwd: REPO, stdio: 'inherit', timeout: BUILD_TIMEOUT_MS, env: process.env });
}

function cli(dataDir: string, args: string[]): string {
  try {
    return execFileSync(process.execPath, [path.join(OUT_MAIN, 'cli.js'), ...args, '--data-dir', dataDir], {
      cwd: REPO,
      env: childEnv(),
      encoding: 'utf8',
      timeout: CLI_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`titular ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function startServer(root: string, dataDir: string, name: string, extraArgs: string[]): Promise<ServerInfo> {
  const logFile = path.join(root, `server-${name}.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [path.join(OUT_MAIN, 'serve.js'), '--data-dir', dataDir, '--port', '0', '--ui', ...extraArgs], {
    cwd: REPO,
    env: childEnv(),
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  let exited: string | null = null;
  child.on('exit', (code, signal) => {
    exited = `exited with ${signal ?? code}`;
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`[e2e] could not start the ${name} server`);
  child.unref();

  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const log = readFileSync(logFile, 'utf8');
    const url = /Open Titular in your browser: (http:\/\/127\.0\.0\.1:\d+\/#session=[A-Za-z0-9_-]+)/.exec(log)?.[1];
    if (url) {
      const origin = new URL(url).origin;
      return { pid, origin, url };
    }
    if (exited) throw new Error(`[e2e] the ${name} server ${exited} before printing its URL:\n${log}`);
    await sleep(100);
  }
  await stopServer(pid);
  throw new Error(`[e2e] the ${name} server printed no URL within ${SERVER_START_TIMEOUT_MS} ms:\n${readFileSync(logFile, 'utf8')}`);
}

export default async function globalSetup(): Promise<void> {
  ensureBuilt();

  const root = mkdtempSync(path.join(os.tmpdir(), 'titular-e2e-'));
  const dataDir = path.join(root, 'data');
  mkdirSync(dataDir, { recursive: true });
  const started: number[] = [];
  try {
    cli(dataDir, ['init', '--org', ORG, '--admin-name', ADMIN.name, '--admin-email', ADMIN.email]);
    cli(dataDir, ['users', 'add', '--name', OPERATOR.name, '--email', OPERATOR.email, '--role', 'operator']);
    cli(dataDir, ['credits', 'add', '--product', 'cbu', '--amount', '500', '--reference', 'FAC-0001-00000001']);
    cli(dataDir, ['credits', 'add', '--product', 'informes', '--amount', '200', '--reference', 'FAC-0001-00000002']);
    const csv = path.join(root, 'directorio.csv');
    writeFileSync(csv, DIRECTORY_CSV);
    cli(dataDir, ['directory', 'import', csv]);
    const credit = path.join(root, 'informes.csv');
    writeFileSync(credit, CREDIT_RECORDS_CSV);
    cli(dataDir, ['directory', 'import-credit', credit]);

    const admin = await startServer(root, dataDir, 'admin', []);
    started.push(admin.pid);
    const operator = await startServer(root, dataDir, 'operator', ['--user', OPERATOR.email]);
    started.push(operator.pid);

    const state: E2eState = { root, dataDir, admin, operator };
    const stateFile = stateFileFor();
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
    process.env[STATE_ENV] = stateFile;
  } catch (error) {
    for (const pid of started) await stopServer(pid);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

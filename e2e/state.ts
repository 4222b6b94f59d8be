// What global-setup hands to the tests and to global-teardown: the two servers and the data directory.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ServerInfo {
  pid: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** origin + '/#session=TOKEN' as printed by the server */
  url: string;
}

export interface E2eState {
  /** Temporary root (removed by the teardown): holds data/ and the server logs. */
  root: string;
  dataDir: string;
  admin: ServerInfo;
  operator: ServerInfo;
}

/** Env var through which global-setup tells the workers (and the teardown) where the state file is. */
export const STATE_ENV = 'TITULAR_E2E_STATE';

/** The state file of this run, in os.tmpdir(), unique per runner process. */
export function stateFileFor(pid: number = process.pid): string {
  return path.join(os.tmpdir(), `titular-e2e-state-${pid}.json`);
}

export function readState(): E2eState {
  const file = process.env[STATE_ENV];
  if (!file) throw new Error(`${STATE_ENV} is not set: run the e2e tests with \`npx playwright test\` (global-setup starts the servers)`);
  return JSON.parse(readFileSync(file, 'utf8')) as E2eState;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, wait (bounded) for the exit, then SIGKILL. Only ever called with pids this run started. */
export async function stopServer(pid: number, graceMs = 5_000): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await sleep(50);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}


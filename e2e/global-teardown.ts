// Stops the two servers started by global-setup (SIGTERM, bounded wait) and removes the data directory.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { STATE_ENV, stopServer, type E2eState } from './state';

export default async function globalTeardown(): Promise<void> {
  const file = process.env[STATE_ENV];
  if (!file || !existsSync(file)) return;
  const state = JSON.parse(readFileSync(file, 'utf8')) as E2eState;
  await Promise.all([stopServer(state.admin.pid), stopServer(state.operator.pid)]);
  if (process.env.TITULAR_E2E_KEEP) {
    process.stdout.write(`[e2e] kept ${state.root}\n`);
  } else {
    rmSync(state.root, { recursive: true, force: true });
  }
  rmSync(file, { force: true });
}

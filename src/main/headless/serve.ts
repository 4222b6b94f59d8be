// `npm run serve -- [--port N] [--data-dir DIR]`: the HTTP API on 127.0.0.1 without Electron.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { openTitular, type Titular } from '../core/titular';
import { BridgeSessions } from '../core/http/bridge';
import { findUpwards } from '../core/paths';
import { buildHttpApi } from '../core/http/server';
import { headlessKeyProvider, resolveDataDir } from './config';

const DEFAULT_PORT = 8787;

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Error(`Not a valid port: ${raw}`);
  return port;
}

/**
 * Browser mode: the built renderer and the IPC bridge, with one session for `--user EMAIL` (default:
 * the first admin). The token is printed once, in the URL fragment.
 */
function browserMode(titular: Titular, email: string | undefined, dataDir: string) {
  const rendererDir = findUpwards(path.join('out', 'renderer'), path.join('out', 'renderer', 'index.html'));
  if (!rendererDir) throw new Error('The desktop UI is not built: run `npm run build` first');
  const org = titular.users.requireOrganization();
  const users = titular.users.list(org.id);
  const user = email ? users.find((u) => u.email === email.trim().toLowerCase()) : users.find((u) => u.role === 'admin');
  if (!user) throw new Error(email ? `No user with email ${email}` : 'The organization has no admin');
  const unlockWith = headlessKeyProvider(dataDir);
  const sessions = new BridgeSessions((kind) => unlockWith(kind));
  return { rendererDir, sessions, token: sessions.open(user.id) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      log: { type: 'boolean', default: false },
      ui: { type: 'boolean', default: false },
      user: { type: 'string' },
    },
    strict: true,
  });
  const port = parsePort(values.port ?? process.env.TITULAR_PORT);
  const dataDir = resolveDataDir(values['data-dir']);
  const titular = openTitular({
    dataDir,
    keyProvider: headlessKeyProvider(dataDir),
    synchronous: process.env.TITULAR_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL',
  });
  const ui = values.ui ? browserMode(titular, values.user, dataDir) : null;
  const app = buildHttpApi(titular, {
    log: values.log ? (line) => process.stdout.write(`${line}\n`) : undefined,
    ui: ui ?? undefined,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: finishing in-flight requests\n`);
    await app.close(); // stops accepting, waits for in-flight requests
    titular.close(); // commits queued writes, locks the vault, closes the database
    process.stdout.write('Titular stopped\n');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ host: '127.0.0.1', port });
  if (!titular.users.organization()) {
    process.stdout.write('Warning: this data directory is not initialized yet; run `titular init` first\n');
  }
  process.stdout.write(`Titular API listening on ${address} (data: ${dataDir})\n`);
  if (ui) process.stdout.write(`Open Titular in your browser: ${address}/#session=${ui.token}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`titular serve: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

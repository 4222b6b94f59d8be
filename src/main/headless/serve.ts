// `titular serve [--port N] [--data-dir DIR]` (or `npm run serve -- ...`): the HTTP API on 127.0.0.1 without Electron.
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { durabilityLostMessage, openTitular, type Titular } from '../core/titular';
import { BridgeSessions } from '../core/http/bridge';
import { findUpwards } from '../core/paths';
import { buildHttpApi, closeHttpApi } from '../core/http/server';
import { ListenConfigError, parseAllowedOrigins, parsePort } from '../core/http/listen-config';
import { buildStartupApp, closeHandedOver, handOverToApi } from '../core/http/startup-app';
import { StartupGate } from '../core/startup/startup-gate';
import { peekDataDir } from '../core/startup/peek-data-dir';
import { keyFileWithoutDatabase, refuseUnwritableDataDir } from '../core/db/storage-errors';
import { isAddressInUse, portInUseMessage } from '../core/http/listen-failure';
import { keyfileProvider } from '../core/vault/keyfile-provider';
import { PassphraseEnvironmentError, passphraseFromEnvironment } from '../core/vault/passphrase-environment';
import type { FastifyInstance } from 'fastify';
import { headlessKeyProvider } from './config';
import { describeParseError } from './cli/args';
import { keyFileOf, parseSynchronous, resolveDataDir } from '../core/data-dir';
import { TITULAR_VERSION } from '../../shared/version';
import { desktopUserId } from '../core/users/desktop-user';

import { DEFAULT_PORT, SERVE_USAGE as USAGE, SHUTDOWN_GRACE_MS } from './serve-usage';

/**
 * A bad command line or setting: said in one line, with a pointer to the usage, exit 2, as the CLI
 * says its own (cli/run.ts report), not followed by the whole usage.
 */
class ServeUsageError extends Error {}

/**
 * A setting from its flag, else its environment variable, else undefined. An empty flag is refused
 * (`--data-dir ""` must not mean the platform's data folder); an empty variable counts as unset, as
 * the CLI and the desktop read TITULAR_DATA_DIR and TITULAR_SYNCHRONOUS.
 */
function flagOrEnv(flag: string | undefined, flagName: string, variable: string, emptyFlag: string): { raw: string; from: string } | undefined {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new ServeUsageError(emptyFlag);
    return { raw: flag, from: `--${flagName}` };
  }
  const value = process.env[variable];
  return value ? { raw: value, from: variable } : undefined;
}

/** A listen-config.ts value or the passphrase the environment gives, or its refusal as a usage error (exit 2). */
function usageOnRefusal<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ListenConfigError || error instanceof PassphraseEnvironmentError) throw new ServeUsageError(error.message);
    throw error;
  }
}

/** The port, refused as every number is ("--port must be from 0 to 65535 (got 70000)"); the rule is listen-config.ts's. */
function portOrThrow(source: { raw: string; from: string } | undefined): number {
  if (source === undefined) return DEFAULT_PORT;
  return usageOnRefusal(() => parsePort(source.raw, source.from));
}

/** `--allow-origin` (repeatable), else TITULAR_ALLOW_ORIGINS (comma- or space-separated), else none. */
function allowedOriginsOrThrow(flags: readonly string[] | undefined): string[] {
  if (flags !== undefined && flags.length > 0) {
    if (flags.some((flag) => flag.trim() === '')) throw new ServeUsageError('--allow-origin needs an origin, e.g. http://localhost:3000');
    return usageOnRefusal(() => parseAllowedOrigins(flags, '--allow-origin'));
  }
  const variable = process.env.TITULAR_ALLOW_ORIGINS;
  return variable ? usageOnRefusal(() => parseAllowedOrigins([variable], 'TITULAR_ALLOW_ORIGINS')) : [];
}

/** `--synchronous` / TITULAR_SYNCHRONOUS, refused as a usage error when it is neither NORMAL nor FULL. */
function synchronousOrThrow(source: { raw: string; from: string } | undefined): 'NORMAL' | 'FULL' {
  const value = parseSynchronous(source?.raw);
  if (!value) throw new ServeUsageError(`${source!.from} must be NORMAL or FULL (got ${JSON.stringify(source!.raw)})`);
  return value;
}

/** The built renderer of the browser mode. */
function rendererDirOrThrow(): string {
  const rendererDir = findUpwards(path.join('out', 'renderer'), path.join('out', 'renderer', 'index.html'));
  if (!rendererDir) throw new Error('The desktop UI is not built: run `npm run build` first');
  return rendererDir;
}

/** The desktop session's user: `--user EMAIL`, else the desktop's own (the first admin, kept once chosen). */
function sessionUser(titular: Titular, email: string | undefined): string {
  if (email === undefined) return desktopUserId(titular);
  const org = titular.users.requireOrganization();
  const user = titular.users.list(org.id).find((u) => u.email === email.trim().toLowerCase());
  if (!user) throw new Error(`No user with email ${email}`);
  return user.id;
}

/** The command line, or a ServeUsageError for a flag or argument it does not know. */
function commandLine() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
        log: { type: 'boolean', default: false },
        synchronous: { type: 'string' },
        ui: { type: 'boolean', default: false },
        user: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'V', default: false },
      },
      strict: true,
    });
  } catch (error) {
    // "Unknown option --bogus", "Option --port needs a value": the CLI's words for its own.
    throw new ServeUsageError(describeParseError(error));
  }
}

async function main(): Promise<void> {
  const { values } = commandLine();
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values.version) {
    process.stdout.write(`titular ${TITULAR_VERSION}\n`);
    return;
  }
  const port = portOrThrow(flagOrEnv(values.port, 'port', 'TITULAR_PORT', '--port needs a port number'));
  const corsOrigins = allowedOriginsOrThrow(values['allow-origin']);
  if (values['data-dir'] !== undefined && values['data-dir'].trim() === '') throw new ServeUsageError('--data-dir needs a directory');
  const dataDir = resolveDataDir(values['data-dir']);
  const synchronous = synchronousOrThrow(flagOrEnv(values.synchronous, 'synchronous', 'TITULAR_SYNCHRONOUS', '--synchronous needs NORMAL or FULL'));
  // Both passphrase variables, or a file that cannot be read: refused before anything is opened.
  const passphrase = usageOnRefusal(() => passphraseFromEnvironment(process.env));
  // Read: from here on only what opens the vault below has it. The process's environment, which a
  // process it started would inherit and a diagnostic report lists, keeps it no longer (as the desktop's).
  const passphraseVariables = { TITULAR_PASSPHRASE: process.env.TITULAR_PASSPHRASE, TITULAR_PASSPHRASE_FILE: process.env.TITULAR_PASSPHRASE_FILE };
  delete process.env.TITULAR_PASSPHRASE;
  if (values.user !== undefined) {
    if (!values.ui) throw new ServeUsageError('--user works only with --ui (it chooses the browser session\'s user)');
    if (values.user.trim() === '') throw new ServeUsageError('--user needs an email');
  }
  const log = values.log ? (line: string) => process.stdout.write(`${line}\n`) : undefined;
  // The reason behind each GE500 of Titular's own (a full disk in words), with or without --log.
  const fault = (line: string) => process.stderr.write(`${line}\n`);
  // A WAL flush the disk did not confirm: stop now, as a crash would, answering none of its lookups.
  const onDurabilityLost = (error: Error, dir: string) => {
    process.stderr.write(`titular serve: ${durabilityLostMessage(error, dir)}\n`);
    process.exit(1);
  };
  const rendererDir = values.ui ? rendererDirOrThrow() : null;

  let titular: Titular | null = null;
  /** What listens on the port, for the process's life: the API, or the start-up server (browser mode, locked). */
  let app: FastifyInstance;
  /** The API the start-up server handed its port to once the gate opened (startup-app.ts handOverToApi). */
  let handedTo: FastifyInstance | null = null;
  let sessions: BridgeSessions | null = null;
  let token: string | null = null;
  let locked = false;
  const serveCore = (core: Titular) => {
    titular = core;
    return buildHttpApi(core, { log, fault, corsOrigins, ui: rendererDir && sessions ? { rendererDir, sessions } : undefined });
  };

  // Another user's files or a read-only disk: refused before anything reads them (a read makes a -wal
  // and -shm that only the database's owner could narrow), instead of starting and failing each lookup.
  refuseUnwritableDataDir(dataDir);
  if (!rendererDir) {
    // Without the browser's first-run screen there is nobody to set the directory up: opening it
    // would create its vault (a key file), fixing its protection before `titular init` chose it.
    if (peekDataDir(dataDir).organization === null) {
      const earlierSetup = keyFileWithoutDatabase(dataDir);
      if (earlierSetup) throw new Error(`${earlierSetup}; to start a new organization here instead, run \`titular init --new-organization\``);
      throw new Error(`no Titular data in ${dataDir}: run \`titular init\` first (or serve --ui to set it up in the browser)`);
    }
    app = serveCore(openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, passphraseVariables), synchronous, onFault: fault, onDurabilityLost }));
  } else {
    // Browser mode: the startup gate opens the core at once when it can (key file, or
    // TITULAR_PASSPHRASE); otherwise the page shows first-run setup or the unlock screen.
    sessions = new BridgeSessions(headlessKeyProvider(dataDir));
    const keyFile = () => keyfileProvider(keyFileOf(dataDir));
    const gate = new StartupGate({
      dataDir,
      synchronous,
      onFault: fault,
      onDurabilityLost,
      passphrase,
      automaticProvider: (kind) => (kind === 'keyfile' ? keyFile() : null),
      newVaultProvider: keyFile,
    });
    const opened = gate.tryAutomatic();
    if (opened) {
      token = sessions.open(sessionUser(opened, values.user));
      app = serveCore(opened);
    } else {
      token = sessions.openPending();
      locked = true;
      const startup = buildStartupApp(gate, { rendererDir, sessions });
      app = startup;
      const pendingToken = token;
      const bridge = sessions;
      gate.onReady((core) => {
        // The start-up server hands its port to the full API without closing it (no moment where a
        // connection is refused or another process could take the port); the page keeps its session token.
        const api = serveCore(core);
        bridge.bind(pendingToken, sessionUser(core, values.user));
        handedTo = api;
        handOverToApi(startup, api)
          .then(() => {
            const address = startup.server.address();
            const listenPort = typeof address === 'object' && address ? address.port : port;
            process.stdout.write(`Titular unlocked; API listening on http://127.0.0.1:${listenPort}\n`);
          })
          .catch((error: unknown) => {
            process.stderr.write(`titular serve: ${error instanceof Error ? error.message : String(error)}\n`);
            process.exit(1);
          });
      });
    }
  }

  /** Commits queued writes, locks the vault and closes the database; false if that failed. */
  const closeCore = (): boolean => {
    try {
      (titular as Titular | null)?.close();
      return true;
    } catch (error) {
      process.stderr.write(`titular serve: closing the data directory failed: ${error instanceof Error ? error.message : String(error)}\n`);
      return false;
    }
  };
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: no more waiting. The connections go, the database is still closed, and the
      // exit status is the one a shell reports for a process ended by that signal (as the CLI does).
      process.stdout.write(`${signal} again: stopping now\n`);
      app.server.closeAllConnections();
      closeCore();
      process.exit(128 + constants.signals[signal]);
    }
    stopping = true;
    process.stdout.write(
      `${signal}: finishing in-flight requests (at most ${SHUTDOWN_GRACE_MS / 1000} s; ${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to stop now)\n`,
    );
    const closing = handedTo ? closeHandedOver(app, handedTo, SHUTDOWN_GRACE_MS) : closeHttpApi(app, SHUTDOWN_GRACE_MS);
    const { forced } = await closing.catch((error: unknown) => {
      process.stderr.write(`titular serve: stopping the API failed: ${error instanceof Error ? error.message : String(error)}\n`);
      return { forced: false };
    });
    if (forced) process.stdout.write(`Titular closed the connections still open after ${SHUTDOWN_GRACE_MS / 1000} s\n`);
    if (!closeCore()) process.exit(1);
    process.stdout.write('Titular stopped\n');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // The terminal it ran in closed (or `titular` passed a SIGHUP on): stop the same way, not abruptly.
  process.on('SIGHUP', () => void stop('SIGHUP'));

  const address = await app.listen({ host: '127.0.0.1', port }).catch((error: unknown) => {
    closeCore();
    throw isAddressInUse(error) ? new Error(portInUseMessage(port, '--port')) : error;
  });
  if (sessions) sessions.settingsHost.listeningPort = Number(new URL(address).port);
  process.stdout.write(`Titular ${TITULAR_VERSION} API listening on ${address} (data: ${dataDir})\n`);
  if (locked) process.stdout.write('Titular is locked or not set up yet: open the URL below to continue\n');
  if (token) process.stdout.write(`Open Titular in your browser: ${address}/#session=${token}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`titular serve: ${error instanceof Error ? error.message : String(error)}\n`);
  if (error instanceof ServeUsageError) {
    process.stderr.write('Run "titular help serve" for usage.\n');
    process.exit(2);
  }
  process.exit(1);
});

// `serve` as a process over real sockets on 127.0.0.1: shutdown is bounded (requests in flight get
// SHUTDOWN_GRACE_MS, 5 s, then every connection still open is closed and the database closed cleanly;
// a second SIGTERM/SIGINT/SIGHUP ends it at once with 143/130/129), a request that stops partway gets the
// documented 408 body (headers within 10 s, the whole request within 30 s), and the command line's
// empty or misplaced values are refused with exit 2 before anything is opened.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTitular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { prepareDataDir } from './support/data-dir';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream';
import { entryCommand, startServer, type ServerProcess } from './support/processes';

const ROOT = path.resolve(__dirname, '..');
const UPSTREAM_KEY = 'sk_live_UpstreamKeyForServeShutdown00001';
/** serve.ts SHUTDOWN_GRACE_MS. */
const GRACE_MS = 5_000;

let dataDir: string;
let key: string;
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream({ key: UPSTREAM_KEY });
  const prepared = prepareDataDir({ tmpPrefix: 'titular-serve-stop-', keys: { main: { rateLimitPerSecond: 1000 } }, credits: { cbu: 100 }, directoryCsv: DIRECTORY_CSV });
  dataDir = prepared.dataDir;
  key = prepared.keys.main.secret;
  // CBU lookups go to the fake upstream, so a test can hold one in flight for as long as it likes.
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) });
  try {
    titular.settings.set('remote.baseUrl', upstream.url);
    titular.settings.set('remote.timeoutMs', 60_000);
    titular.secrets.set('remote.upstreamKey', UPSTREAM_KEY);
    titular.settings.set('resolver.cbu', 'remote');
  } finally {
    titular.close();
  }
});
afterAll(async () => {
  await upstream.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** `promise`, or a rejection once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When the process was seen gone (Date.now()). */
  at: number;
}

/** The server's exit, or SIGKILL once `limitMs` has passed since this was called (never hangs a test). */
function exitOf(server: ServerProcess): (limitMs: number) => Promise<Exit> {
  const exited = new Promise<Exit>((resolve) => server.child.once('close', (code, signal) => resolve({ code, signal, at: Date.now() })));
  return async (limitMs) => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), limitMs)));
    const result = await Promise.race([exited, limit]);
    clearTimeout(timer);
    if (result) return result;
    server.child.kill('SIGKILL');
    await exited;
    throw new Error(`serve did not exit within ${limitMs} ms:\n${server.output()}`);
  };
}

interface RawExchange {
  socket: net.Socket;
  /** Everything the server sent, once the connection is closed. */
  done: Promise<{ received: string; closedAt: number }>;
}

/** A TCP connection to the server that sends `text` (e.g. half a request) and nothing more. */
function rawSend(url: string, text: string): Promise<RawExchange> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const done = new Promise<{ received: string; closedAt: number }>((closed) => socket.once('close', () => closed({ received, closedAt: Date.now() })));
    socket.on('error', () => undefined); // a reset when the server closes it is an expected end
    socket.once('connect', () => socket.write(text, (error) => (error ? reject(error) : resolve({ socket, done }))));
  });
}

const HALF_HEADERS = 'GET /api/v1/balance HTTP/1.1\r\nHost: 127.0.0.1\r\n';
const halfBody = (apiKey: string) =>
  'POST /api/v1/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  `Authorization: Bearer ${apiKey}\r\nContent-Length: 60\r\n\r\n{"identifier":"28505`;

function consumptions(): number {
  const db = new Database(path.join(dataDir, 'titular.db'), { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * Closed cleanly: the last connection's close checkpoints and removes the WAL; a killed process leaves
 * it. Call it before anything else opens the database.
 */
function expectDatabaseClosedCleanly(): void {
  expect(existsSync(path.join(dataDir, 'titular.db-wal'))).toBe(false);
  const db = new Database(path.join(dataDir, 'titular.db'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
}

const lookup = (url: string) =>
  fetch(`${url}/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, { headers: { authorization: `Bearer ${key}` } })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
    .catch((error: unknown) => ({ status: 0, body: { error: String(error) } }));

describe('serve: shutdown is bounded', { timeout: 60_000 }, () => {
  it(`SIGTERM gives requests in flight ${GRACE_MS / 1000} s, then closes every connection left (a half-sent request, a lookup still waiting) and the database`, async () => {
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    const exit = exitOf(server);
    const chargedBefore = consumptions();
    upstream.takeHits();

    // A lookup the upstream answers after 2 s: within the grace, so it is answered and charged.
    upstream.setMode({ kind: 'ok', delayMs: 2_000 });
    const quick = lookup(server.url);
    await until(() => upstream.hits.length === 1, 'the first lookup to reach the upstream');
    // One the upstream would answer after a minute: cut at the end of the grace, not charged.
    upstream.setMode({ kind: 'slow', delayMs: 60_000 });
    const slow = lookup(server.url);
    await until(() => upstream.hits.length === 2, 'the second lookup to reach the upstream');
    // Requests that stop partway: the headers, or the body.
    const headers = await rawSend(server.url, HALF_HEADERS);
    const body = await rawSend(server.url, halfBody(key));
    await sleep(300); // read by the server

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exited = await exit(GRACE_MS + 10_000);
    expect(exited.code, server.output()).toBe(0);
    const took = exited.at - signalled;
    expect(took).toBeGreaterThanOrEqual(GRACE_MS - 500);
    expect(took).toBeLessThan(GRACE_MS + 8_000);
    expect(server.output()).toContain('SIGTERM: finishing in-flight requests');
    expect(server.output()).toMatch(/closed the connections still open after 5 s/);
    expect(server.output()).toContain('Titular stopped');

    const answered = await quick;
    expect(answered.status).toBe(200);
    expect((await slow).status).toBe(0); // the connection was closed without an answer
    for (const exchange of [headers, body]) {
      const { received, closedAt } = await exchange.done;
      expect(received).toBe('');
      expect(closedAt - signalled).toBeLessThan(GRACE_MS + 8_000);
    }
    // Checked first: opening the database (even read-only) makes a -wal file again.
    expectDatabaseClosedCleanly();
    // Only the answered lookup was charged, and its charge was committed before the database closed.
    expect(consumptions()).toBe(chargedBefore + 1);
  });

  it.each([
    ['SIGTERM', 'SIGTERM', 143],
    ['SIGINT', 'SIGINT', 130],
    ['SIGTERM', 'SIGINT', 130],
    // A closed terminal (or `titular serve` passing SIGHUP on) stops it the same way.
    ['SIGHUP', 'SIGHUP', 129],
  ] as const)('a second signal ends it at once: %s then %s exits with %i, the database closed', async (first, second, code) => {
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    const exit = exitOf(server);
    const half = await rawSend(server.url, HALF_HEADERS);
    await sleep(300);
    const signalled = Date.now();
    server.child.kill(first);
    await until(() => server.output().includes(`${first}: finishing in-flight requests`), 'the first signal to be seen');
    server.child.kill(second);
    const exited = await exit(GRACE_MS + 10_000);
    expect(exited.code, server.output()).toBe(code);
    // Well before the grace would have ended.
    expect(exited.at - signalled).toBeLessThan(GRACE_MS - 1_000);
    expect(server.output()).toContain(`${second} again: stopping now`);
    await half.done;
    expectDatabaseClosedCleanly();
  });
});

/** Splits a raw HTTP/1.1 response into its status, headers and body. */
function parseResponse(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4) };
}

describe('serve --ui before Titular is set up: the startup gate on the API port', { timeout: 60_000 }, () => {
  it('answers malformed HTTP with the documented body, and a request that stops partway with the 408 after 10 s', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'titular-gate-http-'));
    const server = await startServer(['--ui', '--port', '0', '--data-dir', empty]);
    const exchanges: RawExchange[] = [];
    try {
      await until(() => server.output().includes('Titular is locked or not set up yet'), 'the gate to be announced');
      exchanges.push(await rawSend(server.url, 'NOT HTTP AT ALL\r\n\r\n'));
      const garbage = parseResponse((await within(exchanges[0]!.done, 5_000, 'the 400')).received);
      expect(garbage.status).toBe(400);
      expect(JSON.parse(garbage.body)).toMatchObject({ success: false, error: { code: 'INVALID_PARAMETER', message: 'Malformed HTTP request' } });
      // Before, the gate had Fastify's defaults: no request timeout, and the half-sent request held on.
      const sent = Date.now();
      exchanges.push(await rawSend(server.url, HALF_HEADERS));
      const half = await within(exchanges[1]!.done, 20_000, 'the 408');
      expect(half.closedAt - sent).toBeGreaterThanOrEqual(9_000);
      const response = parseResponse(half.received);
      expect(response.status).toBe(408);
      expect(JSON.parse(response.body)).toMatchObject({ success: false, error: { code: 'INVALID_PARAMETER', message: 'The request was not received in time' } });
    } finally {
      for (const exchange of exchanges) exchange.socket.destroy();
      expect(await server.stop()).toBe(0);
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('serve: a request that stops partway', { timeout: 60_000 }, () => {
  it('gets the documented 408 error body: headers after 10 s, a body after 30 s; nothing is charged', async () => {
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    const exit = exitOf(server);
    const exchanges: RawExchange[] = [];
    try {
      const chargedBefore = consumptions();
      const sent = Date.now();
      exchanges.push(await rawSend(server.url, HALF_HEADERS), await rawSend(server.url, halfBody(key)));
      const [headers, body] = await within(Promise.all(exchanges.map((e) => e.done)), 40_000, 'the 408 answers');
      for (const [name, result, limitMs] of [
        ['headers', headers!, 10_000],
        ['body', body!, 30_000],
      ] as const) {
        const waited = result.closedAt - sent;
        expect(waited, name).toBeGreaterThanOrEqual(limitMs - 1_000);
        expect(waited, name).toBeLessThan(limitMs + 5_000);
        const response = parseResponse(result.received);
        expect(response.status, name).toBe(408);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.headers.connection).toBe('close');
        const parsed = JSON.parse(response.body) as { success: boolean; error: { code: string; message: string }; request_id: string };
        expect(parsed).toEqual({
          success: false,
          error: { code: 'INVALID_PARAMETER', message: 'The request was not received in time' },
          request_id: expect.stringMatching(/^req_/),
        });
        expect(response.headers['request-id']).toBe(parsed.request_id);
      }
      // The server is still serving, and the lookup whose body never arrived was not charged.
      const balance = await fetch(`${server.url}/api/v1/balance`, { headers: { authorization: `Bearer ${key}` } });
      expect(balance.status).toBe(200);
      expect(consumptions()).toBe(chargedBefore);
    } finally {
      for (const exchange of exchanges) exchange.socket.destroy();
      server.child.kill('SIGTERM');
      expect((await exit(GRACE_MS + 10_000)).code).toBe(0);
    }
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `serve` run to its end (killed after 15 s: a server that starts listening instead of refusing fails the test). */
function runServe(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, TITULAR_PASSPHRASE: '' };
  for (const name of ['TITULAR_DATA_DIR', 'TITULAR_PORT', 'TITULAR_SYNCHRONOUS']) delete childEnv[name];
  Object.assign(childEnv, env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entryCommand('serve'), ...args], { cwd: ROOT, env: childEnv, timeout: 15_000, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('serve: command line', { timeout: 30_000 }, () => {
  let home: string;
  let uninitialized: string;
  beforeAll(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'titular-serve-home-'));
    uninitialized = path.join(home, 'never-initialized');
    mkdirSync(uninitialized);
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  // The platform's data folder, moved into the scratch home: a run that fell back to it would show there.
  const isolated = () => ({ HOME: home, XDG_DATA_HOME: path.join(home, 'xdg'), APPDATA: path.join(home, 'appdata') });

  it('refuses an empty --data-dir with exit 2, as the CLI does, instead of opening the platform data folder', async () => {
    const run = await runServe(['--port', '0', '--data-dir', ''], isolated());
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('--data-dir needs a directory');
    expect(run.stdout).not.toContain('listening');
    expect(readdirSync(home).sort()).toEqual(['never-initialized']);
  });

  it('refuses --user without --ui with exit 2, whether the user exists or not', async () => {
    for (const email of ['ada@acme.test', 'nobody@acme.test']) {
      const run = await runServe(['--port', '0', '--data-dir', dataDir, '--user', email]);
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr).toContain('--user works only with --ui');
      expect(run.stdout).not.toContain('listening');
    }
  });

  it('refuses empty --port, --synchronous and --user values with exit 2', async () => {
    for (const [args, message] of [
      [['--port', ''], '--port needs a port number'],
      [['--synchronous', ''], '--synchronous needs NORMAL or FULL'],
      [['--ui', '--user', ''], '--user needs an email'],
    ] as const) {
      const run = await runServe([...args, '--data-dir', uninitialized], isolated());
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });

  it('names TITULAR_PORT when its value is not a port; an empty TITULAR_PORT, TITULAR_SYNCHRONOUS or TITULAR_DATA_DIR counts as unset', async () => {
    const bad = await runServe(['--data-dir', uninitialized], { ...isolated(), TITULAR_PORT: 'http' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('TITULAR_PORT must be a whole number (got "http")');
    const synchronous = await runServe(['--data-dir', uninitialized], { ...isolated(), TITULAR_SYNCHRONOUS: 'fast' });
    expect(synchronous.code).toBe(2);
    expect(synchronous.stderr).toContain('TITULAR_SYNCHRONOUS must be NORMAL or FULL (got "fast")');

    // Empty variables pass the checks (the run then stops at the data directory, never initialized, before listening).
    const empty = await runServe(['--data-dir', uninitialized], { ...isolated(), TITULAR_PORT: '', TITULAR_SYNCHRONOUS: '' });
    expect(empty.code, empty.stderr).toBe(1);
    expect(empty.stderr).toContain(`no Titular data in ${uninitialized}`);
    // An empty TITULAR_DATA_DIR is unset, as for the CLI and the desktop: the platform's folder (here the scratch one).
    const noDir = await runServe(['--port', '0'], { ...isolated(), TITULAR_DATA_DIR: '' });
    expect(noDir.code, noDir.stderr).toBe(1);
    expect(noDir.stderr).toContain(`no Titular data in ${path.join(home, 'xdg', 'titular')}`);
  });
});

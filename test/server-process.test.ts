// The headless server as a process, called over a real socket: the README's quick start, graceful
// shutdown on SIGTERM with requests in flight, and a clear failure when the port is taken.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { startServer } from './support/processes';
import { prepareDataDir } from './support/data-dir';

let dataDir: string;
let key: string;

beforeAll(() => {
  const prepared = prepareDataDir({ tmpPrefix: 'titular-serve-', keys: { main: { rateLimitPerSecond: 1000 } }, credits: { cbu: 100 }, directoryCsv: DIRECTORY_CSV });
  dataDir = prepared.dataDir;
  key = prepared.keys.main.secret;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const headers = () => ({ authorization: `Bearer ${key}` });

describe('npm run serve', () => {
  it('answers a directory lookup with the contract shape and the balance drops by one', async () => {
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    try {
      const before = (await (await fetch(`${server.url}/api/v1/balance`, { headers: headers() })).json()) as { balances: { productSlug: string; balance: number }[] };
      const cbuBefore = before.balances.find((b) => b.productSlug === 'cbu')!.balance;
      const res = await fetch(`${server.url}/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, { headers: headers() });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['credits_remaining', 'data', 'request_id', 'success']);
      expect(body.credits_remaining).toBe(cbuBefore - 1);
      expect(res.headers.get('request-id')).toBe(body.request_id);
      const after = (await (await fetch(`${server.url}/api/v1/balance`, { headers: headers() })).json()) as typeof before;
      expect(after.balances.find((b) => b.productSlug === 'cbu')!.balance).toBe(cbuBefore - 1);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('on SIGTERM finishes in-flight requests, commits their charges and closes the database', async () => {
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    const requests = Array.from({ length: 40 }, () =>
      fetch(`${server.url}/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, { headers: headers() })
        .then(async (r) => ({ status: r.status, body: (await r.json()) as { credits_remaining?: number } }))
        .catch(() => null),
    );
    // Stop it while they are being served: as soon as the first is answered (a fixed delay is not
    // enough on a loaded machine, where none may have reached it yet).
    await Promise.race(requests);
    const code = await server.stop('SIGTERM');
    const answers = await Promise.all(requests);
    expect(code).toBe(0);
    expect(server.output()).toContain('Titular stopped');
    // Requests already being served finish (200, charged); later ones on a kept-alive connection
    // get the error body's 503 GE500 (not charged), or find the socket closed.
    const answered = answers.filter((a) => a !== null);
    for (const a of answered) expect([200, 503]).toContain(a.status);
    const served = answered.filter((a) => a.status === 200).length;
    expect(served).toBeGreaterThan(0);

    // Every answered lookup is committed, with its charge, and nothing else was charged.
    const db = new Database(path.join(dataDir, 'titular.db'), { readonly: true });
    try {
      const charged = db.prepare("SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'").get() as { n: number };
      const lookups = db.prepare('SELECT COUNT(*) AS n FROM lookups WHERE credit_consumed = 1').get() as { n: number };
      const balance = db.prepare("SELECT balance FROM credit_balances WHERE product = 'cbu'").get() as { balance: number };
      expect(charged.n).toBe(lookups.n);
      expect(balance.balance).toBe(100 - charged.n);
      expect(charged.n).toBe(1 + served);
    } finally {
      db.close();
    }
  });

  it('exits with a clear message when the port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(startServer(['--port', String(port), '--data-dir', dataDir])).rejects.toThrow(
        new RegExp(`exited with 1[\\s\\S]*port ${port} on 127\\.0\\.0\\.1 is in use \\(another Titular server\\?\\): stop it or choose another with --port`),
      );
    } finally {
      blocker.close();
    }
  });

  it('refuses a bad port argument, exit 2, in one line and a pointer to the usage', async () => {
    await expect(startServer(['--port', 'http', '--data-dir', dataDir])).rejects.toThrow(
      'server exited with 2 before listening:\ntitular serve: --port must be a whole number (got "http")\nRun "titular help serve" for usage.\n',
    );
  });

  it('opens a passphrase vault from TITULAR_PASSPHRASE_FILE, which keeps the passphrase out of /proc/PID/environ; both variables: exit 2', async () => {
    const passphrase = 'correct horse battery staple';
    const prepared = prepareDataDir({ tmpPrefix: 'titular-serve-pass-', keys: { main: {} }, credits: { cbu: 5 }, directoryCsv: DIRECTORY_CSV, passphrase });
    const file = path.join(prepared.dataDir, '..', `${path.basename(prepared.dataDir)}.passphrase`);
    writeFileSync(file, `${passphrase}\n`, { mode: 0o600 });
    /** What another process of the same user reads of the server's environment (Linux). */
    const environOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'latin1');
    try {
      const server = await startServer(['--port', '0', '--data-dir', prepared.dataDir], { TITULAR_PASSPHRASE_FILE: file });
      try {
        const res = await fetch(`${server.url}/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, { headers: { authorization: `Bearer ${prepared.keys.main.secret}` } });
        expect(res.status).toBe(200);
        if (existsSync(`/proc/${server.child.pid}/environ`)) {
          expect(environOf(server.child.pid!)).toContain(`TITULAR_PASSPHRASE_FILE=${file}`);
          expect(environOf(server.child.pid!)).not.toContain(passphrase);
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
      // What the file avoids: given in the variable, the passphrase stays readable there while the server runs.
      if (existsSync('/proc/self/environ')) {
        const byVariable = await startServer(['--port', '0', '--data-dir', prepared.dataDir], { TITULAR_PASSPHRASE: passphrase });
        try {
          expect(environOf(byVariable.child.pid!)).toContain(`TITULAR_PASSPHRASE=${passphrase}`);
        } finally {
          expect(await byVariable.stop()).toBe(0);
        }
      }
      await expect(startServer(['--port', '0', '--data-dir', prepared.dataDir], { TITULAR_PASSPHRASE: passphrase, TITULAR_PASSPHRASE_FILE: file })).rejects.toThrow(
        /exited with 2[\s\S]*Set TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE, not both/,
      );
      await expect(startServer(['--port', '0', '--data-dir', prepared.dataDir], { TITULAR_PASSPHRASE_FILE: `${file}.missing` })).rejects.toThrow(/exited with 2[\s\S]*cannot be read \(no such file\)/);
    } finally {
      rmSync(prepared.dataDir, { recursive: true, force: true });
      rmSync(file, { force: true });
    }
  });

  it('--allow-origin (or TITULAR_ALLOW_ORIGINS) lets a web page of that origin read the answers; other origins get no CORS header', async () => {
    const allowed = 'http://localhost:3000';
    for (const [args, env] of [
      [['--allow-origin', allowed, '--allow-origin', 'https://intranet.acme.test'], {}],
      [[], { TITULAR_ALLOW_ORIGINS: `${allowed}, https://intranet.acme.test` }],
    ] as const) {
      const server = await startServer(['--port', '0', '--data-dir', dataDir, ...args], env);
      try {
        // A browser's preflight for a request with a key, then the request itself.
        const preflight = await fetch(`${server.url}/api/v1/balance`, {
          method: 'OPTIONS',
          headers: { origin: allowed, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe(allowed);
        expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
        const answer = await fetch(`${server.url}/api/v1/balance`, { headers: { ...headers(), origin: allowed } });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('access-control-allow-origin')).toBe(allowed);
        const other = await fetch(`${server.url}/api/v1/balance`, { headers: { ...headers(), origin: 'http://localhost:3001' } });
        expect(other.headers.get('access-control-allow-origin')).toBeNull();
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
  });

  it('refuses an origin that is not one (a wildcard, a path, another scheme) with exit 2, naming where it came from', async () => {
    for (const [args, env, said] of [
      [['--allow-origin', '*'], {}, /--allow-origin: \* is not allowed; name each origin/],
      [['--allow-origin', 'http://localhost:3000/app'], {}, /--allow-origin: http:\/\/localhost:3000\/app is not an origin/],
      [['--allow-origin', ''], {}, /--allow-origin needs an origin/],
      [[], { TITULAR_ALLOW_ORIGINS: 'file:///tmp/x.html' }, /TITULAR_ALLOW_ORIGINS: file:\/\/\/tmp\/x\.html is not an origin/],
    ] as const) {
      await expect(startServer(['--port', '0', '--data-dir', dataDir, ...args], env)).rejects.toThrow(new RegExp(`exited with 2[\\s\\S]*${said.source}`));
    }
  });

  it('refuses a data directory that was never initialized, and creates nothing in it', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'titular-serve-empty-'));
    try {
      await expect(startServer(['--port', '0', '--data-dir', empty])).rejects.toThrow(/exited with 1[\s\S]*run `titular init` first/);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

// Lookups with synchronous=FULL (each answer on disk before it is sent): the same answers and credit
// rules as with NORMAL, through the HTTP API in process and through `serve --synchronous FULL` as a
// real process; a bad --synchronous value is refused at start.
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { version as packageVersion } from '../package.json';
import type { FastifyInstance } from 'fastify';
import { openTitular, type Titular } from '../src/main/core/titular';
import { buildHttpApi } from '../src/main/core/http/server';
import { headlessKeyProvider } from '../src/main/headless/config';
import { parseDirectoryFile } from '../src/main/core/directory/directory-file';
import { auth } from './support/fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { checkLedgerInvariants } from './support/invariants';
import { entryCommand, startServer, type ServerProcess } from './support/processes';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'titular-durable-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A FULL Titular with a directory, `credits` CBU credits and one live key. */
async function durableApi(credits: number): Promise<{ titular: Titular; app: FastifyInstance; key: string; orgId: string }> {
  const dir = dataDir();
  const titular = openTitular({ dataDir: dir, keyProvider: headlessKeyProvider(dir, {}), synchronous: 'FULL' });
  const { org, admin } = titular.users.initialize({ orgName: 'Durable', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' });
  titular.directory.import(org.id, parseDirectoryFile(DIRECTORY_CSV, 'csv'), { skipInvalid: false, actorUserId: admin.id });
  if (credits > 0) titular.ledger.addPurchase({ orgId: org.id, product: 'cbu', amount: credits, userId: admin.id });
  const key = titular.keys.create({
    orgId: org.id,
    ownerUserId: admin.id,
    actorUserId: admin.id,
    product: 'cbu',
    scopes: ['lookup', 'balance', 'history'],
    environment: 'live',
    rateLimitPerSecond: 10_000,
  }).secret;
  const app = buildHttpApi(titular);
  await app.ready();
  cleanups.push(async () => {
    await app.close();
    titular.close();
  });
  return { titular, app, key, orgId: org.id };
}

describe('synchronous=FULL', () => {
  it('60 concurrent lookups on 50 credits: 50 answers 200 with distinct credits_remaining, 10 answer 402, the ledger adds up', async () => {
    const { titular, app, key } = await durableApi(50);
    expect(titular.commits.durable).toBe(true);
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(key) })),
    );
    const ok = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode === 402);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(10);
    expect(new Set(ok.map((r) => r.json().credits_remaining))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i)));
    for (const r of refused) expect(r.json()).toMatchObject({ error: { code: 'INSUFFICIENT_CREDITS' }, credits_remaining: 0 });
    for (const r of answers) expect(r.headers['request-id']).toBe(r.json().request_id);
    const balance = await app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(key) });
    expect(balance.json().balances[0]).toMatchObject({ productSlug: 'cbu', balance: 0, totalConsumed: 50 });
    const history = await app.inject({ method: 'GET', url: '/api/v1/history?per_page=1', headers: auth(key) });
    expect(history.json().pagination.total).toBe(50);
    checkLedgerInvariants(titular.database.sqlite);
    // Every other write on the connection keeps SQLite's own FULL.
    expect(titular.database.sqlite.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('PA006 and PA011 are charged as with NORMAL', async () => {
    const { app, key } = await durableApi(10);
    const invalid = await app.inject({ method: 'GET', url: '/api/v1/lookup?identifier=123&type=cbu', headers: auth(key) });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ error: { code: 'PA006' }, credits_remaining: 9 });
    const missing = await app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.missing.cbu}&type=cbu`, headers: auth(key) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'PA011' }, credits_remaining: 8 });
  });

  describe('as a process', () => {
    let server: ServerProcess | undefined;
    afterEach(async () => {
      await server?.stop();
      server = undefined;
    });

    it('`serve --synchronous FULL` answers lookups, and survives a restart with every charge', async () => {
      const dir = dataDir();
      const setup = openTitular({ dataDir: dir, keyProvider: headlessKeyProvider(dir, {}) });
      let key: string;
      try {
        const { org, admin } = setup.users.initialize({ orgName: 'Durable', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' });
        setup.directory.import(org.id, parseDirectoryFile(DIRECTORY_CSV, 'csv'), { skipInvalid: false, actorUserId: admin.id });
        setup.ledger.addPurchase({ orgId: org.id, product: 'cbu', amount: 20, userId: admin.id });
        key = setup.keys.create({ orgId: org.id, ownerUserId: admin.id, actorUserId: admin.id, product: 'cbu', scopes: ['lookup', 'balance'], environment: 'live', rateLimitPerSecond: 1000 }).secret;
      } finally {
        setup.close();
      }
      server = await startServer(['--port', '0', '--data-dir', dir, '--synchronous', 'FULL']);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => fetch(`${server!.url}/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, { headers: auth(key) })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect((await server.stop()) ?? 0).toBe(0);
      server = await startServer(['--port', '0', '--data-dir', dir]);
      const balance = await (await fetch(`${server.url}/api/v1/balance`, { headers: auth(key) })).json();
      expect(balance.balances[0]).toMatchObject({ productSlug: 'cbu', balance: 12, totalConsumed: 8 });
    });

    it('a bad command line (a --synchronous other than NORMAL or FULL, a bad port, an unknown flag) is refused with exit code 2 and a pointer to the usage; --help prints it', () => {
      const dir = dataDir();
      const serve = (...args: string[]) =>
        spawnSync(process.execPath, [...entryCommand('serve'), ...args], {
          cwd: path.resolve(__dirname, '..'),
          encoding: 'utf8',
          env: { ...process.env, TITULAR_PASSPHRASE: '' },
          timeout: 20_000,
        });
      for (const [args, reason] of [
        [['--synchronous', 'SOMETIMES'], '--synchronous must be NORMAL or FULL (got "SOMETIMES")'],
        [['--port', 'abc'], '--port must be a whole number (got "abc")'],
        [['--bogus'], 'Unknown option --bogus'],
      ] as const) {
        const result = serve('--port', '0', '--data-dir', dir, ...args);
        expect(result.status, args.join(' ')).toBe(2);
        // One line and where the usage is, as the CLI says its own (not the whole usage).
        expect(result.stderr).toBe(`titular serve: ${reason}\nRun "titular help serve" for usage.\n`);
      }
      const help = serve('--help');
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('--synchronous NORMAL|FULL');
      for (const flag of ['--version', '-V']) {
        const version = serve(flag);
        expect(version.status, flag).toBe(0);
        expect(version.stdout).toBe(`titular ${packageVersion}\n`);
      }
    });
  });
});

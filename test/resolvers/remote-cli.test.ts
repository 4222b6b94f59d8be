// `titular remote …` and `titular resolver …` as processes, the way an admin runs them, against a
// fake upstream on 127.0.0.1; then a running server (another process) that picks the changes up
// on its next lookup. The upstream key goes in on stdin and comes out nowhere.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer, type CliRun, type ServerProcess } from '../support/processes';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream';
import { UPSTREAM_KEY } from './remote-fixture';
import { openTitular } from '../../src/main/core/titular';
import { headlessKeyProvider } from '../../src/main/headless/config';

const WRONG_KEY = 'sk_live_ArgvKeyTheUpstreamDoesNotKnow000';

type Run = CliRun;

function cli(args: string[], input?: string): Promise<Run> {
  return runCli([...args, '--data-dir', dataDir], { input });
}

const json = <T = any>(run: Run): T => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
};

let dataDir: string;
let upstream: FakeUpstream;
let server: ServerProcess | null = null;
let apiKey = '';
const outputs: string[] = [];
const record = (run: Run) => {
  outputs.push(run.stdout, run.stderr);
  return run;
};

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-remote-cli-'));
  upstream = await startFakeUpstream({ key: UPSTREAM_KEY });
});
afterAll(async () => {
  await server?.stop();
  await upstream.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// Each CLI run is a fresh Node process: generous per-test time on a loaded machine.
describe('titular remote / resolver', { timeout: 90_000 }, () => {
  it('sets up an organization with a live CBU key, credits and a directory', async () => {
    expect((await cli(['init', '--org', 'Acme', '--admin-name', 'Ada', '--admin-email', 'ada@acme.test'])).code).toBe(0);
    apiKey = json(await cli(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup,balance,history', '--json'])).key;
    expect((await cli(['credits', 'add', '--product', 'cbu', '--amount', '10'])).code).toBe(0);
    const csv = path.join(dataDir, 'accounts.csv');
    writeFileSync(csv, DIRECTORY_CSV);
    expect((await cli(['directory', 'import', csv])).code).toBe(0);
  });

  it('status starts with the directory for both products and no remote configuration', async () => {
    const status = json(await cli(['remote', 'status', '--json']));
    expect(status).toMatchObject({
      resolvers: { cbu: 'directory', informes: 'directory' },
      baseUrl: null,
      timeoutMs: 5000,
      keySet: false,
      policy: { attempts: 3, breakerFailureThreshold: 5, breakerCooldownMs: 30_000 },
      lastUpstreamError: null,
    });
    const human = await cli(['remote', 'status']);
    expect(human.stdout).toMatch(/Remote base URL:\s+\(not set\)/);
    expect(human.stdout).toMatch(/Circuit breaker:\s+opens after 5 consecutive failures, for 30 s/);
  });

  it('remote set: refuses bad URLs and plain http to another machine (exit 2); stores a good one normalized', async () => {
    const keyInPath = `https://up.example.com/sk_live_${'B'.repeat(32)}`;
    for (const url of ['not a url', 'http://upstream.example.com', 'https://example.com/?x=1', keyInPath]) {
      const run = await cli(['remote', 'set', '--url', url]);
      expect(run.code, url).toBe(2);
      expect(run.stderr).toMatch(/--url: /);
    }
    // A key in the URL is refused without being echoed (it would be stored and shown as typed).
    const refused = await cli(['remote', 'set', '--url', keyInPath]);
    expect(refused.stderr).toContain('the base URL must not contain an API key');
    expect(refused.stderr).not.toContain('B'.repeat(32));
    expect((await cli(['remote', 'set'])).code).toBe(2);
    expect((await cli(['remote', 'set', '--timeout-ms', '50'])).code).toBe(2);
    const set = json(await cli(['remote', 'set', '--url', `${upstream.url}/`, '--timeout-ms', '2000', '--json']));
    expect(set).toMatchObject({ baseUrl: upstream.url, timeoutMs: 2000, keySet: false });
  });

  it('remote set-key: --key works but warns; stdin is the quiet way; neither prints the key', async () => {
    const argv = record(await cli(['remote', 'set-key', '--key', WRONG_KEY]));
    expect(argv.code, argv.stderr).toBe(0);
    expect(argv.stderr).toMatch(/shell history/);
    expect(argv.stdout + argv.stderr).not.toContain(WRONG_KEY);

    // The wrong key: the connection test reaches the upstream, which refuses it (exit 1).
    const refused = record(await cli(['remote', 'test']));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/rejected the upstream key/);
    expect(upstream.takeHits()).toEqual([expect.objectContaining({ method: 'GET', path: '/api/v1/balance', authorization: `Bearer ${WRONG_KEY}` })]);

    const piped = record(await cli(['remote', 'set-key', '--json'], `${UPSTREAM_KEY}\n`));
    expect(json(piped)).toEqual({ keySet: true, replaced: true });
    expect(piped.stdout + piped.stderr).not.toContain(UPSTREAM_KEY);
    // An empty key is a usage error (exit 2), as an empty --reference is.
    const empty = record(await cli(['remote', 'set-key'], '   \n'));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('titular: The upstream key is empty: stdin held no key');

    const ok = json(record(await cli(['remote', 'test', '--json'])));
    expect(ok).toMatchObject({ ok: true, httpStatus: 200, balances: [{ productSlug: 'cbu', balance: 999 }] });
    expect(upstream.takeHits()[0]?.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  });

  it('resolver set: validates its arguments, and a running server uses the new resolver on its next lookup', async () => {
    expect((await cli(['resolver', 'set', 'cbu'])).code).toBe(2);
    expect((await cli(['resolver', 'set', 'cbu', 'elsewhere'])).code).toBe(2);
    expect((await cli(['resolver', 'set', 'tarjetas', 'remote'])).code).toBe(2);

    server = await startServer(['--data-dir', dataDir, '--port', '0']);
    const lookup = async () => {
      const res = await fetch(`${server!.url}/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, { headers: { authorization: `Bearer ${apiKey}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await lookup()).body.data.holders[0].full_name).toBe('Lucía Luna');
    expect(upstream.takeHits()).toHaveLength(0);

    expect(json(await cli(['resolver', 'set', 'cbu', 'remote', '--json'])).resolvers).toEqual({ cbu: 'remote', informes: 'directory' });
    const remote = await lookup();
    expect(remote.status).toBe(200);
    expect(remote.body.data.holders[0].full_name).toBe('Remota Upstream SRL');
    expect(upstream.takeHits()).toHaveLength(1);

    // The upstream refuses our key: the server answers GE500, and the CLI shows why.
    upstream.setMode({ kind: 'reject', status: 401 });
    expect((await lookup()).status).toBe(503);
    const status = json(await cli(['remote', 'status', '--json']));
    expect(status.lastUpstreamError).toMatchObject({ kind: 'rejected-key', httpStatus: 401 });
    expect(JSON.stringify(status)).not.toContain(UPSTREAM_KEY);
    upstream.setMode({ kind: 'ok' });

    expect((await cli(['resolver', 'set', 'cbu', 'directory'])).code).toBe(0);
    expect((await lookup()).body.data.holders[0].full_name).toBe('Lucía Luna');
    upstream.takeHits();
    expect(json(await cli(['resolver', 'show', '--json'])).resolvers.cbu).toBe('directory');
  });

  it('a remote setting without a key warns; every change is audited without the key; the key is in no file', async () => {
    expect((await cli(['remote', 'remove-key'])).code).toBe(0);
    const warned = await cli(['resolver', 'set', 'informes', 'remote']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/informes lookups use the remote resolver, which has no upstream key/);
    expect(warned.stderr).toMatch(/503 GE500/);

    await server?.stop();
    server = null;
    const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) });
    try {
      const org = titular.users.requireOrganization();
      const audit = titular.audit.list(org.id, { targetType: 'settings' });
      expect(audit.map((e) => e.action).reverse()).toEqual([
        'settings.updated', // remote set --url --timeout-ms
        'remote.upstream_key_set', // --key
        'remote.upstream_key_set', // stdin
        'settings.updated', // resolver.cbu remote
        'remote.upstream_error', // the server saw the 401
        'settings.updated', // resolver.cbu directory
        'remote.upstream_key_removed',
        'settings.updated', // resolver.informes remote
      ]);
      expect(audit.every((e) => e.actor?.email === 'ada@acme.test' || e.action === 'remote.upstream_error')).toBe(true);
      expect(audit.at(-1)!.details).toMatchObject({ 'remote.baseUrl': upstream.url, 'remote.timeoutMs': 2000 });
      expect(JSON.stringify(audit)).not.toContain(UPSTREAM_KEY);
      expect(JSON.stringify(audit)).not.toContain(WRONG_KEY);
    } finally {
      titular.close();
    }
    const files = readdirSync(dataDir).map((name) => readFileSync(path.join(dataDir, name)));
    for (const bytes of files) {
      expect(bytes.includes(Buffer.from(UPSTREAM_KEY))).toBe(false);
      expect(bytes.includes(Buffer.from(WRONG_KEY))).toBe(false);
    }
    for (const text of outputs) {
      expect(text).not.toContain(UPSTREAM_KEY);
      expect(text).not.toContain(WRONG_KEY);
    }
  });

  it('a URL moved to another origin, or cleared, removes the upstream key, which every lookup would send there', async () => {
    const origin = new URL(upstream.url).origin;
    expect((await cli(['remote', 'set', '--url', upstream.url])).code).toBe(0);
    expect((await cli(['remote', 'set-key', '--key-stdin'], UPSTREAM_KEY)).code).toBe(0);
    // Another path on the same API keeps it.
    const samePlace = await cli(['remote', 'set', '--url', `${upstream.url}/v2`, '--json']);
    expect(json(samePlace)).toMatchObject({ keySet: true, upstreamKeyRemoved: false });
    // A listener of someone else's on another port: the key does not follow the URL there.
    const elsewhere = await cli(['remote', 'set', '--url', 'http://127.0.0.1:9']);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).toContain(`The upstream key was removed: it was entered for ${origin}, and lookups would send it to the new URL.`);
    expect(elsewhere.stdout).toContain('Next: store the upstream key with `titular remote set-key`');
    expect(json(await cli(['remote', 'status', '--json']))).toMatchObject({ baseUrl: 'http://127.0.0.1:9', keySet: false });
    // Cleared, then set again: the key stored meanwhile goes with the first URL.
    expect((await cli(['remote', 'set-key', '--key-stdin'], UPSTREAM_KEY)).code).toBe(0);
    expect(json(await cli(['remote', 'set', '--clear-url', '--json']))).toMatchObject({ baseUrl: null, keySet: false, upstreamKeyRemoved: true });
    expect((await cli(['remote', 'set-key', '--key-stdin'], UPSTREAM_KEY)).code).toBe(0);
    expect(json(await cli(['remote', 'set', '--url', upstream.url, '--json']))).toMatchObject({ keySet: true, upstreamKeyRemoved: false });

    const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) });
    try {
      const audit = titular.audit.list(titular.users.requireOrganization().id, { targetType: 'settings', limit: 8 });
      expect(audit.filter((e) => e.action === 'remote.upstream_key_removed').slice(0, 2).map((e) => e.details)).toEqual([
        { reason: 'base_url_origin_changed' },
        { reason: 'base_url_origin_changed' },
      ]);
    } finally {
      titular.close();
    }
  });
});

// The CLI saying things one way, run as processes: `serve` refuses a bad command line in the CLI's
// format (one line, then where the usage is; exit 2), a number out of range says the range in one
// wording for every option and variable ("--limit must be from 1 to 10,000 (got 0)"), every
// failure opens with "titular:", an empty upstream key is a usage error, a missing option value is
// named, a short passphrase names its variable, the base URL's rule is said whole, every time shown
// to a person is local with its offset (--json stays ISO UTC), `keys list` names the keys, a secret's
// "copy it now" does not contradict `keys show`, and a list mostly of CUITs is pointed to Informes
// (also when a few of its rows are valid CBUs or aliases).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { withCheckDigits, withCuitCheckDigit } from '../src/shared/identifiers';
import { runCli, type CliOptions, type CliRun } from './support/processes';
import { tempDirsOf } from './support/temp-dirs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_MS = 120_000;
/** Buenos Aires has no daylight saving time: always UTC-3. */
const TZ = 'America/Argentina/Buenos_Aires';

const tempDir = tempDirsOf('titular-cli-consistency-');

/** A usage error as the CLI says it: one line opening with `prefix`, then the pointer to `topic`'s help, exit 2. */
function expectUsageError(run: CliRun, line: string, topic: string, prefix = 'titular:'): void {
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.stderr).toBe(`${prefix} ${line}\nRun "titular help ${topic}" for usage.\n`);
}

/** A failed operation: one line opening with "titular:", no pointer to the usage, exit 1. */
function expectFailure(run: CliRun, line: string | RegExp): void {
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  if (typeof line === 'string') expect(lines[0]).toBe(`titular: ${line}`);
  else expect(lines[0]).toMatch(line);
}

/** `titular serve …` through bin/titular.js, the command an integrator runs; killed after 30 s (it must not start). */
function titularServe(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['TITULAR_DATA_DIR', 'TITULAR_PORT', 'TITULAR_SYNCHRONOUS', 'TITULAR_ALLOW_ORIGINS', 'TITULAR_PASSPHRASE', 'TITULAR_PASSPHRASE_FILE']) delete childEnv[name];
  Object.assign(childEnv, env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'titular.js'), 'serve', ...args], { cwd: ROOT, env: childEnv, timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** "2026-11-23 21:14:03 -03:00": an ISO instant as Buenos Aires reads it. */
function buenosAires(iso: string): string {
  const local = new Date(Date.parse(iso) - 3 * 3600_000).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 19)} -03:00`;
}

const LOCAL_TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d -03:00/;

function validCuit(first10: string): string {
  for (let i = 0; i < 10; i++) {
    const candidate = withCuitCheckDigit(`${first10.slice(0, 9)}${(Number(first10[9]) + i) % 10}`);
    if (candidate) return candidate;
  }
  throw new Error('no valid CUIT');
}

describe('titular serve: a bad command line said as the CLI says one', () => {
  let uninitialized: string;
  beforeAll(() => {
    uninitialized = tempDir();
  });

  it('one line naming the problem in the CLI\'s words, then "Run "titular help serve" for usage.", exit 2; never the whole usage', { timeout: TIMEOUT_MS }, async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [['--bogus'], {}, 'Unknown option --bogus'],
      // A port is refused as every number is: not a whole number, or out of its range (no thousands
      // separator: a port is a name, not an amount).
      [['--port', 'abc'], {}, '--port must be a whole number (got "abc")'],
      [['--port', '70000'], {}, '--port must be from 0 to 65535 (got 70000)'],
      [['--port=-1'], {}, '--port must be from 0 to 65535 (got -1)'],
      [['--port', ''], {}, '--port needs a port number'],
      [['--synchronous', 'maybe'], {}, '--synchronous must be NORMAL or FULL (got "maybe")'],
      [['--user', 'ana@acme.test'], {}, "--user works only with --ui (it chooses the browser session's user)"],
      [['--allow-origin', '*'], {}, '--allow-origin: * is not allowed; name each origin, e.g. http://localhost:3000'],
      [['extra'], {}, 'Unexpected argument: extra'],
      [[], { TITULAR_PORT: 'abc' }, 'TITULAR_PORT must be a whole number (got "abc")'],
      [[], { TITULAR_PORT: '65536' }, 'TITULAR_PORT must be from 0 to 65535 (got 65536)'],
      [[], { TITULAR_SYNCHRONOUS: 'fast' }, 'TITULAR_SYNCHRONOUS must be NORMAL or FULL (got "fast")'],
    ];
    // One after another: the server's entry loads the whole API before it reads its arguments.
    for (const [args, env, line] of cases) {
      const run = await titularServe([...args, '--data-dir', uninitialized], env);
      const what = `${JSON.stringify(env)} serve ${args.join(' ')}`;
      expect(run.stdout, what).toBe('');
      expect(run.stderr, what).not.toContain('Usage:');
      expectUsageError(run, line, 'serve', 'titular serve:');
    }
    // A flag with no value at the end of the line, in parseArgs's words as the CLI says them.
    expectUsageError(await titularServe(['--data-dir', uninitialized, '--port']), 'Option --port needs a value', 'serve', 'titular serve:');
    // The pointer leads to the usage.
    const help = await runCli(['help', 'serve']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: titular serve /);
  });
});

describe('titular: one way of saying things', () => {
  let dataDir: string;
  let work: string;
  const env = { TZ };
  const cli = (args: string[], options: CliOptions = {}) => runCli([...args, '--data-dir', dataDir], { timeoutMs: 60_000, ...options, env: { ...env, ...options.env } });
  const ok = async (args: string[], options: CliOptions = {}) => {
    const run = await cli(args, options);
    expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
    return run.stdout;
  };

  beforeAll(async () => {
    work = tempDir();
    dataDir = path.join(work, 'data');
    await ok(['init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test']);
  }, TIMEOUT_MS);

  it('a number out of range says the range, also when it is too large to be a number or negative, in one wording for every option', { timeout: TIMEOUT_MS }, async () => {
    // "--X must be from A to B (got V)", the bounds with thousands separators; what is not a whole
    // number at all, "--X must be a whole number (got "V")". (The ports: serve's test above.)
    const file = path.join(work, 'unread.txt');
    const timeoutBefore = JSON.parse(await ok(['remote', 'status', '--json'])).timeoutMs as number;
    const cases: [string[], string, string][] = [
      [['credits', 'add', '--product', 'cbu', '--amount', '99999999999999999999'], '--amount must be from 1 to 100,000,000 (got 99999999999999999999)', 'credits add'],
      [['credits', 'add', '--product', 'cbu', '--amount=-5'], '--amount must be from 1 to 100,000,000 (got -5)', 'credits add'],
      [['credits', 'add', '--product', 'cbu', '--amount', '0'], '--amount must be from 1 to 100,000,000 (got 0)', 'credits add'],
      [['credits', 'add', '--product', 'cbu', '--amount', '2.5'], '--amount must be a whole number (got "2.5")', 'credits add'],
      [['credits', 'add', '--product', 'cbu', '--amount', 'diez'], '--amount must be a whole number (got "diez")', 'credits add'],
      [['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit=-5'], '--rate-limit must be from 1 to 10,000 (got -5)', 'keys create'],
      [['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit', '10001'], '--rate-limit must be from 1 to 10,000 (got 10001)', 'keys create'],
      [['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit', '1e3'], '--rate-limit must be a whole number (got "1e3")', 'keys create'],
      [['bulk', 'run', file, '--concurrency', '0'], '--concurrency must be from 1 to 256 (got 0)', 'bulk run'],
      [['bulk', 'run', file, '--concurrency', '257'], '--concurrency must be from 1 to 256 (got 257)', 'bulk run'],
      [['remote', 'set', '--timeout-ms', '50'], '--timeout-ms must be from 100 to 60,000 (got 50)', 'remote set'],
      [['remote', 'set', '--timeout-ms', '60001'], '--timeout-ms must be from 100 to 60,000 (got 60001)', 'remote set'],
      [['bulk', 'list', '--limit=-5'], '--limit must be from 1 to 10,000 (got -5)', 'bulk list'],
      [['audit', '--limit', '99999999999999999999'], '--limit must be from 1 to 10,000 (got 99999999999999999999)', 'audit'],
    ];
    for (const [args, line, topic] of cases) expectUsageError(await cli(args), line, topic);
    // Nothing was bought, made or changed.
    expect(JSON.parse(await ok(['credits', 'show', '--json'])).balances.every((b: { balance: number }) => b.balance === 0)).toBe(true);
    expect(JSON.parse(await ok(['keys', 'list', '--json'])).keys).toEqual([]);
    expect(JSON.parse(await ok(['bulk', 'list', '--json'])).jobs).toEqual([]);
    expect(JSON.parse(await ok(['remote', 'status', '--json'])).timeoutMs).toBe(timeoutBefore);
  });

  it('a flag missing its value before any command is named, not "Missing command"', { timeout: TIMEOUT_MS }, async () => {
    for (const args of [['--data-dir'], ['--json', '--data-dir'], ['--as']]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toBe(`titular: Option ${args.at(-1)} needs a value\nRun "titular help" for usage.\n`);
    }
    // With nothing missing, it is still the command that is.
    expect((await runCli(['--json'])).stderr).toBe('titular: Missing command\nRun "titular help" for usage.\n');
  });

  it('TITULAR_SYNCHRONOUS is refused as serve refuses it: (got "…")', { timeout: TIMEOUT_MS }, async () => {
    expectUsageError(await cli(['users', 'list'], { env: { TITULAR_SYNCHRONOUS: 'fast' } }), 'TITULAR_SYNCHRONOUS must be NORMAL or FULL (got "fast")', 'users list');
  });

  it('init names the variable a short passphrase came from, and leaves no database', { timeout: TIMEOUT_MS }, async () => {
    const args = ['init', '--org', 'Beta SRL', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test'];
    const inline = path.join(work, 'short-inline');
    expectFailure(await runCli([...args, '--data-dir', inline], { env: { TITULAR_PASSPHRASE: 'corta' } }), 'The passphrase in TITULAR_PASSPHRASE must have at least 8 characters');
    const file = path.join(work, 'passphrase.txt');
    writeFileSync(file, 'corta\n');
    const fromFile = path.join(work, 'short-file');
    expectFailure(await runCli([...args, '--data-dir', fromFile], { env: { TITULAR_PASSPHRASE_FILE: file } }), `The passphrase in TITULAR_PASSPHRASE_FILE (${file}) must have at least 8 characters`);
    for (const dir of [inline, fromFile]) expect((await runCli(['credits', 'show', '--data-dir', dir])).stderr).toMatch(/run `titular init` first/);
  });

  it('remote set --url says the whole rule: https, or http to this machine only', { timeout: TIMEOUT_MS }, async () => {
    for (const url of ['ftp://upstream.example.com', 'file:///etc/passwd']) {
      expectUsageError(await cli(['remote', 'set', '--url', url]), '--url: the base URL must start with https:// (or http:// for this machine only: localhost, 127.x.x.x or [::1])', 'remote set');
    }
    // ...which it keeps: plain http to this machine is taken.
    expect(JSON.parse(await ok(['remote', 'set', '--url', 'http://127.0.0.1:9', '--json'])).baseUrl).toBe('http://127.0.0.1:9');
    await ok(['remote', 'set', '--clear-url']);
  });

  it('remote set-key: an empty key is a usage error (exit 2), said before any warning; nothing is stored', { timeout: TIMEOUT_MS }, async () => {
    const pipe = 'printf %s "$KEY" | titular remote set-key';
    // stdin closed, or holding only blank space.
    expectUsageError(await cli(['remote', 'set-key']), `The upstream key is empty: stdin held no key (${pipe})`, 'remote set-key');
    expectUsageError(await cli(['remote', 'set-key', '--key-stdin'], { input: '  \n' }), `The upstream key is empty: stdin held no key (${pipe})`, 'remote set-key');
    for (const key of ['', '   ']) {
      // No shell-history warning: there is no key in the history to warn about.
      expectUsageError(await cli(['remote', 'set-key', '--key', key]), `--key needs a value (or leave it out and pipe the key on stdin: ${pipe})`, 'remote set-key');
    }
    // A key that is not empty but cannot be one is still refused as what stdin held (exit 1), capitalised.
    expectFailure(await cli(['remote', 'set-key'], { input: 'two words\n' }), 'The upstream key must be printable ASCII without spaces; the upstream key was not changed');
    expect(JSON.parse(await ok(['remote', 'status', '--json'])).keySet).toBe(false);
  });

  it('remote test: a failed test opens with "titular:", as every failure does (exit 1)', { timeout: TIMEOUT_MS }, async () => {
    expectFailure(await cli(['remote', 'test']), 'The remote test failed: remote resolver: no remote base URL is configured (titular remote set --url URL)');
    await ok(['remote', 'set', '--url', `http://127.0.0.1:${await closedPort()}`]);
    await ok(['remote', 'set-key'], { input: `sk_live_${'U'.repeat(32)}\n` });
    const refused = await cli(['remote', 'test']);
    expectFailure(refused, /^titular: The remote test failed: .+/);
    expect(refused.stdout).toBe('');
    // --json still answers the result on stdout, exit 1.
    const json = await cli(['remote', 'test', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false });
    await ok(['remote', 'set', '--clear-url']);
  });

  it('keys: NAME in keys list; the secret is said to be revealable again, with the audit; times are local, --json is UTC', { timeout: TIMEOUT_MS }, async () => {
    const longName = 'Sucursal Centro, caja 3 y mostrador principal';
    const created = await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--name', longName, '--expires', '2099-01-01T01:30:00Z']);
    const id = /Created live key (\S+) /.exec(created)![1]!;
    expect(created).toContain(`Copy it now. An admin can reveal it again later with \`titular keys show ${id}\` (each reveal is recorded in the audit log).\n`);
    expect(created).not.toContain('not be shown again');
    const unnamed = JSON.parse(await ok(['keys', 'create', '--product', 'informes', '--scopes', 'lookup', '--json'])).id as string;
    const rotated = await ok(['keys', 'rotate', unnamed]);
    expect(rotated).toContain(`Copy it now. An admin can reveal it again later with \`titular keys show ${unnamed}\` (each reveal is recorded in the audit log).\n`);
    // The reveal it promises is audited.
    await ok(['keys', 'show', unnamed]);
    expect(JSON.parse(await ok(['audit', '--type', 'api_key', '--json', '--limit', '1']))[0]).toMatchObject({ action: 'key.revealed', targetId: unnamed });

    const list = (await ok(['keys', 'list'])).trimEnd().split('\n');
    expect(list[0]).toMatch(/^ID +NAME +PREFIX +PRODUCT +ENV +SCOPES +STATUS +EXPIRES +LAST USED$/);
    const named = list.find((line) => line.startsWith(id))!;
    const other = list.find((line) => line.startsWith(unnamed))!;
    // A long name is cut to keep the table readable (keys show has it whole); no name is "-".
    expect(named).toMatch(new RegExp(`^${id} {2}Sucursal Centro, caja 3…  sk_live_`));
    expect(other).toMatch(new RegExp(`^${unnamed} {2}- +sk_live_`));
    expect(named.indexOf('sk_live_')).toBe(other.indexOf('sk_live_'));
    // 01:30 UTC of January 1st is still New Year's Eve in Buenos Aires.
    expect(named).toContain('2098-12-31 22:30:00 -03:00');
    expect(await ok(['keys', 'show', id])).toMatch(new RegExp(`^Name: +${longName}$`, 'm'));

    const keys = JSON.parse(await ok(['keys', 'list', '--json'])).keys as { id: string; expiresAt: string; createdAt: string; revokedAt: string | null }[];
    const key = keys.find((k) => k.id === id)!;
    expect(key.expiresAt).toBe('2099-01-01T01:30:00.000Z');
    expect(key.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await ok(['keys', 'show', id])).toMatch(new RegExp(`^Created: +${buenosAires(key.createdAt)}$`, 'm'));

    await ok(['keys', 'revoke', id]);
    const revokedAt = (JSON.parse(await ok(['keys', 'list', '--json'])).keys as { id: string; revokedAt: string }[]).find((k) => k.id === id)!.revokedAt;
    expect(await ok(['keys', 'revoke', id])).toBe(`Key ${id} was already revoked (${buenosAires(revokedAt)}).\n`);

    const users = JSON.parse(await ok(['users', 'list', '--json'])).users as { email: string; createdAt: string }[];
    expect(await ok(['users', 'list'])).toMatch(new RegExp(`ana@acme\\.test +admin +${buenosAires(users[0]!.createdAt)}\\n`));

    // A date in the past is said in local time too.
    const past = await cli(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--expires', '2020-01-01T01:30:00Z']);
    expectUsageError(past, '--expires is in the past (2019-12-31 22:30:00 -03:00); give a future date', 'keys create');
  });

  it('bulk: a list mostly of CUITs is pointed to --product informes; one that is not, is not; times are local', { timeout: TIMEOUT_MS }, async () => {
    const cuits = [validCuit('2012345678'), validCuit('2711111111'), validCuit('3050001091')];
    const mostly = path.join(work, 'mostly-cuits.txt');
    writeFileSync(mostly, `${cuits[0]}\n${cuits[1]}\n\n${cuits[2]}\n12345\n`);
    const run = await cli(['bulk', 'run', mostly]);
    expectFailure(
      run,
      new RegExp(
        `^titular: ${mostly.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: None of its 4 rows is a valid identifier \\(.+\\); nothing was looked up or charged\\. ` +
          `3 of its 4 rows are CUIT/CUILs, which are looked up in a credit report \\(Informes\\) job\\. To look up credit reports: titular bulk run ${mostly.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --product informes$`,
      ),
    );
    // Every row a CUIT: the core's own words, and the same pointer.
    const all = path.join(work, 'all-cuits.txt');
    writeFileSync(all, `${cuits.join('\n')}\n`);
    expectFailure(
      await cli(['bulk', 'run', all]),
      `${all}: None of its 3 rows is a valid identifier (they are CUIT/CUILs, which are looked up in a credit report (Informes) job); nothing was looked up or charged. To look up credit reports: titular bulk run ${all} --product informes`,
    );
    // Half of them: no pointer.
    const half = path.join(work, 'half-cuits.txt');
    writeFileSync(half, `${cuits[0]}\n12345\n`);
    const halfRun = await cli(['bulk', 'run', half]);
    expect(halfRun.code).toBe(1);
    expect(halfRun.stderr).not.toContain('--product informes');

    // bulk list and the refusal of a completed list: local time.
    await ok(['credits', 'add', '--product', 'informes', '--amount', '5']);
    const informes = path.join(work, 'informes.txt');
    writeFileSync(informes, `${cuits[0]}\n`);
    const done = JSON.parse(await ok(['bulk', 'run', informes, '--product', 'informes', '--json'])).job as { id: string; createdAt: string; finishedAt: string };
    expect(done.createdAt).toMatch(/Z$/);
    const listed = (await ok(['bulk', 'list'])).split('\n').find((line) => line.startsWith(done.id))!;
    expect(listed).toMatch(new RegExp(`^${done.id} {2}${buenosAires(done.createdAt)} {2}informes `));
    const again = await cli(['bulk', 'run', informes, '--product', 'informes']);
    expectFailure(again, new RegExp(`\\(completed ${buenosAires(done.finishedAt)}, 1 credit\\)\\. Its results: titular bulk export ${done.id}\\.`));
    expect(again.stderr).not.toContain('UTC');
    expect(LOCAL_TIME.test(again.stderr)).toBe(true);
  });

  it('bulk: a list mostly of CUITs with a few valid CBUs or aliases is pointed to --product informes too, before any job; --product cbu runs it; mostly CBUs, no pointer', { timeout: TIMEOUT_MS }, async () => {
    const cuits = [validCuit('2012345678'), validCuit('2711111111'), validCuit('3050001091')];
    const cbus = [withCheckDigits('072', '0210', '0000045678901'), withCheckDigits('285', '0590', '0000000000001'), withCheckDigits('011', '0001', '0000000000002')];
    const jobs = async () => (JSON.parse(await ok(['bulk', 'list', '--json'])).jobs as { id: string }[]).length;
    const before = await jobs();
    const refusal = (file: string, valid: string) =>
      `${file}: 3 of its 4 rows are CUIT/CUILs, which are looked up in a credit report (Informes) job; nothing was looked up or charged. ` +
      `To look up credit reports: titular bulk run ${file} --product informes (or, to look up its ${valid} only, --product cbu)`;
    // Three CUITs and one valid CBU: a CBU job would look up (and charge) the CBU and skip every CUIT.
    const mixed = path.join(work, 'cuits-and-a-cbu.txt');
    writeFileSync(mixed, `${cuits[0]}\n${cbus[0]}\n${cuits[1]}\n${cuits[2]}\n`);
    expectFailure(await cli(['bulk', 'run', mixed]), refusal(mixed, '1 CBU/CVU or alias'));
    expectFailure(await cli(['bulk', 'run', mixed, '--json']), refusal(mixed, '1 CBU/CVU or alias'));
    // A title line that reads as an alias ("clientes") is the same case.
    const titled = path.join(work, 'titled-cuits.txt');
    writeFileSync(titled, `clientes\n${cuits.join('\n')}\n`);
    expectFailure(await cli(['bulk', 'run', titled]), refusal(titled, '1 CBU/CVU or alias'));
    expect(await jobs()).toBe(before);

    // --product cbu said: run as asked (no cbu credits here: stopped, exit 3), the CUITs invalid.
    const asked = await cli(['bulk', 'run', mixed, '--product', 'cbu', '--json']);
    expect(asked.stderr).not.toContain('--product informes');
    expect(JSON.parse(asked.stdout).job).toMatchObject({ totalRows: 4, invalidRows: 3 });
    // Mostly CBUs with one CUIT: no pointer, the job is made.
    const mostlyCbus = path.join(work, 'cbus-and-a-cuit.txt');
    writeFileSync(mostlyCbus, `${cbus.join('\n')}\n${cuits[0]}\n`);
    const cbuRun = await cli(['bulk', 'run', mostlyCbus, '--json']);
    expect(cbuRun.stderr).not.toContain('--product informes');
    expect(JSON.parse(cbuRun.stdout).job).toMatchObject({ totalRows: 4, invalidRows: 1 });
    expect(await jobs()).toBe(before + 2);
  });
});

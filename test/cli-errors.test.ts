// The CLI's failures as an admin meets them, run as a process: a file where a folder should be, an
// export path that cannot be written, a bad input file (exit 1) against a bad flag (exit 2), a job
// that cannot be resumed, messages that name their flag; and the help texts agreeing with the README.
import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './support/processes';
import { COMMANDS } from '../src/main/headless/cli/commands';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_MS = 120_000;

const cli = (args: string[], env?: Record<string, string>) => runCli(args, { env, timeoutMs: 60_000 });

async function ok(args: string[], env?: Record<string, string>): Promise<string> {
  const run = await cli(args, env);
  expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
  return run.stdout;
}

/** A failure told in one line on stderr, with no stack, no "unexpected error" and no pointer to the usage. */
function expectOneLineFailure(run: CliRun, message: RegExp | string, code = 1): void {
  expect(run.code, run.stderr).toBe(code);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  if (typeof message === 'string') expect(lines[0]).toBe(`titular: ${message}`);
  else expect(lines[0]).toMatch(message);
  expect(run.stderr).not.toMatch(/unexpected error|TITULAR_DEBUG|for usage|\n\s+at /);
}

const ACCOUNTS = readFileSync(path.join(ROOT, 'examples/accounts.csv'), 'utf8');
const CBUS = ['0290001800000000007773', '2850590900000012345674'];

describe('titular CLI: errors an admin can act on', () => {
  let work: string;
  let dataDir: string;
  /** A regular file, where the tests put folders. */
  let file: string;
  let backup: string;
  const d = (...args: string[]) => [...args, '--data-dir', dataDir];

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'titular-cli-errors-'));
    dataDir = path.join(work, 'data');
    file = path.join(work, 'list.txt');
    writeFileSync(file, 'not a folder\n');
    await ok(d('init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test'));
    writeFileSync(path.join(work, 'accounts.csv'), ACCOUNTS);
    await ok(d('directory', 'import', path.join(work, 'accounts.csv')));
    backup = path.join(work, 'backup');
    await ok(d('backup', backup));
  }, TIMEOUT_MS);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('a file given as the data directory (or a folder under one) is said by name, exit 1, and nothing is made', async () => {
    const under = path.join(file, 'sub');
    const cases: [string[], string][] = [
      [['init', '--org', 'X', '--admin-name', 'Y', '--admin-email', 'a@b.test', '--data-dir', file], `The data directory ${file} is a file, not a folder`],
      [['init', '--org', 'X', '--admin-name', 'Y', '--admin-email', 'a@b.test', '--data-dir', under], `The data directory ${under} cannot be created: ${file} is a file, not a folder`],
      // It used to say "run `titular init` first", which then failed.
      [['keys', 'list', '--data-dir', file], `The data directory ${file} is a file, not a folder`],
      [['restore', backup, '--data-dir', file], `The data directory ${file} is a file, not a folder`],
      [['restore', backup, '--data-dir', under], `The data directory ${under} cannot be created: ${file} is a file, not a folder`],
    ];
    for (const [args, message] of cases) expectOneLineFailure(await cli(args), message);
    // The same from TITULAR_DATA_DIR.
    expectOneLineFailure(await cli(['credits', 'show'], { TITULAR_DATA_DIR: file }), `The data directory ${file} is a file, not a folder`);
    expect(readFileSync(file, 'utf8')).toBe('not a folder\n');
    expect(readdirSync(work).sort()).toEqual(['accounts.csv', 'backup', 'data', 'list.txt']);
  }, TIMEOUT_MS);

  it('backup into a file, or a folder under one, is refused by name, exit 1', async () => {
    const under = path.join(file, 'sub');
    expectOneLineFailure(await cli(d('backup', under)), `The backup folder ${under} cannot be created: ${file} is a file, not a folder; choose a new folder for the backup`);
    expectOneLineFailure(await cli(d('backup', file)), `The backup folder ${file} is a file, not a folder; choose a new folder for the backup`);
    expect(readFileSync(file, 'utf8')).toBe('not a folder\n');
  }, TIMEOUT_MS);

  it('an export path that cannot be written is told as "Cannot write", not masked by the cleanup of its temporary file', async () => {
    const under = path.join(file, 'sub.csv');
    for (const args of [
      ['history', 'export', '--format', 'csv', '--output', under],
      ['history', 'export', '--format', 'json', '-o', under],
    ]) {
      expectOneLineFailure(await cli(d(...args)), `Cannot write ${under}: ${file} is a file, not a folder`);
    }
    const missingFolder = path.join(work, 'no-such-folder', 'list.csv');
    expectOneLineFailure(await cli(d('history', 'export', '--format', 'csv', '--output', missingFolder)), `Cannot write ${missingFolder}: there is no folder ${path.dirname(missingFolder)}`);
    // A name the file system takes, whose temporary name (".NAME.PID.tmp") it does not: opening the
    // temporary fails, and so does removing it (ENAMETOOLONG, which rmSync's `force` does not cover).
    // That second error used to replace the first as "unexpected error".
    const long = path.join(work, `${'h'.repeat(248)}.csv`);
    expectOneLineFailure(await cli(d('history', 'export', '--format', 'csv', '--output', long)), /^titular: Cannot write .+: ENAMETOOLONG/);
    expect(readdirSync(work).filter((name) => name.includes('hhhh'))).toEqual([]);
  }, TIMEOUT_MS);

  it('an export into the data directory, or onto the list being read, is refused and writes nothing: it would destroy the database or key, or be charged again as a new list', async () => {
    const before = await ok(d('credits', 'show', '--json'));
    const list = path.join(work, 'self.csv');
    writeFileSync(list, `identifier\n${CBUS[0]}\n`);
    const listBefore = readFileSync(list, 'utf8');
    const linkToData = path.join(work, 'data-link');
    symlinkSync(dataDir, linkToData);
    const intoData = (target: string) => new RegExp(`^titular: Cannot write ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is in the data directory .+, which holds Titular's database and vault key; choose a file elsewhere$`);
    for (const [args, target] of [
      [['history', 'export', '--format', 'csv', '-o', path.join(dataDir, 'titular.db')], path.join(dataDir, 'titular.db')],
      [['history', 'export', '--format', 'json', '--output', path.join(linkToData, 'master.key')], path.join(linkToData, 'master.key')],
      [['bulk', 'run', list, '--export', path.join(dataDir, 'master.key')], path.join(dataDir, 'master.key')],
      [['bulk', 'run', list, '--export', path.join(dataDir, 'new.csv')], path.join(dataDir, 'new.csv')],
    ] as const) {
      expectOneLineFailure(await cli(d(...args)), intoData(target));
    }
    expectOneLineFailure(await cli(d('bulk', 'run', list, '--export', list)), `Cannot write ${list}: it is the file being read; choose another file for the results`);
    const hardLink = path.join(work, 'self-hardlink.csv');
    linkSync(list, hardLink);
    expectOneLineFailure(await cli(d('bulk', 'run', list, '--export', hardLink)), `Cannot write ${hardLink}: it is the file being read; choose another file for the results`);
    // Nothing was written, run or charged: the database opens with the same balances, the list is as it was.
    expect(await ok(d('credits', 'show', '--json'))).toBe(before);
    expect(readFileSync(list, 'utf8')).toBe(listBefore);
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.csv') || name.endsWith('.tmp'))).toEqual([]);
    expect((JSON.parse(await ok(d('bulk', 'list', '--json'))) as { jobs: { name: string }[] }).jobs.map((job) => job.name)).not.toContain('self.csv');
  }, TIMEOUT_MS);

  it('an option that takes one value, given twice, is refused (exit 2) and changes nothing; so is an empty --reference, which would lose a retry\'s idempotency', async () => {
    const before = await ok(d('credits', 'show', '--json'));
    for (const [args, flag] of [
      [['credits', 'add', '--product', 'cbu', '--amount', '5', '--amount', '7'], 'amount'],
      [['credits', 'add', '--product', 'cbu', '--product', 'informes', '--amount', '5'], 'product'],
      [['history', 'export', '--format', 'csv', '--out', 'a.csv', '--out=b.csv'], 'out'],
      [['keys', 'create', '--product', 'cbu', '--product', 'informes', '--scopes', 'lookup'], 'product'],
    ] as const) {
      const run = await cli(d(...args));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.split('\n')[0]).toBe(`titular: --${flag} was given more than once: give it once`);
    }
    const empty = await cli(d('credits', 'add', '--product', 'cbu', '--amount', '5', '--reference', ''));
    expect(empty.code, empty.stderr).toBe(2);
    expect(empty.stderr.split('\n')[0]).toBe('titular: --reference needs a value (or leave it out for a purchase without one)');
    expect(await ok(d('credits', 'show', '--json'))).toBe(before);
    // Options meant to repeat still do.
    expect((await cli(d('keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--ip', '10.0.0.1', '--ip', '10.0.0.2', '--json'))).code).toBe(0);
    // One credit is one credit (informes: the cbu balance stays 0 for the tests below).
    expect(await ok(d('credits', 'add', '--product', 'informes', '--amount', '1'))).toMatch(/^Added 1 informes credit\. Balance: /);
  }, TIMEOUT_MS);

  it('a list with no valid identifier is refused (exit 1) before a job is made, saying why; a list of CUITs is pointed to --product informes', async () => {
    const cuits = path.join(work, 'cuits.txt');
    writeFileSync(cuits, '20-12345678-6\n27123456780\n');
    const run = await cli(d('bulk', 'run', cuits));
    expectOneLineFailure(run, `${cuits}: None of its 2 rows is a valid identifier (they are CUIT/CUILs, which are looked up in a credit report (Informes) job); nothing was looked up or charged. To look up credit reports: titular bulk run ${cuits} --product informes`);
    const bad = path.join(work, 'bad-one.txt');
    writeFileSync(bad, '123\n');
    expectOneLineFailure(await cli(d('bulk', 'run', bad)), /^titular: .*bad-one\.txt: Its one row is not a valid identifier \(.+\); nothing was looked up or charged$/);
    const { jobs } = JSON.parse(await ok(d('bulk', 'list', '--json'))) as { jobs: { name: string }[] };
    expect(jobs.map((job) => job.name)).not.toContain('cuits.txt');
    expect(jobs.map((job) => job.name)).not.toContain('bad-one.txt');
  }, TIMEOUT_MS);

  it('a bad input file is a failed operation (exit 1) in bulk run as in directory import; a bad flag stays a usage error (exit 2)', async () => {
    const files = {
      empty: '',
      'header-only': 'identifier\n',
      'no-identifier-column': 'nombre,monto\nAna,10\n',
    };
    for (const [name, content] of Object.entries(files)) {
      const input = path.join(work, `${name}.csv`);
      writeFileSync(input, content);
      const bulk = await cli(d('bulk', 'run', input));
      expectOneLineFailure(bulk, new RegExp(`^titular: ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: The (input has no identifiers|CSV has no "identifier" column)`));
      const directory = await cli(d('directory', 'import', input));
      expect(directory.code, `${name}: ${directory.stderr}`).toBe(1);
    }
    const input = path.join(work, 'good.txt');
    writeFileSync(input, `${CBUS[0]}\n`);
    for (const args of [
      ['bulk', 'run', input, '--product', 'iban'],
      ['bulk', 'run', input, '--concurrency', '0'],
      ['bulk', 'run', input, '--lang', 'es'],
      ['credits', 'add', '--product', 'cbu', '--amount', '0'],
      ['users', 'add', '--name', 'Sin Arroba', '--email', 'bad', '--role', 'operator'],
    ]) {
      const run = await cli(d(...args));
      expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/\nRun "titular help (bulk run|credits add|users add)" for usage\.\n$/);
    }
  }, TIMEOUT_MS);

  it('bulk resume of a completed or cancelled job is refused before anything is printed or written', async () => {
    // A job stopped out of credits, then cancelled; another completed.
    const first = path.join(work, 'first.txt');
    writeFileSync(first, `${CBUS[0]}\n`);
    const stopped = await cli(d('bulk', 'run', first, '--json'));
    expect(stopped.code, stopped.stderr).toBe(3);
    const cancelledId = (JSON.parse(stopped.stdout) as { job: { id: string } }).job.id;
    await ok(d('bulk', 'cancel', cancelledId));
    await ok(d('credits', 'add', '--product', 'cbu', '--amount', '10'));
    const second = path.join(work, 'second.txt');
    writeFileSync(second, `${CBUS[1]}\n`);
    const done = await cli(d('bulk', 'run', second, '--json'));
    expect(done.code, done.stderr).toBe(0);
    const completedId = (JSON.parse(done.stdout) as { job: { id: string; status: string } }).job.id;

    const exportTo = path.join(work, 'resumed.csv');
    for (const [id, status] of [[completedId, 'completed'], [cancelledId, 'cancelled']] as const) {
      for (const extra of [[], ['--json'], ['--export', exportTo]]) {
        const run = await cli(d('bulk', 'resume', id, ...extra));
        expect(run.stdout, `${status} ${extra.join(' ')}`).toBe('');
        expectOneLineFailure(run, new RegExp(`^titular: Bulk job ${id} is ${status}; it cannot be resumed`));
        if (status === 'completed') expect(run.stderr).toContain(`titular bulk export ${id}`);
      }
    }
    expect(readdirSync(work).filter((name) => name.includes('resumed'))).toEqual([]);
  }, TIMEOUT_MS);

  it('the core refusing a flag value is told with the flag, as the CLI tells its own checks', async () => {
    const cases: [string[], string][] = [
      [['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit', '0'], '--rate-limit must be from 1 to 10,000 (got 0)'],
      [['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit', '100000'], '--rate-limit must be from 1 to 10,000 (got 100000)'],
      [['credits', 'add', '--product', 'cbu', '--amount', '0'], '--amount must be from 1 to 100,000,000 (got 0)'],
      [['credits', 'add', '--product', 'cbu', '--amount', '100000001'], '--amount must be from 1 to 100,000,000 (got 100000001)'],
      [['history', 'export', '--format', 'csv', '--from', '2026-12-01', '--to', '2026-11-01'], '--from must not be after --to (got --from 2026-12-01 --to 2026-11-01)'],
      [['history', 'export', '--format', 'csv', '--from', '2026-13-45'], '--from must be an ISO 8601 date or instant (e.g. 2026-11-01)'],
    ];
    for (const [args, message] of cases) {
      const run = await cli(d(...args));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.split('\n')[0]).toBe(`titular: ${message}`);
    }
  }, TIMEOUT_MS);
});

describe('titular help and the README agree', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const cliSection = readme.slice(readme.indexOf('\n## CLI\n'), readme.indexOf('\n## ', readme.indexOf('\n## CLI\n') + 1));

  it('--as: every command but init and restore, which refuse it (exit 2); their help does not offer it', async () => {
    const main = await ok(['--help']);
    expect(main).toMatch(/^ {2}--as EMAIL .+; every command but init and restore$/m);
    expect(cliSection).toContain('`--as EMAIL` (every command but `init` and `restore`)');
    for (const command of ['init', 'restore']) {
      expect(await ok(['help', command])).not.toMatch(/^ {2}--as /m);
      const refused = await cli([command, '--as', 'ana@acme.test', '--data-dir', path.join(os.tmpdir(), 'titular-never-made')]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--as cannot be used with ${command}`);
    }
    expect(await ok(['help', 'keys', 'list'])).toMatch(/^ {2}--as EMAIL /m);
  }, TIMEOUT_MS);

  it('the exit status and environment of --help are the README\'s', async () => {
    const main = await ok(['--help']);
    const exitHelp = main.slice(main.indexOf('Exit status:'));
    // Every code of the README's exit status table is in the help, and no other.
    const readmeCodes = [...cliSection.matchAll(/^\| ([\d /]+) \| /gm)].flatMap((m) => m[1]!.split('/').map((c) => c.trim()));
    expect(readmeCodes).toEqual(['0', '1', '2', '3', '4', '130', '143']);
    const helpCodes = [...exitHelp.matchAll(/^ {2}(\d+(?:, \d+)*) /gm)].flatMap((m) => m[1]!.split(', '));
    expect(helpCodes).toEqual(readmeCodes);
    // The variables the README says the CLI reads.
    for (const variable of ['TITULAR_DATA_DIR', 'TITULAR_PASSPHRASE', 'TITULAR_PASSPHRASE_FILE', 'TITULAR_SYNCHRONOUS', 'TITULAR_DEBUG']) {
      expect(main, variable).toMatch(new RegExp(`^ {2}${variable} `, 'm'));
      expect(readme, variable).toContain(variable);
    }
  }, TIMEOUT_MS);

  it('help answers for serve and version, which the main help lists', async () => {
    for (const args of [['help', 'serve'], ['serve', '--help']]) expect(await ok(args)).toMatch(/^Usage: titular serve \[--port N\]/);
    expect(await ok(['help', 'version'])).toMatch(/^Usage: titular version \(also --version, -V\)/);
  }, TIMEOUT_MS);

  it('every command of the CLI is in the README\'s command table', () => {
    for (const command of COMMANDS) expect(cliSection, command.name).toContain(`\`${command.name}`);
  });
});

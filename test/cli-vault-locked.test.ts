// Every CLI command on a passphrase vault with no passphrase given, run as a process: a command that
// seals or opens no secret works without it (the vault is opened still sealed: context.ts
// `vault: 'locked'`); one that does (a key's secret, the upstream key) asks for it, exit 1. `keys list`
// and `credits add` used to ask. Every command of the table is in one list or the other, so a new
// command is sorted here too.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './support/processes';
import { CREDIT_RECORDS_CSV } from './support/credit-data';
import { COMMANDS } from '../src/main/headless/cli/commands';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_MS = 240_000;
const PASSPHRASE = 'yerba mate sin azúcar';
const CBUS = ['0290001800000000007773', '2850590900000012345674', '0070123100000004567893'];

describe('titular on a passphrase vault, without the passphrase', () => {
  let work: string;
  let dataDir: string;
  let revokeId: string;
  let secretId: string;
  const withPassphrase = { TITULAR_PASSPHRASE: PASSPHRASE };
  const cli = (args: string[], env: Record<string, string> = {}, input?: string): Promise<CliRun> =>
    runCli([...args, '--data-dir', dataDir], { env, input, timeoutMs: 60_000 });
  const ok = async (args: string[], env: Record<string, string> = {}, input?: string): Promise<string> => {
    const run = await cli(args, env, input);
    expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
    return run.stdout;
  };
  const file = (name: string, content: string) => {
    const target = path.join(work, name);
    writeFileSync(target, content);
    return target;
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'titular-cli-vault-locked-'));
    dataDir = path.join(work, 'data');
    await ok(['init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test'], withPassphrase);
    const create = async () => (JSON.parse(await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--json'], withPassphrase)) as { id: string }).id;
    revokeId = await create();
    secretId = await create();
    await ok(['remote', 'set-key', '--key-stdin'], withPassphrase, 'upstream-key-123');
  }, TIMEOUT_MS);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('the commands that read no secret run without it; those that do ask for it; every command is one or the other', async () => {
    const accounts = file('accounts.csv', readFileSync(path.join(ROOT, 'examples/accounts.csv'), 'utf8'));
    const credit = file('credit.csv', CREDIT_RECORDS_CSV);
    const one = file('one.txt', `${CBUS[0]}\n`);
    const three = file('three.txt', `${CBUS.join('\n')}\n`);
    const jobOf = (stdout: string) => /job ([0-9a-f-]{36})/.exec(stdout)![1]!;

    // In order: each may need what the ones before it made. [args, exit status]
    const runsLocked: [string[], number][] = [
      [['users', 'add', '--name', 'Oscar Operador', '--email', 'oscar@acme.test', '--role', 'operator'], 0],
      [['users', 'list'], 0],
      [['keys', 'list'], 0],
      [['keys', 'revoke', revokeId], 0],
      [['credits', 'add', '--product', 'cbu', '--amount', '2'], 0],
      [['credits', 'show'], 0],
      [['directory', 'import', accounts], 0],
      [['directory', 'import-credit', credit], 0],
      // Answered by the directory: no upstream key needed. The second stops out of credits (3).
      [['bulk', 'run', one], 0],
      [['bulk', 'run', three], 3],
      [['bulk', 'list'], 0],
      [['history', 'export', '--format', 'json'], 0],
      [['remote', 'set', '--url', 'https://api.example.com', '--timeout-ms', '3000'], 0],
      [['remote', 'status'], 0],
      [['resolver', 'set', 'informes', 'directory'], 0],
      [['resolver', 'show'], 0],
      [['audit', '--limit', '5'], 0],
      [['backup', path.join(work, 'backup')], 0],
    ];
    const outputs = new Map<string, string>();
    for (const [args, code] of runsLocked) {
      const run = await cli(args);
      expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(code);
      expect(run.stderr).not.toMatch(/TITULAR_PASSPHRASE|vault is locked/);
      outputs.set(args.slice(0, 2).join(' ') + (args[2] === three ? ' three' : ''), run.stdout);
    }
    const stopped = jobOf(outputs.get('bulk run three')!);
    const completed = jobOf(outputs.get('bulk run')!);
    const later: [string[], number][] = [
      [['bulk', 'export', completed], 0],
      // Still no credits: it stops at once, out of credits (3).
      [['bulk', 'resume', stopped], 3],
      [['bulk', 'cancel', stopped], 0],
      // Deletes the sealed upstream key without opening it.
      [['remote', 'remove-key'], 0],
    ];
    for (const [args, code] of later) {
      const run = await cli(args);
      expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(code);
    }
    expect(await ok(['keys', 'list', '--json'])).toContain('"status": "revoked"');

    // Sealing or opening a secret asks for the passphrase, exit 1, and changes nothing.
    await ok(['remote', 'set-key', '--key-stdin'], withPassphrase, 'upstream-key-456');
    await ok(['resolver', 'set', 'cbu', 'remote']);
    const jobsBefore = (JSON.parse(await ok(['bulk', 'list', '--json'])) as { jobs: unknown[] }).jobs.length;
    const asksFor: [string[], string?][] = [
      [['keys', 'create', '--product', 'cbu', '--scopes', 'lookup']],
      [['keys', 'show', secretId]],
      [['keys', 'rotate', secretId]],
      [['remote', 'set-key', '--key-stdin'], 'upstream-key-789'],
      [['remote', 'test']],
      // Its lookups go to the remote API now, which needs the upstream key.
      [['bulk', 'run', file('remote.txt', `${CBUS[1]}\n`)]],
    ];
    for (const [args, input] of asksFor) {
      const run = await cli(args, {}, input);
      expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(1);
      expect(run.stderr).toMatch(/This vault is protected by a passphrase: set TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE/);
    }
    expect((await cli(['bulk', 'run', path.join(work, 'remote.txt')])).stderr).toContain('Live cbu lookups go to the remote API, whose key is sealed in the vault');
    expect((JSON.parse(await ok(['bulk', 'list', '--json'])) as { jobs: unknown[] }).jobs).toHaveLength(jobsBefore);

    // Every command but the setup ones (init, restore) was run above.
    const tried = new Set([...runsLocked, ...later, ...asksFor].map(([args]) => COMMANDS.find((c) => c.name === args.slice(0, 2).join(' ') || c.name === args[0])!.name));
    expect([...tried].sort()).toEqual(COMMANDS.filter((c) => c.access !== 'setup').map((c) => c.name).sort());
  }, TIMEOUT_MS);

  it('a passphrase that is given is still checked: a wrong one is refused, exit 1, by a command that needs none', async () => {
    const wrong = await cli(['credits', 'show'], { TITULAR_PASSPHRASE: 'not the passphrase' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/wrong passphrase/i);
    expect(wrong.stdout).toBe('');
    await ok(['credits', 'show'], withPassphrase);
  }, TIMEOUT_MS);
});

// `titular audit` as a process: the audit log an admin on a headless machine reads (backups,
// restores, keys, credits), newest first, in local time, filtered by type, as text or JSON, without
// a secret, for admins only, and without asking a passphrase vault for its passphrase.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/processes';
import type { AuditEntry } from '../src/main/core/audit/audit-log';

const TIMEOUT_MS = 120_000;
const PASSPHRASE = 'correct horse battery staple';
/** Buenos Aires has no daylight saving time: always UTC-3. */
const TZ = 'America/Argentina/Buenos_Aires';

/** What `audit --json` prints: the core's audit entries. */
type Entry = AuditEntry;

describe('titular audit', () => {
  let work: string;
  let dataDir: string;
  let backup: string;
  let second: string;
  let secret = '';
  let keyId = '';
  const env = { TITULAR_PASSPHRASE: PASSPHRASE, TZ };
  const cli = (args: string[], withEnv: Record<string, string> = env) => runCli([...args, '--data-dir', dataDir], { env: withEnv, timeoutMs: 60_000 });
  const ok = async (args: string[], withEnv: Record<string, string> = env) => {
    const run = await cli(args, withEnv);
    expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
    return run.stdout;
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'titular-cli-audit-'));
    dataDir = path.join(work, 'data');
    backup = path.join(work, 'backup');
    second = path.join(work, 'second backup');
    await ok(['init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test']);
    await ok(['users', 'add', '--name', 'Oscar Operador', '--email', 'oscar@acme.test', '--role', 'operator']);
    const created = JSON.parse(await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup,balance', '--json'])) as { id: string; key: string };
    secret = created.key;
    keyId = created.id;
    await ok(['keys', 'show', keyId]);
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '25', '--reference', 'FAC-1']);
    await ok(['backup', backup]);
    await ok(['restore', backup]);
    // The restored data is the backup's, taken before its own backup was recorded: a second backup
    // puts a data.backup_made in this data.
    await ok(['backup', second]);
  }, TIMEOUT_MS);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('prints one line per entry, newest first: local time, actor, action, target id, details as JSON', async () => {
    const entries = JSON.parse(await ok(['audit', '--json'])) as Entry[];
    expect(Array.isArray(entries)).toBe(true);
    expect(entries.map((e) => e.action)).toEqual(['data.backup_made', 'data.restored', 'credits.purchased', 'key.revealed', 'key.created', 'user.created', 'user.created']);
    expect(entries.map((e) => e.createdAt)).toEqual(entries.map((e) => e.createdAt).sort().reverse());

    const text = await ok(['audit']);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(entries.length);
    const LINE = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d -03:00) {2}(\S+) +(\S+) +(\S+) +(\{.*\})$/;
    lines.forEach((line, i) => {
      const entry = entries[i]!;
      const match = LINE.exec(line);
      expect(match, line).not.toBeNull();
      const [, time, actor, action, target, details] = match!;
      // The instant in Buenos Aires time (UTC-3).
      const local = new Date(Date.parse(entry.createdAt) - 3 * 3600_000).toISOString();
      expect(time).toBe(`${local.slice(0, 10)} ${local.slice(11, 19)} -03:00`);
      expect(actor).toBe(entry.actor?.email ?? 'system');
      expect(action).toBe(entry.action);
      expect(target).toBe(entry.targetId ?? '-');
      expect(JSON.parse(details!)).toEqual(entry.details);
    });
    const byAction = (action: string) => lines.find((l) => LINE.exec(l)?.[3] === action)!;
    expect(byAction('data.backup_made')).toContain(`{"directory":${JSON.stringify(second)},"files":["titular.db"]}`);
    expect(byAction('data.restored')).toMatch(/^\S+ \S+ \S+ {2}ana@acme\.test +data\.restored +- +\{"from":/);
    // The prefix the key had when it was shown (a rotation later gives it another).
    expect(byAction('key.revealed')).toMatch(new RegExp(` {2}ana@acme\\.test +key\\.revealed +${keyId} +\\{"prefix":"${secret.slice(0, 12)}…"\\}$`));
    expect(byAction('credits.purchased')).toContain('{"product":"cbu","amount":25,"reference":"FAC-1"}');
    // The first admin is made by `init` itself: no one was signed in to do it.
    expect(lines.at(-1)).toMatch(/ {2}system +user\.created /);
  }, TIMEOUT_MS);

  it('never shows a secret: the key appears by its display prefix only', async () => {
    const text = await ok(['audit']);
    const json = await ok(['audit', '--json']);
    for (const output of [text, json]) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(secret.slice(0, 20));
      expect(output).not.toContain(PASSPHRASE);
    }
    expect(text).toContain(`"prefix":"${secret.slice(0, 12)}…"`);
  }, TIMEOUT_MS);

  it('--type keeps one kind, --limit the newest N', async () => {
    const data = (await ok(['audit', '--type', 'data'])).trimEnd().split('\n');
    expect(data.map((l) => l.split(/ {2,}/)[2])).toEqual(['data.backup_made', 'data.restored']);
    const keys = JSON.parse(await ok(['audit', '--type', 'API_KEY', '--json'])) as Entry[];
    expect(keys.map((e) => e.action)).toEqual(['key.revealed', 'key.created']);
    expect(keys.every((e) => e.targetType === 'api_key' && e.targetId === keyId)).toBe(true);
    const two = (await ok(['audit', '--limit', '2'])).trimEnd().split('\n');
    expect(two).toHaveLength(2);
    expect(two[0]).toContain('data.backup_made');
    expect(two[1]).toContain('data.restored');
    expect((await ok(['audit', '--type', 'vault'])).trim()).toBe('(no vault entries in the audit log)');
  }, TIMEOUT_MS);

  it('reads without the passphrase (it reads no secret); bad flags exit 2; operators are refused', async () => {
    // The vault is protected by a passphrase: a command that reveals a key needs it, the audit log does not.
    expect((await cli(['keys', 'show', keyId], { TZ })).code).toBe(1);
    const withoutPassphrase = await cli(['audit', '--limit', '1'], { TZ });
    expect(withoutPassphrase.code, withoutPassphrase.stderr).toBe(0);
    expect(withoutPassphrase.stdout).toContain('data.backup_made');

    for (const args of [['audit', '--limit', '0'], ['audit', '--limit', 'many'], ['audit', '--type', 'bulk'], ['audit', 'extra']]) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('Run "titular help audit" for usage.');
    }
    const operator = await cli(['audit', '--as', 'oscar@acme.test']);
    expect(operator.code).toBe(1);
    expect(operator.stderr).toContain('oscar@acme.test is an operator; only admins can run "titular audit"');
    expect(operator.stdout).toBe('');
  }, TIMEOUT_MS);

  it('is in the help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/^ {2}audit +Show the audit log/m);
    const command = await runCli(['help', 'audit']);
    expect(command.stdout).toContain('Usage: titular audit [--limit N] [--type api_key|user|credits|settings|data|vault|directory]');
  }, TIMEOUT_MS);
});

// The CLI driven as a process, the way an admin runs it: exit codes, stdout/stderr, JSON shapes,
// and what ends up in the data directory.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { version as packageVersion } from '../package.json';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTitular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { withCheckDigits, withCuitCheckDigit } from '../src/shared/identifiers';
import { balanceResponseSchema } from '../src/shared/api/balance';
import { keyedHistoryEntrySchema } from '../src/shared/api/history';
import { runCli, type CliRun } from './support/processes';
import { tempDirsOf } from './support/temp-dirs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MIGRATIONS = path.join(ROOT, 'drizzle');
const TEST_TIMEOUT_MS = 60_000;
/** How long each of six CLI processes started at once may take before it is killed. */
const SIX_AT_ONCE_MS = 90_000;

type Run = CliRun;

const cli = (args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}) => runCli(args, options);

function json<T = any>(run: Run): T {
  return JSON.parse(run.stdout) as T;
}

/** Opens the data directory in this process (the CLI must not be running on it meanwhile). */
function withCore<T>(dataDir: string, fn: (t: ReturnType<typeof openTitular>) => T, env: NodeJS.ProcessEnv = {}): T {
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, env), migrationsFolder: MIGRATIONS });
  try {
    return fn(titular);
  } finally {
    titular.close();
  }
}

const tempDir = tempDirsOf('titular-cli-');

// Accounts for the directory: valid check digits, generated rather than hand-typed.
const CBU_1 = withCheckDigits('285', '0590', '4009041813520');
const CBU_2 = withCheckDigits('017', '0001', '0000000000123');
function cuit(first10: string): string {
  for (let i = 0; i < 10; i++) {
    const candidate = withCuitCheckDigit(`${first10.slice(0, 9)}${(Number(first10[9]) + i) % 10}`);
    if (candidate) return candidate;
  }
  throw new Error('no valid CUIT');
}
const CUIT_1 = cuit('2012345678');
const CUIT_2 = cuit('2711111111');
const HEADER = 'cbu,alias,account_type,currency,active,holder_name,holder_tax_id';
const GOOD_ROWS = [`${CBU_1},juan.perez.macro,CA,ARS,true,"Pérez, Juan",${CUIT_1}`, `${CBU_2},,CC,USD,yes,=HYPERLINK(1),${CUIT_2}`];
const BAD_ROW = `1234,,CA,ARS,true,Nadie,${CUIT_1}`;

describe('titular CLI', () => {
  let dataDir: string;
  let work: string;
  const secrets: string[] = [];
  let liveId = '';
  let sandboxId = '';
  let orgId = '';
  let adminId = '';

  beforeAll(() => {
    dataDir = tempDir();
    work = tempDir();
  });

  const d = (...args: string[]) => [...args, '--data-dir', dataDir];

  it('prints usage for help and no command; exit 2 for an unknown command or flag', async () => {
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    for (const command of ['init', 'users add', 'keys create', 'keys rotate', 'credits add', 'directory import', 'history export']) {
      expect(help.stdout).toContain(command);
    }
    const unknown = await cli(['frobnicate', '--data-dir', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command: frobnicate/);
    expect(unknown.stderr).toMatch(/titular help/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // The version alone on the command line, in any of its three spellings; --version after a command is an unknown flag.
    for (const words of [['--version'], ['-V'], ['version']]) {
      const version = await cli(words);
      expect(version.code, words[0]).toBe(0);
      expect(version.stdout).toBe(`titular ${packageVersion}\n`);
    }
    expect(help.stdout).toMatch(/^ {2}version +Print the version/m);
    const versionAfterCommand = await cli(d('users', 'list', '--version'));
    expect(versionAfterCommand.code).toBe(2);
    // TITULAR_SYNCHRONOUS is read as `serve` reads it: a value it does not know is refused, not ignored.
    const badSync = await cli(d('users', 'list'), { env: { TITULAR_SYNCHRONOUS: 'SOMETIMES' } });
    expect(badSync.code).toBe(2);
    expect(badSync.stderr).toContain('TITULAR_SYNCHRONOUS must be NORMAL or FULL (got "SOMETIMES")');
    const badFlag = await cli(d('users', 'list', '--bogus'));
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.split('\n')[0]).toMatch(/Unknown option --bogus/);
  }, TEST_TIMEOUT_MS);

  it('refuses commands on a directory that was never initialized, without creating it', async () => {
    const empty = path.join(work, 'never-initialized');
    const run = await cli(['keys', 'list', '--data-dir', empty]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/titular init/);
    expect(() => statSync(empty)).toThrow();
  }, TEST_TIMEOUT_MS);

  it('init creates the organization and admin once, then refuses to run again', async () => {
    const first = await cli(d('init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test', '--json'));
    expect(first.code).toBe(0);
    const body = json(first);
    expect(body.organization).toEqual({ id: expect.any(String), name: 'Acme SA' });
    expect(body.admin).toMatchObject({ name: 'Ana Admin', email: 'ana@acme.test', role: 'admin' });
    orgId = body.organization.id;
    adminId = body.admin.id;

    const again = await cli(d('init', '--org', 'Other', '--admin-name', 'Bob', '--admin-email', 'bob@acme.test'));
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already initialized/);
    expect(again.stdout).toBe('');
  }, TEST_TIMEOUT_MS);

  it('users add and list', async () => {
    const add = await cli(d('users', 'add', '--name', 'Oscar Operator', '--email', 'op@acme.test', '--role', 'operator'));
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/op@acme\.test/);
    const list = await cli(d('users', 'list', '--json'));
    expect(list.code).toBe(0);
    const emails = json<{ users: { email: string; role: string }[] }>(list).users.map((u) => `${u.email}:${u.role}`);
    expect(emails).toEqual(['ana@acme.test:admin', 'op@acme.test:operator']);
  }, TEST_TIMEOUT_MS);

  it('keys create --json prints only the id and the key (live and sandbox)', async () => {
    const live = await cli(d('keys', 'create', '--product', 'cbu', '--scopes', 'lookup,balance,history', '--json'));
    expect(live.code).toBe(0);
    const liveBody = json(live);
    expect(Object.keys(liveBody).sort()).toEqual(['id', 'key']);
    expect(liveBody.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    liveId = liveBody.id;
    secrets.push(liveBody.key);

    const sandbox = await cli(
      d('keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--sandbox', '--ip', '127.0.0.1', '--ip', '10.0.0.0/8', '--expires', '2099-12-31', '--rate-limit', '5', '--name', 'ci', '--json'),
    );
    expect(sandbox.code).toBe(0);
    const sandboxBody = json(sandbox);
    expect(sandboxBody.key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    sandboxId = sandboxBody.id;
    secrets.push(sandboxBody.key);
  }, TEST_TIMEOUT_MS);

  it('keys list never shows a secret; show reveals it; rotate replaces it; revoke is listed', async () => {
    const list = await cli(d('keys', 'list'));
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(liveId);
    expect(list.stdout).toContain(secrets[0]!.slice(0, 12)); // the display prefix
    for (const secret of secrets) expect(list.stdout).not.toContain(secret);

    const show = await cli(d('keys', 'show', liveId, '--json'));
    expect(show.code).toBe(0);
    const shown = json(show);
    expect(shown).toMatchObject({ id: liveId, key: secrets[0], product: 'cbu', environment: 'live', status: 'active' });

    const rotate = await cli(d('keys', 'rotate', liveId, '--json'));
    expect(rotate.code).toBe(0);
    const rotated = json(rotate);
    expect(Object.keys(rotated).sort()).toEqual(['id', 'key']);
    expect(rotated.id).toBe(liveId);
    expect(rotated.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(rotated.key).not.toBe(secrets[0]);
    secrets.push(rotated.key);

    const revoke = await cli(d('keys', 'revoke', sandboxId));
    expect(revoke.code).toBe(0);
    const after = await cli(d('keys', 'list', '--json'));
    const keys = json<{ keys: { id: string; status: string; prefix: string }[] }>(after).keys;
    expect(keys.find((k) => k.id === sandboxId)?.status).toBe('revoked');
    expect(keys.find((k) => k.id === liveId)?.prefix).toBe(`${rotated.key.slice(0, 12)}…`);
    for (const secret of secrets) expect(after.stdout).not.toContain(secret);
  }, TEST_TIMEOUT_MS);

  it('operators may not manage keys; unknown ids fail with exit 1', async () => {
    const asOperator = await cli(d('keys', 'list', '--as', 'op@acme.test'));
    expect(asOperator.code).toBe(1);
    expect(asOperator.stderr).toMatch(/operator/);
    const missing = await cli(d('keys', 'show', 'no-such-id'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No API key/);
    // A secret passed where the id goes is not printed back.
    const secret = `sk_live_${'Z'.repeat(32)}`;
    const pasted = await cli(d('keys', 'show', secret));
    expect(pasted.code).toBe(1);
    expect(pasted.stderr).toContain('No API key with id sk_live_***');
    expect(pasted.stderr).not.toContain(secret);
  }, TEST_TIMEOUT_MS);

  it('the 11th active key is refused with the 10-key limit', async () => {
    // Fill up to 10 active keys in-process (cheaper than 9 more spawns).
    withCore(dataDir, (t) => {
      while (t.keys.activeCount(orgId) < 10) {
        const { secret } = t.keys.create({ orgId, ownerUserId: adminId, actorUserId: adminId, product: 'informes', scopes: ['lookup'], environment: 'live' });
        secrets.push(secret);
      }
    });
    const eleventh = await cli(d('keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--json'));
    expect(eleventh.code).toBe(1);
    expect(eleventh.stdout).toBe('');
    expect(eleventh.stderr).toMatch(/10 active keys/);
  }, TEST_TIMEOUT_MS);

  it('credits add, a repeated reference is not added twice, credits show --json', async () => {
    const add = await cli(d('credits', 'add', '--product', 'cbu', '--amount', '100', '--reference', 'INV-1', '--json'));
    expect(add.code).toBe(0);
    expect(json(add)).toMatchObject({ added: true, balance: 100 });
    const again = await cli(d('credits', 'add', '--product', 'cbu', '--amount', '100', '--reference', 'INV-1'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already recorded/);
    const show = await cli(d('credits', 'show', '--json'));
    expect(show.code).toBe(0);
    const balances = balanceResponseSchema.parse(json(show)).balances;
    expect(balances.find((b) => b.productSlug === 'cbu')).toMatchObject({ balance: 100, totalPurchased: 100, totalConsumed: 0 });
    expect(balances.find((b) => b.productSlug === 'informes')).toMatchObject({ balance: 0 });
  }, TEST_TIMEOUT_MS);

  it('a value the core refuses is a bad argument: exit 2 with the reason, and nothing is written', async () => {
    for (const args of [
      ['credits', 'add', '--product', 'cbu', '--amount', '0'],
      ['credits', 'add', '--product', 'cbu', '--amount', '100000001'],
      ['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--rate-limit', '100000'],
      ['users', 'add', '--name', 'Sin Arroba', '--email', 'bad', '--role', 'operator'],
    ]) {
      const run = await cli(d(...args));
      expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/^titular: .+\nRun "titular help (credits add|keys create|users add)" for usage\.$/m);
    }
    const show = json(await cli(d('credits', 'show', '--json')));
    expect(balanceResponseSchema.parse(show).balances.find((b) => b.productSlug === 'cbu')).toMatchObject({ balance: 100, totalPurchased: 100 });
  }, TEST_TIMEOUT_MS);

  it('a refusal because of what is already recorded is a failed operation: exit 1, no pointer to the usage', async () => {
    expect((await cli(d('users', 'add', '--name', 'Otra', '--email', 'repetida@acme.test', '--role', 'operator'))).code).toBe(0);
    expect((await cli(d('credits', 'add', '--product', 'cbu', '--amount', '5', '--reference', 'REC-EXIT'))).code).toBe(0);
    for (const args of [
      ['users', 'add', '--name', 'Otra', '--email', 'repetida@acme.test', '--role', 'operator'],
      ['credits', 'add', '--product', 'cbu', '--amount', '7', '--reference', 'REC-EXIT'],
    ]) {
      const run = await cli(d(...args));
      expect(run.code, `${args.join(' ')}\n${run.stderr}`).toBe(1);
      expect(run.stderr).toMatch(/^titular: (A user with email repetida@acme\.test already exists|The reference "REC-EXIT" was already used for a purchase of 5 credits)$/m);
      expect(run.stderr).not.toContain('for usage');
    }
  }, TEST_TIMEOUT_MS);

  it('history export on an empty history: CSV header only, JSON []', async () => {
    const csv = await cli(d('history', 'export', '--format', 'csv'));
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe('id,createdAt,inputIdentifier,inputType,status,source,creditConsumed,upstreamLatencyMs,userEmail,apiKey,holderNames,errorCode\r\n');
    const jsonRun = await cli(d('history', 'export', '--format', 'json'));
    expect(jsonRun.code).toBe(0);
    expect(json(jsonRun)).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it('directory import: a bad row imports nothing; --skip-invalid imports the rest; a good file imports', async () => {
    const bad = path.join(work, 'bad.csv');
    writeFileSync(bad, [HEADER, GOOD_ROWS[0], BAD_ROW, GOOD_ROWS[1]].join('\n'));
    const refused = await cli(d('directory', 'import', bad));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^line 3: cbu/m);
    expect(refused.stderr).toContain('Nothing was imported: 1 invalid row in');
    expect(refused.stderr).toContain('pass --skip-invalid to import the valid rows only');
    expect(withCore(dataDir, (t) => t.directory.count(orgId))).toBe(0);

    // A file refused as a whole, or one without data rows: --skip-invalid would not help, so it is not offered.
    const headerOnly = path.join(work, 'header-only.csv');
    writeFileSync(headerOnly, `${HEADER}\n`);
    const wrongHeader = path.join(work, 'wrong-header.csv');
    writeFileSync(wrongHeader, ['cuenta,titular', GOOD_ROWS[0]].join('\n'));
    for (const [file, last] of [
      [headerOnly, `Nothing was imported: ${headerOnly} has no data rows.`],
      [wrongHeader, `Nothing was imported: ${wrongHeader} was refused as a whole (above); --skip-invalid does not apply to that.`],
    ] as const) {
      for (const flags of [[], ['--skip-invalid']]) {
        const run = await cli(d('directory', 'import', file, ...flags));
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split('\n').at(-1)).toBe(last);
      }
    }

    const skipped = await cli(d('directory', 'import', bad, '--skip-invalid', '--json'));
    expect(skipped.code).toBe(0);
    expect(json(skipped)).toMatchObject({ imported: 2, replaced: 0, rows: 3, committed: true, errors: [{ line: 3 }] });
    expect(skipped.stderr).toMatch(/line 3:/);

    const good = path.join(work, 'good.csv');
    writeFileSync(good, [HEADER, ...GOOD_ROWS].join('\r\n') + '\r\n');
    const imported = await cli(d('directory', 'import', good, '--json'));
    expect(imported.code).toBe(0);
    expect(json(imported)).toEqual({ imported: 2, replaced: 2, rows: 2, errors: [], committed: true });
  }, TEST_TIMEOUT_MS);

  it('history export lists the lookups (CSV escaped and formula-safe, JSON in the API shape plus the key)', async () => {
    await withCoreAsync(dataDir, async (t) => {
      const ctx = { orgId, environment: 'live' as const, source: 'WEB' as const, userId: adminId, apiKeyId: null };
      expect((await t.lookups.lookupAccount(ctx, { identifier: CBU_1, type: 'cbu' })).status).toBe(200);
      expect((await t.lookups.lookupAccount(ctx, { identifier: CBU_2, type: 'cbu' })).status).toBe(200);
      expect((await t.lookups.lookupAccount(ctx, { identifier: '1234', type: 'cbu' })).status).toBe(400);
    });

    const csv = await cli(d('history', 'export', '--format', 'csv'));
    expect(csv.code).toBe(0);
    const lines = csv.stdout.split('\r\n');
    expect(lines).toHaveLength(5); // header, 3 rows, trailing empty
    expect(lines[4]).toBe('');
    const byInput = (input: string) => lines.find((l) => l.split(',')[2] === input)!;
    expect(byInput(CBU_1)).toContain(',"Pérez, Juan",'); // quoted because of the comma
    expect(byInput(CBU_2)).toContain(",'=HYPERLINK(1),"); // a formula is neutralized
    expect(byInput('1234')).toMatch(/,ERROR,WEB,1,\d+,ana@acme\.test,,,PA006$/);

    const out = path.join(work, 'history.json');
    const toFile = await cli(d('history', 'export', '--format', 'json', '--status', 'SUCCESS', '--output', out, '--json'));
    expect(toFile.code).toBe(0);
    expect(json(toFile)).toMatchObject({ exported: 2, format: 'json' });
    const entries = JSON.parse(readFileSync(out, 'utf8')) as unknown[];
    expect(entries).toHaveLength(2);
    // The API's entries, plus the key each came through (none: these were the desktop's).
    for (const entry of entries) expect(keyedHistoryEntrySchema.strict().parse(entry).apiKey).toBeNull();
    expect(statSync(out).mode & 0o077).toBe(0);
    // The bulk export's name for the same option, and -o, write the same file; both names at once are refused.
    for (const flag of ['--out', '-o']) {
      const aliasFile = path.join(work, `history${flag}.json`);
      expect((await cli(d('history', 'export', '--format', 'json', '--status', 'SUCCESS', flag, aliasFile))).code, flag).toBe(0);
      expect(readFileSync(aliasFile, 'utf8')).toBe(readFileSync(out, 'utf8'));
    }
    const both = await cli(d('history', 'export', '--format', 'json', '--output', out, '--out', out));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--out and --output are the same option: give it once');

    // --json with the CSV itself on stdout: refused; a directory as the file: said by name.
    const jsonCsv = await cli(d('history', 'export', '--format', 'csv', '--json'));
    expect(jsonCsv.code).toBe(2);
    expect(jsonCsv.stderr).toContain('--json needs --output FILE here');
    const intoFolder = await cli(d('history', 'export', '--format', 'csv', '--output', work));
    expect(intoFolder.code).toBe(1);
    expect(intoFolder.stderr).toContain(`${work} is a directory: name the file to write`);

    const badFilter = await cli(d('history', 'export', '--format', 'csv', '--from', 'yesterday'));
    expect(badFilter.code).toBe(2);
    expect(badFilter.stderr).toMatch(/--from/);

    // --lang en: the desktop's English spreadsheet form (a BOM, English headers and words, CBUs as text).
    const sheet = await cli(d('history', 'export', '--format', 'csv', '--lang', 'en'));
    expect(sheet.code).toBe(0);
    const sheetLines = sheet.stdout.split('\r\n');
    expect(sheetLines[0]).toBe('\uFEFFLookup ID,Date,Identifier,Type,Status,Source,Credits,Source latency (ms),User,API key,Holders,Error code');
    expect(sheetLines.find((l) => l.includes(`"=""${CBU_1}"""`))).toMatch(/,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},"=""\d{22}""",CBU,Success,Desktop,1,\d+,ana@acme\.test,,"Pérez, Juan",$/);
    const jsonLang = await cli(d('history', 'export', '--format', 'json', '--lang', 'es'));
    expect(jsonLang.code).toBe(2);
    expect(jsonLang.stderr).toMatch(/--lang is for --format csv/);
  }, TEST_TIMEOUT_MS);

  it('no plaintext key is stored anywhere in the data directory', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(11);
    const files = readdirSync(dataDir).map((name) => path.join(dataDir, name)).filter((file) => statSync(file).isFile());
    expect(files.some((f) => f.endsWith('titular.db'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const secret of secrets) {
        expect(bytes.includes(secret), `${path.basename(file)} contains a key`).toBe(false);
        expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${path.basename(file)} contains a key`).toBe(false);
      }
    }
  });
});

// Ctrl-C during a directory import (nothing imported, and said): test/cli-interrupt.test.ts.

describe('titular CLI on a passphrase vault', () => {
  const PASSPHRASE = 'correct horse battery staple';

  it('a wrong TITULAR_PASSPHRASE fails with exit 1, a clear message, and leaves the database untouched', async () => {
    const dataDir = tempDir();
    const init = await cli(['init', '--org', 'Beta SRL', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir], {
      env: { TITULAR_PASSPHRASE: PASSPHRASE },
    });
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/TITULAR_PASSPHRASE/);

    const dbFile = path.join(dataDir, 'titular.db');
    const fingerprint = () => {
      const stat = statSync(dbFile);
      return { mtimeMs: stat.mtimeMs, size: stat.size, sha256: createHash('sha256').update(readFileSync(dbFile)).digest('hex') };
    };
    const before = fingerprint();

    const wrong = await cli(['keys', 'list', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: 'not the passphrase' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/wrong passphrase/i);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
    expect(wrong.stdout).toBe('');

    // Without one, a command that needs the vault (here: to seal a new key) asks for it; one that
    // reads no secret runs without it (test/cli-vault-locked.test.ts).
    const missing = await cli(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/TITULAR_PASSPHRASE/);
    expect(fingerprint()).toEqual(before);

    const right = await cli(['credits', 'show', '--json', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: PASSPHRASE } });
    expect(right.code).toBe(0);
    expect(json(right).balances).toHaveLength(2);
  }, TEST_TIMEOUT_MS);

  it('TITULAR_PASSPHRASE_FILE: a file holding the passphrase (its line ending not part of it) opens the vault; both variables, a missing, empty or folder file: exit 2 naming the variable, the secret never said', async () => {
    const dataDir = tempDir();
    const secrets = tempDir();
    const file = path.join(secrets, 'passphrase');
    writeFileSync(file, `${PASSPHRASE}\n`, { mode: 0o600 });
    const init = await cli(['init', '--org', 'Beta SRL', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE_FILE: file } });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/protected by a passphrase/);
    // The same vault opens with the passphrase in the variable: the file's newline was not part of it.
    const byVariable = await cli(['keys', 'list', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: PASSPHRASE } });
    expect(byVariable.code, byVariable.stderr).toBe(0);
    // A CRLF file (written on Windows) holds the same passphrase.
    writeFileSync(file, `${PASSPHRASE}\r\n`);
    expect((await cli(['credits', 'show', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE_FILE: file } })).code).toBe(0);
    // A file with another passphrase is a wrong passphrase, as the variable's would be.
    writeFileSync(file, 'not the passphrase');
    const wrong = await cli(['keys', 'list', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE_FILE: file } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/wrong passphrase/i);

    writeFileSync(file, PASSPHRASE);
    const refusals: [Record<string, string>, RegExp][] = [
      [{ TITULAR_PASSPHRASE: PASSPHRASE, TITULAR_PASSPHRASE_FILE: file }, /Set TITULAR_PASSPHRASE or TITULAR_PASSPHRASE_FILE, not both/],
      [{ TITULAR_PASSPHRASE_FILE: path.join(secrets, 'missing') }, /TITULAR_PASSPHRASE_FILE: .*missing cannot be read \(no such file\)/],
      [{ TITULAR_PASSPHRASE_FILE: secrets }, /TITULAR_PASSPHRASE_FILE: .* cannot be read \(it is a folder\)/],
    ];
    const empty = path.join(secrets, 'empty');
    writeFileSync(empty, '\n');
    refusals.push([{ TITULAR_PASSPHRASE_FILE: empty }, /TITULAR_PASSPHRASE_FILE: .*empty is empty/]);
    for (const [env, message] of refusals) {
      const run = await cli(['credits', 'show', '--data-dir', dataDir], { env });
      expect(run.code, JSON.stringify(env)).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr + run.stdout).not.toContain(PASSPHRASE);
    }
    // An empty TITULAR_PASSPHRASE_FILE counts as unset, as the other variables do.
    expect((await cli(['credits', 'show', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: PASSPHRASE, TITULAR_PASSPHRASE_FILE: '' } })).code).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('six first runs at once on one data directory: one initializes, the others are told it already is, and the vault is one', async () => {
    const dataDir = tempDir();
    const args = (i: number) => ['init', '--org', `Org ${i}`, '--admin-name', `Admin ${i}`, '--admin-email', `admin${i}@beta.test`, '--data-dir', dataDir];
    // Six processes at once, each deriving a key with scrypt (128 MiB): seconds on a quiet machine, many
    // more on the loaded CI one, so each gets far more than runCli's default 20 s before it is killed.
    const runs = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => cli(args(i), { env: { TITULAR_PASSPHRASE: PASSPHRASE }, timeoutMs: SIX_AT_ONCE_MS })));
    const winners = runs.filter((run) => run.code === 0);
    expect(winners, runs.map((run) => run.stderr).join('\n')).toHaveLength(1);
    for (const run of runs.filter((r) => r.code !== 0)) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/is already initialized \(organization Org \d\); nothing was changed/);
    }
    const winner = /Organization:\s+(Org \d)/.exec(winners[0]!.stdout)![1];
    const listed = await cli(['users', 'list', '--json', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: PASSPHRASE } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(json<{ users: { name: string }[] }>(listed).users.map((user) => user.name)).toEqual([`Admin ${winner!.slice(4)}`]);
  }, 2 * SIX_AT_ONCE_MS);

  it('six first runs at once with a key-file vault: one key file, written whole, and one vault that opens with it', async () => {
    const dataDir = tempDir();
    const args = (i: number) => ['init', '--org', `Org ${i}`, '--admin-name', `Admin ${i}`, '--admin-email', `admin${i}@beta.test`, '--data-dir', dataDir];
    const runs = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => cli(args(i), { env: { TITULAR_PASSPHRASE: '' }, timeoutMs: SIX_AT_ONCE_MS })));
    expect(runs.filter((run) => run.code === 0), runs.map((run) => run.stderr).join('\n')).toHaveLength(1);
    for (const run of runs.filter((r) => r.code !== 0)) expect(run.stderr).toMatch(/is already initialized/);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('master.key'))).toEqual(['master.key']);
    const listed = await cli(['keys', 'list', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: '' } });
    expect(listed.code, listed.stderr).toBe(0);
  }, 2 * SIX_AT_ONCE_MS);

  it('a first run that fails once its database exists leaves no vault: other commands still say to run init, and init then works', async () => {
    const dataDir = tempDir();
    mkdirSync(path.join(dataDir, 'master.key')); // the key file cannot be written: the first run fails after migrating
    const args = ['init', '--org', 'Beta SRL', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir];
    const failed = await cli(args, { env: { TITULAR_PASSPHRASE: '' } });
    expect(failed.code).toBe(1);
    const other = await cli(['keys', 'list', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: PASSPHRASE } });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/run `titular init` first/);
    rmSync(path.join(dataDir, 'master.key'), { recursive: true });
    const again = await cli(args, { env: { TITULAR_PASSPHRASE: '' } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/protected by the key file/);
  }, TEST_TIMEOUT_MS);

  it('init with a passphrase too short is refused and leaves no database behind; the next init starts clean', async () => {
    const dataDir = tempDir();
    const args = ['init', '--org', 'Beta SRL', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir];
    const short = await cli(args, { env: { TITULAR_PASSPHRASE: 'corta' } });
    expect(short.code).toBe(1);
    expect(short.stderr).toBe('titular: The passphrase in TITULAR_PASSPHRASE must have at least 8 characters\n');
    expect(readdirSync(dataDir).filter((name) => name.startsWith('titular.db'))).toEqual([]);
    const again = await cli(args, { env: { TITULAR_PASSPHRASE: PASSPHRASE } });
    expect(again.code, again.stderr).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('init with a form the core refuses (a key in the organization name) leaves no database or key file behind', async () => {
    const dataDir = tempDir();
    const refused = await cli(['init', '--org', `Acme sk_live_${'Q'.repeat(32)}`, '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: '' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('The organization name must not contain an API key');
    expect(readdirSync(dataDir).filter((name) => name.startsWith('titular.db') || name.startsWith('master.key'))).toEqual([]);
    // So the next first run may still choose its protection (here a passphrase, not a key file).
    const again = await cli(['init', '--org', 'Acme', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir], { env: { TITULAR_PASSPHRASE: PASSPHRASE } });
    expect(again.code, again.stderr).toBe(0);
  }, TEST_TIMEOUT_MS);
});

async function withCoreAsync(dataDir: string, fn: (t: ReturnType<typeof openTitular>) => Promise<void>): Promise<void> {
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}), migrationsFolder: MIGRATIONS });
  try {
    await fn(titular);
  } finally {
    titular.close();
  }
}

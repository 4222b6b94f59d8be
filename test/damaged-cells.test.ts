// Cells whose stored JSON cannot be read, besides a lookup's answer (damaged-history.test.ts): SQLite's
// pages valid, the cell's text not, as another tool or a bit flipped on disk leaves it. Each used to
// fail far more than itself with a raw SyntaxError: a damaged directory account or credit report was a
// bare "Internal error" with nothing in the log; a retry's stored answer, a plain GE500; one audit
// entry, the whole audit trail; one key's IP whitelist, the whole key list (the admin could not even
// revoke it) and every request with that key; one setting, every lookup. Now each reader decides what
// the cell means for it (core/db/stored-json.ts), driven here through HTTP, the desktop's channels and
// the CLI as a process.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pastAppendOnlyGuard } from './support/append-only';
import { auth } from './support/fixture';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';
import { importCreditRecords } from './support/credit-data';
import { prepareDataDir } from './support/data-dir';
import { runCli } from './support/processes';
import { rmSync } from 'node:fs';
import { errorBodySchema } from '../src/shared/api/common';
import { apiKeyViewSchema, auditEntrySchema } from '../src/shared/ipc/contract';

const TIMEOUT_MS = 60_000;
/** The data directories of the vault test, removed after. */
const vaultDirs: string[] = [];
const CUIT = '27312345671';

let f: BridgeFixture;
let cbuKey: string;
let informesKey: string;
const faults: string[] = [];

/** Runs one statement through a connection of the test's own, as another tool would; returns the rows changed. */
function damage(sql: string, ...params: unknown[]): number {
  const db = new Database(path.join(f.dataDir, 'titular.db'));
  try {
    return pastAppendOnlyGuard(db, () => db.prepare(sql).run(...params).changes);
  } finally {
    db.close();
  }
}

const value = (channel: string, input: unknown) => f.value(channel, input);

const lookup = (cbu: string, headers: Record<string, string> = {}) =>
  f.app.inject({ url: `/api/v1/lookup?identifier=${cbu}&type=cbu`, headers: { ...auth(cbuKey), ...headers } });
const creditLookup = (key = informesKey) =>
  f.app.inject({ method: 'POST', url: '/api/v1/credit/lookup', headers: { ...auth(key), 'content-type': 'application/json' }, payload: { tax_id: CUIT } });
const cli = (...args: string[]) => runCli([...args, '--data-dir', f.dataDir], { timeoutMs: 40_000 });

beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 100, informes: 100 }, onFault: (line) => faults.push(line) });
  f.importDirectory(DIRECTORY_CSV);
  importCreditRecords(f);
  cbuKey = f.createKey({ rateLimitPerSecond: 1000 });
  informesKey = f.createKey({ rateLimitPerSecond: 1000, product: 'informes', scopes: ['lookup'] });
});
afterAll(async () => {
  await f.close();
  for (const dir of vaultDirs) rmSync(dir, { recursive: true, force: true });
});

describe('a record a lookup answers from', () => {
  it("a directory account's holders: 500 GE500 in words, nothing charged, its reason in the fault log; other accounts answer; importing the directory again heals it", async () => {
    expect((await lookup(DIR.company.cbu)).statusCode).toBe(200);
    const balance = f.balance('cbu');
    expect(damage('UPDATE directory_accounts SET holders = ? WHERE number = ?', '[{"full_name":"Cut', DIR.company.cbu)).toBe(1);

    const res = await lookup(DIR.company.cbu);
    expect(res.statusCode, res.body).toBe(500);
    const body = errorBodySchema.parse(res.json());
    expect(body.error).toEqual({
      code: 'GE500',
      message: "The directory's record of this account cannot be read (it is damaged in Titular's database); import the directory again",
    });
    expect(f.balance('cbu')).toBe(balance);
    // The reason, under the request id the client has, naming the record.
    const accountId = new Database(path.join(f.dataDir, 'titular.db'), { readonly: true })
      .prepare('SELECT id FROM directory_accounts WHERE number = ?')
      .pluck()
      .get(DIR.company.cbu) as string;
    expect(faults).toContainEqual(`error ${body.request_id} resolving the lookup: DamagedRecordError: ${body.error.message} (record ${accountId})`);
    // Recorded like any GE500: in the history, not charged.
    const entry = (await value('history.list', { page: 1, per_page: 1 })).data[0];
    expect(entry).toMatchObject({ inputIdentifier: DIR.company.cbu, status: 'ERROR', creditConsumed: 0, responseData: { error: body.error } });

    // Holders that are JSON but not a list are as damaged.
    damage('UPDATE directory_accounts SET holders = ? WHERE number = ?', '{"full_name":"Ada"}', DIR.company.cbu);
    expect((await lookup(DIR.company.cbu)).json().error.code).toBe('GE500');
    expect((await lookup(DIR.individual.cbu)).statusCode).toBe(200);

    f.importDirectory(DIRECTORY_CSV);
    const healed = await lookup(DIR.company.cbu);
    expect(healed.statusCode, healed.body).toBe(200);
    expect(healed.json().data.holders.length).toBeGreaterThan(0);
    expect(f.balance('cbu')).toBe(balance - 2);
  });

  it('a stored credit report: 500 GE500 in words, nothing charged, the fault logged; importing the records again heals it', async () => {
    expect((await creditLookup()).statusCode).toBe(200);
    const balance = f.balance('informes');
    expect(damage('UPDATE directory_credit_reports SET report = ? WHERE tax_id = ?', '{"tax_id":"2731', CUIT)).toBe(1);

    const res = await creditLookup();
    expect(res.statusCode, res.body).toBe(500);
    const body = errorBodySchema.parse(res.json());
    expect(body.error.message).toBe(
      "The stored credit report for this CUIT/CUIL cannot be read (it is damaged in Titular's database); import the credit records again",
    );
    expect(f.balance('informes')).toBe(balance);
    expect(faults.some((line) => line.startsWith(`error ${body.request_id} resolving the lookup: DamagedRecordError: `))).toBe(true);

    importCreditRecords(f);
    expect((await creditLookup()).statusCode).toBe(200);
    expect(f.balance('informes')).toBe(balance - 1);
  });

  it("a retry's stored answer: 500 GE500 that says the request is not run or charged again; a new Idempotency-Key looks up again", async () => {
    const first = await lookup(DIR.individual.cbu, { 'idempotency-key': 'damaged-replay-1' });
    expect(first.statusCode).toBe(200);
    const balance = f.balance('cbu');
    expect(damage("UPDATE idempotency_records SET response_body = '{\"success\":tr' WHERE idempotency_key = 'damaged-replay-1'")).toBe(1);

    const retry = await lookup(DIR.individual.cbu, { 'idempotency-key': 'damaged-replay-1' });
    expect(retry.statusCode, retry.body).toBe(500);
    expect(errorBodySchema.parse(retry.json()).error).toEqual({
      code: 'GE500',
      message:
        "The answer stored for this Idempotency-Key cannot be read (it is damaged in Titular's database). The request it answered was recorded once and is not run or charged again; send a new Idempotency-Key to look up again",
    });
    expect(f.balance('cbu')).toBe(balance);

    const again = await lookup(DIR.individual.cbu, { 'idempotency-key': 'damaged-replay-2' });
    expect(again.statusCode).toBe(200);
    expect(f.balance('cbu')).toBe(balance - 1);
  });
});

describe('what admins read', () => {
  it("an audit entry's details: audit.list and `titular audit` list it as { damaged: true }, every other entry intact", { timeout: TIMEOUT_MS }, async () => {
    const before = (await value('audit.list', { limit: 100 })).entries;
    expect(before.length).toBeGreaterThan(2);
    const target = before[1];
    expect(damage('UPDATE audit_log SET details = ? WHERE id = ?', '{"product":"cb', target.id)).toBe(1);

    const after = (await value('audit.list', { limit: 100 })).entries;
    for (const entry of after) auditEntrySchema.parse(entry);
    expect(after).toEqual(before.map((entry: { id: string }) => (entry.id === target.id ? { ...entry, details: { damaged: true } } : entry)));

    const run = await cli('audit', '--json');
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as { id: string; details: unknown }[];
    expect(printed.find((entry) => entry.id === target.id)?.details).toEqual({ damaged: true });
    damage('UPDATE audit_log SET details = ? WHERE id = ?', JSON.stringify(target.details), target.id);
  });

  it("a key's IP whitelist: the key list shows it as unreadable (null) and the key is refused from every address (403, nothing charged); the admin can still revoke it", { timeout: TIMEOUT_MS }, async () => {
    const secret = f.createKey({ rateLimitPerSecond: 1000, name: 'Whitelist dañada', ipWhitelist: ['127.0.0.1'] });
    const { keys: listed } = await value('keys.list', {});
    const id = listed.find((k: { name: string | null }) => k.name === 'Whitelist dañada').id as string;
    const asKey = () => f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) });
    expect((await asKey()).statusCode).toBe(200);
    const balance = f.balance('cbu');

    for (const stored of ['["127.0.0.1"', '"127.0.0.1"', '["not an address"]', '[42]']) {
      expect(damage('UPDATE api_keys SET ip_whitelist = ? WHERE id = ?', stored, id)).toBe(1);
      const res = await asKey();
      expect(res.statusCode, `${stored}: ${res.body}`).toBe(403);
      expect(errorBodySchema.parse(res.json()).error).toEqual({
        code: 'FORBIDDEN',
        message: "This key's IP whitelist cannot be read (it is damaged in Titular's database), so no address may use the key; an admin can revoke it and create a new one",
      });
      const { keys } = await value('keys.list', {});
      for (const key of keys) apiKeyViewSchema.parse(key);
      expect(keys.find((k: { id: string }) => k.id === id)).toMatchObject({ status: 'active', ipWhitelist: null });
      // Every other key as before.
      expect(keys.filter((k: { id: string }) => k.id !== id).every((k: { ipWhitelist: unknown }) => Array.isArray(k.ipWhitelist))).toBe(true);
    }
    expect(f.balance('cbu')).toBe(balance);

    const list = await cli('keys', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${id} .* active \\(IP whitelist unreadable: see keys show\\)`));
    const show = await cli('keys', 'show', id);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/IP whitelist: +unreadable \(damaged in the database\): no address may use this key; revoke it and create a new one/);

    await value('keys.revoke', { id, confirm: true });
    expect((await asKey()).json().error.code).toBe('UNAUTHORIZED');
  });

  it('a setting: read as its default, as a value that is not valid for it is; lookups and the settings screen keep working', async () => {
    expect(damage("INSERT OR REPLACE INTO settings (key, value) VALUES ('resolver.cbu', '\"remo')")).toBe(1);
    expect(damage("INSERT OR REPLACE INTO settings (key, value) VALUES ('vault.autoLockMinutes', '{')")).toBe(1);
    const settings = await value('settings.get', {});
    expect(settings).toMatchObject({ autoLockMinutes: 15, resolvers: { cbu: 'directory' } });
    expect((await lookup(DIR.individual.cbu)).statusCode).toBe(200);
    damage("DELETE FROM settings WHERE key IN ('resolver.cbu', 'vault.autoLockMinutes')");
  });
});

describe("a passphrase vault's key-derivation parameters", () => {
  it('damaged or out of bounds: the CLI refuses to unlock in words (no SyntaxError, no scrypt asked for gigabytes); restored, it unlocks', { timeout: TIMEOUT_MS }, async () => {
    const passphrase = 'correct horse battery staple';
    const prepared = prepareDataDir({ keys: { main: {} }, passphrase, tmpPrefix: 'titular-damaged-vault-' });
    vaultDirs.push(prepared.dataDir);
    const file = path.join(prepared.dataDir, 'titular.db');
    const kdf = (text?: string) => {
      const db = new Database(file);
      try {
        const stored = db.prepare('SELECT kdf FROM vault_meta').pluck().get() as string;
        if (text !== undefined) db.prepare('UPDATE vault_meta SET kdf = ?').run(text);
        return stored;
      } finally {
        db.close();
      }
    };
    const reveal = () =>
      runCli(['keys', 'show', prepared.keys.main.id, '--data-dir', prepared.dataDir], { env: { TITULAR_PASSPHRASE: passphrase }, timeoutMs: 40_000 });
    const original = kdf();
    const params = JSON.parse(original) as Record<string, unknown>;

    for (const damaged of [original.slice(0, 20), JSON.stringify({ ...params, N: 2 ** 30 }), JSON.stringify({ ...params, salt: 7 })]) {
      kdf(damaged);
      const run = await reveal();
      expect(run.code, `${damaged}\n${run.stdout}${run.stderr}`).not.toBe(0);
      expect(run.stderr).toContain(
        "The vault's key-derivation parameters are damaged in Titular's database, so no passphrase can unlock it; restore a backup (titular restore)",
      );
      expect(run.stderr).not.toMatch(/SyntaxError|unexpected error/i);
    }

    kdf(original);
    const run = await reveal();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(prepared.keys.main.secret);
  });
});

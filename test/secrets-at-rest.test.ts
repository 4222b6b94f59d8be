// Secrets at rest (decisions "Keys"): the plaintext of an API key appears in no file of the data
// directory (database, WAL, shared memory, key file), in no log line and in no error body, before
// and after the database is closed; the key file is 0600; a passphrase vault refuses a wrong or
// missing passphrase without touching the database, and opens with the right one.
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from './support/directory-data';
import { checkLedgerInvariants } from './support/invariants';
import { openTitular, DATABASE_FILE, type Titular } from '../src/main/core/titular';
import { headlessKeyProvider } from '../src/main/headless/config';
import { VaultUnlockError } from '../src/main/core/vault/master-key-provider';

const tempDirs: string[] = [];
const opened: Titular[] = [];
let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
  for (const t of opened.splice(0)) t.close();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Needle {
  label: string;
  bytes: Buffer;
}

/** Every form in which a secret could sit in a file: full key and its random part, UTF-8 and UTF-16LE; plus hex and base64. */
function needlesFor(secrets: string[]): Needle[] {
  return secrets.flatMap((secret) => {
    const random = secret.slice(8);
    expect(random).toHaveLength(32);
    return [
      { label: `${secret} utf8`, bytes: Buffer.from(secret, 'utf8') },
      { label: `${secret} utf16le`, bytes: Buffer.from(secret, 'utf16le') },
      { label: `${random} utf8`, bytes: Buffer.from(random, 'utf8') },
      { label: `${random} utf16le`, bytes: Buffer.from(random, 'utf16le') },
      { label: `${secret} hex`, bytes: Buffer.from(Buffer.from(secret).toString('hex')) },
      { label: `${secret} base64`, bytes: Buffer.from(Buffer.from(secret).toString('base64').replace(/=+$/, '')) },
    ];
  });
}

/** Reads every file of the data directory raw and asserts none holds any needle. Returns the files read. */
function expectNoSecretInFiles(dataDir: string, needles: Needle[]): string[] {
  const files = readdirSync(dataDir).filter((name) => statSync(path.join(dataDir, name)).isFile());
  for (const name of files) {
    const raw = readFileSync(path.join(dataDir, name));
    for (const needle of needles) {
      expect(raw.includes(needle.bytes), `${name} contains ${needle.label}`).toBe(false);
    }
  }
  return files;
}

function expectNoSecretInText(where: string, text: string, secrets: string[]) {
  for (const secret of secrets) {
    expect(text.includes(secret), `${where} contains ${secret}`).toBe(false);
    expect(text.includes(secret.slice(8)), `${where} contains the random part of ${secret}`).toBe(false);
  }
}

const sha256 = (file: string) => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null);
const fileHashes = (dataDir: string) => ({
  db: sha256(path.join(dataDir, DATABASE_FILE)),
  wal: sha256(path.join(dataDir, `${DATABASE_FILE}-wal`)),
});

describe('no plaintext key at rest, in logs or in error bodies', () => {
  it('after keys are created, rotated, revealed, revoked and used (history, ledger, idempotency rows)', async () => {
    f = await createFixture({ credits: { cbu: 50, informes: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    const fx = f;
    const { keys } = fx.titular;
    const make = (environment: 'live' | 'sandbox', product: 'cbu' | 'informes') =>
      keys.create({
        orgId: fx.orgId,
        ownerUserId: fx.adminId,
        actorUserId: fx.adminId,
        product,
        environment,
        scopes: product === 'cbu' ? ['lookup', 'balance', 'history'] : ['lookup', 'balance'],
        rateLimitPerSecond: 1000,
      });
    const liveCbu = make('live', 'cbu');
    const sandboxCbu = make('sandbox', 'cbu');
    const liveInformes = make('live', 'informes');
    const sandboxInformes = make('sandbox', 'informes');
    const toRotate = make('live', 'cbu');
    const toRevoke = make('live', 'cbu');
    const rotated = keys.rotate(fx.orgId, toRotate.key.id, fx.adminId);
    expect(keys.reveal(fx.orgId, liveCbu.key.id, fx.adminId)).toBe(liveCbu.secret);
    expect(keys.reveal(fx.orgId, rotated.key.id, fx.adminId)).toBe(rotated.secret);
    keys.revoke(fx.orgId, toRevoke.key.id, fx.adminId);

    const secrets = [liveCbu, sandboxCbu, liveInformes, sandboxInformes, toRotate, rotated, toRevoke].map((k) => k.secret);
    expect(new Set(secrets).size).toBe(secrets.length);

    // Use every key, successes and errors, with and without Idempotency-Key.
    const responses = [];
    const postJson = (url: string, secret: string, payload: unknown, extra: Record<string, string> = {}) =>
      fx.app.inject({ method: 'POST', url, headers: { ...auth(secret), 'content-type': 'application/json', ...extra }, payload: JSON.stringify(payload) });
    for (const secret of [liveCbu.secret, sandboxCbu.secret, rotated.secret]) {
      responses.push(await fx.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) }));
      responses.push(await fx.app.inject({ url: `/api/v1/lookup?identifier=${breakCheckDigit(DIR.individual.cbu)}&type=cbu`, headers: auth(secret) }));
      responses.push(await postJson('/api/v1/lookup', secret, { identifier: DIR.missing.alias, type: 'alias' }, { 'idempotency-key': `idem-${secret.slice(5, 9)}` }));
      responses.push(await postJson('/api/v1/lookup', secret, { identifier: DIR.company.cbu, type: 'cbu' }, { 'idempotency-key': 'same-key-everywhere' }));
      responses.push(await postJson('/api/v1/lookup', secret, { identifier: DIR.joint.cbu, type: 'cbu' }, { 'idempotency-key': 'same-key-everywhere' }));
      responses.push(await fx.app.inject({ url: '/api/v1/history', headers: auth(secret) }));
      responses.push(await fx.app.inject({ url: '/api/v1/history?per_page=500', headers: auth(secret) }));
      responses.push(await fx.app.inject({ url: '/api/v1/balance', headers: auth(secret) }));
      responses.push(await postJson('/api/v1/credit/lookup', secret, { tax_id: '20-28765432-5' }));
      responses.push(await fx.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: { ...auth(secret), 'idempotency-key': 'bad key with spaces' } }));
    }
    for (const secret of [liveInformes.secret, sandboxInformes.secret]) {
      responses.push(await postJson('/api/v1/credit/lookup', secret, { tax_id: '20-28765432-5' }, { 'idempotency-key': 'credit-1' }));
      responses.push(await postJson('/api/v1/credit/lookup', secret, { tax_id: '30-71234567-1' }, { 'idempotency-key': 'credit-1' }));
      responses.push(await postJson('/api/v1/credit/lookup', secret, { tax_id: '33999999994' }));
      responses.push(await postJson('/api/v1/credit/lookup', secret, { tax_id: 'nope' }));
      responses.push(await fx.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) }));
      responses.push(await fx.app.inject({ method: 'POST', url: '/api/v1/credit/lookup', headers: { ...auth(secret), 'content-type': 'application/json' }, payload: '{bad json' }));
    }
    // Rotated-away, revoked and malformed presentations of real secrets.
    for (const secret of [toRotate.secret, toRevoke.secret]) {
      responses.push(await fx.app.inject({ url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) }));
    }
    responses.push(await fx.app.inject({ url: '/api/v1/balance', headers: { authorization: liveCbu.secret } }));
    responses.push(await fx.app.inject({ url: '/api/v1/balance', headers: { authorization: `Basic ${liveCbu.secret}` } }));
    responses.push(await fx.app.inject({ url: '/api/v1/balance', headers: { authorization: `Bearer ${liveCbu.secret}x` } }));
    responses.push(await fx.app.inject({ url: `/api/v1/balance?api_key=${liveCbu.secret}`, headers: {} }));

    const statuses = new Set(responses.map((r) => r.statusCode));
    for (const status of [200, 400, 401, 403, 404, 503]) expect(statuses, `exercised ${status}`).toContain(status);
    const errorBodies = responses.filter((r) => r.statusCode >= 400);
    expect(errorBodies.length).toBeGreaterThan(10);
    for (const r of responses) {
      expectNoSecretInText(`response body (${r.statusCode})`, r.body, secrets);
      expectNoSecretInText(`response headers (${r.statusCode})`, JSON.stringify(r.headers), secrets);
    }

    fx.titular.commits.flush();
    fx.titular.keys.flushLastUsed();
    expect((fx.titular.database.sqlite.prepare('SELECT COUNT(*) AS n FROM idempotency_records').get() as { n: number }).n).toBeGreaterThan(3);
    expect((fx.titular.database.sqlite.prepare('SELECT COUNT(*) AS n FROM lookups').get() as { n: number }).n).toBeGreaterThan(10);
    checkLedgerInvariants(fx.titular.database.sqlite);

    const needles = needlesFor(secrets);
    // While open: the WAL holds the recent writes.
    const filesOpen = expectNoSecretInFiles(fx.dataDir, needles);
    expect(filesOpen).toEqual(expect.arrayContaining([DATABASE_FILE, `${DATABASE_FILE}-wal`, 'master.key']));
    expect(statSync(path.join(fx.dataDir, 'master.key')).mode & 0o777).toBe(0o600);

    expect(fx.logs.length).toBeGreaterThan(responses.length - 1);
    expectNoSecretInText('request log', fx.logs.join('\n'), secrets);

    // After closing: the WAL is checkpointed into the database file.
    await fx.app.close();
    fx.titular.close();
    const filesClosed = expectNoSecretInFiles(fx.dataDir, needles);
    expect(filesClosed).toContain(DATABASE_FILE);
    expect(statSync(path.join(fx.dataDir, 'master.key')).mode & 0o777).toBe(0o600);

    // And the secrets are still recoverable by the vault, i.e. the files do hold them, encrypted.
    const reopened = openTitular({ dataDir: fx.dataDir, keyProvider: headlessKeyProvider(fx.dataDir, {}) });
    opened.push(reopened);
    expect(reopened.keys.reveal(fx.orgId, rotated.key.id, null)).toBe(rotated.secret);
    expect(reopened.keys.authenticate(liveCbu.secret, Date.now())?.id).toBe(liveCbu.key.id);
    expect(reopened.keys.authenticate(toRotate.secret, Date.now())).toBeNull();
  });

  it('a key pasted into the URL path is not echoed in the 404 body nor written to the request log', async () => {
    f = await createFixture({ credits: { cbu: 5 } });
    const secret = f.createKey();
    const responses = [
      await f.app.inject({ url: `/api/v1/keys/${secret}`, headers: auth(secret) }),
      await f.app.inject({ url: `/api/v1/lookup/${secret}`, headers: auth(secret) }),
      await f.app.inject({ method: 'POST', url: `/${secret}`, headers: {} }),
    ];
    for (const r of responses) {
      expect(r.statusCode).toBe(404);
      expectNoSecretInText('404 body', r.body, [secret]);
    }
    expect(f.logs).toHaveLength(3);
    expectNoSecretInText('request log', f.logs.join('\n'), [secret]);
  });

  it('control: the file scan does find a secret planted in the database (UTF-8 text and UTF-16LE blob)', async () => {
    f = await createFixture();
    const planted = f.titular.keys.create({ orgId: f.orgId, ownerUserId: f.adminId, actorUserId: f.adminId, product: 'cbu', environment: 'live', scopes: ['lookup'] }).secret;
    const utf16 = f.createKey({ environment: 'sandbox' });
    f.titular.database.sqlite.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('planted', planted.slice(8));
    f.titular.database.sqlite.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('planted16', Buffer.from(utf16, 'utf16le'));
    const files = readdirSync(f.dataDir).filter((n) => n.startsWith(DATABASE_FILE));
    const all = Buffer.concat(files.map((n) => readFileSync(path.join(f!.dataDir, n))));
    const found = needlesFor([planted, utf16]).filter((needle) => all.includes(needle.bytes)).map((n) => n.label);
    expect(found).toEqual(expect.arrayContaining([`${planted.slice(8)} utf8`, `${utf16} utf16le`, `${utf16.slice(8)} utf16le`]));
  });

  it('a new data directory is created 0700', () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'titular-test-'));
    tempDirs.push(parent);
    const dataDir = path.join(parent, 'nested', 'data');
    const t = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) });
    opened.push(t);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });

  it('the database, its WAL and its shared memory are 0600, also in a directory readable by others', async () => {
    const open = mkdtempSync(path.join(os.tmpdir(), 'titular-perm-'));
    chmodSync(open, 0o755);
    const t = openTitular({ dataDir: open, keyProvider: headlessKeyProvider(open, {}) });
    try {
      t.users.initialize({ orgName: 'Perm', adminName: 'P', adminEmail: 'p@perm.test' });
      const modes = Object.fromEntries(['', '-wal', '-shm'].map((part) => [part, statSync(path.join(open, `${DATABASE_FILE}${part}`)).mode & 0o777]));
      expect(modes).toEqual({ '': 0o600, '-wal': 0o600, '-shm': 0o600 });
    } finally {
      t.close();
    }
    // Files an older version left readable are narrowed when the database is opened again.
    chmodSync(path.join(open, DATABASE_FILE), 0o644);
    openTitular({ dataDir: open, keyProvider: headlessKeyProvider(open, {}) }).close();
    expect(statSync(path.join(open, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    rmSync(open, { recursive: true, force: true });
  });
});

describe('passphrase vault', () => {
  const RIGHT = { TITULAR_PASSPHRASE: 'correct horse battery' };

  function expectUnlockError(run: () => unknown, message: RegExp) {
    let caught: unknown;
    try {
      opened.push(run() as Titular);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(VaultUnlockError);
    expect((caught as Error).message).toMatch(message);
  }

  it('wrong passphrase: VaultUnlockError, database and WAL byte-identical; none: asks for TITULAR_PASSPHRASE; right: reveals', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-test-'));
    tempDirs.push(dataDir);
    const first = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, RIGHT) });
    const { org, admin } = first.users.initialize({ orgName: 'Acme', adminName: 'Ada', adminEmail: 'ada@acme.test' });
    const created = first.keys.create({
      orgId: org.id,
      ownerUserId: admin.id,
      actorUserId: admin.id,
      product: 'cbu',
      environment: 'live',
      scopes: ['lookup'],
    });
    first.commits.flush();
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);

    // While the first instance is open (its WAL not yet checkpointed), a wrong passphrase changes nothing.
    const whileOpen = fileHashes(dataDir);
    expect(whileOpen.wal).not.toBeNull();
    expectUnlockError(
      () => openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, { TITULAR_PASSPHRASE: 'wrong horse battery' }) }),
      /wrong passphrase/i,
    );
    expect(fileHashes(dataDir)).toEqual(whileOpen);
    first.close();

    expectNoSecretInFiles(dataDir, needlesFor([created.secret]));
    const closed = fileHashes(dataDir);
    expectUnlockError(
      () => openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, { TITULAR_PASSPHRASE: 'wrong horse battery' }) }),
      /wrong passphrase/i,
    );
    expect(fileHashes(dataDir)).toEqual(closed);

    expectUnlockError(() => openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) }), /TITULAR_PASSPHRASE/);
    expect(fileHashes(dataDir)).toEqual(closed);
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);

    const right = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, RIGHT) });
    opened.push(right);
    expect(right.keys.reveal(org.id, created.key.id, admin.id)).toBe(created.secret);
    expect(right.keys.authenticate(created.secret, Date.now())?.id).toBe(created.key.id);
  });
});

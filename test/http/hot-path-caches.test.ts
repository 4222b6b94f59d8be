// The lookup hot path keeps what it read last: a key found by its hash (reused while no other
// connection has written, PRAGMA data_version) and the balance after its last charge (which lets
// the 402 pre-check skip a read). These tests change keys and credits behind the server's back,
// from another connection as the CLI would, after the server has cached them, and check that the
// very next request sees the change and that nothing is ever charged below zero.
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import path from 'node:path';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { checkLedgerInvariants } from '../support/invariants';
import { createKeyWithId, expectError } from '../support/http-helpers';
import { DATABASE_FILE, openTitular } from '../../src/main/core/titular';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { bearer, Client } from '../reliability/harness';
import { rememberedHostVerdicts, requestHostAllowed } from '../../src/main/core/http/host-guard';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

async function setup(credits = 100): Promise<Fixture> {
  f = await createFixture({ credits: { cbu: credits } });
  f.importDirectory(DIRECTORY_CSV);
  return f;
}

const lookup = (fx: Fixture, secret: string) =>
  fx.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers: auth(secret) });

/** Runs SQL on the data directory's database through a connection of its own (another process's view). */
function otherConnection(fx: Fixture, run: (db: Database.Database) => void): void {
  const db = new Database(path.join(fx.dataDir, DATABASE_FILE));
  try {
    db.pragma('busy_timeout = 5000');
    run(db);
  } finally {
    db.close();
  }
}

/** Runs `change` (from another connection) after the next lookup is admitted and before it is recorded. */
function beforeNextCommit(fx: Fixture, change: (db: Database.Database) => void): void {
  const commits = fx.titular.commits;
  const enqueue = commits.enqueue.bind(commits);
  commits.enqueue = ((write: () => unknown) => {
    commits.enqueue = enqueue;
    otherConnection(fx, change);
    return enqueue(write);
  }) as typeof commits.enqueue;
}

const historyRows = (fx: Fixture) => (fx.titular.database.sqlite.prepare('SELECT COUNT(*) AS n FROM lookups').get() as { n: number }).n;

describe('key changes made by another connection apply to the next request, even for a key in use', () => {
  it('a scope removed elsewhere: 200, then 403 FORBIDDEN', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    otherConnection(fx, (db) => db.prepare("UPDATE api_keys SET scopes = 'balance' WHERE id = ?").run(id));
    expectError(await lookup(fx, secret), 403, 'FORBIDDEN');
  });

  it('an IP whitelist set elsewhere: 200, then 403 for a caller outside it', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET ip_whitelist = ? WHERE id = ?').run(JSON.stringify(['10.9.8.7']), id));
    expectError(await lookup(fx, secret), 403, 'FORBIDDEN');
  });

  it('a rotation by another process: the old secret fails on the next request, the new one works', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    const cli = openTitular({ dataDir: fx.dataDir, keyProvider: headlessKeyProvider(fx.dataDir, {}) });
    let rotated: string;
    try {
      rotated = cli.keys.rotate(fx.orgId, id, fx.adminId).secret;
    } finally {
      cli.close();
    }
    expectError(await lookup(fx, secret), 401, 'UNAUTHORIZED');
    expect((await lookup(fx, rotated)).statusCode).toBe(200);
  });

  it('an expiry set elsewhere to a past instant: 401 on the next request', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(Date.now() - 1000, id));
    expectError(await lookup(fx, secret), 401, 'UNAUTHORIZED');
  });

  // Nothing in Titular changes a key's rate limit after creation; an edit of the database is
  // honoured as soon as the key is read again. A lookup is admitted on the key as last read and
  // confirms it inside its own transaction (which rereads it), so the lowered limit applies to
  // lookups from the second request on, and to other endpoints from the next one.
  it('a rate limit lowered elsewhere applies once the key is read again', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).headers['ratelimit-limit']).toBe('2000');
    otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET rate_limit_burst = 1, rate_limit_per_second = 1 WHERE id = ?').run(id));
    expect((await lookup(fx, secret)).headers['ratelimit-limit']).toBe('2000');
    const next = await lookup(fx, secret);
    expect(next.statusCode).toBe(200);
    expect(next.headers['ratelimit-limit']).toBe('1');
    expectError(await lookup(fx, secret), 429, 'RATE_LIMITED');
  });

  it('a rate limit lowered elsewhere applies to the next balance request', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000, scopes: ['lookup', 'balance'] });
    expect((await lookup(fx, secret)).headers['ratelimit-limit']).toBe('2000');
    otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET rate_limit_burst = 1, rate_limit_per_second = 1 WHERE id = ?').run(id));
    const balance = await fx.app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(secret) });
    expect(balance.statusCode).toBe(200);
    expect(balance.headers['ratelimit-limit']).toBe('1');
    expectError(await lookup(fx, secret), 429, 'RATE_LIMITED');
  });
});

describe('the credit pre-check after this process has charged', () => {
  it('credits spent elsewhere while the server last saw some left: 402, nothing charged or recorded', async () => {
    const fx = await setup(5);
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    const first = await lookup(fx, secret);
    expect(first.json().credits_remaining).toBe(4);
    const rows = historyRows(fx);
    // Another process spends the remaining 4 credits (as its own lookups would).
    otherConnection(fx, (db) =>
      db
        .prepare("UPDATE credit_balances SET balance = 0, total_consumed = total_consumed + 4 WHERE org_id = ? AND product = 'cbu'")
        .run(fx.orgId),
    );
    const res = await lookup(fx, secret);
    expectError(res, 402, 'INSUFFICIENT_CREDITS');
    expect(res.json().credits_remaining).toBe(0);
    expect(historyRows(fx)).toBe(rows);
    expect(fx.balance('cbu')).toBe(0);
    // Invalid input at zero balance is still 402 (the credit check outranks validation).
    const invalid = await fx.app.inject({ method: 'GET', url: '/api/v1/lookup?identifier=123&type=cbu', headers: auth(secret) });
    expectError(invalid, 402, 'INSUFFICIENT_CREDITS');
    expect(historyRows(fx)).toBe(rows);
  });

  it('after the balance reached 0 here, a purchase by another process is usable on the next request', async () => {
    const fx = await setup(1);
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).json().credits_remaining).toBe(0);
    expectError(await lookup(fx, secret), 402, 'INSUFFICIENT_CREDITS');
    const cli = openTitular({ dataDir: fx.dataDir, keyProvider: headlessKeyProvider(fx.dataDir, {}) });
    try {
      cli.ledger.addPurchase({ orgId: fx.orgId, product: 'cbu', amount: 3, userId: fx.adminId });
    } finally {
      cli.close();
    }
    const res = await lookup(fx, secret);
    expect(res.statusCode).toBe(200);
    expect(res.json().credits_remaining).toBe(2);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });
});

// A lookup is admitted on its key and resolver setting as last read (no data_version read per
// request) and confirms both inside the transaction that records it. These tests change them from
// another connection in the gap between admission and that transaction, by hooking the commit
// queue, which is where a lookup waits for its group commit.
describe('a lookup admitted on its key as last read confirms it in the transaction that records it', () => {
  it('a key revoked elsewhere while its lookup waits for the commit: 401, nothing charged or recorded', async () => {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    const rows = historyRows(fx);
    beforeNextCommit(fx, (db) => db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(Date.now(), id));
    expectError(await lookup(fx, secret), 401, 'UNAUTHORIZED');
    expect(historyRows(fx)).toBe(rows);
    expect(fx.balance('cbu')).toBe(99);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });

  it('the other lookups of the same group commit are recorded and charged as usual', async () => {
    const fx = await setup();
    const revoked = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    const kept = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, revoked.secret)).statusCode).toBe(200);
    expect((await lookup(fx, kept.secret)).statusCode).toBe(200);
    beforeNextCommit(fx, (db) => db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(Date.now(), revoked.id));
    const answers = await Promise.all([lookup(fx, revoked.secret), lookup(fx, kept.secret), lookup(fx, kept.secret)]);
    expect(answers.map((a) => a.statusCode)).toEqual([401, 200, 200]);
    expect(answers[2]!.json().credits_remaining).toBe(96);
    expect(fx.balance('cbu')).toBe(96);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });

  it('a key revoked elsewhere when no credit is left: 401, not 402 (the key outranks the balance)', async () => {
    const fx = await setup(1);
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    expectError(await lookup(fx, secret), 402, 'INSUFFICIENT_CREDITS');
    otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(Date.now(), id));
    expectError(await lookup(fx, secret), 401, 'UNAUTHORIZED');
  });

  it('the resolver switched to remote elsewhere while a lookup waits: it is resolved by the remote source, not the directory', async () => {
    const fx = await setup();
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    beforeNextCommit(fx, (db) => db.prepare("INSERT INTO settings (key, value) VALUES ('resolver.cbu', '\"remote\"') ON CONFLICT (key) DO UPDATE SET value = excluded.value").run());
    // No remote source is configured in this fixture: 503 GE500, no credit (the directory would have answered 200).
    const res = await lookup(fx, secret);
    expectError(res, 503, 'GE500');
    expect(fx.balance('cbu')).toBe(99);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });
});

// Answers that no lookup transaction produced confirm the key before they are sent: a key revoked
// by another process gets its 401 instead of the error its request would otherwise have earned.
describe('a key revoked elsewhere outranks the errors of a lookup that never reached its transaction', () => {
  async function revokedElsewhere(options: { rateLimitPerSecond?: number } = {}) {
    const fx = await setup();
    const { secret, id } = createKeyWithId(fx, { rateLimitPerSecond: options.rateLimitPerSecond ?? 1000 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    return { fx, secret, revoke: () => otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(Date.now(), id)) };
  }

  it('an invalid Idempotency-Key, a body that is not an object, malformed JSON, a text body: 401 each, nothing recorded', async () => {
    const { fx, secret, revoke } = await revokedElsewhere();
    revoke();
    const rows = historyRows(fx);
    const url = `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`;
    const answers = [
      await fx.app.inject({ method: 'GET', url, headers: { ...auth(secret), 'idempotency-key': 'has space' } }),
      await fx.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(secret), 'content-type': 'application/json' }, payload: '[]' }),
      await fx.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(secret), 'content-type': 'application/json' }, payload: '{"identifier":' }),
      await fx.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(secret), 'content-type': 'text/plain' }, payload: 'hola' }),
      await fx.app.inject({ method: 'POST', url: '/api/v1/credit/lookup', headers: { ...auth(secret), 'content-type': 'application/json' }, payload: '"x"' }),
    ];
    for (const answer of answers) expectError(answer, 401, 'UNAUTHORIZED');
    expect(historyRows(fx)).toBe(rows);
  });

  it('a key that cannot be checked (the database failing) gets the documented GE500, not the error it would have earned', async () => {
    const { fx, secret } = await revokedElsewhere();
    const keys = fx.titular.keys;
    const confirm = keys.confirm.bind(keys);
    keys.confirm = () => {
      throw new Error('SQLITE_IOERR: disk I/O error (simulated)');
    };
    try {
      const res = await fx.app.inject({ method: 'POST', url: '/api/v1/lookup', headers: { ...auth(secret), 'content-type': 'application/json' }, payload: '[]' });
      expectError(res, 500, 'GE500');
      expect(res.body).not.toContain('SQLITE_IOERR');
    } finally {
      keys.confirm = confirm;
    }
  });

  it('a key out of requests: 401, not 429', async () => {
    const { fx, secret, revoke } = await revokedElsewhere({ rateLimitPerSecond: 1 });
    // Burst of 20 for a 1/s key: spend it (the first lookup took one).
    for (let i = 0; i < 19; i++) expect((await lookup(fx, secret)).statusCode).toBe(200);
    expectError(await lookup(fx, secret), 429, 'RATE_LIMITED');
    revoke();
    expectError(await lookup(fx, secret), 401, 'UNAUTHORIZED');
  });
});

// The directory's answers are cached per account (db/write-invalidated-cache.ts): an import here
// empties the cache, and so does any commit of another connection, seen at the latest inside the
// transaction that resolves and records the lookup.
describe('a directory account changed after it was looked up is answered as it is now', () => {
  const holderOf = (res: { json: () => { data: { holders: { full_name: string }[] } } }) => res.json().data.holders.map((h) => h.full_name);
  const aliasLookup = (fx: Fixture, secret: string, alias: string) =>
    fx.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${alias}&type=alias`, headers: auth(secret) });
  const setHolder = (name: string) => (db: Database.Database) =>
    db.prepare('UPDATE directory_accounts SET holders = json_set(holders, \'$[0].full_name\', ?) WHERE number = ?').run(name, DIR.individual.cbu);

  it('a re-import in this process: the next lookup answers the new holder, by number and by alias', async () => {
    const fx = await setup();
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect(holderOf(await lookup(fx, secret))).toEqual(['Lucía Luna']);
    expect(holderOf(await aliasLookup(fx, secret, DIR.individual.alias))).toEqual(['Lucía Luna']);
    fx.importDirectory(
      ['cbu,alias,account_type,currency,active,holder_name,holder_tax_id', `${DIR.individual.cbu},otro.alias.mar,CA,ARS,true,Lucía Luna de Sol,${DIR.individual.taxId}`].join('\n'),
    );
    expect(holderOf(await lookup(fx, secret))).toEqual(['Lucía Luna de Sol']);
    // The alias moved with the re-import: the old one is no longer found (404 PA011, charged).
    expectError(await aliasLookup(fx, secret, DIR.individual.alias), 404, 'PA011');
    expect(holderOf(await aliasLookup(fx, secret, 'otro.alias.mar'))).toEqual(['Lucía Luna de Sol']);
  });

  it('an account missing here and imported by another process: 404 PA011, then 200', async () => {
    const fx = await setup();
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    const missing = () => fx.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${DIR.missing.cbu}&type=cbu`, headers: auth(secret) });
    expectError(await missing(), 404, 'PA011');
    otherConnection(fx, (db) =>
      db
        .prepare("INSERT INTO directory_accounts (id, org_id, number, alias_key, alias, account_type, currency, active, holders, imported_at) SELECT 'x1', org_id, ?, NULL, NULL, 'CA', 'ARS', 1, holders, 0 FROM directory_accounts WHERE number = ?")
        .run(DIR.missing.cbu, DIR.individual.cbu),
    );
    expect((await missing()).statusCode).toBe(200);
  });

  it('an account changed by another process while its lookup waits for the commit: answered and recorded as changed', async () => {
    const fx = await setup();
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect(holderOf(await lookup(fx, secret))).toEqual(['Lucía Luna']);
    beforeNextCommit(fx, setHolder('Lucía Cambiada'));
    const res = await lookup(fx, secret);
    expect(holderOf(res)).toEqual(['Lucía Cambiada']);
    const stored = fx.titular.database.sqlite.prepare('SELECT response_data FROM lookups WHERE request_id = ?').get(res.json().request_id) as { response_data: string };
    expect(JSON.parse(stored.response_data)).toEqual(res.json().data);
  });

  it('answers of a cached account are the same JSON as an uncached one, and its history rows store it whole', async () => {
    const fx = await setup();
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    const first = await lookup(fx, secret);
    const second = await lookup(fx, secret);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.body).toBe(JSON.stringify({ ...first.json(), credits_remaining: 98, request_id: second.json().request_id }));
    const rows = fx.titular.database.sqlite.prepare('SELECT response_data FROM lookups ORDER BY id').all() as { response_data: string }[];
    expect(rows.map((r) => JSON.parse(r.response_data))).toEqual([first.json().data, second.json().data]);
  });
});

// GET /api/v1/balance answers from rows cached per organization: emptied by every charge and
// purchase of this process and by any commit of another connection.
describe('a balance read after a change answers the change', () => {
  const balanceOf = async (fx: Fixture, secret: string) => {
    const res = await fx.app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(secret) });
    expect(res.statusCode).toBe(200);
    return (res.json().balances as { productSlug: string; balance: number; totalPurchased: number; totalConsumed: number }[]).find((b) => b.productSlug === 'cbu')!;
  };

  it('a lookup charged here, a purchase here, a purchase and a charge by another process', async () => {
    const fx = await setup(10);
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    expect(await balanceOf(fx, secret)).toMatchObject({ balance: 10, totalConsumed: 0 });
    expect(await balanceOf(fx, secret)).toMatchObject({ balance: 10 });
    expect((await lookup(fx, secret)).statusCode).toBe(200);
    expect(await balanceOf(fx, secret)).toMatchObject({ balance: 9, totalConsumed: 1 });
    fx.addCredits('cbu', 5);
    expect(await balanceOf(fx, secret)).toMatchObject({ balance: 14, totalPurchased: 15 });
    otherConnection(fx, (db) => db.prepare("UPDATE credit_balances SET balance = balance + 100, total_purchased = total_purchased + 100 WHERE product = 'cbu'").run());
    expect(await balanceOf(fx, secret)).toMatchObject({ balance: 114, totalPurchased: 115 });
    otherConnection(fx, (db) => db.prepare("UPDATE credit_balances SET balance = balance - 1, total_consumed = total_consumed + 1 WHERE product = 'cbu'").run());
    expect(await balanceOf(fx, secret)).toMatchObject({ balance: 113, totalConsumed: 2 });
  });
});

// The Authorization header a connection sends is parsed and hashed once and reused while the
// connection sends the same header (http/authorize.ts); the Host guard remembers its decision per
// Host value (http/host-guard.ts). Neither may change an answer.
describe('what a connection presented before decides nothing about its next request', () => {
  it('one keep-alive connection: another key, a malformed header, none, the first key again, then that key revoked elsewhere', async () => {
    const fx = await setup();
    const first = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    const balanceOnly = createKeyWithId(fx, { rateLimitPerSecond: 1000, scopes: ['balance'] });
    await fx.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new Client(`http://127.0.0.1:${(fx.app.server.address() as AddressInfo).port}`, 1);
    try {
      const send = async (headers: Record<string, string>) => {
        const outcome = await client.send({ path: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, headers });
        if (outcome.kind !== 'answer') throw new Error(outcome.error);
        return outcome;
      };
      const codeOf = (outcome: { text: string }) => (JSON.parse(outcome.text) as { error?: { code: string } }).error?.code;
      const answers = [
        await send(bearer(first.secret)),
        await send(bearer(balanceOnly.secret)),
        await send({ authorization: 'Bearer sk_live_tooShort' }),
        await send({}),
        await send(bearer(first.secret)),
      ];
      expect(answers.map((a) => [a.status, codeOf(a)])).toEqual([
        [200, undefined],
        [403, 'FORBIDDEN'],
        [401, 'UNAUTHORIZED'],
        [401, 'UNAUTHORIZED'],
        [200, undefined],
      ]);
      expect(answers.slice(1).every((a) => a.reusedSocket)).toBe(true);
      otherConnection(fx, (db) => db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(Date.now(), first.id));
      const afterRevoke = await send(bearer(first.secret));
      expect([afterRevoke.status, codeOf(afterRevoke), afterRevoke.reusedSocket]).toEqual([401, 'UNAUTHORIZED', true]);
      const charged = fx.titular.database.sqlite.prepare('SELECT api_key_id AS key, COUNT(*) AS n FROM lookups GROUP BY api_key_id').all();
      expect(charged).toEqual([{ key: first.id, n: 2 }]);
      checkLedgerInvariants(fx.titular.database.sqlite);
    } finally {
      client.close();
    }
  });

  it('the Host guard decides each value as the first time, also after more values than it remembers', async () => {
    const fx = await setup();
    const { secret } = createKeyWithId(fx, { rateLimitPerSecond: 1000 });
    const balance = (host: string) => fx.app.inject({ method: 'GET', url: '/api/v1/balance', headers: { ...auth(secret), host } });
    expect((await balance('localhost:8787')).statusCode).toBe(200);
    expectError(await balance('evil.example'), 403, 'FORBIDDEN');
    for (let i = 0; i < 100; i++) expectError(await balance(`evil-${i}.example`), 403, 'FORBIDDEN');
    expect((await balance('localhost:8787')).statusCode).toBe(200);
    expect((await balance('127.0.0.1')).statusCode).toBe(200);
    expectError(await balance('evil.example'), 403, 'FORBIDDEN');
    expectError(await balance('localhost.evil.example'), 403, 'FORBIDDEN');
  });

  it('the Host guard remembers at most 64 values, whatever a client sends', () => {
    const extraHosts: ReadonlySet<string> = new Set(['titular.lan']);
    const request = (host: string) => ({ rawHeaders: ['Host', host], headers: { host }, url: '/' }) as unknown as IncomingMessage;
    for (let i = 0; i < 1000; i++) {
      expect(requestHostAllowed(request(`evil-${i}.example`), extraHosts)).toBe(false);
      expect(rememberedHostVerdicts(extraHosts)).toBeLessThanOrEqual(64);
    }
    expect(requestHostAllowed(request('titular.lan:8787'), extraHosts)).toBe(true);
    expect(requestHostAllowed(request('localhost'), extraHosts)).toBe(true);
    expect(rememberedHostVerdicts(extraHosts)).toBeGreaterThan(0);
  });
});

// Security under load and against tricks:
//   - a key revoked or rotated while a few hundred requests are in flight fails on every request
//     sent after the revocation returned (through the core in-process, and through the CLI as a
//     separate process against the server process); nothing is charged to it afterwards;
//   - no plaintext key in the database file, its WAL or shared memory, the server's request log
//     (`--log`), or any response body or header — also when a client pastes the key in the wrong
//     place (URL path, query, identifier, Idempotency-Key);
//   - the Host guard refuses every name that is not loopback, including look-alikes;
//   - a key's IP whitelist refuses other addresses (X-Forwarded-For does not help);
//   - a revoke, rotate or purchase from a second process does not fail while the server commits.
// Requests come from many loopback addresses (127.0.x.y), so the per-address throttle of repeated
// 401s does not turn the answers after a revocation into 429s.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { checkLedgerInvariants } from '../support/invariants';
import { startServer } from '../support/processes';
import { errorBodySchema } from '../../src/shared/api/common';
import {
  bearer,
  Client,
  countOf,
  expectErrorAnswer,
  jsonPost,
  loopbackAddress,
  openDatabaseFile,
  prepareDataDir,
  runCli,
  sustainLoad,
  type Outcome,
  type RequestSpec,
} from './harness';

const IN_FLIGHT = 200;
/**
 * Refusals one worker (one source address) may see: fewer than the 10 failed authentications an
 * address may make before it is throttled (429), so every refusal observed is the key's own 401.
 */
const REFUSALS_PER_WORKER = 8;

/** Counts refusals per worker, to stop a worker before its address would be throttled. */
function refusalCounter() {
  const refusals = new Map<number, number>();
  return {
    count(worker: number, outcome: Outcome) {
      if (outcome.kind === 'answer' && outcome.status === 401) refusals.set(worker, (refusals.get(worker) ?? 0) + 1);
    },
    exhausted: (worker: number) => (refusals.get(worker) ?? 0) >= REFUSALS_PER_WORKER,
  };
}

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const lookupSpec = (secret: string, worker: number): RequestSpec => ({
  path: `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`,
  headers: bearer(secret),
  localAddress: loopbackAddress(worker),
});

/**
 * Every request sent after `at` (the moment the revocation or rotation returned) got 401 with the
 * documented body; returns how many there were.
 */
function expectRefusedAfter(results: { tag: string; outcome: Outcome }[], secretTag: string, at: number): number {
  const after = results.filter((r) => r.tag === secretTag && r.outcome.sentAt > at);
  for (const r of after) {
    const body = expectErrorAnswer(r.outcome, 401, 'UNAUTHORIZED');
    expect(body).not.toHaveProperty('credits_remaining');
  }
  return after.length;
}

const statusOf = (o: Outcome) => (o.kind === 'answer' ? o.status : o.error);

describe('revocation and rotation take effect on the very next request, under load (in-process server, real sockets)', () => {
  it(`revoke through the core with ${IN_FLIGHT} requests in flight: every request sent afterwards is 401; only the 200s were charged`, async () => {
    f = await createFixture({ credits: { cbu: 100_000 } });
    f.importDirectory(DIRECTORY_CSV);
    const { key, secret } = f.titular.keys.create({ orgId: f.orgId, ownerUserId: f.adminId, actorUserId: f.adminId, product: 'cbu', scopes: ['lookup'], environment: 'live', rateLimitPerSecond: 10_000 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new Client(`http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`, IN_FLIGHT * 2, { retryStaleSocket: true });
    const fx = f;

    let answers = 0;
    let revokedAt = Infinity;
    let answersAfterRevoke = 0;
    const refusals = refusalCounter();
    const results = await sustainLoad(
      client,
      IN_FLIGHT,
      (worker) => ({ spec: lookupSpec(secret, worker), tag: 'victim' }),
      (worker) => answersAfterRevoke >= 3 * IN_FLIGHT || refusals.exhausted(worker),
      (worker, outcome) => {
        refusals.count(worker, outcome);
        answers++;
        if (revokedAt !== Infinity) answersAfterRevoke++;
        if (answers === IN_FLIGHT * 2) {
          fx.titular.keys.revoke(fx.orgId, key.id, fx.adminId);
          revokedAt = performance.now();
        }
      },
    );
    client.close();

    expect(results.every((r) => r.outcome.kind === 'answer')).toBe(true);
    expect(expectRefusedAfter(results, 'victim', revokedAt)).toBeGreaterThanOrEqual(IN_FLIGHT);
    // Requests already in flight when revoke() ran may be 200 or 401; nothing else.
    const before = results.filter((r) => r.outcome.sentAt < revokedAt);
    expect(before.filter((r) => statusOf(r.outcome) !== 200 && statusOf(r.outcome) !== 401)).toEqual([]);
    const ok = results.filter((r) => statusOf(r.outcome) === 200).length;
    expect(ok).toBeGreaterThanOrEqual(IN_FLIGHT);
    // Only the 200s were charged: the refused requests took nothing.
    expect(countOf(fx.titular.database.sqlite, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'")).toBe(ok);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });

  it(`rotate through the core with ${IN_FLIGHT} requests in flight: the old secret is 401 from then on, the new one 200`, async () => {
    f = await createFixture({ credits: { cbu: 100_000 } });
    f.importDirectory(DIRECTORY_CSV);
    const { key, secret: oldSecret } = f.titular.keys.create({ orgId: f.orgId, ownerUserId: f.adminId, actorUserId: f.adminId, product: 'cbu', scopes: ['lookup'], environment: 'live', rateLimitPerSecond: 10_000 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new Client(`http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`, IN_FLIGHT * 2, { retryStaleSocket: true });
    const fx = f;

    let answers = 0;
    let rotatedAt = Infinity;
    let newSecret: string | null = null;
    let answersAfter = 0;
    const refusals = refusalCounter();
    const results = await sustainLoad(
      client,
      IN_FLIGHT,
      // After the rotation, workers alternate between the old and the new secret.
      (worker) => (newSecret && (answers + worker) % 2 ? { spec: lookupSpec(newSecret, worker), tag: 'new' } : { spec: lookupSpec(oldSecret, worker), tag: 'old' }),
      (worker) => answersAfter >= 4 * IN_FLIGHT || refusals.exhausted(worker),
      (worker, outcome) => {
        refusals.count(worker, outcome);
        answers++;
        if (newSecret) answersAfter++;
        if (answers === IN_FLIGHT * 2) {
          newSecret = fx.titular.keys.rotate(fx.orgId, key.id, fx.adminId).secret;
          rotatedAt = performance.now();
        }
      },
    );
    client.close();

    expect(expectRefusedAfter(results, 'old', rotatedAt)).toBeGreaterThan(IN_FLIGHT / 2);
    const withNew = results.filter((r) => r.tag === 'new');
    expect(withNew.length).toBeGreaterThan(IN_FLIGHT / 2);
    expect(withNew.filter((r) => statusOf(r.outcome) !== 200).map((r) => statusOf(r.outcome))).toEqual([]);
    const ok = results.filter((r) => statusOf(r.outcome) === 200).length;
    expect(countOf(fx.titular.database.sqlite, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'")).toBe(ok);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Another process that takes the database's write lock (BEGIN IMMEDIATE and a write), resolves
 * once it holds it, and commits `holdMs` later — what the server does on every group commit.
 */
function holdWriteLock(file: string, holdMs: number): Promise<{ committed: Promise<boolean> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO settings (key, value) VALUES ('race.probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(Date.now()));
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.stdout.write('committed\\n'); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const committed = new Promise<boolean>((resolve) => child.on('exit', () => resolve(out.includes('committed'))));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) resolve({ committed });
    });
    child.on('exit', (code) => reject(new Error(`writer exited with ${code} before locking`)));
  });
}

/** Every form in which a secret could sit in bytes: the key and its random part, UTF-8, UTF-16LE, hex, base64. */
function needles(secrets: string[]): { label: string; bytes: Buffer }[] {
  return secrets.flatMap((secret) =>
    [secret, secret.slice(8)].flatMap((s) => [
      { label: `${s} utf8`, bytes: Buffer.from(s, 'utf8') },
      { label: `${s} utf16le`, bytes: Buffer.from(s, 'utf16le') },
      { label: `${s} hex`, bytes: Buffer.from(Buffer.from(s).toString('hex')) },
      { label: `${s} base64`, bytes: Buffer.from(Buffer.from(s).toString('base64').replace(/=+$/, '')) },
    ]),
  );
}

function expectNoSecretIn(where: string, bytes: Buffer, secrets: string[]): void {
  for (const needle of needles(secrets)) expect(bytes.includes(needle.bytes), `${where} contains ${needle.label}`).toBe(false);
}

/** The database, its WAL and shared memory: every file of the data directory except the vault's key file. */
function expectNoSecretInDataDir(dataDir: string, secrets: string[]): string[] {
  const files = readdirSync(dataDir).filter((name) => name.startsWith('titular.db'));
  for (const name of files) expectNoSecretIn(name, readFileSync(path.join(dataDir, name)), secrets);
  return files;
}

/** Requests that put a secret where it does not belong; each answer must not echo it. */
function misplacedSecretRequests(secret: string, worker: number): RequestSpec[] {
  const from = loopbackAddress(worker);
  return [
    { path: `/api/v1/${secret}`, headers: bearer(secret), localAddress: from },
    { path: `/api/v1/balance?api_key=${secret}`, localAddress: from },
    { path: `/api/v1/lookup?identifier=${secret}&type=alias`, headers: bearer(secret), localAddress: from },
    { path: `/api/v1/lookup?identifier=${secret}&type=cbu`, headers: bearer(secret), localAddress: from },
    { ...jsonPost('/api/v1/lookup', secret, { identifier: `my key is ${secret}`, type: 'alias' }), localAddress: from },
    { ...jsonPost('/api/v1/lookup', secret, { identifier: DIR.company.cbu, type: 'cbu' }, { 'idempotency-key': secret }), localAddress: from },
    { ...jsonPost('/api/v1/credit/lookup', secret, { tax_id: secret }), localAddress: from },
    { path: '/api/v1/balance', headers: { authorization: secret }, localAddress: from },
    { path: '/api/v1/balance', headers: { authorization: `Basic ${secret}` }, localAddress: from },
    { path: '/api/v1/balance', headers: { authorization: `Bearer ${secret}x` }, localAddress: from },
    { path: `/api/v1/history?q=${secret}`, headers: bearer(secret), localAddress: from },
  ];
}

describe('server process with --log; the CLI revokes and rotates under load; no plaintext key anywhere', () => {
  it('CLI revoke and rotate apply to every request sent after the CLI exits; the db, WAL, shm, log and bodies hold no key', { timeout: 90_000 }, async () => {
    const prepared = prepareDataDir({
      keys: { toRevoke: {}, toRotate: {}, bystander: {}, sandbox: { environment: 'sandbox' }, informes: { product: 'informes', scopes: ['lookup', 'balance'] } },
      credits: { cbu: 100_000, informes: 100 },
      directoryCsv: DIRECTORY_CSV,
    });
    const server = await startServer(['--port', '0', '--data-dir', prepared.dataDir, '--log']);
    const client = new Client(server.url, IN_FLIGHT * 2, { retryStaleSocket: true });
    const { toRevoke, toRotate, bystander, sandbox, informes } = prepared.keys;
    const secrets = [toRevoke.secret, toRotate.secret, bystander.secret, sandbox.secret, informes.secret];
    const bodies: string[] = [];
    // A failing CLI run ends the load at once (the test then reports its stderr).
    const cliRuns: Awaited<ReturnType<typeof runCli>>[] = [];
    const cliFailed = () => cliRuns.some((run) => run.code !== 0);
    try {
      // Revocation by another process, while IN_FLIGHT requests are in flight.
      let revokedAt = Infinity;
      let afterRevoke = 0;
      let revoking: Promise<void> | null = null;
      let answers = 0;
      const revokeRefusals = refusalCounter();
      const revokeRun = await sustainLoad(
        client,
        IN_FLIGHT,
        (worker) => (worker % 4 === 0 ? { spec: lookupSpec(bystander.secret, worker), tag: 'bystander' } : { spec: lookupSpec(toRevoke.secret, worker), tag: 'victim' }),
        (worker) => afterRevoke >= 2 * IN_FLIGHT || revokeRefusals.exhausted(worker) || cliFailed(),
        (worker, outcome) => {
          revokeRefusals.count(worker, outcome);
          if (++answers === IN_FLIGHT && !revoking) {
            revoking = runCli(['keys', 'revoke', toRevoke.id, '--data-dir', prepared.dataDir, '--json']).then((run) => {
              cliRuns.push(run);
              if (run.code === 0) revokedAt = performance.now();
            });
          }
          if (revokedAt !== Infinity) afterRevoke++;
        },
      );
      await revoking;
      expect(cliRuns[0], cliRuns[0]?.stderr).toMatchObject({ code: 0 });
      expect(JSON.parse(cliRuns[0]!.stdout)).toMatchObject({ id: toRevoke.id, status: 'revoked' });
      expect(revokeRun.every((r) => r.outcome.kind === 'answer')).toBe(true);
      expect(expectRefusedAfter(revokeRun, 'victim', revokedAt)).toBeGreaterThan(IN_FLIGHT);
      // The load really ran while the CLI worked: the victim was served before the revocation.
      expect(revokeRun.filter((r) => r.tag === 'victim' && statusOf(r.outcome) === 200).length).toBeGreaterThan(0);
      expect(revokeRun.filter((r) => r.tag === 'bystander' && statusOf(r.outcome) !== 200)).toEqual([]);

      // Rotation by another process: the old secret fails from the next request, the new one works.
      let rotatedAt = Infinity;
      let rotated: string | null = null;
      let rotating: Promise<void> | null = null;
      let afterRotate = 0;
      answers = 0;
      const rotateRefusals = refusalCounter();
      const rotateRun = await sustainLoad(
        client,
        IN_FLIGHT,
        // Other addresses than the revocation run's (their failure budget is spent).
        (worker) => (rotated && worker % 2 ? { spec: lookupSpec(rotated, IN_FLIGHT + worker), tag: 'new' } : { spec: lookupSpec(toRotate.secret, IN_FLIGHT + worker), tag: 'old' }),
        (worker) => afterRotate >= 2 * IN_FLIGHT || rotateRefusals.exhausted(worker) || cliFailed(),
        (worker, outcome) => {
          rotateRefusals.count(worker, outcome);
          if (++answers === IN_FLIGHT && !rotating) {
            rotating = runCli(['keys', 'rotate', toRotate.id, '--data-dir', prepared.dataDir, '--json']).then((run) => {
              cliRuns.push(run);
              if (run.code !== 0) return;
              rotatedAt = performance.now();
              rotated = (JSON.parse(run.stdout) as { key: string }).key;
            });
          }
          if (rotatedAt !== Infinity) afterRotate++;
        },
      );
      await rotating;
      expect(cliRuns[1], cliRuns[1]?.stderr).toMatchObject({ code: 0 });
      expect(JSON.parse(cliRuns[1]!.stdout)).toMatchObject({ id: toRotate.id });
      expect(rotated).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
      secrets.push(rotated!);
      expect(expectRefusedAfter(rotateRun, 'old', rotatedAt)).toBeGreaterThan(IN_FLIGHT / 2);
      const withNew = rotateRun.filter((r) => r.tag === 'new');
      expect(withNew.length).toBeGreaterThan(IN_FLIGHT / 2);
      expect(withNew.filter((r) => statusOf(r.outcome) !== 200).map((r) => statusOf(r.outcome))).toEqual([]);

      // Keys pasted where they do not belong (each from its own address, to see 401s, not 429s).
      const misplaced: Outcome[] = [];
      let worker = 0;
      for (const secret of secrets) {
        for (const spec of misplacedSecretRequests(secret, 1000 + worker++)) misplaced.push(await client.send(spec));
      }
      for (const o of misplaced) {
        expect(o.kind).toBe('answer');
        const answer = o as Extract<Outcome, { kind: 'answer' }>;
        expect(answer.status, answer.text).toBeLessThan(500);
        if (answer.status >= 400) errorBodySchema.strict().parse(JSON.parse(answer.text));
      }

      for (const r of [...revokeRun, ...rotateRun].map((x) => x.outcome).concat(misplaced)) {
        if (r.kind !== 'answer') continue;
        bodies.push(r.text, JSON.stringify(r.headers));
      }
      expect(bodies.length).toBeGreaterThan(8 * IN_FLIGHT);
      expectNoSecretIn('response bodies and headers', Buffer.from(bodies.join('\n')), secrets);

      // At rest while the server runs: the WAL holds the recent writes.
      const files = expectNoSecretInDataDir(prepared.dataDir, secrets);
      expect(files).toEqual(expect.arrayContaining(['titular.db', 'titular.db-wal', 'titular.db-shm']));
    } finally {
      client.close();
      expect(await server.stop('SIGTERM')).toBe(0);
    }
    // The request log: one line per request, and no key in any of them.
    const log = server.output();
    expect(log.split('\n').filter((l) => l.startsWith('GET ') || l.startsWith('POST ')).length).toBeGreaterThan(8 * IN_FLIGHT);
    expectNoSecretIn('server log', Buffer.from(log), secrets);
    // After the checkpoint on shutdown.
    expectNoSecretInDataDir(prepared.dataDir, secrets);
    const db = openDatabaseFile(prepared.dataDir);
    try {
      checkLedgerInvariants(db);
    } finally {
      db.close();
    }
    rmSync(prepared.dataDir, { recursive: true, force: true });
  });

  it('a revoke, rotate or purchase from a second process succeeds while another process is committing', async () => {
    // The server commits lookups continuously; the CLI's transaction must not fail because its
    // read snapshot went stale (SQLITE_BUSY_SNAPSHOT) when a lookup committed in between. Here a
    // writer process holds the write lock, and commits 300 ms later, while the change waits.
    f = await createFixture({ credits: { cbu: 10 } });
    const fx = f;
    const toRevoke = fx.titular.keys.create({ orgId: fx.orgId, ownerUserId: fx.adminId, actorUserId: fx.adminId, product: 'cbu', scopes: ['lookup'], environment: 'live' });
    const toRotate = fx.titular.keys.create({ orgId: fx.orgId, ownerUserId: fx.adminId, actorUserId: fx.adminId, product: 'cbu', scopes: ['lookup'], environment: 'live' });
    const changes: [string, () => unknown][] = [
      ['revoke', () => fx.titular.keys.revoke(fx.orgId, toRevoke.key.id, fx.adminId)],
      ['rotate', () => fx.titular.keys.rotate(fx.orgId, toRotate.key.id, fx.adminId)],
      ['purchase', () => fx.titular.ledger.addPurchase({ orgId: fx.orgId, product: 'cbu', amount: 5, reference: 'INV-RACE', userId: fx.adminId })],
    ];
    for (const [label, change] of changes) {
      const writer = await holdWriteLock(path.join(fx.dataDir, 'titular.db'), 300);
      let error: unknown = null;
      try {
        change();
      } catch (caught) {
        error = caught;
      }
      expect(await writer.committed, `${label}: the writer committed`).toBe(true);
      expect(error === null ? null : String(error), label).toBeNull();
    }
    expect(fx.titular.keys.get(fx.orgId, toRevoke.key.id).status).toBe('revoked');
    expect(fx.balance('cbu')).toBe(15);
  });

  it('a key pasted as the identifier is stored masked; as an Idempotency-Key it is refused (400, not charged)', async () => {
    f = await createFixture({ credits: { cbu: 10, informes: 10 } });
    const secret = f.createKey({ rateLimitPerSecond: 10_000 });
    const informesKey = f.createKey({ product: 'informes', scopes: ['lookup'], rateLimitPerSecond: 10_000 });
    const post = (url: string, key: string, payload: unknown, headers: Record<string, string> = {}) =>
      f!.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

    // Invalid identifiers are lookups (PA006, charged) whose input the history keeps, for support.
    expect((await post('/api/v1/lookup', secret, { identifier: `key ${secret} here`, type: 'alias' })).json().error.code).toBe('PA006');
    expect((await post('/api/v1/lookup', secret, { identifier: secret, type: 'cbu' })).json().error.code).toBe('PA006');
    expect((await post('/api/v1/credit/lookup', informesKey, { tax_id: informesKey })).json().error.code).toBe('PA006');
    // Its random part pasted alone (32 characters of the key alphabet: no identifier is one) keeps
    // only its first four characters, as a key's display prefix shows them.
    const bare = secret.slice('sk_live_'.length);
    expect((await post('/api/v1/lookup', secret, { identifier: bare, type: 'alias' })).json().error.code).toBe('PA006');
    expect((await post('/api/v1/lookup', secret, { identifier: `mi clave: ${bare}.`, type: 'alias' })).json().error.code).toBe('PA006');
    const stored = (f.titular.database.sqlite.prepare('SELECT input_identifier FROM lookups ORDER BY id').all() as { input_identifier: string }[]).map((r) => r.input_identifier);
    expect(stored).toEqual(['key sk_live_*** here', 'sk_live_***', 'sk_live_***', `${bare.slice(0, 4)}***`, `mi clave: ${bare.slice(0, 4)}***.`]);

    const before = f.balance('cbu');
    const refused = await post('/api/v1/lookup', secret, { identifier: DIR.company.cbu, type: 'cbu' }, { 'idempotency-key': `retry-${secret}` });
    expect(refused.statusCode).toBe(400);
    expect(errorBodySchema.strict().parse(refused.json())).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    expect(refused.body).not.toContain(secret);
    expect(f.balance('cbu')).toBe(before);
    expect(countOf(f.titular.database.sqlite, 'SELECT COUNT(*) AS n FROM idempotency_records')).toBe(0);
  });

  it('a key quoted back by an error (an unknown query parameter, a path) is masked in the error body', async () => {
    f = await createFixture();
    const secret = f.createKey();
    const history = await f.app.inject({ url: `/api/v1/history?${secret}=1`, headers: bearer(secret) });
    expect(history.statusCode).toBe(400);
    expect(errorBodySchema.strict().parse(history.json()).error).toEqual({ code: 'INVALID_PARAMETER', message: 'Unknown query parameter: sk_live_***' });
    const path404 = await f.app.inject({ url: `/api/v1/keys/${secret}`, headers: bearer(secret) });
    expect(path404.statusCode).toBe(404);
    for (const body of [history.body, path404.body]) expect(body).not.toContain(secret.slice(8));
  });

  it('a key pasted into a bulk job (its name, a row, a type cell) is stored masked; the database and WAL hold none of it', async () => {
    f = await createFixture({ credits: { cbu: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    const secret = f.createKey();
    const bare = secret.slice('sk_live_'.length);
    const content = ['identifier,type', `${DIR.company.cbu},cbu`, `${secret},alias`, `x ${secret} y,cbu`, `${DIR.company.cbu},${secret}`, `${bare},alias`].join('\n');
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.operatorId, product: 'cbu', name: `lista ${secret}`, content });
    await f.titular.bulk.run(f.orgId, job.id);

    expect(f.titular.bulk.get(f.orgId, job.id).name).toBe('lista sk_live_***');
    const invalid = f.titular.bulk.invalidRows(f.orgId, job.id);
    expect(invalid.map((r) => r.input)).toEqual(['sk_live_***', 'x sk_live_*** y', DIR.company.cbu, `${bare.slice(0, 4)}***`]);
    expect(invalid[2]!.message).toContain('sk_live_***');
    expect([...f.titular.bulk.exportCsv(f.orgId, job.id)].join('')).not.toContain(secret.slice(8));
    const files = readdirSync(f.dataDir).filter((n) => n.startsWith('titular.db'));
    expect(files).toContain('titular.db-wal');
    for (const n of files) expect(readFileSync(path.join(f.dataDir, n)).includes(Buffer.from(secret.slice(8))), n).toBe(false);
  });

  it('control: the scan finds a key written into the database, and one in the log', async () => {
    f = await createFixture();
    const secret = f.createKey();
    f.titular.database.sqlite.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('planted', `x${secret.slice(8)}x`);
    const found = readdirSync(f.dataDir)
      .filter((n) => n.startsWith('titular.db'))
      .some((n) => readFileSync(path.join(f!.dataDir, n)).includes(Buffer.from(secret.slice(8))));
    expect(found).toBe(true);
    expect(() => expectNoSecretIn('log', Buffer.from(`GET /x ${Buffer.from(secret).toString('base64')}`), [secret])).toThrow();
  });
});

// ---------------------------------------------------------------------------------------------

/** One raw HTTP/1.x exchange; returns the status and body of the answer. */
function rawRequest(port: number, text: string, localAddress?: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      raw += d;
      const headEnd = raw.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(raw)?.[1];
      if (headEnd >= 0 && length !== undefined && raw.length >= headEnd + 4 + Number(length)) {
        socket.destroy();
        resolve({ status: Number(raw.split(' ')[1]), headers: raw.slice(0, headEnd), body: Buffer.from(raw.slice(headEnd + 4), 'latin1').toString('utf8') });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without a complete answer: ${raw.slice(0, 200)}`)));
    socket.write(text, 'latin1');
  });
}

describe('Host header (DNS-rebinding guard), over a real socket', () => {
  it('loopback names are served; look-alikes, foreign names, a missing or doubled Host and absolute-form targets are 403', async () => {
    f = await createFixture({ credits: { cbu: 1000 } });
    f.importDirectory(DIRECTORY_CSV);
    const secret = f.createKey({ rateLimitPerSecond: 10_000 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (f.app.server.address() as AddressInfo).port;
    const target = `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`;
    const request = (hostLines: string[], version = 'HTTP/1.1', requestTarget = target) =>
      [`GET ${requestTarget} ${version}`, ...hostLines, `Authorization: Bearer ${secret}`, 'Connection: close', '', ''].join('\r\n');

    const allowed: [string, string][] = [
      ['127.0.0.1', request(['Host: 127.0.0.1'])],
      ['127.0.0.1:port', request([`Host: 127.0.0.1:${port}`])],
      ['localhost', request(['Host: localhost'])],
      ['LOCALHOST (case)', request(['Host: LOCALHOST:8787'])],
      ['[::1]', request(['Host: [::1]'])],
      ['[::1]:port', request([`Host: [::1]:${port}`])],
      ['127.1.2.3', request(['Host: 127.1.2.3'])],
      ['absolute-form to loopback', request(['Host: 127.0.0.1'], 'HTTP/1.1', `http://localhost:${port}${target}`)],
    ];
    const refused: [string, string][] = [
      ['foreign name', request(['Host: evil.example'])],
      ['127.0.0.1.evil.example', request(['Host: 127.0.0.1.evil.example'])],
      ['localhost.evil.example', request(['Host: localhost.evil.example'])],
      ['localhost:80@evil', request(['Host: localhost:80@evil'])],
      ['evil@localhost-ish', request(['Host: evil.example@localhost'])],
      ['[::1].evil', request(['Host: [::1].evil.example'])],
      ['[::1]evil', request(['Host: [::1]evil'])],
      ['localhost. (trailing dot)', request(['Host: localhost.'])],
      ['127.1 (short form)', request(['Host: 127.1'])],
      ['decimal 2130706433', request(['Host: 2130706433'])],
      ['0.0.0.0', request(['Host: 0.0.0.0'])],
      ['empty Host', request(['Host: '])],
      ['port only', request(['Host: :8787'])],
      ['missing Host, HTTP/1.0', request([], 'HTTP/1.0')],
      ['missing Host, HTTP/1.1', request([])],
      ['two Hosts, foreign first', request(['Host: evil.example', 'Host: 127.0.0.1'])],
      ['two Hosts, loopback first', request(['Host: 127.0.0.1', 'Host: evil.example'])],
      ['absolute-form to a foreign name', request(['Host: 127.0.0.1'], 'HTTP/1.1', `http://evil.example${target}`)],
      ['absolute-form with userinfo', request(['Host: 127.0.0.1'], 'HTTP/1.1', `http://127.0.0.1@evil.example${target}`)],
    ];
    for (const [label, text] of allowed) {
      const res = await rawRequest(port, text);
      expect(res.status, `${label}: ${res.body}`).toBe(200);
    }
    for (const [label, text] of refused) {
      const res = await rawRequest(port, text);
      expect(res.status, `${label}: ${res.body}`).toBe(403);
      const body = errorBodySchema.strict().parse(JSON.parse(res.body));
      expect(body.error.code).toBe('FORBIDDEN');
      expect(body).not.toHaveProperty('credits_remaining');
      expect(res.headers).toContain(`request-id: ${body.request_id}`);
    }
    // Only the allowed requests were lookups, and only they were charged.
    expect(f.balance('cbu')).toBe(1000 - allowed.length);
    checkLedgerInvariants(f.titular.database.sqlite);
  });
});

describe('IP whitelist', () => {
  it('refuses addresses outside the list (inject and real sockets); X-Forwarded-For changes nothing; nothing charged', async () => {
    f = await createFixture({ credits: { cbu: 1000 } });
    f.importDirectory(DIRECTORY_CSV);
    const lan = { secret: f.createKey({ ipWhitelist: ['10.1.2.0/24', '2001:db8::/32'], rateLimitPerSecond: 10_000 }) };
    const onlyTwo = { secret: f.createKey({ ipWhitelist: ['127.0.0.2'], rateLimitPerSecond: 10_000 }) };
    const url = `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`;
    const fx = f;
    const inject = (secret: string, remoteAddress: string, headers: Record<string, string> = {}) =>
      fx.app.inject({ method: 'GET', url, headers: { ...bearer(secret), ...headers }, remoteAddress });

    for (const address of ['10.1.2.9', '::ffff:10.1.2.200', '2001:db8::7']) {
      expect((await inject(lan.secret, address)).statusCode, address).toBe(200);
    }
    for (const address of ['10.1.3.9', '10.1.2', '::ffff:10.1.3.9', '127.0.0.1', '::1', '192.168.1.10', '2001:db9::1', '0.0.0.0']) {
      const res = await inject(lan.secret, address);
      expect(res.statusCode, address).toBe(403);
      expect(errorBodySchema.strict().parse(res.json())).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }
    // Spoofed forwarding headers are not trusted (no proxy is configured).
    for (const header of ['x-forwarded-for', 'x-real-ip', 'forwarded']) {
      const res = await inject(lan.secret, '127.0.0.1', { [header]: header === 'forwarded' ? 'for=10.1.2.9' : '10.1.2.9' });
      expect(res.statusCode, header).toBe(403);
    }

    // Over real sockets: the peer address the kernel reports is what counts.
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new Client(`http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`, 4, { retryStaleSocket: true });
    try {
      const from = async (secret: string, localAddress: string) => client.send({ path: url, headers: { ...bearer(secret), 'x-forwarded-for': '127.0.0.2' }, localAddress });
      expect(statusOf(await from(onlyTwo.secret, '127.0.0.2'))).toBe(200);
      expectErrorAnswer(await from(onlyTwo.secret, '127.0.0.3'), 403, 'FORBIDDEN');
      expectErrorAnswer(await from(onlyTwo.secret, '127.0.0.1'), 403, 'FORBIDDEN');
      expectErrorAnswer(await from(lan.secret, '127.0.0.2'), 403, 'FORBIDDEN');
    } finally {
      client.close();
    }
    // Four 200s in all; the refusals took nothing.
    expect(f.balance('cbu')).toBe(1000 - 4);
    checkLedgerInvariants(f.titular.database.sqlite);
  });
});

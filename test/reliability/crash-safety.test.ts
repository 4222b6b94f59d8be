// Crash safety: 20 rounds of load against the server process, each ended by SIGKILL at a random
// moment (a seeded number of answers into the load, with ~24 requests in flight), then a restart on
// the same data directory. After every restart:
//   - the ledger and the history agree (test/support/invariants.ts: I1–I8);
//   - every answer a client received is committed: its request_id is a history row, charged;
//   - every charged request had a unique identifier, so each one is accounted for exactly: it has
//     0 or 1 history rows (1 if it was answered), never 2, and the consumption count equals the
//     number of requests that committed — no phantom and no doubled charge;
//   - every interrupted request that carried an Idempotency-Key is retried on the new process: if
//     it had committed, the retry replays the stored answer (Idempotent-Replayed, same body, no new
//     charge); if not, it runs once. The consumption grows by exactly the fresh retries.
// Rounds alternate the durability setting: synchronous NORMAL, and FULL every fourth round
// (`TITULAR_SYNCHRONOUS=FULL`).
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../support/processes';
import { checkLedgerInvariants } from '../support/invariants';
import { SANDBOX_ACCOUNTS } from '../../src/main/core/resolvers/sandbox-data';
import { answered, bearer, Client, countOf, generatedDirectory, jsonPost, openDatabaseFile, prepareDataDir, prng, seedFor, type Outcome, type RequestSpec } from './harness';

const ROUNDS = 20;
const WORKERS = 24;
/** The kill lands after between MIN_ANSWERS and MIN_ANSWERS + SPREAD answers of the round. */
const MIN_ANSWERS = 10;
const SPREAD = 500;
// Hits take a fresh account each; about a third of the load, so this is more than the rounds can use.
const DIRECTORY_SIZE = 6000;

type Kind = 'hit' | 'miss' | 'invalid' | 'sandbox' | 'balance';
const EXPECTED_STATUS: Record<Kind, number> = { hit: 200, miss: 404, invalid: 400, sandbox: 200, balance: 200 };

interface Sent {
  round: number;
  kind: Kind;
  spec: RequestSpec;
  /** The history's input_identifier of this request: unique per request, for every charged kind. */
  stored: string | null;
  idempotencyKey: string | null;
  outcome: Outcome;
}

interface LookupRow {
  input_identifier: string;
  request_id: string;
  credit_consumed: number;
  http_status: number;
  environment: string;
}

const seed = seedFor('crash-safety', Date.now() % 1_000_000);
const directory = generatedDirectory(DIRECTORY_SIZE);
const prepared = prepareDataDir({
  keys: { live: {}, sandbox: { environment: 'sandbox' } },
  credits: { cbu: 1_000_000 },
  directoryCsv: directory.csv,
});
afterAll(() => rmSync(prepared.dataDir, { recursive: true, force: true }));

const synchronousOf = (round: number) => (round % 4 === 3 ? 'FULL' : 'NORMAL');
const start = (round: number) =>
  startServer(['--port', '0', '--data-dir', prepared.dataDir], { TITULAR_SYNCHRONOUS: synchronousOf(round) });

describe(`crash safety: ${ROUNDS} × SIGKILL under load, restart, check, retry`, () => {
  it('ledger and history agree after every crash; answered = committed; idempotent retries never charge twice', { timeout: 150_000 }, async () => {
    const { live, sandbox } = prepared.keys;
    const all: Sent[] = [];
    let nextAccount = 0;
    const totals = { sent: 0, answered: 0, unanswered: 0, committedUnanswered: 0, replayed: 0, fresh: 0 };

    let server: ServerProcess = await start(0);
    for (let round = 0; round < ROUNDS; round++) {
      const random = prng(seed * 131 + round);
      const killAfter = MIN_ANSWERS + Math.floor(random() * SPREAD);
      let seq = 0;

      /** The next request of the load: the mix of every outcome that matters for credits. */
      const nextRequest = (): Omit<Sent, 'outcome'> => {
        const n = seq++;
        const roll = random();
        const withKey = random() < 0.4;
        const idempotencyKey = withKey ? `idem-r${round}-n${n}` : null;
        const extra: Record<string, string> = idempotencyKey ? { 'idempotency-key': idempotencyKey } : {};
        const viaGet = random() < (withKey ? 0.2 : 0.5);
        const lookup = (identifier: string, type: string): RequestSpec =>
          viaGet
            ? { path: `/api/v1/lookup?identifier=${encodeURIComponent(identifier)}&type=${type}`, headers: { ...bearer(live.secret), ...extra } }
            : jsonPost('/api/v1/lookup', live.secret, { identifier, type }, extra);
        if (roll < 0.35 && nextAccount < directory.cbus.length) {
          const cbu = directory.cbus[nextAccount++]!;
          return { round, kind: 'hit', spec: lookup(cbu, 'cbu'), stored: cbu, idempotencyKey };
        }
        if (roll < 0.6) {
          const alias = `nadie.r${round}.n${n}`;
          return { round, kind: 'miss', spec: lookup(alias, 'alias'), stored: alias, idempotencyKey };
        }
        if (roll < 0.85) {
          const bad = `mal_r${round}_n${n}`;
          return { round, kind: 'invalid', spec: lookup(bad, 'alias'), stored: bad, idempotencyKey };
        }
        if (roll < 0.95) {
          const account = SANDBOX_ACCOUNTS[n % SANDBOX_ACCOUNTS.length]!;
          return { round, kind: 'sandbox', spec: { path: `/api/v1/lookup?identifier=${account.account.number}&type=cbu`, headers: bearer(sandbox.secret) }, stored: null, idempotencyKey: null };
        }
        return { round, kind: 'balance', spec: { path: '/api/v1/balance', headers: bearer(live.secret) }, stored: null, idempotencyKey: null };
      };

      // The load: WORKERS clients in a loop, until the server dies under them.
      const client = new Client(server.url, WORKERS);
      const sent: Sent[] = [];
      let answers = 0;
      let killed: Promise<number | null> | null = null;
      const worker = async () => {
        while (!killed) {
          const request = nextRequest();
          const outcome = await client.send(request.spec);
          sent.push({ ...request, outcome });
          if (outcome.kind !== 'answer') return;
          if (++answers === killAfter) killed = server.stop('SIGKILL');
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      await killed;
      client.close();
      all.push(...sent);

      // Restart on the same data directory (the next round's durability setting).
      server = await start(round + 1);
      const retryClient = new Client(server.url, WORKERS, { retryStaleSocket: true });
      const db = openDatabaseFile(prepared.dataDir);
      try {
        checkLedgerInvariants(db);
        const rows = db.prepare('SELECT input_identifier, request_id, credit_consumed, http_status, environment FROM lookups').all() as LookupRow[];
        const byIdentifier = new Map<string, LookupRow[]>();
        for (const row of rows) byIdentifier.set(row.input_identifier, [...(byIdentifier.get(row.input_identifier) ?? []), row]);
        const byRequestId = new Map(rows.map((r) => [r.request_id, r]));
        const rowsOf = (s: Sent) => byIdentifier.get(s.stored!) ?? [];

        const summary = { sent: sent.length, answered: 0, unanswered: 0, committedUnanswered: 0, replayed: 0, fresh: 0 };
        const toRetry: Sent[] = [];
        for (const s of sent) {
          if (s.outcome.kind === 'answer') {
            summary.answered++;
            const answer = s.outcome;
            expect(answer.status, `${s.kind} ${answer.text}`).toBe(EXPECTED_STATUS[s.kind]);
            if (s.kind === 'balance') continue;
            // An answer is sent only after its transaction committed: it survived the crash.
            const row = byRequestId.get(answer.headers['request-id'] as string);
            expect(row, `answered ${s.kind} ${s.stored} is committed`).toBeDefined();
            expect(row!.http_status).toBe(answer.status);
            expect(row!.credit_consumed).toBe(s.kind === 'sandbox' ? 0 : 1);
            if (s.stored) expect(rowsOf(s)).toHaveLength(1);
          } else {
            summary.unanswered++;
            if (!s.stored) continue;
            const found = rowsOf(s);
            expect(found.length, `interrupted ${s.kind} ${s.stored} has at most one history row`).toBeLessThanOrEqual(1);
            if (found.length === 1) {
              summary.committedUnanswered++;
              expect(found[0]!.credit_consumed).toBe(1);
            }
            if (s.idempotencyKey) toRetry.push(s);
          }
        }

        // Every charge belongs to exactly one request we sent (all charged kinds have unique identifiers).
        const consumedBefore = countOf(db, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'");
        const committedRequests = all.filter((s) => s.stored && rowsOf(s).length === 1).length;
        expect(consumedBefore).toBe(committedRequests);

        // Retry every interrupted request that carried an Idempotency-Key, on the new process.
        const findRecord = db.prepare('SELECT status_code, response_body FROM idempotency_records WHERE api_key_id = ? AND idempotency_key = ?');
        const retries = await Promise.all(
          toRetry.map(async (s) => {
            const record = findRecord.get(live.id, s.idempotencyKey) as { status_code: number; response_body: string } | undefined;
            // The idempotency record commits with the history row, or neither does.
            expect(record !== undefined, `${s.idempotencyKey}: record iff committed`).toBe(rowsOf(s).length === 1);
            return { s, record, answer: answered(await retryClient.send(s.spec)) };
          }),
        );
        for (const { s, record, answer } of retries) {
          if (record) {
            summary.replayed++;
            expect(answer.headers['idempotent-replayed'], `${s.idempotencyKey} replays`).toBe('true');
            expect(answer.status).toBe(record.status_code);
            expect(JSON.parse(answer.text)).toEqual(JSON.parse(record.response_body));
            expect(answer.headers['request-id']).toBe(rowsOf(s)[0]!.request_id);
          } else {
            summary.fresh++;
            expect(answer.headers['idempotent-replayed']).toBeUndefined();
            expect(answer.status, answer.text).toBe(EXPECTED_STATUS[s.kind]);
          }
        }
        // A few answered idempotent requests, retried: the very same answer, not charged again.
        const answeredWithKey = sent.filter((s) => s.idempotencyKey && s.outcome.kind === 'answer').slice(0, 5);
        for (const s of answeredWithKey) {
          const again = answered(await retryClient.send(s.spec));
          expect(again.headers['idempotent-replayed']).toBe('true');
          expect(again.text).toBe((s.outcome as Extract<Outcome, { kind: 'answer' }>).text);
        }

        const consumedAfter = countOf(db, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'");
        expect(consumedAfter - consumedBefore, 'only fresh retries are charged').toBe(summary.fresh);
        for (const { s } of retries) expect(db.prepare('SELECT COUNT(*) AS n FROM lookups WHERE input_identifier = ?').get(s.stored), `${s.stored} once`).toEqual({ n: 1 });
        checkLedgerInvariants(db);

        for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += summary[k];
        process.stdout.write(
          `[crash-safety] round ${String(round + 1).padStart(2)} ${synchronousOf(round).padEnd(6)} kill after ${String(killAfter).padStart(3)} answers: ` +
            `${summary.sent} sent, ${summary.unanswered} interrupted (${summary.committedUnanswered} had committed), ` +
            `idempotent retries ${summary.replayed} replayed + ${summary.fresh} fresh\n`,
        );
      } finally {
        db.close();
        retryClient.close();
      }
    }

    expect(await server.stop('SIGTERM')).toBe(0);
    const db = openDatabaseFile(prepared.dataDir);
    try {
      const [cbu] = checkLedgerInvariants(db).filter((t) => t.product === 'cbu');
      expect(cbu!.totalConsumed).toBe(countOf(db, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live' AND credit_consumed = 1"));
      expect(cbu!.balance).toBe(1_000_000 - cbu!.totalConsumed);
    } finally {
      db.close();
    }
    process.stdout.write(`[crash-safety] totals: ${JSON.stringify(totals)}\n`);
    // The harness really interrupted requests, and really exercised retries of interrupted ones.
    expect(totals.unanswered).toBeGreaterThan(0);
    expect(totals.replayed + totals.fresh).toBeGreaterThan(0);
  });
});

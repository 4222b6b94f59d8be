// 1,000 concurrent lookups against 100 credits, on the server as a process over real sockets:
// exactly 100 are answered 200 and charged, the other 900 get 402 with the documented body and
// credits_remaining 0, the ledger and the history agree, and the balance ends at 0 — never below.
// Then 1,000 concurrent sandbox lookups on the empty wallet: all 200, none charged.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../support/processes';
import { checkLedgerInvariants } from '../support/invariants';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { lookupResultSchema } from '../../src/shared/api/lookup';
import { historyResponseSchema } from '../../src/shared/api/history';
import { answered, bearer, Client, countOf, expectErrorAnswer, jsonPost, openDatabaseFile, prepareDataDir, type Outcome, type RequestSpec } from './harness';

const N = 1000;
const CREDITS = 100;
const HITS = [DIR.individual.cbu, DIR.company.cbu, DIR.joint.cbu, DIR.wallet.cbu];
const SANDBOX_HITS = ['0110001300000012345674', '0070999000000076543218', '0000003110000123456781', '0720210200000456789014'];

let prepared: ReturnType<typeof prepareDataDir<'live' | 'sandbox'>>;
let server: ServerProcess;
let client: Client;

beforeAll(async () => {
  prepared = prepareDataDir({
    keys: { live: {}, sandbox: { environment: 'sandbox' } },
    credits: { cbu: CREDITS },
    directoryCsv: DIRECTORY_CSV,
  });
  server = await startServer(['--port', '0', '--data-dir', prepared.dataDir]);
  client = new Client(server.url, N, { retryStaleSocket: true });
}, 60_000);

afterAll(async () => {
  client?.close();
  if (server) await server.stop('SIGTERM');
  rmSync(prepared.dataDir, { recursive: true, force: true });
});

/** The i-th lookup: GET and POST alternate, over the directory's accounts. */
function lookupRequest(i: number, secret: string, cbus: readonly string[]): RequestSpec {
  const cbu = cbus[i % cbus.length]!;
  return i % 2 === 0
    ? { path: `/api/v1/lookup?identifier=${cbu}&type=cbu`, headers: bearer(secret) }
    : jsonPost('/api/v1/lookup', secret, { identifier: cbu, type: 'cbu' });
}

/** Opens N keep-alive connections with free balance reads, so that the lookups below start together. */
async function warmUp(secret: string): Promise<void> {
  const warm = await Promise.all(Array.from({ length: N }, () => client.send({ path: '/api/v1/balance', headers: bearer(secret) })));
  expect(warm.filter((w) => w.kind !== 'answer' || w.status !== 200)).toEqual([]);
  const free = Object.values(client.agent.freeSockets).reduce((sum, list) => sum + (list?.length ?? 0), 0);
  // Up to N connections were opened at once; on a loaded machine a few may be closed as idle again already.
  expect(free).toBeGreaterThan(N / 2);
}

describe('1,000 concurrent lookups, 100 credits, server process over real sockets', () => {
  it('live: exactly 100 × 200 (charged), 900 × 402 INSUFFICIENT_CREDITS with credits_remaining 0, balance 0', async () => {
    const { live } = prepared.keys;
    await warmUp(live.secret);

    // All 1,000 are handed to the agent in one synchronous loop: each is written on its own socket.
    const outcomes: Outcome[] = await Promise.all(Array.from({ length: N }, (_, i) => client.send(lookupRequest(i, live.secret, HITS))));
    const answers = outcomes.map(answered);
    // The lookups went out on already-open connections of their own: all 1,000 were in flight at once.
    // (A connection the server closed as idle while the warm-up ran on a loaded machine is reopened.)
    const reused = answers.filter((a) => a.reusedSocket).length;
    process.stdout.write(`[concurrency-1000] ${reused} of ${N} lookups on warm connections\n`);
    expect(reused).toBeGreaterThan(N / 2);
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 402);
    expect(ok).toHaveLength(CREDITS);
    expect(refused).toHaveLength(N - CREDITS);

    answers.forEach((a, i) => {
      if (a.status !== 200) return;
      const body = lookupResultSchema.strict().parse(JSON.parse(a.text));
      // Each answer belongs to its own request (no answer crossed between connections).
      expect(body.data.account.number).toBe(HITS[i % HITS.length]);
      expect(a.headers['request-id']).toBe(body.request_id);
    });
    for (const a of refused) {
      const body = expectErrorAnswer(a, 402, 'INSUFFICIENT_CREDITS');
      expect(body.credits_remaining).toBe(0);
    }
    // The charged answers report every balance from 99 down to 0 exactly once.
    const remaining = ok.map((a) => (JSON.parse(a.text) as { credits_remaining: number }).credits_remaining).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: CREDITS }, (_, i) => i));
    expect(new Set(answers.map((a) => a.headers['request-id'])).size).toBe(N);

    // Through the API: balance 0, 100 live history entries, every one charged and successful.
    const balance = answered(await client.send({ path: '/api/v1/balance', headers: bearer(live.secret) }));
    const cbu = (JSON.parse(balance.text) as { balances: { productSlug: string; balance: number; totalConsumed: number }[] }).balances.find((b) => b.productSlug === 'cbu');
    expect(cbu).toMatchObject({ balance: 0, totalConsumed: CREDITS });
    const history = historyResponseSchema.parse(JSON.parse(answered(await client.send({ path: '/api/v1/history?per_page=50', headers: bearer(live.secret) })).text));
    expect(history.pagination.total).toBe(CREDITS);
    expect(history.data.every((e) => e.creditConsumed === 1 && e.status === 'SUCCESS' && e.source === 'API')).toBe(true);

    // And in the database itself (read while the server runs: WAL readers see every commit).
    const db = openDatabaseFile(prepared.dataDir);
    try {
      expect(countOf(db, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'")).toBe(CREDITS);
      expect(countOf(db, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live' AND credit_consumed = 1 AND http_status = 200")).toBe(CREDITS);
      expect(countOf(db, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live'")).toBe(CREDITS);
      // Every 200 the clients saw is a committed, charged history entry with that request id.
      const committed = new Set((db.prepare("SELECT request_id FROM lookups WHERE environment = 'live'").all() as { request_id: string }[]).map((r) => r.request_id));
      for (const a of ok) expect(committed.has(a.headers['request-id'] as string)).toBe(true);
      const [totals] = checkLedgerInvariants(db).filter((t) => t.product === 'cbu');
      expect(totals).toMatchObject({ balance: 0, totalPurchased: CREDITS, totalConsumed: CREDITS });
    } finally {
      db.close();
    }
  });

  it('sandbox on the empty wallet: 1,000 concurrent lookups all 200, nothing charged, 1,000 sandbox history entries', async () => {
    const { sandbox } = prepared.keys;
    await warmUp(sandbox.secret);
    const outcomes = await Promise.all(Array.from({ length: N }, (_, i) => client.send(lookupRequest(i, sandbox.secret, SANDBOX_HITS))));
    const answers = outcomes.map(answered);
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    answers.forEach((a, i) => {
      const body = lookupResultSchema.strict().parse(JSON.parse(a.text));
      expect(body.data.account.number).toBe(SANDBOX_HITS[i % SANDBOX_HITS.length]);
      expect(body.credits_remaining).toBe(0);
    });
    // Most of them went out on warm connections: they really were in flight together.
    expect(answers.filter((a) => a.reusedSocket).length).toBeGreaterThan(N / 2);

    const history = historyResponseSchema.parse(JSON.parse(answered(await client.send({ path: '/api/v1/history', headers: bearer(sandbox.secret) })).text));
    expect(history.pagination.total).toBe(N);
    expect(history.data.every((e) => e.creditConsumed === 0)).toBe(true);

    // Stop gracefully (exit 0) and check the closed database.
    client.close();
    expect(await server.stop('SIGTERM')).toBe(0);
    const db = openDatabaseFile(prepared.dataDir);
    try {
      expect(countOf(db, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'sandbox' AND credit_consumed = 0")).toBe(N);
      expect(countOf(db, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'")).toBe(CREDITS);
      const [totals] = checkLedgerInvariants(db).filter((t) => t.product === 'cbu');
      expect(totals).toMatchObject({ balance: 0, totalConsumed: CREDITS });
    } finally {
      db.close();
    }
  });
});

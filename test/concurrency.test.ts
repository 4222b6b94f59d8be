// N parallel lookups against M < N credits take exactly M credits and the balance never goes below
// zero (decisions: "The balance can never go below zero, whatever the concurrency"), through
// Fastify's inject and over a real socket; a purchase landing mid-flight is counted exactly once;
// parallel retries with one Idempotency-Key are charged once.
import { afterEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from './support/directory-data';
import { importCreditRecords } from './support/credit-data';
import { checkLedgerInvariants } from './support/invariants';
import { openTitular } from '../src/main/core/titular';
import { buildHttpApi } from '../src/main/core/http/server';
import { headlessKeyProvider } from '../src/main/headless/config';

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** success, PA006, PA011 in turn: every outcome that consumes. */
const MIXED = [
  { query: `identifier=${DIR.individual.cbu}&type=cbu`, status: 200 },
  { query: `identifier=${breakCheckDigit(DIR.company.cbu)}&type=cbu`, status: 400 },
  { query: `identifier=${DIR.missing.cbu}&type=cbu`, status: 404 },
];

const count = (fx: Fixture, sql: string) => (fx.titular.database.sqlite.prepare(sql).get() as { n: number }).n;

/** Charged answers report every balance from M-1 down to 0 exactly once. */
function expectRemainingIsAPermutation(remaining: number[], m: number) {
  expect([...remaining].sort((a, b) => a - b)).toEqual(Array.from({ length: m }, (_, i) => i));
}

describe('parallel lookups against fewer credits', () => {
  it('inject: 300 mixed lookups (200/PA006/PA011) against 40 credits → exactly 40 charged, 260 × 402, balance 0', async () => {
    const N = 300;
    const M = 40;
    f = await createFixture({ credits: { cbu: M } });
    f.importDirectory(DIRECTORY_CSV);
    const key = f.createKey({ rateLimitPerSecond: 10_000 });
    const fx = f;

    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) => fx.app.inject({ method: 'GET', url: `/api/v1/lookup?${MIXED[i % 3]!.query}`, headers: auth(key) })),
    );

    const charged = responses.filter((r) => r.statusCode !== 402);
    const refused = responses.filter((r) => r.statusCode === 402);
    expect(charged).toHaveLength(M);
    expect(refused).toHaveLength(N - M);
    for (const r of charged) {
      expect([200, 400, 404]).toContain(r.statusCode);
      expect(r.json().credits_remaining).toBeGreaterThanOrEqual(0);
    }
    for (const r of refused) expect(r.json()).toMatchObject({ error: { code: 'INSUFFICIENT_CREDITS' }, credits_remaining: 0 });
    // Each answered status matches its request's outcome (no answer mixed up between requests).
    responses.forEach((r, i) => {
      if (r.statusCode !== 402) expect(r.statusCode).toBe(MIXED[i % 3]!.status);
    });
    expectRemainingIsAPermutation(
      charged.map((r) => r.json().credits_remaining as number),
      M,
    );

    expect(fx.balance('cbu')).toBe(0);
    expect(count(fx, "SELECT COUNT(*) AS n FROM lookups WHERE environment = 'live'")).toBe(M);
    expect(count(fx, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'")).toBe(M);
    const [cbu] = checkLedgerInvariants(fx.titular.database.sqlite).filter((t) => t.product === 'cbu');
    expect(cbu).toMatchObject({ balance: 0, totalPurchased: M, totalConsumed: M });
  });

  it('real socket: 200 concurrent fetches against 50 credits → exactly 50 non-402 answers', async () => {
    const N = 200;
    const M = 50;
    f = await createFixture({ credits: { cbu: M } });
    f.importDirectory(DIRECTORY_CSV);
    const key = f.createKey({ rateLimitPerSecond: 10_000 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = f.app.server.address() as AddressInfo;
    // Open the 200 keep-alive connections first (free balance reads), so that the lookups below
    // arrive together on already-connected sockets and really race for the last credits.
    const warmups = await Promise.all(
      Array.from({ length: N }, () => fetch(`http://127.0.0.1:${port}/api/v1/balance`, { headers: auth(key) }).then((r) => r.text().then(() => r.status))),
    );
    expect(warmups.every((s) => s === 200)).toBe(true);

    const answers = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/lookup?${MIXED[i % 3]!.query}`, { headers: auth(key) });
        return { status: res.status, body: (await res.json()) as { credits_remaining?: number; request_id: string }, requestId: res.headers.get('request-id') };
      }),
    );

    const charged = answers.filter((a) => a.status !== 402);
    expect(charged).toHaveLength(M);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(N - M);
    expectRemainingIsAPermutation(
      charged.map((a) => a.body.credits_remaining!),
      M,
    );
    for (const a of answers) expect(a.body.request_id).toBe(a.requestId);
    expect(new Set(answers.map((a) => a.body.request_id)).size).toBe(N);

    expect(f.balance('cbu')).toBe(0);
    expect(count(f, 'SELECT COUNT(*) AS n FROM lookups')).toBe(M);
    checkLedgerInvariants(f.titular.database.sqlite);
  });

  it('a purchase made while lookups are in flight is counted exactly once', async () => {
    const M = 10;
    const PURCHASE = 15;
    f = await createFixture({ credits: { cbu: M } });
    f.importDirectory(DIRECTORY_CSV);
    const key = f.createKey({ rateLimitPerSecond: 10_000 });
    const fx = f;

    // 200 lookups fired in waves of 10 per event-loop turn; the purchase (and a retry of it with
    // the same reference) lands in the middle, between group commits.
    const inFlight: Promise<{ statusCode: number; json: () => { credits_remaining?: number } }>[] = [];
    let purchases: ReturnType<typeof fx.titular.ledger.addPurchase>[] = [];
    let settled = 0;
    let settledAtPurchase = -1;
    for (let wave = 0; wave < 20; wave++) {
      for (let i = 0; i < 10; i++) {
        const request = fx.app.inject({ method: 'GET', url: `/api/v1/lookup?${MIXED[(wave + i) % 3]!.query}`, headers: auth(key) });
        void request.then(() => settled++);
        inFlight.push(request);
      }
      if (wave === 10) {
        settledAtPurchase = settled;
        purchases = [
          fx.titular.ledger.addPurchase({ orgId: fx.orgId, product: 'cbu', amount: PURCHASE, reference: 'INV-0001', userId: fx.adminId }),
          fx.titular.ledger.addPurchase({ orgId: fx.orgId, product: 'cbu', amount: PURCHASE, reference: 'INV-0001', userId: fx.adminId }),
        ];
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const responses = await Promise.all(inFlight);
    // The purchase really landed mid-flight: some lookups had been answered, others not yet.
    expect(settledAtPurchase).toBeGreaterThan(0);
    expect(settledAtPurchase).toBeLessThan(responses.length);
    expect(purchases[0]!.added).toBe(true);
    expect(purchases[1]).toMatchObject({ added: false, existingId: purchases[0]!.id });

    let charged = responses.filter((r) => r.statusCode !== 402).length;
    // Whatever credits remain are still spendable, one by one, and then no more.
    for (let guard = 0; guard < 100; guard++) {
      const res = await fx.app.inject({ method: 'GET', url: `/api/v1/lookup?${MIXED[0]!.query}`, headers: auth(key) });
      if (res.statusCode === 402) break;
      expect(res.statusCode).toBe(200);
      charged++;
    }
    expect(charged).toBe(M + PURCHASE);
    expect(fx.balance('cbu')).toBe(0);
    expect(count(fx, "SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'purchase' AND reference = 'INV-0001'")).toBe(1);
    const [cbu] = checkLedgerInvariants(fx.titular.database.sqlite).filter((t) => t.product === 'cbu');
    expect(cbu).toMatchObject({ balance: 0, totalPurchased: M + PURCHASE, totalConsumed: M + PURCHASE });
  });

  it('50 parallel retries with one Idempotency-Key are charged once and all get the first answer', async () => {
    f = await createFixture({ credits: { cbu: 10 } });
    f.importDirectory(DIRECTORY_CSV);
    const key = f.createKey({ rateLimitPerSecond: 10_000 });
    const fx = f;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        fx.app.inject({
          method: 'POST',
          url: '/api/v1/lookup',
          headers: { ...auth(key), 'content-type': 'application/json', 'idempotency-key': 'retry-me-0001' },
          payload: JSON.stringify({ identifier: DIR.company.cbu, type: 'cbu' }),
        }),
      ),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(responses[0]!.json().credits_remaining).toBe(9);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
    expect(fx.balance('cbu')).toBe(9);
    expect(count(fx, 'SELECT COUNT(*) AS n FROM lookups')).toBe(1);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });

  it('parallel lookups on two products and a sandbox key stay in their own wallets', async () => {
    f = await createFixture({ credits: { cbu: 7, informes: 3 } });
    f.importDirectory(DIRECTORY_CSV);
    importCreditRecords(f);
    const fx = f;
    const cbu = f.createKey({ rateLimitPerSecond: 10_000 });
    const informes = f.createKey({ product: 'informes', scopes: ['lookup'], rateLimitPerSecond: 10_000 });
    const sandbox = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 10_000 });
    const requests = Array.from({ length: 90 }, (_, i) => {
      switch (i % 3) {
        case 0:
          return fx.app.inject({ method: 'GET', url: `/api/v1/lookup?${MIXED[0]!.query}`, headers: auth(cbu) });
        case 1:
          return fx.app.inject({
            method: 'POST',
            url: '/api/v1/credit/lookup',
            headers: { ...auth(informes), 'content-type': 'application/json' },
            payload: JSON.stringify({ tax_id: '20-28765432-5' }),
          });
        default:
          return fx.app.inject({ method: 'GET', url: '/api/v1/lookup?identifier=0110001300000012345674&type=cbu', headers: auth(sandbox) });
      }
    });
    const responses = await Promise.all(requests);
    const ok = (mod: number) => responses.filter((r, i) => i % 3 === mod && r.statusCode === 200).length;
    expect(ok(0)).toBe(7);
    expect(ok(1)).toBe(3);
    expect(ok(2)).toBe(30);
    expect(fx.balance('cbu')).toBe(0);
    expect(fx.balance('informes')).toBe(0);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });

  it('two instances on one data directory (server + CLI connections): 2 × 100 lookups against 30 credits → exactly 30 charged', async () => {
    const M = 30;
    f = await createFixture({ credits: { cbu: M } });
    f.importDirectory(DIRECTORY_CSV);
    const key = f.createKey({ rateLimitPerSecond: 10_000 });
    const fx = f;
    const second = openTitular({ dataDir: fx.dataDir, keyProvider: headlessKeyProvider(fx.dataDir, {}) });
    const secondApp = buildHttpApi(second);
    try {
      await secondApp.ready();
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 ? secondApp : fx.app).inject({ method: 'GET', url: `/api/v1/lookup?${MIXED[i % 3]!.query}`, headers: auth(key) }),
        ),
      );
      const charged = responses.filter((r) => r.statusCode !== 402);
      expect(charged).toHaveLength(M);
      expectRemainingIsAPermutation(
        charged.map((r) => r.json().credits_remaining as number),
        M,
      );
    } finally {
      await secondApp.close();
      second.close();
    }
    expect(fx.balance('cbu')).toBe(0);
    checkLedgerInvariants(fx.titular.database.sqlite);
  });
});

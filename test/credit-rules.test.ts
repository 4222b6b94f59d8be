// Which outcomes consume a credit (contract §7, decisions "Order of checks" and "Sandbox"), as one
// table over GET /api/v1/lookup (CBU) and POST /api/v1/credit/lookup (Informes), live and sandbox.
// Every row runs on a fresh data directory and asserts the balance delta, `credits_remaining`
// (value or absence), the history delta and the ledger invariants.
import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { auth, createFixture, type Fixture } from './support/fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from './support/directory-data';
import { importCreditRecords } from './support/credit-data';
import { checkLedgerInvariants } from './support/invariants';
import { errorBodySchema, type ProductSlug } from '../src/shared/api/common';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDIT_REPORTS, SANDBOX_NOT_FOUND, SANDBOX_UPSTREAM_FAILURE } from '../src/main/core/resolvers/sandbox-data';
import type { KeyEnvironment } from '../src/main/core/keys/secrets';

type Endpoint = 'GET /api/v1/lookup' | 'POST /api/v1/lookup' | 'POST /api/v1/credit/lookup';
type Outcome = '200' | 'PA006' | 'PA011' | 'GE500' | '402' | '401' | '403' | '429' | 'INVALID_PARAMETER' | '200 at zero balance';

interface Row {
  endpoint: Endpoint;
  env: KeyEnvironment;
  outcome: Outcome;
  status: number;
  code: string | null;
  /** Whether one credit of the endpoint's product is taken. */
  consumes: boolean;
  /** `credits_remaining` in the body: the balance after the request, or absent. */
  creditsRemaining: 'balance after' | 'absent';
  /** History entries written (GE500 keeps its entry; 401/403/429/402/malformed write none). */
  history: 0 | 1;
  title: string;
}

const STARTING_CREDITS = 5;
const productOf = (endpoint: Endpoint): ProductSlug => (endpoint === 'POST /api/v1/credit/lookup' ? 'informes' : 'cbu');

const LIVE_CBU_OK = DIR.individual.cbu;
const SANDBOX_CBU_OK = SANDBOX_ACCOUNTS[0]!.account.number;
const TAX_ID_OK = SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id;
const badTaxId = (taxId: string) => taxId.slice(0, -1) + String((Number(taxId.at(-1)) + 1) % 10);

/** The request payload each outcome needs (the key, rate limit and balance are set up separately). */
function payloadFor(endpoint: Endpoint, env: KeyEnvironment, outcome: Outcome): unknown {
  const cbuOk = env === 'live' ? LIVE_CBU_OK : SANDBOX_CBU_OK;
  const cbuMissing = env === 'live' ? DIR.missing.cbu : SANDBOX_NOT_FOUND.cbu;
  if (outcome === 'INVALID_PARAMETER') return '__raw__["not", "an", "object"]';
  if (endpoint === 'POST /api/v1/credit/lookup') {
    switch (outcome) {
      case 'PA006':
        return { tax_id: badTaxId(TAX_ID_OK) };
      case 'PA011':
        return { tax_id: SANDBOX_NOT_FOUND.taxId };
      case 'GE500':
        // Sandbox: the sample data's failing tax id. Live: any tax id, with the remote resolver
        // chosen but not configured (set up in the test), so the live source cannot answer.
        return { tax_id: env === 'live' ? TAX_ID_OK : SANDBOX_UPSTREAM_FAILURE.taxId };
      default:
        return { tax_id: TAX_ID_OK };
    }
  }
  switch (outcome) {
    case 'PA006':
      return { identifier: breakCheckDigit(cbuOk), type: 'cbu' };
    case 'PA011':
      return { identifier: cbuMissing, type: 'cbu' };
    case 'GE500':
      return { identifier: SANDBOX_UPSTREAM_FAILURE.cbu, type: 'cbu' };
    default:
      return { identifier: cbuOk, type: 'cbu' };
  }
}

function send(f: Fixture, endpoint: Endpoint, key: string | null, payload: unknown): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = key ? auth(key) : {};
  if (endpoint === 'GET /api/v1/lookup') {
    const { identifier, type } = payload as { identifier: string; type: string };
    return f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${encodeURIComponent(identifier)}&type=${type}`, headers });
  }
  const url = endpoint.split(' ')[1]!;
  const raw = typeof payload === 'string' && payload.startsWith('__raw__') ? payload.slice('__raw__'.length) : JSON.stringify(payload);
  return f.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: raw });
}

const rows: Row[] = [];
const add = (endpoint: Endpoint, env: KeyEnvironment, outcome: Outcome, status: number, code: string | null, consumes: boolean, history: 0 | 1) =>
  rows.push({
    endpoint,
    env,
    outcome,
    status,
    code,
    consumes,
    history,
    // Present on a success (always), on an error that consumed a credit, and on 402 (then 0).
    creditsRemaining: status === 200 || consumes || outcome === '402' ? 'balance after' : 'absent',
    title: `${endpoint} ${env} ${outcome} → ${status}, ${consumes ? 'consumes a credit' : 'consumes nothing'}, history +${history}`,
  });

for (const endpoint of ['GET /api/v1/lookup', 'POST /api/v1/credit/lookup'] as const) {
  // live
  add(endpoint, 'live', '200', 200, null, true, 1);
  add(endpoint, 'live', 'PA006', 400, 'PA006', true, 1);
  add(endpoint, 'live', 'PA011', 404, 'PA011', true, 1);
  if (endpoint === 'POST /api/v1/credit/lookup') add(endpoint, 'live', 'GE500', 503, 'GE500', false, 1);
  add(endpoint, 'live', '402', 402, 'INSUFFICIENT_CREDITS', false, 0);
  add(endpoint, 'live', '401', 401, 'UNAUTHORIZED', false, 0);
  add(endpoint, 'live', '403', 403, 'FORBIDDEN', false, 0);
  add(endpoint, 'live', '429', 429, 'RATE_LIMITED', false, 0);
  // sandbox: nothing ever consumes, and a zero balance is no reason to refuse
  add(endpoint, 'sandbox', '200', 200, null, false, 1);
  add(endpoint, 'sandbox', '200 at zero balance', 200, null, false, 1);
  add(endpoint, 'sandbox', 'PA006', 400, 'PA006', false, 1);
  add(endpoint, 'sandbox', 'PA011', 404, 'PA011', false, 1);
  add(endpoint, 'sandbox', 'GE500', 503, 'GE500', false, 1);
  add(endpoint, 'sandbox', '401', 401, 'UNAUTHORIZED', false, 0);
  add(endpoint, 'sandbox', '403', 403, 'FORBIDDEN', false, 0);
  add(endpoint, 'sandbox', '429', 429, 'RATE_LIMITED', false, 0);
}
// A non-object JSON body is a malformed request, not a lookup (GET has no body: its POST twin).
for (const endpoint of ['POST /api/v1/lookup', 'POST /api/v1/credit/lookup'] as const) {
  for (const env of ['live', 'sandbox'] as const) add(endpoint, env, 'INVALID_PARAMETER', 400, 'INVALID_PARAMETER', false, 0);
}

let f: Fixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const countLookups = (fx: Fixture) => (fx.titular.database.sqlite.prepare('SELECT COUNT(*) AS n FROM lookups').get() as { n: number }).n;

describe('credit rules: which outcomes consume a credit', () => {
  it.each(rows)('$title', async (row) => {
    const product = productOf(row.endpoint);
    const zero = row.outcome === '402' || row.outcome === '200 at zero balance';
    f = await createFixture({ credits: { cbu: product === 'cbu' && zero ? 0 : STARTING_CREDITS, informes: product === 'informes' && zero ? 0 : STARTING_CREDITS } });
    f.importDirectory(DIRECTORY_CSV);
    importCreditRecords(f);
    if (row.outcome === 'GE500' && row.env === 'live') f.titular.settings.set(product === 'cbu' ? 'resolver.cbu' : 'resolver.informes', 'remote');

    const otherProduct: ProductSlug = product === 'cbu' ? 'informes' : 'cbu';
    // Every scope the product's keys can hold (history is for CBU keys only).
    const scopesOf = (p: ProductSlug) => (p === 'cbu' ? (['lookup', 'balance', 'history'] as const) : (['lookup', 'balance'] as const));
    const keyOptions = { environment: row.env, product, scopes: [...scopesOf(product)] };
    let key: string | null;
    switch (row.outcome) {
      case '401':
        // A well-formed key of the right environment that was never issued.
        key = `${row.env === 'live' ? 'sk_live_' : 'sk_test_'}${'Z'.repeat(32)}`;
        break;
      case '403':
        key = f.createKey({ ...keyOptions, product: otherProduct, scopes: [...scopesOf(otherProduct)] });
        break;
      case '429': {
        key = f.createKey({ ...keyOptions, rateLimitPerSecond: 1 });
        // Empty the bucket (burst 20) with free balance reads.
        let limited = false;
        for (let i = 0; i < 40 && !limited; i++) {
          const res = await f.app.inject({ method: 'GET', url: '/api/v1/balance', headers: auth(key) });
          limited = res.statusCode === 429;
        }
        expect(limited).toBe(true);
        break;
      }
      default:
        key = f.createKey({ ...keyOptions, rateLimitPerSecond: 10_000 });
    }

    const balanceBefore = f.balance(product);
    const otherBefore = f.balance(otherProduct);
    const historyBefore = countLookups(f);
    const ledgerBefore = f.titular.ledger.entries(f.orgId, { kind: 'consumption', limit: 10_000 }).length;

    const res = await send(f, row.endpoint, key, payloadFor(row.endpoint, row.env, row.outcome));
    f.titular.commits.flush();

    expect(res.statusCode, res.body).toBe(row.status);
    const body = res.json();
    expect(body.request_id).toBe(res.headers['request-id']);
    if (row.code === null) {
      expect(body.success).toBe(true);
    } else {
      expect(errorBodySchema.strict().parse(body).error.code).toBe(row.code);
    }

    const balanceAfter = f.balance(product);
    expect(balanceAfter, 'balance delta').toBe(balanceBefore - (row.consumes ? 1 : 0));
    expect(f.balance(otherProduct), 'the other product is untouched').toBe(otherBefore);
    if (row.creditsRemaining === 'absent') {
      expect(body).not.toHaveProperty('credits_remaining');
    } else {
      expect(body.credits_remaining).toBe(balanceAfter);
    }
    if (row.outcome === '402') expect(body.credits_remaining).toBe(0);

    expect(countLookups(f) - historyBefore, 'history delta').toBe(row.history);
    const consumptions = f.titular.ledger.entries(f.orgId, { kind: 'consumption', limit: 10_000 });
    expect(consumptions.length - ledgerBefore, 'ledger consumption delta').toBe(row.consumes ? 1 : 0);

    if (row.history === 1) {
      const entry = f.titular.database.sqlite
        .prepare('SELECT id, environment, product, credit_consumed, http_status, error_code, request_id FROM lookups ORDER BY id DESC LIMIT 1')
        .get() as { id: string; environment: string; product: string; credit_consumed: number; http_status: number; error_code: string | null; request_id: string };
      expect(entry).toMatchObject({
        environment: row.env,
        product,
        credit_consumed: row.consumes ? 1 : 0,
        http_status: row.status,
        error_code: row.code,
        request_id: body.request_id,
      });
      if (row.consumes) expect(consumptions[0]!.lookupId).toBe(entry.id);
    }
    if (row.outcome === 'GE500') expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    if (row.outcome === '429') expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    checkLedgerInvariants(f.titular.database.sqlite);
  });
});

describe('credit rules: the same request through GET and POST /api/v1/lookup costs the same', () => {
  it('GET and POST each take one credit for 200, PA006 and PA011; a sandbox key takes none', async () => {
    f = await createFixture({ credits: { cbu: 20 } });
    f.importDirectory(DIRECTORY_CSV);
    const live = f.createKey({ rateLimitPerSecond: 10_000 });
    const sandbox = f.createKey({ environment: 'sandbox', rateLimitPerSecond: 10_000 });
    const cases: [string, number][] = [
      [LIVE_CBU_OK, 200],
      [breakCheckDigit(LIVE_CBU_OK), 400],
      [DIR.missing.cbu, 404],
    ];
    for (const [identifier, status] of cases) {
      for (const endpoint of ['GET /api/v1/lookup', 'POST /api/v1/lookup'] as const) {
        const before = f.balance('cbu');
        const res = await send(f, endpoint, live, { identifier, type: 'cbu' });
        expect(res.statusCode).toBe(status);
        expect(res.json().credits_remaining).toBe(before - 1);
        expect(f.balance('cbu')).toBe(before - 1);
      }
    }
    const before = f.balance('cbu');
    for (const identifier of [SANDBOX_CBU_OK, breakCheckDigit(SANDBOX_CBU_OK), SANDBOX_NOT_FOUND.cbu, SANDBOX_UPSTREAM_FAILURE.cbu]) {
      for (const endpoint of ['GET /api/v1/lookup', 'POST /api/v1/lookup'] as const) {
        await send(f, endpoint, sandbox, { identifier, type: 'cbu' });
      }
    }
    expect(f.balance('cbu')).toBe(before);
    const totals = checkLedgerInvariants(f.titular.database.sqlite);
    expect(totals.find((t) => t.product === 'cbu')).toMatchObject({ balance: 14, totalPurchased: 20, totalConsumed: 6 });
  });
});

describe('credit rules: HEAD is a safe method', () => {
  // Fastify answers HEAD for every GET route by running the GET handler (exposeHeadRoutes). A HEAD
  // of /api/v1/lookup must not run a charged lookup whose result the client never receives.
  it('HEAD /api/v1/lookup consumes no credit and writes no history', async () => {
    f = await createFixture({ credits: { cbu: STARTING_CREDITS } });
    f.importDirectory(DIRECTORY_CSV);
    const key = f.createKey({ rateLimitPerSecond: 10_000 });
    const historyBefore = countLookups(f);
    const res = await f.app.inject({ method: 'HEAD', url: `/api/v1/lookup?identifier=${LIVE_CBU_OK}&type=cbu`, headers: auth(key) });
    f.titular.commits.flush();
    expect(res.statusCode).not.toBe(500);
    expect(f.balance('cbu'), `HEAD answered ${res.statusCode} and took a credit`).toBe(STARTING_CREDITS);
    expect(countLookups(f) - historyBefore).toBe(0);
    checkLedgerInvariants(f.titular.database.sqlite);
  });
});

// The remote resolver's circuit breaker, through the HTTP API: it opens after the threshold of
// consecutive failed attempts (the upstream then receives nothing), answers 503 GE500 with the
// remaining cooldown as Retry-After, lets one trial through after the cooldown, and closes on its
// success or opens again on its failure. Numbers: 3 attempts, threshold 5, cooldown 1 s.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIR } from '../support/directory-data';
import { expectError, getWithKey } from '../support/http-helpers';
import { checkLedgerInvariants } from '../support/invariants';
import { startFakeUpstream } from '../support/fake-upstream';
import { TEST_REMOTE, UPSTREAM_KEY, createRemoteFixture, type RemoteFixture } from './remote-fixture';

let f: RemoteFixture;
let key: string;
const COOLDOWN_MS = TEST_REMOTE.cooldownMs!;

beforeEach(async () => {
  f = await createRemoteFixture({ credits: { cbu: 100 } });
  key = f.createKey();
  f.configureRemote();
  f.useRemote('cbu');
});
afterEach(() => f.close());

const lookup = () => getWithKey(f, `/api/v1/lookup?identifier=${DIR.missing.cbu}&type=cbu`, key);
const breaker = () => f.titular.remote.status().breaker;

/** Waits (bounded) until the open circuit's cooldown has passed. */
async function cooledDown(): Promise<void> {
  const until = Date.now() + COOLDOWN_MS * 10;
  while (breaker().state === 'open') {
    if (Date.now() > until) throw new Error('the circuit did not cool down');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(breaker().state).toBe('half-open');
}

/** Fails 5 attempts (3 + 2): the fifth opens the circuit and ends the second lookup early. */
async function openTheCircuit(): Promise<void> {
  f.upstream.setMode({ kind: 'failing' });
  expectError(await lookup(), 503, 'GE500');
  expect(f.upstream.takeHits()).toHaveLength(3);
  expect(breaker()).toMatchObject({ state: 'closed', consecutiveFailures: 3 });
  const second = await lookup();
  expectError(second, 503, 'GE500');
  expect(f.upstream.takeHits()).toHaveLength(2);
  expect(breaker()).toMatchObject({ state: 'open', consecutiveFailures: 5, failureThreshold: 5, cooldownMs: COOLDOWN_MS });
  expect(breaker().openUntil).not.toBeNull();
  // The caller is told to come back once the cooldown is over (whole seconds, rounded up).
  expect(second.headers['retry-after']).toBe(String(Math.ceil(COOLDOWN_MS / 1000)));
}

describe('circuit breaker', () => {
  it('opens after 5 consecutive failures: lookups fail fast with GE500, no credit, and no traffic upstream', async () => {
    await openTheCircuit();
    const before = f.balance('cbu');
    for (let i = 0; i < 5; i++) {
      const res = await lookup();
      expectError(res, 503, 'GE500', { creditsRemaining: 'absent' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(f.upstream.takeHits()).toHaveLength(0);
    expect(f.balance('cbu')).toBe(before);
    // The reason stays the upstream's, not "circuit open".
    expect(f.titular.remote.status().lastError).toMatchObject({ kind: 'server-error' });
    checkLedgerInvariants(f.titular.database.sqlite);
  });

  it('half-open after the cooldown: one trial; its success closes the circuit', async () => {
    await openTheCircuit();
    await cooledDown();
    f.upstream.setMode({ kind: 'ok' });
    expect((await lookup()).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(1);
    expect(breaker()).toMatchObject({ state: 'closed', consecutiveFailures: 0, openUntil: null });
    expect((await lookup()).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(1);
  });

  it('half-open: a failed trial opens the circuit again for a whole cooldown, without retrying', async () => {
    await openTheCircuit();
    await cooledDown();
    expectError(await lookup(), 503, 'GE500');
    expect(f.upstream.takeHits()).toHaveLength(1);
    expect(breaker().state).toBe('open');
    expectError(await lookup(), 503, 'GE500');
    expect(f.upstream.takeHits()).toHaveLength(0);
  });

  it('half-open lets exactly one trial through while concurrent lookups fail fast', async () => {
    await openTheCircuit();
    await cooledDown();
    f.upstream.setMode({ kind: 'ok', delayMs: 300 });
    const answers = await Promise.all([lookup(), lookup(), lookup()]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 503, 503]);
    expect(f.upstream.takeHits()).toHaveLength(1);
    expect(breaker().state).toBe('closed');
  });

  it('a flapping upstream (every other request fails) never reaches the threshold: every lookup succeeds', async () => {
    f.upstream.setMode({ kind: 'flapping' });
    for (let i = 0; i < 8; i++) expect((await lookup()).statusCode).toBe(200);
    expect(f.upstream.takeHits()).toHaveLength(16);
    expect(breaker()).toMatchObject({ state: 'closed' });
    expect(breaker().consecutiveFailures).toBe(0);
  });

  it('refusals (401) do not open the circuit: the upstream is up, our key is not accepted', async () => {
    f.upstream.setMode({ kind: 'reject', status: 401 });
    for (let i = 0; i < 7; i++) expectError(await lookup(), 503, 'GE500');
    expect(f.upstream.takeHits()).toHaveLength(7);
    expect(breaker()).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('the circuit belongs to a base URL: pointing the resolver at another upstream starts closed', async () => {
    await openTheCircuit();
    const other = await startFakeUpstream({ key: UPSTREAM_KEY });
    try {
      f.configureRemote({ baseUrl: other.url });
      expect(breaker().state).toBe('closed');
      expect((await lookup()).statusCode).toBe(200);
      expect(other.hits).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

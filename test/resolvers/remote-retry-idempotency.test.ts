// The remote resolver retries an attempt whose answer it did not get (a timeout, a 5xx, a dropped
// connection), but the upstream may well have answered it — and charged the organization's upstream
// wallet for it. Every attempt of one lookup carries the same Idempotency-Key, so the upstream (a
// compatible API, which honours the header as decisions "POST endpoints" say) replays its first
// answer instead of charging a second time. The upstream here is a real Titular behind a proxy that
// loses the upstream's first answers after they were given.
//
// A lookup run again as the same lookup (an API request retried with its Idempotency-Key after a
// GE500, a bulk item run again by a resume) sends the same key upstream as its first run did.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createFixture, type Fixture } from '../support/fixture';
import { DIR, DIRECTORY_CSV } from '../support/directory-data';
import { importCreditRecords } from '../support/credit-data';
import { getWithKey, postJson } from '../support/http-helpers';
import { checkLedgerInvariants } from '../support/invariants';
import { SANDBOX_CREDIT_REPORTS } from '../../src/main/core/resolvers/sandbox-data';
import { TEST_REMOTE } from './remote-fixture';
import { bulkList } from '../bulk/bulk-data';

/** Forwards every request to `target`; the first `lose` answers (1 unless reset says) are taken from the upstream and then lost (502). */
async function startLossyProxy(target: string): Promise<{ url: string; seen: (string | undefined)[]; reset(lose?: number): void; close(): Promise<void> }> {
  const seen: (string | undefined)[] = [];
  let lose = 1;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const key = request.headers['idempotency-key'];
      seen.push(typeof key === 'string' ? key : undefined);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      const upstream = await fetch(`${target}${request.url}`, { method: request.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
      const body = await upstream.text();
      if (seen.length <= lose) {
        // The upstream answered (and charged); its answer never reaches the caller.
        response.writeHead(502, { 'content-type': 'application/json' }).end('{"success":false,"error":{"code":"GE500","message":"bad gateway"}}');
        return;
      }
      response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    reset: (answersToLose = 1) => {
      seen.splice(0);
      lose = answersToLose;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('remote resolver retries: the upstream charges a lookup once', () => {
  let upstream: Fixture;
  let upstreamUrl: string;
  let upstreamCbuKey: string;
  let upstreamInformesKey: string;
  let proxy: Awaited<ReturnType<typeof startLossyProxy>>;
  let local: Fixture;

  beforeAll(async () => {
    upstream = await createFixture({ credits: { cbu: 10, informes: 10 }, keyDefaults: { rateLimitPerSecond: 1000 } });
    upstream.importDirectory(DIRECTORY_CSV);
    importCreditRecords(upstream);
    upstreamCbuKey = upstream.createKey({ scopes: ['lookup'] });
    upstreamInformesKey = upstream.createKey({ product: 'informes', scopes: ['lookup'] });
    await upstream.app.listen({ port: 0, host: '127.0.0.1' });
    upstreamUrl = `http://127.0.0.1:${(upstream.app.server.address() as AddressInfo).port}`;
    proxy = await startLossyProxy(upstreamUrl);
    local = await createFixture({ remote: { ...TEST_REMOTE, failureThreshold: 1_000 }, credits: { cbu: 10, informes: 10 }, keyDefaults: { rateLimitPerSecond: 1000 } });
    local.titular.settings.set('remote.baseUrl', proxy.url);
    local.titular.settings.set('remote.timeoutMs', 2_000);
    local.titular.settings.set('resolver.cbu', 'remote');
    local.titular.settings.set('resolver.informes', 'remote');
  });
  afterAll(async () => {
    await proxy.close();
    await local.close();
    await upstream.close();
  });

  it('GET lookup: the retry after a lost answer is replayed upstream, not charged again', async () => {
    proxy.reset();
    local.titular.secrets.set('remote.upstreamKey', upstreamCbuKey);
    const upstreamBefore = upstream.balance('cbu');
    const res = await getWithKey(local, `/api/v1/lookup?identifier=${DIR.individual.cbu}&type=cbu`, local.createKey());
    expect(res.statusCode).toBe(200);
    expect(res.json().data.account.number).toBe(DIR.individual.cbu);
    expect(proxy.seen).toHaveLength(2);
    // Both attempts carried one Idempotency-Key, which no other lookup uses.
    expect(proxy.seen[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(proxy.seen[1]).toBe(proxy.seen[0]);
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 1);
    expect(local.balance('cbu')).toBe(9);
    checkLedgerInvariants(upstream.titular.database.sqlite);
    checkLedgerInvariants(local.titular.database.sqlite);
  });

  it('POST credit lookup: the same', async () => {
    proxy.reset();
    local.titular.secrets.set('remote.upstreamKey', upstreamInformesKey);
    const upstreamBefore = upstream.balance('informes');
    const taxId = SANDBOX_CREDIT_REPORTS[0]!.subject.tax_id;
    const res = await postJson(local, '/api/v1/credit/lookup', { tax_id: taxId }, auth(local.createKey({ product: 'informes', scopes: ['lookup'] })));
    expect(res.statusCode).toBe(200);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]).toBe(proxy.seen[0]);
    expect(upstream.balance('informes')).toBe(upstreamBefore - 1);
    expect(local.balance('informes')).toBe(9);
  });

  it('each lookup has an Idempotency-Key of its own: a second lookup of the same account is charged upstream again', async () => {
    proxy.reset();
    local.titular.secrets.set('remote.upstreamKey', upstreamCbuKey);
    const key = local.createKey();
    await getWithKey(local, `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, key);
    const upstreamBefore = upstream.balance('cbu');
    const again = await getWithKey(local, `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, key);
    expect(again.statusCode).toBe(200);
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 1);
    expect(new Set(proxy.seen.filter(Boolean)).size).toBe(2);
  });

  it('an API retry with its Idempotency-Key after a GE500 is replayed upstream, not charged there again', async () => {
    proxy.reset(TEST_REMOTE.attempts!);
    local.titular.secrets.set('remote.upstreamKey', upstreamCbuKey);
    const key = local.createKey();
    const upstreamBefore = upstream.balance('cbu');
    const localBefore = local.balance('cbu');
    const url = `/api/v1/lookup?identifier=${DIR.joint.cbu}&type=cbu`;
    const headers = { 'idempotency-key': 'pago-4711' };
    // Every attempt reached the upstream, which charged the first; every answer was lost.
    const failed = await getWithKey(local, url, key, headers);
    expect(failed.statusCode).toBe(503);
    expect(failed.json().error.code).toBe('GE500');
    expect(local.balance('cbu')).toBe(localBefore);
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 1);

    const retried = await getWithKey(local, url, key, headers);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().data.account.number).toBe(DIR.joint.cbu);
    expect(proxy.seen).toHaveLength(TEST_REMOTE.attempts! + 1);
    expect(new Set(proxy.seen).size).toBe(1);
    // The client's own key does not reach the upstream.
    expect(proxy.seen[0]).not.toContain('pago-4711');
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 1);
    expect(local.balance('cbu')).toBe(localBefore - 1);

    // Another Idempotency-Key is another lookup: charged upstream again.
    const other = await getWithKey(local, url, key, { 'idempotency-key': 'pago-4712' });
    expect(other.statusCode).toBe(200);
    expect(proxy.seen.at(-1)).not.toBe(proxy.seen[0]);
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 2);
    checkLedgerInvariants(upstream.titular.database.sqlite);
    checkLedgerInvariants(local.titular.database.sqlite);
  });

  it('a bulk item run again by a resume is replayed upstream, not charged there again', async () => {
    proxy.reset(TEST_REMOTE.attempts!);
    local.titular.secrets.set('remote.upstreamKey', upstreamCbuKey);
    const upstreamBefore = upstream.balance('cbu');
    const { job } = local.titular.bulk.prepare({ orgId: local.orgId, userId: local.adminId, product: 'cbu', name: 'reintento.txt', content: bulkList([DIR.wallet.cbu]).text });
    const first = await local.titular.bulk.run(local.orgId, job.id);
    expect(first.end).toBe('paused');
    expect(first.progress).toMatchObject({ done: 0, retryable: 1, charged: 0 });
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 1);

    const resumed = await local.titular.bulk.run(local.orgId, job.id);
    expect(resumed).toMatchObject({ end: 'completed', progress: { done: 1, charged: 1 } });
    expect(new Set(proxy.seen).size).toBe(1);
    expect(upstream.balance('cbu')).toBe(upstreamBefore - 1);
    checkLedgerInvariants(upstream.titular.database.sqlite);
    checkLedgerInvariants(local.titular.database.sqlite);
  });
});

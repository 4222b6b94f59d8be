// A Titular whose remote resolver points at a fake upstream on 127.0.0.1, with the retry and
// breaker numbers shortened so the tests run in well under a second per case. Same shape as
// test/support/fixture.ts (whose core is opened with the default numbers).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { openTitular, type Titular } from '../../src/main/core/titular';
import { buildHttpApi } from '../../src/main/core/http/server';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { parseDirectoryFile } from '../../src/main/core/directory/directory-file';
import type { RemoteResolverOptions } from '../../src/main/core/resolvers/remote-resolver';
import type { ProductSlug } from '../../src/shared/api/common';
import type { Fixture } from '../support/fixture';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream';

export const UPSTREAM_KEY = 'sk_live_UpstreamKeyForTheFakeServer0001';

/** Short numbers for tests; the production defaults are REMOTE_DEFAULTS. */
export const TEST_REMOTE: RemoteResolverOptions = {
  attempts: 3,
  backoffBaseMs: 10,
  backoffMaxMs: 40,
  deadlineMs: 5_000,
  maxRetryAfterMs: 1_500,
  failureThreshold: 5,
  cooldownMs: 1_000,
};

export interface RemoteFixture extends Fixture {
  upstream: FakeUpstream;
  /** Points the remote resolver at the fake: base URL, timeout and the upstream key. */
  configureRemote(options?: { timeoutMs?: number; key?: string; baseUrl?: string }): void;
  useRemote(product: ProductSlug | 'both'): void;
}

export async function createRemoteFixture(options: { remote?: RemoteResolverOptions; credits?: Partial<Record<ProductSlug, number>> } = {}): Promise<RemoteFixture> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-remote-'));
  const titular: Titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}), remote: { ...TEST_REMOTE, ...options.remote } });
  const { org, admin } = titular.users.initialize({ orgName: 'Acme Cobranzas', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' });
  const operator = titular.users.add(org.id, { name: 'Oscar Operador', email: 'oscar@acme.test', role: 'operator' }, admin.id);
  const logs: string[] = [];
  const app = buildHttpApi(titular, { log: (line) => logs.push(line) });
  await app.ready();
  const upstream = await startFakeUpstream({ key: UPSTREAM_KEY });
  const f: RemoteFixture = {
    dataDir,
    titular,
    app,
    orgId: org.id,
    adminId: admin.id,
    operatorId: operator.id,
    logs,
    upstream,
    createKey(input = {}) {
      return titular.keys.create({
        orgId: org.id,
        ownerUserId: admin.id,
        actorUserId: admin.id,
        product: 'cbu',
        scopes: ['lookup', 'balance', 'history'],
        environment: 'live',
        rateLimitPerSecond: 1000,
        ...input,
      }).secret;
    },
    addCredits(product, amount) {
      titular.ledger.addPurchase({ orgId: org.id, product, amount, userId: admin.id });
    },
    balance(product) {
      return titular.ledger.balance(org.id, product);
    },
    importDirectory(csv) {
      const parsed = parseDirectoryFile(csv, 'csv');
      if (parsed.errors.length > 0) throw new Error(`fixture directory invalid: ${JSON.stringify(parsed.errors)}`);
      titular.directory.import(org.id, parsed, { skipInvalid: false, actorUserId: admin.id });
    },
    configureRemote({ timeoutMs = 2_000, key = UPSTREAM_KEY, baseUrl = upstream.url } = {}) {
      titular.settings.set('remote.baseUrl', baseUrl);
      titular.settings.set('remote.timeoutMs', timeoutMs);
      titular.secrets.set('remote.upstreamKey', key);
    },
    useRemote(product) {
      if (product === 'cbu' || product === 'both') titular.settings.set('resolver.cbu', 'remote');
      if (product === 'informes' || product === 'both') titular.settings.set('resolver.informes', 'remote');
    },
    async close() {
      await app.close();
      await upstream.close();
      titular.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  for (const [product, amount] of Object.entries(options.credits ?? {})) {
    if (amount) f.addCredits(product as ProductSlug, amount);
  }
  return f;
}

/** Asserts that `secret` is in no file of the data directory (database, WAL, key file) nor the logs. */
export function expectSecretNowhere(f: RemoteFixture, secret: string): void {
  f.titular.commits.flush();
  const needle = Buffer.from(secret, 'utf8');
  for (const name of readdirSync(f.dataDir)) {
    const bytes = readFileSync(path.join(f.dataDir, name));
    expect(bytes.includes(needle), `${name} holds the secret`).toBe(false);
  }
  expect(f.logs.join('\n')).not.toContain(secret);
}

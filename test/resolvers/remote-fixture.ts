// A Titular whose remote resolver points at a fake upstream on 127.0.0.1, with the retry and
// breaker numbers shortened so the tests run in well under a second per case. Same shape as
// test/support/fixture.ts, which it extends (that one opens the core with the default numbers).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { RemoteResolverOptions } from '../../src/main/core/resolvers/remote-resolver';
import type { ProductSlug } from '../../src/shared/api/common';
import { createFixture, type Fixture } from '../support/fixture';
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
  const base = await createFixture({
    tmpPrefix: 'titular-remote-',
    remote: { ...TEST_REMOTE, ...options.remote },
    keyDefaults: { rateLimitPerSecond: 1000 },
    credits: options.credits,
  });
  const { titular } = base;
  const upstream = await startFakeUpstream({ key: UPSTREAM_KEY });
  return {
    ...base,
    upstream,
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
      await upstream.close();
      await base.close();
    },
  };
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

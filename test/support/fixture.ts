// A fresh Titular on a temporary data directory: one organization, an admin, an operator, and the
// HTTP API built over it. Tests call the API through Fastify's inject or a real socket.
import type { WalSync } from '../../src/main/core/db/commit-queue';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openTitular, type Titular } from '../../src/main/core/titular';
import { buildHttpApi, type HttpApiOptions } from '../../src/main/core/http/server';
import { headlessKeyProvider } from '../../src/main/headless/config';
import type { CreateKeyInput } from '../../src/main/core/keys/api-keys';
import type { ProductSlug } from '../../src/shared/api/common';
import type { RemoteResolverOptions } from '../../src/main/core/resolvers/remote-resolver';
import { parseDirectoryFile } from '../../src/main/core/directory/directory-file';
import { liveKeyInput } from './data-dir';

export interface Fixture {
  dataDir: string;
  titular: Titular;
  app: FastifyInstance;
  orgId: string;
  adminId: string;
  operatorId: string;
  logs: string[];
  createKey(input?: Partial<Omit<CreateKeyInput, 'orgId'>>): string;
  addCredits(product: ProductSlug, amount: number): void;
  balance(product: ProductSlug): number;
  importDirectory(csv: string): void;
  close(): Promise<void>;
}

export interface FixtureOptions extends HttpApiOptions {
  credits?: Partial<Record<ProductSlug, number>>;
  /** The remote resolver's retry and breaker numbers (default: the production ones). */
  remote?: RemoteResolverOptions;
  /** Defaults of createKey over the fixture's own (a cbu live key for lookup, balance and history). */
  keyDefaults?: Partial<Omit<CreateKeyInput, 'orgId'>>;
  /** Prefix of the temporary data directory's name; an absolute one also chooses its disk (a small one). */
  tmpPrefix?: string;
  /** Durable mode, with the WAL flush under the test's control when `syncWal` is given. */
  synchronous?: 'NORMAL' | 'FULL';
  syncWal?: WalSync;
  /** The core's housekeeping interval and where its background faults go (TitularOptions). */
  housekeepingIntervalMs?: number;
  onFault?: (line: string) => void;
}

export async function createFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const { credits, remote, keyDefaults, tmpPrefix = 'titular-test-', synchronous, syncWal, housekeepingIntervalMs, onFault, ...httpOptions } = options;
  const dataDir = mkdtempSync(path.isAbsolute(tmpPrefix) ? tmpPrefix : path.join(os.tmpdir(), tmpPrefix));
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}), ...(remote ? { remote } : {}), synchronous, syncWal, housekeepingIntervalMs, onFault });
  const { org, admin } = titular.users.initialize({ orgName: 'Acme Cobranzas', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' });
  const operator = titular.users.add(org.id, { name: 'Oscar Operador', email: 'oscar@acme.test', role: 'operator' }, admin.id);
  const logs: string[] = [];
  const app = buildHttpApi(titular, { ...httpOptions, log: (line) => logs.push(line) });
  await app.ready();
  const fixture: Fixture = {
    dataDir,
    titular,
    app,
    orgId: org.id,
    adminId: admin.id,
    operatorId: operator.id,
    logs,
    createKey(input = {}) {
      return titular.keys.create(liveKeyInput(org.id, admin.id, { ...keyDefaults, ...input })).secret;
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
    async close() {
      await app.close();
      titular.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  for (const [product, amount] of Object.entries(credits ?? {})) {
    if (amount) fixture.addCredits(product as ProductSlug, amount);
  }
  return fixture;
}

export const auth = (key: string) => ({ authorization: `Bearer ${key}` });

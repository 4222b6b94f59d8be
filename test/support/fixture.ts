// A fresh Titular on a temporary data directory: one organization, an admin, an operator, and the
// HTTP API built over it. Tests call the API through Fastify's inject or a real socket.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openTitular, type Titular } from '../../src/main/core/titular';
import { buildHttpApi, type HttpApiOptions } from '../../src/main/core/http/server';
import { headlessKeyProvider } from '../../src/main/headless/config';
import type { CreateKeyInput } from '../../src/main/core/keys/api-keys';
import type { ProductSlug } from '../../src/shared/api/common';
import { parseDirectoryFile } from '../../src/main/core/directory/directory-file';

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

export async function createFixture(options: HttpApiOptions & { credits?: Partial<Record<ProductSlug, number>> } = {}): Promise<Fixture> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-test-'));
  const titular = openTitular({ dataDir, keyProvider: headlessKeyProvider(dataDir, {}) });
  const { org, admin } = titular.users.initialize({ orgName: 'Acme Cobranzas', adminName: 'Ada Admin', adminEmail: 'ada@acme.test' });
  const operator = titular.users.add(org.id, { name: 'Oscar Operador', email: 'oscar@acme.test', role: 'operator' }, admin.id);
  const logs: string[] = [];
  const app = buildHttpApi(titular, { ...options, log: (line) => logs.push(line) });
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
      return titular.keys.create({
        orgId: org.id,
        ownerUserId: admin.id,
        actorUserId: admin.id,
        product: 'cbu',
        scopes: ['lookup', 'balance', 'history'],
        environment: 'live',
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
    async close() {
      await app.close();
      titular.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  for (const [product, amount] of Object.entries(options.credits ?? {})) {
    if (amount) fixture.addCredits(product as ProductSlug, amount);
  }
  return fixture;
}

export const auth = (key: string) => ({ authorization: `Bearer ${key}` });

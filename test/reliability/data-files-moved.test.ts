// The data directory, or the database's `-shm` file, deleted while the server runs (a cleanup script,
// a sync tool). SQLite would go on writing into the open files: lookups charged into a directory that
// no longer exists, lost at shutdown; or, beside a `-shm` another process made anew, two writers with
// separate locks corrupting the database. The server checks its files before each group commit and,
// once they are gone, records nothing more: every lookup is refused with a GE500 that says what
// happened and what to do, the log says it once, and reads go on.
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auth, createFixture } from '../support/fixture';
import { startServer } from '../support/processes';
import { answered, bearer, Client, expectErrorAnswer, generatedDirectory, jsonPost, prepareDataDir } from './harness';

const directory = generatedDirectory(100);
const prepared = prepareDataDir({ keys: { live: {} }, credits: { cbu: 1000 }, directoryCsv: directory.csv });
const copies = mkdtempSync(path.join(os.tmpdir(), 'titular-moved-'));
afterAll(() => {
  rmSync(prepared.dataDir, { recursive: true, force: true });
  rmSync(copies, { recursive: true, force: true });
});


const cases: [string, (dataDir: string) => void, (dataDir: string) => string][] = [
  ['the data directory deleted', (dataDir) => rmSync(dataDir, { recursive: true }), (dataDir) => path.join(dataDir, 'titular.db')],
  ['its -shm file deleted', (dataDir) => rmSync(path.join(dataDir, 'titular.db-shm')), (dataDir) => path.join(dataDir, 'titular.db-shm')],
  // Its path can no longer be looked at (ENOTDIR): not checkable counts as moved. The check used to throw
  // from the group commit's timer, losing the batch and ending the process.
  [
    'the data directory replaced by a file',
    (dataDir) => {
      rmSync(dataDir, { recursive: true });
      writeFileSync(dataDir, 'not a folder');
    },
    (dataDir) => path.join(dataDir, 'titular.db'),
  ],
];

describe('data files deleted while the server runs', () => {
  it.each(cases)('%s: nothing more is recorded or charged, every lookup says why, the log says it once', { timeout: 30_000 }, async (name, remove, fileOf) => {
    const dataDir = path.join(copies, name.replaceAll(' ', '-'));
    cpSync(prepared.dataDir, dataDir, { recursive: true });
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    const client = new Client(server.url, 4);
    const secret = prepared.keys.live.secret;
    const lookup = (i: number) => jsonPost('/api/v1/lookup', secret, { identifier: directory.cbus[i]!, type: 'cbu' });
    try {
      expect(answered(await client.send(lookup(0))).status).toBe(200);
      remove(dataDir);
      const said = `Titular's data files were deleted, replaced or made unreachable while it ran (${fileOf(dataDir)}): nothing more is recorded or charged. Stop Titular, check its data directory (restore a backup if it is gone), then start it again`;
      for (const outcome of await Promise.all([1, 2, 3, 4, 5, 6].map((i) => client.send(lookup(i))))) {
        expect(expectErrorAnswer(outcome, 500, 'GE500').error.message).toBe(said);
      }
      // Reads go on, from what the process has open: the one lookup charged before.
      const balance = JSON.parse(answered(await client.send({ path: '/api/v1/balance', headers: bearer(secret) })).text);
      expect(balance.balances.find((b: { productSlug: string }) => b.productSlug === 'cbu').balance).toBe(999);
      const faults = server.output().split('\n').filter((line) => line.startsWith('error'));
      expect(faults).toEqual([`error: ${said}`]);
    } finally {
      client.close();
      await server.stop();
    }
    // Deleted, the directory stays deleted: nothing was written into a new one at its path.
    if (name === 'the data directory deleted') expect(existsSync(dataDir)).toBe(false);
  });

  it('once they are gone, no other write of the process goes into them either (a purchase, a key change)', async () => {
    const f = await createFixture({ credits: { cbu: 10 } });
    try {
      f.importDirectory(directory.csv);
      const key = f.createKey();
      rmSync(path.join(f.dataDir, 'titular.db-shm'));
      const refused = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${directory.cbus[0]}&type=cbu`, headers: auth(key) });
      expect(refused.json().error.message).toMatch(/^Titular's data files were deleted, replaced or made unreachable while it ran/);
      expect(() => f.addCredits('cbu', 5)).toThrow(/readonly/);
      expect(() => f.createKey()).toThrow(/readonly/);
      expect(f.balance('cbu')).toBe(10);
    } finally {
      await f.close();
    }
  });
});

// Another process keeps the database's write lock past the busy timeout (5 s): a CLI command stopped
// with Ctrl-Z while it held it, a second server frozen in a debugger. The server process must tell
// its clients to retry (503 GE500 with Retry-After, nothing charged), keep answering reads while its
// lookups wait, say it once in its log, and record lookups again as soon as the lock is let go, with
// no restart. (It used to answer 500 "Internal error" and to answer nothing at all while it waited:
// SQLite's busy handler slept on the event loop. Its 30 s housekeeping write died of the same lock,
// ending the process: test/reliability/disk-full.test.ts covers that path on a full disk.)
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_BUSY_MESSAGE } from '../../src/main/core/db/database-busy';
import { checkLedgerInvariants } from '../support/invariants';
import { startServer } from '../support/processes';
import { answered, Client, countOf, expectErrorAnswer, generatedDirectory, jsonPost, openDatabaseFile, prepareDataDir, bearer } from './harness';
import { rmSync } from 'node:fs';

const ROOT = path.resolve(__dirname, '../..');
const directory = generatedDirectory(200);
const prepared = prepareDataDir({ keys: { live: {} }, credits: { cbu: 1000 }, directoryCsv: directory.csv });
afterAll(() => rmSync(prepared.dataDir, { recursive: true, force: true }));

/** A process that takes the write lock (BEGIN IMMEDIATE), says so, and commits after `holdMs`. */
function holdWriteLock(dataDir: string, holdMs: number): Promise<{ child: ChildProcess; released: Promise<void>; isReleased: () => boolean }> {
  const script = `
    const db = new (require('better-sqlite3'))(${JSON.stringify(path.join(dataDir, 'titular.db'))});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let done = false;
  const released = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void released.then(() => (done = true));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve({ child, released, isReleased: () => done }));
    child.once('error', reject);
  });
}

describe('a write lock another process keeps', () => {
  it('lookups are answered 503 with Retry-After and charge nothing; reads go on; the server records again once it is let go', { timeout: 60_000 }, async () => {
    const server = await startServer(['--port', '0', '--data-dir', prepared.dataDir]);
    const client = new Client(server.url, 6);
    const secret = prepared.keys.live.secret;
    const lookup = (i: number) => jsonPost('/api/v1/lookup', secret, { identifier: directory.cbus[i]!, type: 'cbu' });
    try {
      expect(answered(await client.send(lookup(0))).status).toBe(200);

      const lock = await holdWriteLock(prepared.dataDir, 7_000);
      // The lookups wait for the lock between attempts for 5 s, then are refused (the lock is held 7 s).
      const waiting = Promise.all([1, 2, 3, 4, 5].map(async (i) => ({ i, outcome: await client.send(lookup(i)) })));
      // Meanwhile the server goes on answering: a read needs no write lock (WAL). Before, SQLite's busy
      // handler slept on the event loop, and every request waited with the lookups.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const balance = answered(await client.send({ path: '/api/v1/balance', headers: bearer(secret) }));
      expect(lock.isReleased()).toBe(false);
      expect(JSON.parse(balance.text).balances.find((b: { productSlug: string }) => b.productSlug === 'cbu').balance).toBe(999);

      const during = await waiting;
      const refused = during.filter(({ outcome }) => answered(outcome).status !== 200);
      expect(refused.length).toBeGreaterThan(0);
      for (const { outcome } of refused) {
        expect(expectErrorAnswer(outcome, 503, 'GE500').error.message).toBe(DATABASE_BUSY_MESSAGE);
        expect(answered(outcome).headers['retry-after']).toBe('2');
      }

      await lock.released;
      // The refused requests again, once the lock is let go: recorded and charged once each.
      const retried = await Promise.all(refused.map(({ i }) => client.send(lookup(i))));
      expect(retried.map((o) => answered(o).status)).toEqual(refused.map(() => 200));

      const faults = server.output().split('\n').filter((line) => line.startsWith('error '));
      expect(faults).toHaveLength(1);
      expect(faults[0]).toContain(`another process kept the database in ${prepared.dataDir} locked for more than 5 s`);
    } finally {
      client.close();
      expect(await server.stop()).toBe(0);
    }
    const db = openDatabaseFile(prepared.dataDir);
    try {
      const [totals] = checkLedgerInvariants(db);
      expect(totals!.balance).toBe(1000 - 6);
      expect(countOf(db, 'SELECT count(*) AS n FROM lookups WHERE credit_consumed = 1')).toBe(6);
    } finally {
      db.close();
    }
  });
});

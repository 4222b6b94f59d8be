// A full disk under load. The data directory lives on a small tmpfs; a file then takes every byte
// left, and the API, the CLI and the desktop's channels go on being used until the file is removed.
//   - Every lookup answers as usual or with the documented GE500 body that says the disk is full;
//     only the answered ones are charged, and the ledger and the history agree (I1–I8).
//   - Reads keep working; the server's log says it once, in words, with the folder to free.
//   - Once there is room again the same process records lookups again, with no restart, and an
//     Idempotency-Key whose request failed runs once when retried (nothing was stored for it).
//   - The CLI and the desktop's channels say the same sentence; a bulk job stopped by it is resumed.
//   - A data directory on a disk already full is named at start (SQLite itself says "disk I/O error").
//   - The core's housekeeping (keys' last use) fails on it too: reported and retried, never the end
//     of the process (it used to be: an error thrown from a timer).
// Mounting needs root (the CI machine runs as root); elsewhere the tests are skipped.
import { closeSync, cpSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DISK_FULL_MESSAGE } from '../../src/main/core/db/disk-full';
import { createBridgeFixture } from '../support/bridge-fixture';
import { auth, createFixture } from '../support/fixture';
import { checkLedgerInvariants } from '../support/invariants';
import { startServer } from '../support/processes';
import { mountSmallDisk } from '../support/small-disk';
import { answered, bearer, Client, countOf, expectErrorAnswer, generatedDirectory, jsonPost, openDatabaseFile, prepareDataDir, runCli, type Outcome, type RequestSpec } from './harness';

const disk = mountSmallDisk(16 * 1024);
afterAll(() => disk?.unmount());

/** Takes every byte left on the disk (then the last few hundred too); returns how to give them back. */
function fillDisk(dir: string): () => void {
  const file = path.join(dir, 'filler');
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512]) {
      const chunk = Buffer.alloc(size, 0xaa);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(file);
}

const directory = generatedDirectory(1500);

/** How many lookups of each outcome; every answer must be one of the two. */
function tally(outcomes: Outcome[]) {
  let ok = 0;
  let full = 0;
  for (const outcome of outcomes) {
    const answer = answered(outcome);
    if (answer.status === 200) ok++;
    else {
      expect(expectErrorAnswer(outcome, 500, 'GE500').error.message).toBe(DISK_FULL_MESSAGE);
      full++;
    }
  }
  return { ok, full };
}

describe.skipIf(!disk)('a full disk', () => {
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    it(`serve (${synchronous}): lookups fail plainly and charge nothing while the disk is full, and record again once it is not`, { timeout: 60_000 }, async () => {
      const prepared = prepareDataDir({ keys: { live: {} }, credits: { cbu: 10_000 }, directoryCsv: directory.csv });
      const dataDir = path.join(disk!.dir, `data-${synchronous}`);
      cpSync(prepared.dataDir, dataDir, { recursive: true });
      rmSync(prepared.dataDir, { recursive: true, force: true });
      const server = await startServer(['--port', '0', '--data-dir', dataDir], { TITULAR_SYNCHRONOUS: synchronous });
      const client = new Client(server.url, 8);
      const secret = prepared.keys.live.secret;
      let next = 0;
      // POST and GET in turn, each for an account of its own.
      const lookup = (): RequestSpec => {
        const cbu = directory.cbus[next++]!;
        return next % 2 ? jsonPost('/api/v1/lookup', secret, { identifier: cbu, type: 'cbu' }) : { path: `/api/v1/lookup?identifier=${cbu}&type=cbu`, headers: bearer(secret) };
      };
      const burst = (specs: RequestSpec[]) => Promise.all(specs.map((spec) => client.send(spec)));
      const balance = async () => {
        const { balances } = JSON.parse(answered(await client.send({ path: '/api/v1/balance', headers: bearer(secret) })).text) as { balances: { productSlug: string; balance: number }[] };
        return balances.find((b) => b.productSlug === 'cbu')!;
      };
      let freeDisk: (() => void) | null = null;
      try {
        const before = tally(await burst(Array.from({ length: 40 }, () => lookup())));
        expect(before).toEqual({ ok: 40, full: 0 });

        freeDisk = fillDisk(disk!.dir);
        const whileFull = tally(await burst(Array.from({ length: 200 }, () => lookup())));
        expect(whileFull.full).toBeGreaterThan(0);
        // Reads need no room: the balance is what the answered lookups left.
        expect((await balance()).balance).toBe(10_000 - 40 - whileFull.ok);

        // The CLI says the same sentence, and its purchase is not recorded.
        const purchase = await runCli(['credits', 'add', '--product', 'cbu', '--amount', '500', '--data-dir', dataDir]);
        expect(purchase.code).toBe(1);
        expect(purchase.stderr).toBe(`titular: ${DISK_FULL_MESSAGE}\n`);

        freeDisk();
        freeDisk = null;
        const after = tally(await burst(Array.from({ length: 40 }, () => lookup())));
        expect(after).toEqual({ ok: 40, full: 0 });
        expect((await balance()).balance).toBe(10_000 - (40 + whileFull.ok + 40));

        // The log: one line for the whole episode, in words, naming the folder to free (no per-request flood).
        const faults = server.output().split('\n').filter((line) => line.startsWith('error '));
        expect(faults).toHaveLength(1);
        expect(faults[0]).toContain(`the disk holding ${dataDir} is full`);
      } finally {
        freeDisk?.();
        client.close();
        expect(await server.stop()).toBe(0);
      }

      const db = openDatabaseFile(dataDir);
      try {
        const [totals] = checkLedgerInvariants(db);
        expect(totals!.balance).toBe(countOf(db, "SELECT 10000 - count(*) AS n FROM lookups WHERE credit_consumed = 1 AND environment = 'live'"));
        expect(countOf(db, 'SELECT count(*) AS n FROM credit_ledger WHERE kind = ?', 'purchase')).toBe(1);
      } finally {
        db.close();
      }
    });
  }

  it('the idempotent retry of a lookup that failed on the full disk runs once', { timeout: 30_000 }, async () => {
    const prepared = prepareDataDir({ keys: { live: {} }, credits: { cbu: 100 }, directoryCsv: directory.csv });
    const dataDir = path.join(disk!.dir, 'data-idempotent');
    cpSync(prepared.dataDir, dataDir, { recursive: true });
    rmSync(prepared.dataDir, { recursive: true, force: true });
    const server = await startServer(['--port', '0', '--data-dir', dataDir], { TITULAR_SYNCHRONOUS: 'FULL' });
    const client = new Client(server.url, 1);
    const request = jsonPost('/api/v1/lookup', prepared.keys.live.secret, { identifier: directory.cbus[0]!, type: 'cbu' }, { 'idempotency-key': 'pago-proveedor-1' });
    const freeDisk = fillDisk(disk!.dir);
    try {
      expect(expectErrorAnswer(await client.send(request), 500, 'GE500').error.message).toBe(DISK_FULL_MESSAGE);
    } finally {
      freeDisk();
    }
    try {
      const retry = answered(await client.send(request));
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      const replay = answered(await client.send(request));
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(retry.text);
      expect(JSON.parse(replay.text).credits_remaining).toBe(99);
    } finally {
      client.close();
      await server.stop();
    }
  });

  it('a data directory whose disk is already full: serve and the CLI say so at start, naming the folder (SQLite says "disk I/O error")', { timeout: 30_000 }, async () => {
    const prepared = prepareDataDir({ keys: { live: {} } });
    const dataDir = path.join(disk!.dir, 'data-at-start');
    cpSync(prepared.dataDir, dataDir, { recursive: true });
    rmSync(prepared.dataDir, { recursive: true, force: true });
    const freeDisk = fillDisk(disk!.dir);
    const said = `The disk holding ${dataDir} is full: Titular cannot open its data there. Free some space on it and try again`;
    try {
      await expect(startServer(['--port', '0', '--data-dir', dataDir])).rejects.toThrow(`titular serve: ${said}`);
      const list = await runCli(['keys', 'list', '--data-dir', dataDir]);
      expect(list).toMatchObject({ code: 1, stdout: '', stderr: `titular: ${said}\n` });
    } finally {
      freeDisk();
    }
    const list = await runCli(['keys', 'list', '--data-dir', dataDir]);
    expect(list.code, list.stderr).toBe(0);
  });

  it('the housekeeping that falls on a full disk is reported and tried again, not the end of the process', { timeout: 30_000 }, async () => {
    const faults: string[] = [];
    const f = await createFixture({ credits: { cbu: 100 }, tmpPrefix: path.join(disk!.dir, 'housekeeping-'), housekeepingIntervalMs: 50, onFault: (line) => faults.push(line) });
    let freeDisk: (() => void) | null = null;
    try {
      f.importDirectory(directory.csv);
      const key = f.createKey();
      const keyId = f.titular.keys.list(f.orgId)[0]!.id;
      const lastUsedOnDisk = () => (f.titular.database.sqlite.prepare('SELECT last_used_at AS at FROM api_keys WHERE id = ?').get(keyId) as { at: number | null }).at;
      freeDisk = fillDisk(disk!.dir);
      // A lookup refused on the full disk still used the key: its last use waits to be written.
      const refused = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${directory.cbus[0]}&type=cbu`, headers: auth(key) });
      expect(refused.json()).toMatchObject({ error: { code: 'GE500', message: DISK_FULL_MESSAGE } });
      // Several ticks on the full disk: each one says so (before, the first one's error ended the process).
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(faults.length).toBeGreaterThan(1);
      expect(faults[0]).toBe(`error in the background: writing the API keys' last use failed (the disk holding ${f.dataDir} is full); tried again in a moment`);
      expect(lastUsedOnDisk()).toBeNull();
      // The admin's key list is a read: it works, and shows the use from memory (it used to fail on the same write).
      expect(f.titular.keys.list(f.orgId).find((k) => k.id === keyId)!.lastUsedAt).not.toBeNull();

      freeDisk();
      freeDisk = null;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(lastUsedOnDisk()).not.toBeNull();
      const lookup = await f.app.inject({ method: 'GET', url: `/api/v1/lookup?identifier=${directory.cbus[0]}&type=cbu`, headers: auth(key) });
      expect(lookup.statusCode).toBe(200);
    } finally {
      freeDisk?.();
      await f.close();
    }
  });

  it("the desktop's channels say it in the error they answer, and a bulk job it stopped is resumed to the end", { timeout: 60_000 }, async () => {
    const f = await createBridgeFixture({ credits: { cbu: 1000 }, tmpPrefix: path.join(disk!.dir, 'bridge-') });
    let freeDisk: (() => void) | null = null;
    try {
      f.importDirectory(directory.csv);
      const full = { ok: false, error: { code: 'GE500', message: DISK_FULL_MESSAGE, status: 500 } };
      const items = directory.cbus.slice(0, 300);
      const { body: created } = await f.call('bulk.create', { name: 'proveedores', product: 'cbu', content: items.join('\n') });
      expect(created.ok).toBe(true);
      const id = created.value.job.id;

      freeDisk = fillDisk(disk!.dir);
      expect((await f.call('credits.purchase', { product: 'cbu', amount: 50, reference: 'factura 1' })).body).toEqual(full);
      expect((await f.call('lookup.account', { identifier: directory.cbus[1000]!, type: 'cbu' })).body).toEqual(full);
      expect((await f.call('balance.get', {})).body.ok).toBe(true);
      expect(f.balance('cbu')).toBe(1000);

      // The run cannot even mark the job running: it ends at once, says why, and leaves the job to resume
      // (before, a run that failed that early left the job "active" in this process for good).
      expect((await f.call('bulk.start', { id })).body.ok).toBe(true);
      let job = await waitForEnd(f, id);
      expect(job.lastError).toBe(DISK_FULL_MESSAGE);
      expect(job.progress.done).toBeLessThan(items.length);

      freeDisk();
      freeDisk = null;
      expect((await f.call('bulk.start', { id })).body.ok).toBe(true);
      job = await waitForEnd(f, id);
      expect(job).toMatchObject({ status: 'completed', lastError: null, progress: { done: items.length, charged: items.length } });
      expect(f.balance('cbu')).toBe(1000 - items.length);
      checkLedgerInvariants(f.titular.database.sqlite);
      // The fixture's log (the API's faults go there) stayed quiet: the channels' errors are answered, not faults.
      expect(f.logs.filter((line) => line.startsWith('error '))).toEqual([]);
    } finally {
      freeDisk?.();
      await f.close();
    }
  });
});

/** Polls bulk.get as the screen does until the job no longer runs (bounded). */
async function waitForEnd(f: Awaited<ReturnType<typeof createBridgeFixture>>, id: string) {
  for (let i = 0; i < 400; i++) {
    const { body } = await f.call('bulk.get', { id });
    if (!body.value.job.active) return body.value.job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`bulk job ${id} still running after the polling budget`);
}

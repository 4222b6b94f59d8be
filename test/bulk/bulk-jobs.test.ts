// Bulk jobs through the core (`titular.bulk`): create, run, resume, out of credits, pause/cancel,
// GE500 retries, two processes on one job, and the export. Every test ends with the ledger invariants.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { openTitular, type Titular } from '../../src/main/core/titular';
import { headlessKeyProvider } from '../../src/main/headless/config';
import { UpstreamError } from '../../src/main/core/resolvers/resolver';
import type { BulkJobView } from '../../src/shared/api/bulk';
import { createFixture, type Fixture } from '../support/fixture';
import { checkLedgerInvariants } from '../support/invariants';
import { breakCheckDigit } from '../support/directory-data';
import { bulkList, csvCells, generateDirectory, spaced } from './bulk-data';
import { BulkJobStore, THIS_RUNNER } from '../../src/main/core/bulk/bulk-jobs';
import { BulkAlreadyCompleted } from '../../src/main/core/bulk/bulk-service';

/** This process's pid space as a runner names it (Linux): host name and PID namespace. */
const THIS_PID_SPACE = `${hostname()}/pidns-${/^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))![1]}`;

let f: Fixture;
const directory = generateDirectory(300);

beforeEach(async () => {
  f = await createFixture();
  f.importDirectory(directory.csv);
});
afterEach(async () => {
  vi.restoreAllMocks();
  checkLedgerInvariants(f.titular.database.sqlite);
  await f.close();
});

const sqlite = () => f.titular.database.sqlite;
const consumptions = () => (sqlite().prepare("SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'consumption'").get() as { n: number }).n;
const bulkHistory = () =>
  sqlite().prepare("SELECT input_identifier, credit_consumed, user_id, http_status FROM lookups WHERE source = 'BULK'").all() as {
    input_identifier: string;
    credit_consumed: number;
    user_id: string;
    http_status: number;
  }[];

/** Every item done once: one BULK history entry per item, joined by its lookup id, charged once. */
function expectEachItemOnce(jobId: string) {
  const rows = sqlite()
    .prepare(
      `SELECT i.identifier, i.lookup_id, l.source, l.credit_consumed, c.n AS consumptions
         FROM bulk_job_items i
         LEFT JOIN lookups l ON l.id = i.lookup_id
         LEFT JOIN (SELECT lookup_id, COUNT(*) AS n FROM credit_ledger GROUP BY lookup_id) c ON c.lookup_id = i.lookup_id
        WHERE i.job_id = ?`,
    )
    .all(jobId) as { identifier: string; lookup_id: string | null; source: string; credit_consumed: number; consumptions: number }[];
  for (const row of rows) expect(row, row.identifier).toMatchObject({ source: 'BULK', credit_consumed: 1, consumptions: 1 });
  const twice = sqlite().prepare("SELECT input_identifier FROM lookups WHERE source = 'BULK' AND http_status < 500 GROUP BY input_identifier HAVING COUNT(*) > 1").all();
  expect(twice).toEqual([]);
  return rows.length;
}

describe('a bulk job', () => {
  it('looks up each distinct valid identifier once, as the user who started it, and never the invalid rows', async () => {
    f.addCredits('cbu', 1000);
    const list = bulkList(directory.numbers.slice(0, 100), { repeatEvery: 4, invalid: [breakCheckDigit(directory.numbers[0]!), 'x'] });
    const content = `${list.text}${directory.aliases[0]!.toUpperCase()}\nnadie.tiene.esto\n`;
    const { job, resumed } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.operatorId, product: 'cbu', name: 'lote.csv', content });
    expect(resumed).toBe(false);
    expect(job).toMatchObject({
      status: 'pending',
      totalRows: list.rows + 2,
      totalItems: 102,
      invalidRows: 2,
      duplicateRows: list.repeats,
      user: { id: f.operatorId, email: 'oscar@acme.test' },
      progress: { total: 102, done: 0, remaining: 102, charged: 0 },
    });

    const progress: number[] = [];
    const result = await f.titular.bulk.run(f.orgId, job.id, { concurrency: 16, progressIntervalMs: 0, onProgress: (p) => progress.push(p.done) });
    expect(result.end).toBe('completed');
    expect(result.progress).toMatchObject({ total: 102, done: 102, remaining: 0, charged: 102, found: 101, notFound: 1, errors: 0, retryable: 0 });
    expect(progress.at(-1)).toBe(102);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    const after = f.titular.bulk.get(f.orgId, job.id);
    expect(after).toMatchObject({ status: 'completed', active: false });
    expect(after.finishedAt).not.toBeNull();
    expect(f.balance('cbu')).toBe(1000 - 102);
    expect(consumptions()).toBe(102);
    const history = bulkHistory();
    expect(history).toHaveLength(102);
    expect(new Set(history.map((h) => h.user_id))).toEqual(new Set([f.operatorId]));
    expect(expectEachItemOnce(job.id)).toBe(102);
    // The invalid rows are listed with their reasons and were never looked up.
    expect(f.titular.bulk.invalidRows(f.orgId, job.id).map((r) => r.input)).toEqual([breakCheckDigit(directory.numbers[0]!), 'x']);
    expect(history.some((h) => h.input_identifier === 'x')).toBe(false);
  });

  it('resumes the unfinished job of the same input and user instead of creating another', async () => {
    const content = bulkList(directory.numbers.slice(0, 10)).text;
    const first = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'a.txt', content });
    const again = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'a.txt', content });
    expect(again).toMatchObject({ resumed: true, job: { id: first.job.id } });
    // Another user, or another product, is another job.
    const other = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.operatorId, product: 'cbu', name: 'a.txt', content });
    expect(other.job.id).not.toBe(first.job.id);
    // Once completed, the same input makes a new job, and says which one completed before.
    f.addCredits('cbu', 100);
    await f.titular.bulk.run(f.orgId, first.job.id);
    // Asked to refuse a completed input (the CLI without --again): refused, and no job is created.
    const jobsBefore = sqlite().prepare('SELECT COUNT(*) FROM bulk_jobs').pluck().get();
    let refused: unknown;
    try {
      f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'a.txt', content, refuseCompleted: true });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(BulkAlreadyCompleted);
    expect((refused as BulkAlreadyCompleted).completed.id).toBe(first.job.id);
    expect(sqlite().prepare('SELECT COUNT(*) FROM bulk_jobs').pluck().get()).toBe(jobsBefore);
    const third = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'a.txt', content });
    expect(third).toMatchObject({ resumed: false, completedBefore: { id: first.job.id } });
    expect(third.job.id).not.toBe(first.job.id);
  });

  it('a job found unfinished, then completed by another process before this one runs it: completed, nothing looked up or charged again', async () => {
    f.addCredits('cbu', 100);
    const content = bulkList(directory.numbers.slice(0, 20)).text;
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'r.txt', content, refuseCompleted: true });
    const other = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    try {
      const joined = other.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'r.txt', content, refuseCompleted: true });
      expect(joined).toMatchObject({ resumed: true, job: { id: job.id } });
      expect((await other.bulk.run(f.orgId, job.id)).end).toBe('completed');
    } finally {
      other.close();
    }
    const charged = consumptions();
    const late = await f.titular.bulk.run(f.orgId, job.id, { joined: true });
    expect(late).toMatchObject({ end: 'completed', lookedUp: 0, progress: { total: 20, done: 20, charged: 20 } });
    expect(consumptions()).toBe(charged);
    // Not joined (`titular bulk resume` of a completed job): refused.
    await expect(async () => f.titular.bulk.run(f.orgId, job.id)).rejects.toThrow(/is completed; it cannot be run again/);
    expectEachItemOnce(job.id);
  });

  it('stops cleanly at 0 credits with the remainder reported, and a resume after a purchase finishes without charging twice', async () => {
    f.addCredits('cbu', 37);
    const list = bulkList(directory.numbers.slice(0, 120), { repeatEvery: 3 });
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'big.txt', content: list.text });
    const first = await f.titular.bulk.run(f.orgId, job.id, { concurrency: 32 });
    expect(first.end).toBe('out_of_credits');
    expect(first.progress).toMatchObject({ total: 120, done: 37, remaining: 83, charged: 37 });
    expect(f.titular.bulk.get(f.orgId, job.id)).toMatchObject({ status: 'out_of_credits', progress: { done: 37, remaining: 83 } });
    expect(f.balance('cbu')).toBe(0);
    expect(consumptions()).toBe(37);
    // No history entry for the lookups that met the empty wallet.
    expect(bulkHistory()).toHaveLength(37);
    // Done items are the first ones of the file: a resume continues in file order.
    const done = sqlite().prepare('SELECT identifier FROM bulk_job_items WHERE job_id = ? AND completed_at IS NOT NULL').all(job.id) as { identifier: string }[];
    expect(new Set(done.map((d) => d.identifier))).toEqual(new Set(directory.numbers.slice(0, 37)));

    f.addCredits('cbu', 100);
    const second = await f.titular.bulk.run(f.orgId, job.id, { concurrency: 32 });
    expect(second).toMatchObject({ end: 'completed', lookedUp: 83, progress: { done: 120, remaining: 0, charged: 120 } });
    expect(f.balance('cbu')).toBe(100 - 83);
    expect(consumptions()).toBe(120);
    expect(expectEachItemOnce(job.id)).toBe(120);
  });

  it('pauses (lookups in flight finish, the rest stays pending) and resumes; a cancelled job cannot run again', async () => {
    f.addCredits('cbu', 1000);
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'p.txt', content: bulkList(directory.numbers).text });
    let paused = null as Promise<BulkJobView> | null;
    const result = await f.titular.bulk.run(f.orgId, job.id, {
      concurrency: 4,
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (p.done >= 40 && !paused) paused = f.titular.bulk.pause(f.orgId, job.id);
      },
    });
    const view = await paused!;
    expect(result.end).toBe('paused');
    expect(view).toMatchObject({ status: 'paused', active: false });
    expect(view.progress.done).toBeGreaterThanOrEqual(40);
    expect(view.progress.done).toBeLessThan(300);
    expect(consumptions()).toBe(view.progress.done);

    // start answers once the run has marked the job running (that write waits for a foreign lock off the event loop).
    expect(await f.titular.bulk.start(f.orgId, job.id)).toMatchObject({ status: 'running', active: true });
    expect(() => f.titular.bulk.start(f.orgId, job.id)).toThrow(/already running/);
    const cancelled = await f.titular.bulk.cancel(f.orgId, job.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', active: false });
    expect(cancelled.finishedAt).not.toBeNull();
    expect(consumptions()).toBe(cancelled.progress.done);
    expect(() => f.titular.bulk.start(f.orgId, job.id)).toThrow(/cancelled/);
  });

  it('leaves GE500 identifiers pending without a charge, and retries them on the next run', async () => {
    f.addCredits('cbu', 100);
    const failing = new Set([directory.numbers[3]!, directory.numbers[7]!]);
    // The directory answers inside the recording transaction (resolveAccountNow); make it fail there.
    const original = f.titular.directory.resolveAccountNow.bind(f.titular.directory);
    const spy = vi.spyOn(f.titular.directory, 'resolveAccountNow').mockImplementation((query) => {
      if (query.kind === 'number' && failing.has(query.number)) throw new UpstreamError('down', 5);
      return original(query);
    });
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'g.txt', content: bulkList(directory.numbers.slice(0, 20)).text });
    const first = await f.titular.bulk.run(f.orgId, job.id);
    expect(first.end).toBe('paused');
    expect(first.progress).toMatchObject({ done: 18, remaining: 2, retryable: 2, charged: 18 });
    expect(consumptions()).toBe(18);

    // Still down: tried once more per run, still no charge, still retryable.
    const second = await f.titular.bulk.run(f.orgId, job.id);
    expect(second.progress).toMatchObject({ done: 18, retryable: 2, charged: 18 });

    spy.mockRestore();
    const third = await f.titular.bulk.run(f.orgId, job.id);
    expect(third).toMatchObject({ end: 'completed', lookedUp: 2, progress: { done: 20, retryable: 0, charged: 20 } });
    expect(consumptions()).toBe(20);
    // The failed attempts stay in the history (not charged); each identifier is charged once.
    expect(bulkHistory().filter((h) => h.http_status === 503)).toHaveLength(4);
    expect(expectEachItemOnce(job.id)).toBe(20);
  });

  it('never charges an item twice when two processes run the same job at once', async () => {
    f.addCredits('cbu', 10_000);
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'twice.txt', content: bulkList(directory.numbers).text });
    // A second core on the same data directory: another connection, like the CLI next to the server.
    const other: Titular = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    try {
      const [a, b] = await Promise.all([f.titular.bulk.run(f.orgId, job.id, { concurrency: 8 }), other.bulk.run(f.orgId, job.id, { concurrency: 8 })]);
      expect(a.error).toBeNull();
      expect(b.error).toBeNull();
      expect(a.lookedUp + b.lookedUp).toBe(300);
    } finally {
      other.close();
    }
    expect(consumptions()).toBe(300);
    expect(expectEachItemOnce(job.id)).toBe(300);
    expect(f.titular.bulk.get(f.orgId, job.id)).toMatchObject({ status: 'completed', progress: { done: 300, charged: 300 } });
  });

  it.each(['cancel', 'pause'] as const)('%s from another process stops a job this process runs: nothing is charged after it', async (action) => {
    f.addCredits('cbu', 10_000);
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'x.txt', content: bulkList(directory.numbers).text });
    // The CLI next to the desktop: another core on the same data directory stops the job.
    const other: Titular = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    let stopped = null as Promise<BulkJobView> | null;
    let doneAtStop = 0;
    try {
      const result = await f.titular.bulk.run(f.orgId, job.id, {
        concurrency: 4,
        progressIntervalMs: 0,
        onProgress: (p) => {
          if (p.done >= 30 && !stopped) {
            doneAtStop = p.done;
            stopped = other.bulk[action](f.orgId, job.id);
          }
        },
      });
      const seenElsewhere = await stopped!;
      const status = action === 'cancel' ? 'cancelled' : 'paused';
      expect(seenElsewhere.status).toBe(status);
      expect(result.end).toBe(status);
    } finally {
      other.close();
    }
    const view = f.titular.bulk.get(f.orgId, job.id);
    expect(view.status).toBe(action === 'cancel' ? 'cancelled' : 'paused');
    // At most the lookups already committed in the batch that saw the stop; none after it.
    expect(view.progress.done).toBeGreaterThanOrEqual(doneAtStop);
    expect(view.progress.done).toBeLessThan(doneAtStop + 10);
    expect(consumptions()).toBe(view.progress.done);
    expect(bulkHistory()).toHaveLength(view.progress.done);
    // The lookups that met the stop at commit rolled back with their items: those stay pending.
    const items = sqlite().prepare('SELECT COUNT(*) AS n, COUNT(lookup_id) AS lookedUp FROM bulk_job_items WHERE job_id = ?').get(job.id);
    expect(items).toEqual({ n: 300, lookedUp: view.progress.done });
  });

  it('a cancel from another process stands when the run it stops ends out of credits: never resumed, never charged', async () => {
    // The run's next lookup meets an empty wallet (402) before it could see the cancel on its item;
    // its end (out of credits, a resumable status) must not be written over the cancel.
    f.addCredits('cbu', 3);
    const content = bulkList(directory.numbers.slice(0, 50)).text;
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'x.txt', content });
    const other = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    try {
      let cancelled = false;
      const result = await other.bulk.run(f.orgId, job.id, {
        concurrency: 1,
        progressIntervalMs: 0,
        onProgress: (p) => {
          if (p.done >= 3 && !cancelled) {
            cancelled = true;
            // Another process: this core does not run the job, so it writes the cancel itself.
            void f.titular.bulk.cancel(f.orgId, job.id);
          }
        },
      });
      expect(cancelled).toBe(true);
      expect(result.end).toBe('cancelled');
    } finally {
      other.close();
    }
    expect(f.titular.bulk.get(f.orgId, job.id)).toMatchObject({ status: 'cancelled', progress: { done: 3 } });
    // After a purchase, the same file starts a new job instead of resuming the cancelled one.
    f.addCredits('cbu', 100);
    const again = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'x.txt', content });
    expect(again).toMatchObject({ resumed: false });
    expect(again.job.id).not.toBe(job.id);
    await expect(async () => f.titular.bulk.run(f.orgId, job.id)).rejects.toThrow(/cancelled/);
    expect(consumptions()).toBe(3);
    // A run that read the job before the cancel does not start it again either.
    expect(new BulkJobStore(sqlite()).transition(job.id, 'running', ['pending', 'running', 'paused', 'out_of_credits'], Date.now())).toBe(false);
  });

  it('a runner sharing a job that another runner left out of credits stops there instead of looking up the rest', async () => {
    f.addCredits('cbu', 1000);
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'o.txt', content: bulkList(directory.numbers).text });
    const resolved = vi.spyOn(f.titular.directory, 'resolveAccountNow');
    let stoppedElsewhere = false;
    const result = await f.titular.bulk.run(f.orgId, job.id, {
      concurrency: 1,
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (p.done >= 5 && !stoppedElsewhere) {
          stoppedElsewhere = true;
          // What the other runner writes when its lookup meets an empty wallet.
          sqlite().prepare("UPDATE bulk_jobs SET status = 'out_of_credits' WHERE id = ?").run(job.id);
        }
      },
    });
    expect(result.end).toBe('out_of_credits');
    expect(f.titular.bulk.get(f.orgId, job.id)).toMatchObject({ status: 'out_of_credits' });
    // One lookup past the stop (resolved, rolled back with its item, and resolved once more when the
    // commit queue reruns its batch write by write), not the other 295.
    expect(resolved.mock.calls.length).toBeLessThanOrEqual(result.progress.done + 2);
    expect(consumptions()).toBe(result.progress.done);
    const resumed = await f.titular.bulk.run(f.orgId, job.id);
    expect(resumed).toMatchObject({ end: 'completed', progress: { done: 300, charged: 300 } });
    expect(expectEachItemOnce(job.id)).toBe(300);
  });

  it('a job another process runs shows as running there; left "running" with an old heartbeat, as interrupted', async () => {
    f.addCredits('cbu', 10_000);
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'h.txt', content: bulkList(directory.numbers).text });
    const other: Titular = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    let seen = null as BulkJobView | null;
    try {
      await other.bulk.run(f.orgId, job.id, {
        concurrency: 2,
        progressIntervalMs: 0,
        onProgress: (p) => {
          if (p.done >= 20 && !seen) seen = f.titular.bulk.get(f.orgId, job.id);
        },
      });
    } finally {
      other.close();
    }
    expect(seen).toMatchObject({ status: 'running', active: false, runningElsewhere: true });
    // What a killed run leaves: "running", and no lookup committed for longer than any may take.
    sqlite().prepare("UPDATE bulk_jobs SET status = 'running', updated_at = ? WHERE id = ?").run(Date.now() - 120_000, job.id);
    expect(f.titular.bulk.get(f.orgId, job.id)).toMatchObject({ status: 'running', active: false, runningElsewhere: false });
  });

  it('a job left running by a process of this machine that is gone shows as interrupted at once; one still alive, as running elsewhere', async () => {
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'r.txt', content: bulkList(directory.numbers.slice(0, 3)).text });
    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    try {
      const leftBy = (runner: string) => {
        sqlite().prepare("UPDATE bulk_jobs SET status = 'running', updated_at = ?, runner = ? WHERE id = ?").run(Date.now(), runner, job.id);
        return f.titular.bulk.get(f.orgId, job.id).runningElsewhere;
      };
      expect(leftBy(`${THIS_PID_SPACE}:${gone.pid}`)).toBe(false);
      expect(leftBy(`${THIS_PID_SPACE}:${alive.pid}`)).toBe(true);
      // Not checkable from here: another machine, another container of the same name (its own PID
      // namespace), or this very process (which may hold other cores).
      expect(leftBy(`otra-pc:${gone.pid}`)).toBe(true);
      expect(leftBy(`${hostname()}/pidns-1:${gone.pid}`)).toBe(true);
      // A runner recorded before the namespace was: unknown too, so it waits for the 90 s.
      expect(leftBy(`${hostname()}:${gone.pid}`)).toBe(true);
      expect(leftBy(`${THIS_PID_SPACE}:${process.pid}`)).toBe(true);
    } finally {
      alive.kill();
    }
    // Setting a job running records this process; any other status clears it.
    const store = new BulkJobStore(sqlite());
    const runner = () => sqlite().prepare('SELECT runner FROM bulk_jobs WHERE id = ?').pluck().get(job.id);
    expect(store.transition(job.id, 'running', ['running'], Date.now())).toBe(true);
    expect(runner()).toBe(THIS_RUNNER);
    expect(THIS_RUNNER).toBe(`${THIS_PID_SPACE}:${process.pid}`);
    expect(store.transition(job.id, 'paused', ['running'], Date.now())).toBe(true);
    expect(runner()).toBeNull();
  });

  it('the heartbeat: a lookup of a running job refreshes its updated_at, at most every 5 s', () => {
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'b.txt', content: bulkList(directory.numbers.slice(0, 3)).text });
    const store = new BulkJobStore(sqlite());
    store.transition(job.id, 'running', ['pending'], 1_000);
    const [a, b, c] = store.pendingAfter(job.id, 0, 10);
    const updatedAt = () => sqlite().prepare('SELECT updated_at FROM bulk_jobs WHERE id = ?').pluck().get(job.id);
    const mark = (key: string, at: number) => store.markItem(job.id, key, { lookupId: `l-${key}`, status: 200, code: null, charged: true, at });
    mark(a!.key, 10_000);
    expect(updatedAt()).toBe(10_000);
    mark(b!.key, 12_000);
    expect(updatedAt()).toBe(10_000);
    mark(c!.key, 15_000);
    expect(updatedAt()).toBe(15_000);
  });

  it('a heartbeat rolled back with its batch is written again when the batch runs again', () => {
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'h.txt', content: bulkList(directory.numbers.slice(0, 3)).text });
    const store = new BulkJobStore(sqlite());
    store.transition(job.id, 'running', ['pending'], 1_000);
    const [a] = store.pendingAfter(job.id, 0, 10);
    const updatedAt = () => sqlite().prepare('SELECT updated_at FROM bulk_jobs WHERE id = ?').pluck().get(job.id);
    const mark = () => store.markItem(job.id, a!.key, { lookupId: 'l-a', status: 200, code: null, charged: true, at: 10_000 });
    // The batch: this item's lookup, then another write that fails and rolls everything back.
    const batch = sqlite().transaction(() => {
      mark();
      throw new Error('another write of the batch failed');
    });
    expect(() => batch()).toThrow('another write');
    expect(updatedAt()).toBe(1_000);
    // The batch again (CommitQueue: each write in its own savepoint): the heartbeat is written.
    sqlite().transaction(mark)();
    expect(updatedAt()).toBe(10_000);
  });

  it('of several processes sharing a job, the runner is the last one whose heartbeat was written', () => {
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 's.txt', content: bulkList(directory.numbers.slice(0, 2)).text });
    const store = new BulkJobStore(sqlite());
    store.transition(job.id, 'running', ['pending'], 1_000);
    // Another process joined the job and was killed: it is the recorded runner now.
    sqlite().prepare('UPDATE bulk_jobs SET runner = ? WHERE id = ?').run(`${THIS_PID_SPACE}:999999999`, job.id);
    const [a] = store.pendingAfter(job.id, 0, 10);
    store.markItem(job.id, a!.key, { lookupId: 'l-a', status: 200, code: null, charged: true, at: 10_000 });
    expect(sqlite().prepare('SELECT runner FROM bulk_jobs WHERE id = ?').pluck().get(job.id)).toBe(THIS_RUNNER);
  });

  it('closing the core pauses a running job; a new core resumes it where it stopped', async () => {
    f.addCredits('cbu', 10_000);
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'c.txt', content: bulkList(directory.numbers).text });
    const other = openTitular({ dataDir: f.dataDir, keyProvider: headlessKeyProvider(f.dataDir, {}) });
    let closed = false;
    const run = other.bulk.run(f.orgId, job.id, {
      concurrency: 4,
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (p.done >= 20 && !closed) {
          closed = true;
          other.close();
        }
      },
    });
    await run.catch(() => undefined);
    const view = f.titular.bulk.get(f.orgId, job.id);
    expect(view.status).toBe('paused');
    expect(view.progress.done).toBeGreaterThanOrEqual(20);
    expect(view.progress.done).toBeLessThan(300);
    expect(consumptions()).toBe(view.progress.done);
    const resumed = await f.titular.bulk.run(f.orgId, job.id);
    expect(resumed.end).toBe('completed');
    expect(consumptions()).toBe(300);
    expect(expectEachItemOnce(job.id)).toBe(300);
  });
});

describe('credit report jobs', () => {
  it('look up each CUIT/CUIL once with the informes credits', async () => {
    f.addCredits('informes', 10);
    const content = ['20-28765432-5', '20287654325', '30-71234567-1', '30-50001234-6', '20-12345678-0'].join('\n');
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'informes', name: 'cuits.txt', content });
    expect(job).toMatchObject({ totalRows: 5, totalItems: 3, invalidRows: 1, duplicateRows: 1 });
    const result = await f.titular.bulk.run(f.orgId, job.id);
    expect(result).toMatchObject({ end: 'completed', progress: { done: 3, charged: 3 } });
    expect(f.balance('informes')).toBe(7);
    const types = sqlite().prepare("SELECT DISTINCT input_type, product FROM lookups WHERE source = 'BULK'").all();
    expect(types).toEqual([{ input_type: 'CUIT', product: 'informes' }]);
  });
});

describe('the export', () => {
  it('has one row per input row in file order, with status, code, holders and the credit on the first row only', async () => {
    f.addCredits('cbu', 100);
    const n = directory.numbers;
    const content = ['identifier;type', `${n[0]};cbu`, `${spaced(n[0]!)};`, `${directory.aliases[1]};alias`, `nadie.tiene.esto;alias`, `${breakCheckDigit(n[2]!)};cbu`, `@SUM(1+1);`, `${n[3]};`].join('\n');
    const { job } = f.titular.bulk.prepare({ orgId: f.orgId, userId: f.adminId, product: 'cbu', name: 'e.csv', content });
    // Before running, every valid row is pending.
    const before = [...f.titular.bulk.exportCsv(f.orgId, job.id)].join('').trim().split('\r\n');
    expect(before.slice(1).map((l) => l.split(',')[4])).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'INVALID', 'INVALID', 'PENDING']);

    await f.titular.bulk.run(f.orgId, job.id);
    const lines = [...f.titular.bulk.exportCsv(f.orgId, job.id)].join('').trim().split('\r\n');
    expect(lines[0]).toBe('row,input,identifier,type,status,http_status,code,message,credit_consumed,duplicate_of_row,holder_names,holder_tax_ids,bank,lookup_id');
    expect(lines).toHaveLength(8);
    const cells = lines.slice(1).map((line) => csvCells(line));
    expect(cells.map((c) => c.slice(0, 7))).toEqual([
      ['2', n[0], n[0], 'CBU', 'SUCCESS', '200', ''],
      ['3', spaced(n[0]!), n[0], 'CBU', 'SUCCESS', '200', ''],
      ['4', directory.aliases[1], directory.aliases[1], 'ALIAS', 'SUCCESS', '200', ''],
      ['5', 'nadie.tiene.esto', 'nadie.tiene.esto', 'ALIAS', 'ERROR', '404', 'PA011'],
      ['6', breakCheckDigit(n[2]!), '', '', 'INVALID', '', ''],
      // A cell a spreadsheet would run as a formula is neutralized.
      ['7', "'@SUM(1+1)", '', '', 'INVALID', '', ''],
      ['8', n[3], n[3], 'CBU', 'SUCCESS', '200', ''],
    ]);
    expect(cells.map((c) => [c[8], c[9]])).toEqual([
      ['1', ''],
      ['0', '2'],
      ['1', ''],
      ['1', ''],
      ['0', ''],
      ['0', ''],
      ['1', ''],
    ]);
    expect(cells[0]!.slice(10, 13)).toEqual(['Titular Lote 0', expect.stringMatching(/^27\d{9}$/), 'Banco Santander Argentina S.A.']);
    expect(cells[0]![13]).toBe(cells[1]![13]);
  });
});

// With synchronous=FULL, what the desktop reads waits for the WAL flush in progress, as the API's
// balance and history answers do: no screen or export shows a lookup a power cut could still undo.
// The flush is the test's own (TitularOptions.syncWal), so "not yet on disk" lasts until it says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalSync } from '../src/main/core/db/commit-queue';
import { auth } from './support/fixture';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';
import { DIR, DIRECTORY_CSV } from './support/directory-data';

const flushes: ((error: Error | null) => void)[] = [];
const syncWal: WalSync = (_walFile, done) => {
  flushes.push(done);
};

let f: BridgeFixture;
beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 10 }, synchronous: 'FULL', syncWal });
  f.importDirectory(DIRECTORY_CSV);
});
afterAll(() => {
  // Ends any flush left so the last group commit can close.
  while (flushes.length > 0) flushes.shift()!(null);
  return f.close();
});

/** Whether a promise has settled, without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false, value: undefined as T | undefined };
  void promise.then((value) => Object.assign(state, { settled: true, value }));
  return state;
}
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('desktop reads under synchronous=FULL', () => {
  it('history, its export, the daily consumption and the balance answer only once the lookup they show is on disk', async () => {
    const key = f.createKey();
    const lookup = track(f.app.inject({ url: `/api/v1/lookup?identifier=${DIR.company.cbu}&type=cbu`, headers: auth(key) }));
    for (let i = 0; i < 50 && flushes.length === 0; i++) await turns(1);
    expect(flushes).toHaveLength(1); // committed; its flush is running
    expect(lookup.settled).toBe(false);

    const reads = {
      history: track(f.call('history.list', { page: 1, per_page: 10 })),
      exportCsv: track(f.call('history.exportCsv', {})),
      consumption: track(f.call('balance.dailyConsumption', { product: 'cbu', days: 7 })),
      balance: track(f.call('balance.get', {})),
    };
    await turns(20);
    for (const [name, read] of Object.entries(reads)) expect(read.settled, name).toBe(false);

    flushes.shift()!(null);
    await turns(20);
    expect(lookup.settled).toBe(true);
    // A read waits for a flush begun after it read (the one running then may predate its rows).
    expect(flushes).toHaveLength(1);
    flushes.shift()!(null);
    await turns(20);
    for (const [name, read] of Object.entries(reads)) expect(read.settled, name).toBe(true);
    // What they waited for is what they show.
    expect(reads.history.value!.body.value.data.map((e: { inputIdentifier: string }) => e.inputIdentifier)).toEqual([DIR.company.cbu]);
    expect(reads.exportCsv.value!.body.value.rows).toBe(1);
    expect(reads.consumption.value!.body.value.days.at(-1).consumed).toBe(1);
  });
});
